//! `rfgen prove`'s engine: each formal harness (`rfgen_gen::formal`) is written into its own
//! folder beside the design's sources, turned into an SMT model by Yosys and checked by
//! `yosys-smtbmc` with an SMT solver (Yices by default, or z3), as bounded model checking and,
//! for properties proved by induction, k-induction (docs/prove.md).

pub mod equiv;
pub mod modules;
mod smtbmc;

use anyhow::{Context, Result};
use rfgen_gen::formal::{Harness, PROBES_DEFINE, Proof};
pub use smtbmc::Solver;
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
        /// Written by yosys-smtbmc; Yosys' `sat` writes none.
        testbench: Option<PathBuf>,
    },
    /// Stopped at the check's time limit.
    NotFinished,
}

#[derive(Debug)]
pub struct Checked {
    pub outcome: Outcome,
    pub time: Duration,
}

/// The tools the prover runs, or an error naming what to install.
pub fn check_tools(solver: Solver) -> std::result::Result<(), String> {
    let missing: Vec<&str> = ["yosys", "yosys-smtbmc", solver.program()].into_iter().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "rfgen prove needs {} on PATH (Debian: `apt-get install yosys`, which brings yosys-smtbmc; \
         the solver `{}`: {}; another: --solver)",
        missing.join(", "),
        solver.name(),
        solver.install()
    ))
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

/// Checks `h` in the folder `dir` (created), reading the design's Verilog files from `sources`
/// (name and text), with `solver`, within `limit`.
pub fn check(
    h: &Harness,
    sources: &[(String, String)],
    dir: &Path,
    solver: Solver,
    limit: Duration,
) -> Result<Checked> {
    let start = Instant::now();
    let left = || limit.saturating_sub(start.elapsed());
    let not_finished = || Ok(Checked { outcome: Outcome::NotFinished, time: start.elapsed() });
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
    if let Proof::AnyStateSat { depth } = h.proof {
        return match sat(dir, &files, &wrapper, &h.top, depth, left())? {
            Some(outcome) => Ok(Checked { outcome, time: start.elapsed() }),
            None => not_finished(),
        };
    }
    // A harness with probes reads internal signals: flattened, the memories it probes mapped to
    // flip-flops (a word of one is a signal of its own, `<memory>[i]`), with each probe
    // connected. The others stay arrays for the solver: the full-size rename table as flip-flops
    // took the model from 15 to 23 MB. A design without the probed signals (a copy that renamed
    // one) is checked without the probed part, and its induction, which needs that part, is not
    // tried.
    let read = |define: &str| format!("read_verilog {}\nread_verilog -formal{define} {wrapper}\n", files.join(" "));
    let write = format!("prep -top {}\nwrite_smt2 -wires model.smt2\n", h.top);
    let mut probed = false;
    if !h.probes.is_empty() {
        // One `connect` of the concatenations: each takes a scan of the design (195 probes of
        // the full-size cache, 32 s one by one).
        let wires: Vec<&str> = h.probes.iter().map(|p| p.wire.as_str()).collect();
        let signals: Vec<String> = h
            .probes
            .iter()
            .map(|p| format!("\\{}{}", p.path, p.bits.map_or(String::new(), |(msb, lsb)| format!("[{msb}:{lsb}]"))))
            .collect();
        let connect = format!("connect -nounset -set {} {}\n", wires.join(","), signals.join(","));
        // A harness that reads some bits of a signal (one lane of the cache's values) reads
        // only those of the design: split into single-bit cells, the rest is removed, and the
        // model keeps one lane's state (the full-size cache: 8.7 MB instead of 55).
        let cut = if h.probes.iter().any(|p| p.bits.is_some()) { "simplemap\nopt_clean\n" } else { "" };
        let memories: std::collections::BTreeSet<&str> =
            h.probes.iter().filter_map(|p| p.path.split_once('[')).map(|(memory, _)| memory).collect();
        // Their write ports merged first: the register file cache's values, written lane by
        // lane through 32 ports, took Yosys more than 19 minutes to map as they were. Merged
        // without SAT (the ports share address and enable; only their lanes differ): 10 s,
        // where the SAT search for exclusive ports took 6 minutes.
        let selected: Vec<String> = memories.iter().map(|m| format!("m:{m}")).collect();
        let map = match selected.is_empty() {
            true => String::new(),
            false => format!("memory_share -nosat {0}\nmemory_map {0}\n", selected.join(" ")),
        };
        let script = format!(
            "{}hierarchy -top {}\nproc\nflatten\n{map}{connect}{cut}{write}",
            read(&format!(" -D{PROBES_DEFINE}")),
            h.top
        );
        std::fs::write(dir.join("model.ys"), script).with_context(|| format!("cannot write {}", dir.display()))?;
        match crate::synth::yosys::run_for(dir, "model.ys", "yosys.log", Some(left()))? {
            None => return not_finished(),
            Some(r) => probed = r.is_ok(),
        }
    }
    if !probed {
        std::fs::write(dir.join("model.ys"), format!("{}{write}", read("")))
            .with_context(|| format!("cannot write {}", dir.display()))?;
        match crate::synth::yosys::run_for(dir, "model.ys", "yosys.log", Some(left()))? {
            None => return not_finished(),
            Some(r) => r?,
        }
    }

    let bmc = |depth| Run {
        solver,
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
        testbench: Some(dir.join("counterexample_tb.v")),
    };
    let outcome = match h.proof {
        Proof::AnyStateSat { .. } => unreachable!("checked by Yosys' SAT solver above"),
        // From an arbitrary state only all the steps together cover every cycle.
        Proof::AnyState { depth } => match smtbmc::run(dir, &bmc(depth), left())? {
            Verdict::Stopped { .. } => Outcome::NotFinished,
            Verdict::Passed => Outcome::Proved,
            Verdict::Failed { assertion } => failed(assertion),
        },
        Proof::Induction { depth } => match smtbmc::run(dir, &bmc(depth), left())? {
            Verdict::Stopped { steps: 0 } => Outcome::NotFinished,
            // The steps from reset checked before the limit.
            Verdict::Stopped { steps } => Outcome::Bounded(steps),
            Verdict::Failed { assertion } => failed(assertion),
            Verdict::Passed if !h.probes.is_empty() && !probed => Outcome::Bounded(depth),
            Verdict::Passed => {
                let induction = Run { induction: true, vcd: None, testbench: None, log: "induction.log", ..bmc(depth) };
                match smtbmc::run(dir, &induction, left())? {
                    Verdict::Passed => Outcome::Proved,
                    // The bounded check from reset holds either way.
                    Verdict::Failed { .. } | Verdict::Stopped { .. } => Outcome::Bounded(depth),
                }
            }
        },
    };
    Ok(Checked { outcome, time: start.elapsed() })
}

