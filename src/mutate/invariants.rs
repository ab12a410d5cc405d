//! A module's invariants in the equivalence check (`rfgen_gen::formal::invariants`, the same
//! expressions `rfgen prove`'s harnesses assert): an edit masked only in the states the module
//! reaches (a cache's rank update, right only while an invalid entry's rank is its index) is
//! proved equivalent with them, where induction over all states does not close.
//!
//! The unmutated side gets the wire [`INVARIANT`]: 1 in a cycle the module is reset, else the
//! AND of the invariants over its state; the copy gets the same wire tied to 1. Paired by name,
//! the two make one `$equiv` cell, which `equiv_induct` assumes, like every pair, in the steps
//! before the one it proves, and proves in that one: the invariants are proved with the edit,
//! never trusted. Every run holds reset in its first cycle, where the wire is 1 whatever the
//! power-up state; a proof that closes also shows it 1 in every cycle after a reset (the reset
//! state must satisfy the invariants) and after every cycle it was 1 in. An invariant the
//! design does not keep, or that its reset does not establish, leaves the proof open, and the
//! check goes on as without it.
//!
//! The module is checked with its memories cut out (a register file cache's 48 entries of 256
//! bits, which an invariant of its ranks does not read): what it drives into them compared as
//! outputs, what they give back free inputs, the same on both sides. Both sides read one file
//! written here, as the port names Yosys' `submod` gives follow no fixed order between runs.

use crate::prove::equiv::INVARIANT;
use crate::synth::yosys;
use anyhow::{Context, Result, bail};
use rfgen_gen::formal::identifiers;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The instance of the module checking the invariants, inside the checked module.
const CHECK: &str = "rfgen_invariant_check";

/// The module checking the invariants as the copy has it: its output tied to 1.
const ASSUMED: &str = "assumed.v";

/// Seconds Yosys gets to write the module with its invariants: no solver runs.
const STEP_S: u64 = 60;

/// Writes `dir/invariants.il`: `top` of the design `read` loads (its RTLIL text `rtlil`) after
/// `steps` (a flattening, memory leaves cut out), with the wire [`INVARIANT`] in `module` over
/// `holds` (Verilog expressions over the module's own names), driven by an instance of a module
/// of its own, and every memory left cut out.
pub fn write(
    read: &str,
    rtlil: &str,
    top: &str,
    module: &str,
    holds: &[String],
    steps: &str,
    dir: &Path,
) -> Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let wires = wires(rtlil, module);
    let width = |name: &str| wires.iter().find(|(n, _)| n == name).map(|(_, w)| *w);
    if width("rst") != Some(1) {
        bail!("{module} has no reset `rst`: its invariants cannot start from one");
    }
    // The module's signals the invariants read, as the checking module's inputs.
    let mut inputs: Vec<&str> = vec!["rst"];
    for name in holds.iter().flat_map(|h| identifiers(h)) {
        if width(name).is_some() && !inputs.contains(&name) {
            inputs.push(name);
        }
    }
    let ports: Vec<String> = inputs
        .iter()
        .map(|n| match width(n) {
            Some(w) if w > 1 => format!("input wire [{}:0] {n}", w - 1),
            _ => format!("input wire {n}"),
        })
        .collect();
    let check =
        |ok: &str| format!("module {CHECK} ({}, output wire ok);\n  assign ok = {ok};\nendmodule\n", ports.join(", "));
    std::fs::write(dir.join("check.v"), check(&format!("rst | ({})", holds.join("\n    && "))))?;
    std::fs::write(dir.join(ASSUMED), check("1'b1"))?;
    // The instance, in the module's RTLIL, before its `end`.
    let connects: String = inputs.iter().map(|n| format!("    connect \\{n} \\{n}\n")).collect();
    let instance = format!(
        "  attribute \\keep 1\n  wire \\{INVARIANT}\n  cell \\{CHECK} \\{CHECK}\n{connects}    connect \\ok \\{INVARIANT}\n  end\n"
    );
    let header = format!("module \\{module}\n");
    let start = rtlil.find(&header).with_context(|| format!("no module {module}"))?;
    let end = start + rtlil[start..].find("\nend\n").context("a module without its end")? + 1;
    std::fs::write(dir.join("design.il"), format!("{}{instance}{}", &rtlil[..end], &rtlil[end..]))?;
    // `read` loads the design from its RTLIL file; the modified copy replaces it.
    let load = read.lines().filter(|l| !l.starts_with("read_rtlil")).map(|l| format!("{l}\n")).collect::<String>();
    // The checking module stays an instance, which the copy replaces.
    let script = format!(
        "read_rtlil design.il\n{load}read_verilog -sv check.v\nsetattr -mod -set keep_hierarchy 1 {CHECK}\n{steps}\
         setattr -mod -unset keep_hierarchy {CHECK}\nmemory_collect\nsubmod -name rfgen_memories {top}/t:$mem_v2\n\
         expose -evert {top}/t:rfgen_memories\nhierarchy -top {top}\nwrite_rtlil invariants.il\n"
    );
    std::fs::write(dir.join("invariants.ys"), script)?;
    match yosys::run_for(dir, "invariants.ys", "invariants.log", Some(Duration::from_secs(STEP_S)))? {
        Some(Ok(())) => Ok(std::path::absolute(dir.join("invariants.il"))?),
        Some(Err(e)) => Err(e),
        None => bail!("Yosys did not write the invariants in {STEP_S} s"),
    }
}

