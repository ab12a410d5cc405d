//! `rfgen prove`'s engine: each formal harness (`rfgen_gen::formal`) is written into its own
//! folder beside the design's sources, turned into an SMT model by Yosys and checked by
//! `yosys-smtbmc` with z3, as bounded model checking and, for properties proved by induction,
//! k-induction (docs/prove.md).

pub mod equiv;
mod smtbmc;

use anyhow::{Context, Result};
use rfgen_gen::formal::{Harness, PROBES_DEFINE, Proof};
use smtbmc::{Run, Verdict};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The result of one harness.
#[derive(Debug)]
pub enum Outcome {
    Proved,
    /// The bounded check passed to this depth; the induction did not close.
    Bounded(u32),
    /// A counterexample: the failing assertion, and the trace as a VCD and a Verilog test bench.
    Failed {
        assertion: String,
        vcd: PathBuf,
        testbench: PathBuf,
    },
}

#[derive(Debug)]
pub struct Checked {
    pub outcome: Outcome,
    pub time: Duration,
}

/// The tools the prover runs, or an error naming what to install.
pub fn check_tools() -> std::result::Result<(), String> {
    let missing: Vec<&str> = ["yosys", "yosys-smtbmc", "z3"].into_iter().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "rfgen prove needs {} on PATH (Debian: `apt-get install yosys z3`; yosys-smtbmc comes with Yosys)",
        missing.join(", ")
    ))
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

/// Checks `h` in the folder `dir` (created), reading the design's Verilog files from `sources`
/// (name and text).
pub fn check(h: &Harness, sources: &[(String, String)], dir: &Path) -> Result<Checked> {
    let start = Instant::now();
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut files = Vec::new();
    for name in &h.sources {
        let (_, text) = sources
            .iter()
            .find(|(f, _)| f == name)
            .with_context(|| format!("the design has no {name} for {}", h.property.name))?;
        std::fs::write(dir.join(name), text).with_context(|| format!("cannot write {}", dir.display()))?;
        files.push(name.as_str());
    }
    let wrapper = format!("{}.sv", h.top);
    std::fs::write(dir.join(&wrapper), &h.text).with_context(|| format!("cannot write {}", dir.display()))?;
    // A harness with probes reads internal signals: flattened, memories mapped to flip-flops (a
    // probe may name one word), with each probe connected. A
    // design without them (a copy that renamed one) is checked without the probed part, and
    // its induction, which needs that part, is not tried.
    let read = |define: &str| format!("read_verilog {}\nread_verilog -formal{define} {wrapper}\n", files.join(" "));
    let write = format!("prep -top {}\nwrite_smt2 -wires model.smt2\n", h.top);
    let mut probed = false;
    if !h.probes.is_empty() {
        let connects: String =
            h.probes.iter().map(|p| format!("connect -nounset -set {} \\{}\n", p.wire, p.path)).collect();
        let script = format!(
            "{}hierarchy -top {}\nproc\nflatten\nmemory_map\n{connects}{write}",
            read(&format!(" -D{PROBES_DEFINE}")),
            h.top
        );
        std::fs::write(dir.join("model.ys"), script).with_context(|| format!("cannot write {}", dir.display()))?;
        probed = crate::synth::yosys::run(dir, "model.ys", "yosys.log").is_ok();
    }
    if !probed {
        std::fs::write(dir.join("model.ys"), format!("{}{write}", read("")))
            .with_context(|| format!("cannot write {}", dir.display()))?;
        crate::synth::yosys::run(dir, "model.ys", "yosys.log")?;
    }

    let bmc = |depth| Run {
        model: "model.smt2",
        depth,
        induction: false,
        vcd: Some("counterexample.vcd"),
        testbench: Some("counterexample_tb.v"),
        log: "bmc.log",
    };
    let failed = |assertion| Outcome::Failed {
        assertion,
        vcd: dir.join("counterexample.vcd"),
        testbench: dir.join("counterexample_tb.v"),
    };
    let outcome = match h.proof {
        Proof::AnyState { depth } => match smtbmc::run(dir, &bmc(depth))? {
            Verdict::Passed => Outcome::Proved,
            Verdict::Failed { assertion } => failed(assertion),
        },
        Proof::Induction { depth } => match smtbmc::run(dir, &bmc(depth))? {
            Verdict::Failed { assertion } => failed(assertion),
            Verdict::Passed if !h.probes.is_empty() && !probed => Outcome::Bounded(depth),
            Verdict::Passed => {
                let induction = Run { induction: true, vcd: None, testbench: None, log: "induction.log", ..bmc(depth) };
                match smtbmc::run(dir, &induction)? {
                    Verdict::Passed => Outcome::Proved,
                    Verdict::Failed { .. } => Outcome::Bounded(depth),
                }
            }
        },
    };
    Ok(Checked { outcome, time: start.elapsed() })
}