/// A [`Proof::AnyStateSat`] check: Yosys' `sat` over `depth` steps from an unconstrained state.
/// `None` when it did not finish within `limit`.
fn sat(dir: &Path, files: &[&str], wrapper: &str, top: &str, depth: u32, limit: Duration) -> Result<Option<Outcome>> {
    let script = format!(
        "read_verilog {}\nread_verilog -formal {wrapper}\nprep -top {top}\nflatten\nasync2sync\ndffunmap\n\
         sat -prove-asserts -seq {depth} -verify -dump_vcd counterexample.vcd {top}\n",
        files.join(" ")
    );
    std::fs::write(dir.join("sat.ys"), script).with_context(|| format!("cannot write {}", dir.display()))?;
    match crate::synth::yosys::run_for(dir, "sat.ys", "sat.log", Some(limit))? {
        None => Ok(None),
        Some(Ok(())) => Ok(Some(Outcome::Proved)),
        Some(Err(e)) => {
            let log = std::fs::read_to_string(dir.join("sat.log")).unwrap_or_default();
            if !log.contains("proof did fail") {
                return Err(e);
            }
            // `sat` names the failing assertion's cell, `$assert$<file>:<line>$<id>`.
            let assertion = log
                .lines()
                .filter(|l| l.contains("\\$assert$") || l.contains("$formal$"))
                .find_map(|l| l.split_whitespace().find(|w| w.contains(".sv:")))
                .map_or_else(|| "an assertion".to_string(), |a| format!("{top}: {a}"));
            Ok(Some(Outcome::Failed { assertion, vcd: dir.join("counterexample.vcd"), testbench: None }))
        }
    }
}