/// The commands that tie the copy's [`INVARIANT`] to 1, in the design `file` ([`write`]) holds:
/// the module checking the invariants replaced by one whose output is 1.
pub fn assumed(file: &Path) -> String {
    format!("delete {CHECK}\nread_verilog -sv \"{}\"\n", file.with_file_name(ASSUMED).display())
}

/// Every wire of `module` in an RTLIL design, with its width.
fn wires(rtlil: &str, module: &str) -> Vec<(String, u32)> {
    let header = format!("module \\{module}");
    rtlil
        .lines()
        .skip_while(|l| *l != header)
        .take_while(|l| *l != "end")
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            if words.first() != Some(&"wire") {
                return None;
            }
            let name = words.last()?.strip_prefix('\\')?;
            let width = words.windows(2).find(|p| p[0] == "width").map_or(Some(1), |p| p[1].parse().ok())?;
            Some((name.to_string(), width))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::equiv::{self as prove_equiv, Equivalence, Sides, Source};

    /// A counter through 0, 1, 2 (3, which would go on to 2, is never reached) and a bit set by
    /// the first enabled cycle after reset.
    const COUNTER: &str = "module m (input wire clk, input wire rst, input wire en, output wire y, output wire z);\n\
                           \x20 reg [1:0] c;\n  reg d;\n  always @(posedge clk)\n    if (rst) begin\n      \
                           c <= 2'd0;\n      d <= 1'b0;\n    end else if (en) begin\n      \
                           c <= (c[1] & c[0]) ? 2'd2 : (c == 2'd2) ? 2'd0 : c + 2'd1;\n      d <= 1'b1;\n    \
                           end\n  assign y = en ^ c[1];\n  assign z = d & en;\nendmodule\n";

    /// The verdict on `COUNTER` with the `$and` of line `line` edited (`edit`), checked with the
    /// invariants `holds`.
    fn verdict(holds: &[&str], line: u32, edit: &str) -> Equivalence {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.v"), COUNTER).unwrap();
        let out = std::process::Command::new("yosys")
            .current_dir(dir.path())
            .args(["-q", "-p", "read_verilog m.v; proc; write_rtlil m.il"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let rtlil = std::fs::read_to_string(dir.path().join("m.il")).unwrap();
        let mut located = "";
        let mut cell = None;
        for l in rtlil.lines().map(str::trim) {
            if let Some(at) = l.strip_prefix("attribute \\src ") {
                located = at;
            } else if let Some(name) = l.strip_prefix("cell $and ")
                && located.contains(&format!("m.v:{line}."))
            {
                cell = Some(name.to_string());
            }
        }
        let cell = cell.unwrap();
        let read = format!("read_rtlil \"{}\"\n", dir.path().join("m.il").display());
        let holds: Vec<String> = holds.iter().map(|h| h.to_string()).collect();
        let file =
            write(&read, &rtlil, "m", "m", &holds, "hierarchy -top m\nproc\n", &dir.path().join("invariants")).unwrap();
        let generated = format!("read_rtlil \"{}\"\n", file.display());
        let copy = format!("{generated}mutate -module m -cell {cell} {edit}\n{}", assumed(&file));
        let sides = Sides {
            top: "m",
            reset: true,
            after_reset: false,
            invariant: true,
            generated: Source::Commands(generated),
            copy: Source::Commands(copy),
        };
        prove_equiv::check(&sides, 6, Duration::from_secs(60), &dir.path().join("check")).unwrap()
    }

    /// `c[1] & c[0]` stuck at 0: the counter goes from 3 to 0 instead of 2, and it is never 3.
    /// Induction over every state cannot prove it (3 is one); with the invariant it closes.
    #[test]
    fn an_invariant_proves_an_edit_masked_in_the_states_reached() {
        let stuck = "-mode const0 -port Y -portbit 0";
        let without = verdict(&["1'b1"], 9, stuck);
        assert!(matches!(without, Equivalence::Bounded { .. }), "{without:?}");
        assert_eq!(verdict(&["c != 2'd3"], 9, stuck), Equivalence::Proved);
    }

    /// `c[1] & c[0]` with `c[0]` stuck at 1: the counter stays at 2. Claimed never 2, it still
    /// reaches it: the claim is not proved, and the difference is found.
    #[test]
    fn a_false_invariant_is_refuted_not_trusted() {
        let v = verdict(&["c != 2'd2"], 9, "-mode const1 -port B -portbit 0");
        assert!(matches!(v, Equivalence::Differs { ref output, .. } if output == "y"), "{v:?}");
    }

    /// `d & en` with `d` stuck at 1: `z` differs in the first enabled cycle after reset. `d`
    /// stays 1 once set, an invariant of every state after it, but not of the reset state: the
    /// proof does not close.
    #[test]
    fn an_invariant_reset_does_not_establish_is_refuted() {
        let v = verdict(&["d"], 13, "-mode const1 -port A -portbit 0");
        assert!(matches!(v, Equivalence::Differs { ref output, .. } if output == "z"), "{v:?}");
    }

    #[test]
    fn wires_have_their_widths() {
        let rtlil = "module \\m\n  wire width 3 \\rank0\n  wire input 2 \\rst\n  wire $auto$1\nend\nmodule \\n\n  wire \\x\nend\n";
        assert_eq!(wires(rtlil, "m"), vec![("rank0".to_string(), 3), ("rst".to_string(), 1)]);
    }
}
