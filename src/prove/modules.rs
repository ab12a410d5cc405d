//! A copy checked module by module (`rfgen prove --rtl`, docs/prove.md). A copy that keeps the
//! generated block's modules and changes a few (a re-coded SRAM leaf, a renamed register) is
//! equivalent when each changed module is, on its own: an instance replaced by an equivalent one
//! (every output equal for every input sequence, from paired states) leaves every output of the
//! block the same. The unchanged modules need no proof, and each changed one is checked with
//! the modules under it only, where the whole block's memories would take the induction past its
//! limit (an unchanged copy of the `small` MRF, 16 banks of 64 × 128 bits: not proved in 15
//! minutes).

use super::equiv::{self, Equivalence, Sides, Source};
use anyhow::Result;
use rfgen_gen::Design;
use std::path::Path;
use std::time::Duration;

/// What the module-by-module check settled.
#[derive(Debug, PartialEq, Eq)]
pub enum ByModule {
    /// Every module the same as the generated one, comments and spacing aside.
    Same,
    /// These modules differ, and each is proved equivalent to the generated one on its own.
    Proved(Vec<String>),
    /// Not settled this way (why): the whole block is compared.
    Whole(String),
}

/// Compares `copy` (its Verilog files, name and text) with `generated` module by module, each
/// changed module's check in a folder of `dir` given `limit` per step.
pub fn check(generated: &Design, copy: &[(String, String)], limit: Duration, dir: &Path) -> Result<ByModule> {
    // A macro or an included file of the copy could change what an unchanged text means.
    if let Some((name, _)) = copy.iter().find(|(_, t)| t.contains("`define") || t.contains("`include")) {
        return Ok(ByModule::Whole(format!("{name} defines a macro or includes a file")));
    }
    let theirs: Vec<(String, String)> = copy.iter().flat_map(|(_, t)| modules(t)).collect();
    let mut changed = Vec::new();
    for module in &generated.manifest.modules {
        let Some((_, text)) = generated.files.iter().find(|(f, _)| *f == module.file) else {
            return Ok(ByModule::Whole(format!("the generated design has no {}", module.file)));
        };
        let ours = modules(text).into_iter().find(|(n, _)| *n == module.name).map(|(_, body)| body);
        let mut same_name = theirs.iter().filter(|(n, _)| *n == module.name);
        let (Some((_, body)), None) = (same_name.next(), same_name.next()) else {
            return Ok(ByModule::Whole(format!("the copy does not declare module {} exactly once", module.name)));
        };
        if ours.as_deref() != Some(body.as_str()) {
            changed.push(module.name.clone());
        }
    }
    if changed.is_empty() {
        return Ok(ByModule::Same);
    }
    if changed.contains(&generated.manifest.top) {
        return Ok(ByModule::Whole(format!("its top, {}, differs", generated.manifest.top)));
    }
    let ours: Vec<(String, String)> = generated.sources().cloned().collect();
    for name in &changed {
        let reset = generated.manifest.module(name).is_some_and(|m| m.ports.iter().any(|p| p.name == "rst"));
        let sides = Sides {
            top: name,
            reset,
            after_reset: false,
            invariant: false,
            unpaired: "",
            generated: Source::Files(&ours),
            copy: Source::Files(copy),
        };
        // Only a proof composes: a module that differs on its own may not where it is used.
        match equiv::check(&sides, 0, limit, &dir.join(name)) {
            Ok(Equivalence::Proved) => {}
            Ok(_) => return Ok(ByModule::Whole(format!("{name} alone is not proved equivalent"))),
            Err(e) => return Ok(ByModule::Whole(format!("{name} alone could not be compared: {e:#}"))),
        }
    }
    Ok(ByModule::Proved(changed))
}

/// The modules of a Verilog text: each name, and its code from `module` to `endmodule` without
/// comments, one space between words.
fn modules(text: &str) -> Vec<(String, String)> {
    let code = words(&uncommented(text));
    let mut found = Vec::new();
    for chunk in code.split(" endmodule") {
        let keyword = chunk.match_indices("module ").map(|(i, _)| i).find(|&i| i == 0 || chunk[..i].ends_with(' '));
        let Some(at) = keyword else { continue };
        let body = &chunk[at..];
        let name: String = body["module ".len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        if !name.is_empty() {
            found.push((name, body.to_string()));
        }
    }
    found
}

/// `text` without its `//` and `/* */` comments (strings keep theirs).
fn uncommented(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut in_string = false;
    while let Some(c) = rest.chars().next() {
        if in_string {
            out.push(c);
            in_string = c != '"' || out.ends_with("\\\"");
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if rest.starts_with("//") {
            rest = rest.find('\n').map_or("", |i| &rest[i..]);
            continue;
        } else if rest.starts_with("/*") {
            out.push(' ');
            rest = rest[2..].find("*/").map_or("", |i| &rest[i + 4..]);
            continue;
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `text` with one space between words and around each line's code.
fn words(text: &str) -> String {
    format!(" {}", text.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Comments and spacing are not the module; every other character is.
    #[test]
    fn modules_are_read_without_comments_and_spacing() {
        let generated = "// header\n`default_nettype none\nmodule a (\n  input wire x, // the input\n  output wire y\n);\n  assign y = x;\nendmodule\n";
        let respaced = "wire submodule ; module a(input wire x,\n/* both */ output wire y\n);\nassign y = x;   endmodule\nmodule b (); endmodule\n";
        let ours = modules(generated);
        assert_eq!(ours.len(), 1);
        assert_eq!(ours[0].0, "a");
        let theirs = modules(respaced);
        assert_eq!(theirs.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        // `module a (` and `module a(` differ by a space: the module is compared as changed.
        assert_ne!(ours[0].1, theirs[0].1);
        let edited = generated.replace("assign y = x;", "assign y = ~x;");
        assert_ne!(modules(&edited)[0].1, ours[0].1);
        let recommented = generated.replace("// the input", "/* the input, renamed */");
        assert_eq!(modules(&recommented)[0].1, ours[0].1);
        // A `//` inside a string is not a comment.
        assert!(uncommented("$display(\"a // b\"); // c").contains("a // b"));
    }
}
