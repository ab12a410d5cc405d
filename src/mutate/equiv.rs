//! Tells a surviving mutant's kind: Yosys builds a miter of the unmutated netlist and the mutant
//! (the same netlist with the selector tied to 0 and to the mutant's number), and its SAT solver
//! looks for an input sequence from reset on which any output differs within a bounded number of
//! cycles. Found: the mutant is an escape of the stimulus. None: it is equivalent within that
//! bound (docs/mutate.md).

use super::{SELECT, SELECT_BITS};
use crate::synth::yosys;
use anyhow::{Context, Result};
use rfgen_gen::Design;
use rfgen_gen::verilog::{Dir, Port};
use std::fmt::Write as _;
use std::path::Path;

/// What the bounded check found for one mutant.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "equivalence", rename_all = "snake_case")]
pub enum Equivalence {
    /// No input sequence of `cycles` cycles from reset shows it at the ports.
    Equivalent { cycles: u32 },
    /// Such a sequence exists: the stimulus misses behaviour it could reach.
    Differs,
    /// The solver did not finish in time (or cannot handle the design, e.g. large memories).
    Unknown { why: String },
}

/// Seconds the solver gets per mutant.
const TIMEOUT_S: u32 = 60;

/// Checks mutant `index` of `netlist` (one flattened module with the selector input) for
/// `cycles` cycles from reset, in the folder `dir` (scripts and the log kept there).
pub fn check(netlist: &Design, index: u32, cycles: u32, dir: &Path) -> Result<Equivalence> {
    let top = netlist.manifest.top_module();
    let (file, _) = &netlist.files[0];
    let stem = format!("equiv_{index}");
    std::fs::write(dir.join(format!("{stem}.v")), miter_sides(&top.name, &top.ports, index))
        .with_context(|| format!("cannot write into {}", dir.display()))?;
    // `sat` has no memory cells: memories become flip-flops (slow for large ones, hence the
    // timeout). Reset is held in the first cycle, as every lockstep run starts.
    let script = format!(
        "read_verilog {file}\nread_verilog {stem}.v\nhierarchy -check\nproc\nflatten\nmemory -nomap\nmemory_map\nopt_clean\n\
         miter -equiv -flatten -make_assert gold_side mutant_side miter\nhierarchy -top miter\n\
         sat -verify -prove-asserts -set-init-zero -seq {cycles} -set-at 1 in_rst 1 -timeout {TIMEOUT_S} miter\n"
    );
    std::fs::write(dir.join(format!("{stem}.ys")), script)?;
    let log = format!("{stem}.log");
    match yosys::run(dir, &format!("{stem}.ys"), &log) {
        Ok(()) => Ok(Equivalence::Equivalent { cycles }),
        Err(e) => {
            let text = std::fs::read_to_string(dir.join(&log)).unwrap_or_default();
            if text.contains("model found: FAIL") {
                Ok(Equivalence::Differs)
            } else if text.contains("TIMEOUT") {
                Ok(Equivalence::Unknown { why: format!("no answer within {TIMEOUT_S} s") })
            } else {
                Ok(Equivalence::Unknown { why: format!("{e:#}").lines().next().unwrap_or_default().to_string() })
            }
        }
    }
}

/// Two wrappers with the block's ports: the netlist with the selector at 0, and at `index`.
fn miter_sides(top: &str, ports: &[Port], index: u32) -> String {
    let decls: Vec<String> = ports
        .iter()
        .map(|p| {
            let dir = if p.dir == Dir::Input { "input" } else { "output" };
            let range = if p.width > 1 { format!(" [{}:0]", p.width - 1) } else { String::new() };
            format!("{dir}{range} {}", p.name)
        })
        .collect();
    let conns: String = ports.iter().map(|p| format!(".{0}({0}), ", p.name)).collect();
    let mut v = String::new();
    for (side, value) in [("gold_side", 0), ("mutant_side", index)] {
        let _ = writeln!(
            v,
            "module {side}({});\n  {top} u({conns}.{SELECT}({SELECT_BITS}'d{value}));\nendmodule",
            decls.join(", ")
        );
    }
    v
}
