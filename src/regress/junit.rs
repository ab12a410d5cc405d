//! The JUnit XML report of a regression (`rfgen regress --junit FILE`), in the structure of the
//! JUnit schema Jenkins publishes, which GitLab's and GitHub's test reporters read as well:
//! `testsuites` holds one `testsuite` per block (its properties: config, top, RTL, and each
//! case's seeds, cycles and time), each holding one `testcase` per stimulus with a `failure`,
//! `error` or `skipped` element when it did not pass and its reproducer in `system-out`.

use super::{CaseResult, Totals, Verdict, failure_text};
use rfgen_gen::Block;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// What the whole run was about.
pub struct RunInfo<'a> {
    pub config: &'a str,
    pub config_hash: &'a str,
    /// A user's RTL folder (`--rtl`), or none for the generated RTL.
    pub rtl: Option<&'a Path>,
    /// The top module of each block.
    pub tops: &'a [(Block, String)],
}

/// The report as text.
pub fn render(run: &RunInfo, results: &[CaseResult]) -> String {
    let mut blocks: Vec<Block> = Vec::new();
    for r in results {
        if !blocks.contains(&r.case.block) {
            blocks.push(r.case.block);
        }
    }
    let all = Totals::of(results);
    let seconds: f64 = results.iter().map(|r| r.seconds).sum();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"rfgen regress {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{seconds:.3}\">",
        attr(run.config),
        all.cases(),
        all.failed,
        all.errors
    );
    for block in blocks {
        let cases: Vec<&CaseResult> = results.iter().filter(|r| r.case.block == block).collect();
        suite(&mut x, run, block, &cases);
    }
    x += "</testsuites>\n";
    x
}

fn suite(x: &mut String, run: &RunInfo, block: Block, cases: &[&CaseResult]) {
    let t = Totals::of(cases.iter().copied());
    let seconds: f64 = cases.iter().map(|r| r.seconds).sum();
    let name = format!("{}.{block}", run.config);
    let _ = writeln!(
        x,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{seconds:.3}\">",
        attr(&name),
        t.cases(),
        t.failed,
        t.errors,
        t.skipped
    );
    let top = run.tops.iter().find(|(b, _)| *b == block).map_or("", |(_, t)| t.as_str());
    let rtl = run.rtl.map_or("generated".to_string(), |d| d.display().to_string());
    let mut properties = vec![
        ("config".to_string(), run.config.to_string()),
        ("config hash".to_string(), run.config_hash.to_string()),
        ("block".to_string(), block.name().to_string()),
        ("top".to_string(), top.to_string()),
        ("rtl".to_string(), rtl),
    ];
    for r in cases.iter().filter(|r| !matches!(r.verdict, Verdict::Skipped(_))) {
        let case = r.case.name();
        if let crate::cli::cosim::Stimulus::Random { seed } = r.case.stimulus {
            properties.push((format!("{case}: seed"), seed.to_string()));
        }
        properties.push((format!("{case}: x-seed"), r.case.x_seed.to_string()));
        properties.push((format!("{case}: cycles"), r.cycles.to_string()));
        properties.push((format!("{case}: time"), format!("{:.3}", r.seconds)));
    }
    *x += "    <properties>\n";
    for (name, value) in properties {
        let _ = writeln!(x, "      <property name=\"{}\" value=\"{}\"/>", attr(&name), attr(&value));
    }
    *x += "    </properties>\n";
    for r in cases {
        let _ = write!(
            x,
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\">",
            attr(&r.case.name()),
            attr(&format!("rfgen.{name}")),
            r.seconds
        );
        match &r.verdict {
            Verdict::Pass => {}
            Verdict::Fail { summary, .. } => {
                let _ = write!(
                    x,
                    "\n      <failure message=\"{}\" type=\"mismatch\">{}</failure>",
                    attr(summary),
                    text(&failure_text(r))
                );
            }
            Verdict::Error(message) => {
                let first = message.lines().next().unwrap_or("");
                let _ = write!(
                    x,
                    "\n      <error message=\"{}\" type=\"error\">{}</error>",
                    attr(first),
                    text(&failure_text(r))
                );
            }
            Verdict::Skipped(reason) => {
                let _ = write!(x, "\n      <skipped message=\"{}\"/>", attr(reason));
            }
        }
        let _ =
            write!(x, "\n      <system-out>reproduce: {}</system-out>\n    </testcase>\n", text(&r.case.reproducer));
    }
    *x += "  </testsuite>\n";
}

/// Character data: markup characters escaped, characters XML 1.0 does not allow replaced.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// An attribute value in double quotes: also quotes escaped, and line breaks kept as references
/// (a parser would fold a literal one into a space).
fn attr(s: &str) -> String {
    text(s).replace('"', "&quot;").replace('\n', "&#10;").replace('\r', "&#13;").replace('\t', "&#9;")
}

/// Writes `xml` to `path` through a temporary file in the same folder, renamed into place when
/// complete: a reader never sees half a report, and an earlier one stays until then.
pub fn write(path: &Path, xml: &str) -> std::io::Result<()> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new().prefix(".rfgen-junit-").tempfile_in(folder)?;
    tmp.write_all(xml.as_bytes())?;
    // Temporary files are private; a report is read by whatever publishes it.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_forbidden_characters_are_escaped() {
        assert_eq!(text("a < b && c > d"), "a &lt; b &amp;&amp; c &gt; d");
        assert_eq!(text("bell\u{7} nul\u{0}"), "bell\u{FFFD} nul\u{FFFD}");
        assert_eq!(attr("say \"x\"\nnext"), "say &quot;x&quot;&#10;next");
    }
}
