//! Tells a surviving mutant's kind with the check `rfgen prove --rtl` runs on a user's copy
//! (`prove::equiv`): the unmutated netlist (selector tied to 0) and the mutant (tied to its
//! number) are paired signal by signal and proved equal by induction; failing that, Yosys' SAT
//! solver looks for an input sequence from reset on which an output differs within a bounded
//! number of cycles. Proved or not found: the mutant is equivalent (for every input sequence,
//! or within the bound). Found: it is an escape of the stimulus (docs/mutate.md).

use super::{SELECT, SELECT_BITS};
use crate::prove::equiv::{self as prove_equiv, Sides};
use anyhow::Result;
use rfgen_gen::Design;
use rfgen_gen::verilog::{Dir, Port};
use std::path::Path;
use std::time::Duration;

/// What the check found for one mutant.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "equivalence", rename_all = "snake_case")]
pub enum Equivalence {
    /// Proved by induction: no input sequence shows it at the ports.
    Proved,
    /// No input sequence of `cycles` cycles from reset shows it; the induction did not close.
    Equivalent { cycles: u32 },
    /// An input sequence shows it: `first_output` differs in `first_cycle` (reset held in cycle 1).
    Differs { first_output: String, first_cycle: u32 },
    /// The solver did not finish in time.
    Unknown { why: String },
}

impl Equivalence {
    /// Proved or bounded: the mutant leaves the score.
    pub fn is_equivalent(&self) -> bool {
        matches!(self, Equivalence::Proved | Equivalence::Equivalent { .. })
    }
}

/// Seconds the solver gets per mutant, for the proof and for the search each.
const TIMEOUT_S: u64 = 60;

/// The wrapper module both sides are checked as.
const SIDE: &str = "rfgen_mutant_side";

/// Checks mutant `index` of `netlist` (one flattened module with the selector input) for
/// `cycles` cycles from reset, in the folder `dir/equiv_<index>` (scripts and logs kept there).
pub fn check(netlist: &Design, index: u32, cycles: u32, dir: &Path) -> Result<Equivalence> {
    let top = netlist.manifest.top_module();
    let (file, text) = &netlist.files[0];
    let side =
        |variant| vec![(file.clone(), text.clone()), (format!("{SIDE}.v"), wrapper(&top.name, &top.ports, variant))];
    let (generated, copy) = (side(0), side(index));
    let sides = Sides { top: SIDE, generated: &generated, copy: &copy };
    let limit = Duration::from_secs(TIMEOUT_S);
    // A tool that fails on one mutant leaves that mutant unknown, not the campaign stopped.
    let verdict = match prove_equiv::check(&sides, cycles, limit, &dir.join(format!("equiv_{index}"))) {
        Ok(v) => v,
        Err(e) => {
            let why = format!("{e:#}");
            return Ok(Equivalence::Unknown { why: why.lines().next().unwrap_or_default().to_string() });
        }
    };
    Ok(match verdict {
        prove_equiv::Equivalence::Proved => Equivalence::Proved,
        prove_equiv::Equivalence::Bounded { cycles, .. } => Equivalence::Equivalent { cycles },
        prove_equiv::Equivalence::Differs { output, cycle, .. } => {
            Equivalence::Differs { first_output: output, first_cycle: cycle }
        }
        prove_equiv::Equivalence::Unknown { why } => Equivalence::Unknown { why },
    })
}

/// The block's ports around the netlist with its selector tied to `variant`.
fn wrapper(top: &str, ports: &[Port], variant: u32) -> String {
    let decls: Vec<String> = ports
        .iter()
        .map(|p| {
            let dir = if p.dir == Dir::Input { "input" } else { "output" };
            let range = if p.width > 1 { format!(" [{}:0]", p.width - 1) } else { String::new() };
            format!("{dir}{range} {}", p.name)
        })
        .collect();
    let conns: String = ports.iter().map(|p| format!(".{0}({0}), ", p.name)).collect();
    format!("module {SIDE}({});\n  {top} u({conns}.{SELECT}({SELECT_BITS}'d{variant}));\nendmodule\n", decls.join(", "))
}
