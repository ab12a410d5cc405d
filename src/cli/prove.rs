//! `rfgen prove`: the properties of every generated block, checked with Yosys and an SMT solver
//! (docs/prove.md), one line per property; with `--rtl`, a user's copy of a block checked on
//! them and for equivalence with the generated block.

use super::progress::Progress;
use super::synth::pool;
use super::{ConfigSource, bad_input, claim_folder, path_error};
use crate::prove::equiv::{self, Equivalence, Sides, Source};
use crate::prove::modules::{self, ByModule};
use crate::prove::{self, Outcome, Solver};
use clap::Args;
use rayon::prelude::*;
use rfgen_cosim::user_rtl;
use rfgen_gen::formal::{self, Harness, PROPERTIES, PROVED_BLOCKS};
use rfgen_gen::{Block, SramKind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Prove properties of the generated RTL with Yosys and an SMT solver
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen prove --preset isca15-bdi --block bdi    # the BDI round trip for every register value
  rfgen prove --preset small                     # every property of every block of a config
  rfgen prove --block mrf --depth 30 --out proofs/
  rfgen prove --preset small --block mrf --rtl my-rtl/   # an edited copy: its properties and
                                                         # its equivalence with the generated MRF

Each property is bounded model checking from reset plus k-induction, or one check from an
arbitrary state that covers every cycle of a pipeline; its result is `proved`, `bounded to N`
(the bounded check passed, the induction did not close) or `FAILED` with a counterexample as a
VCD and a Verilog test bench. With --rtl, the line `rtl.equivalence` says whether the copy is
equivalent to the generated block: `proved` (every output, every input sequence), `bounded to
N` (no output differs within N cycles from reset), or `FAILED` with the first differing output,
a counterexample VCD and a lockstep command. A check stopped at --check-limit is `bounded to N`
when its bounded check had passed N steps from reset, else `not finished`. Needs yosys,
yosys-smtbmc and the solver (yices-smt2, or z3). Every property, its proof and its results:
docs/prove.md.")]
pub struct ProveArgs {
    #[command(flatten)]
    source: ConfigSource,
    /// Only this block's properties (default: every block of the config that has some)
    #[arg(long, value_parser = Block::parse)]
    block: Option<Block>,
    /// Steps of bounded model checking and of induction, for the properties proved that way
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=200))]
    depth: u32,
    /// Folder for the harnesses, models, logs and counterexamples (default: a temporary folder,
    /// kept only when a property fails)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Check a copy of block B's RTL in DIR (its filelist `<top>.f`, else every .v/.sv file;
    /// file names as `rfgen gen --block B` writes them for B's properties): its properties, and
    /// its sequential equivalence with the generated block. Needs --block
    #[arg(long, value_name = "DIR", requires = "block")]
    rtl: Option<PathBuf>,
    /// With --rtl: seconds each step of the equivalence check (the proof, then the search for a
    /// difference) may take
    #[arg(long, value_name = "S", default_value_t = 600, requires = "rtl", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    time_limit: u64,
    /// Seconds each property check may take; a check still running then is stopped and its
    /// property reported `not finished`
    #[arg(long, value_name = "S", default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    check_limit: u64,
    /// The SMT solver of the bounded checks and inductions
    #[arg(long, value_enum, default_value_t = Solver::Yices)]
    solver: Solver,
    /// Solver runs in parallel (default: number of cores)
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
}

/// The blocks whose properties to prove. A copy (`--rtl`) is of one block, which may have none.
fn blocks(args: &ProveArgs, checked: &rfgen_gen::Checked) -> anyhow::Result<Vec<Block>> {
    let names = || PROVED_BLOCKS.map(|b| b.name()).join(", ");
    match args.block {
        Some(b) if PROVED_BLOCKS.contains(&b) => Ok(vec![b]),
        Some(_) if args.rtl.is_some() => Ok(Vec::new()),
        Some(b) => Err(bad_input(format!("block `{b}` has no properties yet (blocks with properties: {})", names()))),
        None => Ok(PROVED_BLOCKS.into_iter().filter(|b| b.in_config(checked)).collect()),
    }
}

/// The RTL `block` generates for the config.
fn generate(checked: &rfgen_gen::Checked, block: Block) -> anyhow::Result<rfgen_gen::Design> {
    block.generate(checked, SramKind::Behavioural).map_err(|e| bad_input(e.to_string()))
}

/// The Verilog sources of the copy of `generated` in `dir`, its top's ports checked against the
/// generated ones.
fn read_copy(dir: &Path, generated: &rfgen_gen::Design) -> anyhow::Result<Vec<(String, String)>> {
    let copy = user_rtl::load(dir, generated)
        .map_err(|e| if e.is_input_error() { bad_input(e.to_string()) } else { anyhow::anyhow!(e) })?;
    Ok(copy.sources().cloned().collect())
}

/// A user's copy of one block (`--rtl`), read once for its properties and its equivalence.
struct Copy<'a> {
    block: Block,
    dir: &'a Path,
    generated: rfgen_gen::Design,
    files: Arc<Vec<(String, String)>>,
}

/// One harness with the sources of its design.
struct Job {
    harness: Harness,
    sources: Arc<Vec<(String, String)>>,
    dir: PathBuf,
}

pub fn run(args: ProveArgs) -> anyhow::Result<ExitCode> {
    let checked = args.source.load()?;
    let blocks = blocks(&args, &checked)?;
    prove::check_tools(args.solver).map_err(bad_input)?;
    let pool = pool(args.jobs)?;
    let (work, mut temporary) = match &args.out {
        Some(out) => {
            claim_folder(out, "prove", "its subfolders are replaced by the next `rfgen prove --out` here")?;
            (out.clone(), None)
        }
        None => {
            let t = tempfile::Builder::new().prefix(&format!("rfgen-prove-{}-", checked.config.name)).tempdir()?;
            (t.path().to_path_buf(), Some(t))
        }
    };

    let copy = match (&args.rtl, args.block) {
        (Some(dir), Some(block)) => {
            let generated = generate(&checked, block)?;
            let files = Arc::new(read_copy(dir, &generated)?);
            Some(Copy { block, dir, generated, files })
        }
        _ => None,
    };
    let mut jobs = Vec::new();
    for block in &blocks {
        let design = generate(&checked, *block)?;
        let sources = match &copy {
            Some(c) => c.files.clone(),
            None => Arc::new(design.sources().cloned().collect()),
        };
        let harnesses =
            formal::harnesses(&checked, *block, &design, args.depth).map_err(|e| bad_input(e.to_string()))?;
        for harness in harnesses {
            let mut folder = harness.property.name.to_string();
            // A part's words joined by `-`, without what a shell would read (`mode <4,1>`: `mode-4-1`).
            for word in harness.part.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
                folder += &format!("-{word}");
            }
            let dir = work.join(block.name()).join(folder);
            if dir.exists() {
                // Only inside a folder this command claimed (a temporary one or --out).
                std::fs::remove_dir_all(&dir).map_err(|e| path_error("--out", &dir, e))?;
            }
            jobs.push(Job { harness, sources: sources.clone(), dir });
        }
    }

    let progress = Progress::new(Some(jobs.len() as u64), "{bar:40} {pos}/{len} checks {elapsed} {msg}");
    if !jobs.is_empty() {
        progress.line(&format!(
            "proving {} properties of {} ({} checks) with yosys-smtbmc and {} in {}",
            jobs.iter().map(|j| j.harness.property.name).collect::<std::collections::BTreeSet<_>>().len(),
            checked.config.name,
            jobs.len(),
            args.solver.name(),
            work.display()
        ));
    }
    // The longest checks (the BDI lanes) come first in the list: start them first.
    let results: Vec<(&Job, prove::Checked)> = pool.install(|| {
        jobs.par_iter()
            .map(|job| {
                let r = prove::check(
                    &job.harness,
                    &job.sources,
                    &job.dir,
                    args.solver,
                    Duration::from_secs(args.check_limit),
                )?;
                progress.bar().inc(1);
                Ok((job, r))
            })
            .collect::<anyhow::Result<_>>()
    })?;
    progress.finish();

    let mut failed = false;
    let name_width = PROPERTIES.iter().map(|p| p.name.len()).chain([EQUIVALENCE.len()]).max().unwrap_or(0);
    for property in PROPERTIES {
        let mine: Vec<&(&Job, prove::Checked)> =
            results.iter().filter(|(j, _)| j.harness.property == *property).collect();
        if mine.is_empty() {
            continue;
        }
        let time: Duration = mine.iter().map(|(_, r)| r.time).sum();
        let verdict = summary(&mine);
        println!(
            "{:<name_width$}  {:<15} {:>7.1} s  {}",
            property.name,
            verdict,
            time.as_secs_f64(),
            property.statement
        );
        for (job, r) in &mine {
            if let Outcome::Failed { assertion, vcd, testbench } = &r.outcome {
                failed = true;
                let part = if job.harness.part.is_empty() { String::new() } else { format!(" ({})", job.harness.part) };
                println!("  failed{part}: {assertion}");
                println!("  counterexample: {}", vcd.display());
                if let Some(testbench) = testbench {
                    println!("  as a test bench: {}", testbench.display());
                }
                println!("  re-check in lockstep: {}", recheck(property.block, &args));
            }
        }
    }
    if let Some(copy) = &copy {
        let work = work.join(copy.block.name()).join("equivalence");
        let verdict = equivalence(&args, copy, &work, name_width);
        failed |= matches!(verdict, Ok(Equivalence::Differs { .. }));
        if !matches!(
            verdict,
            Ok(Equivalence::Proved | Equivalence::ProvedAfterReset { .. } | Equivalence::Differs { .. })
        ) {
            // The lines or the error above name logs in the folder: keep it.
            if let Some(t) = temporary.take() {
                let _ = t.keep();
            }
        }
        verdict?;
    }
    if failed {
        if let Some(t) = temporary {
            // Keep the counterexamples the lines above name.
            let _ = t.keep();
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The name of the equivalence check's line, beside the properties'.
const EQUIVALENCE: &str = "rtl.equivalence";

/// Checks `copy` for equivalence with the generated block, in the folder `work`, and prints its
/// line.
fn equivalence(args: &ProveArgs, copy: &Copy, work: &Path, name_width: usize) -> anyhow::Result<Equivalence> {
    let generated: Vec<(String, String)> = copy.generated.sources().cloned().collect();
    if work.exists() {
        // Only inside a folder this command claimed (a temporary one or --out).
        std::fs::remove_dir_all(work).map_err(|e| path_error("--out", work, e))?;
    }
    let top = &copy.generated.manifest.top;
    let progress = Progress::new(None, "{spinner} {elapsed} {msg}");
    progress.line(&format!(
        "comparing {} with the generated {top} (module by module, else whole: Yosys equivalence, then SAT from reset)",
        copy.dir.display()
    ));
    let start = std::time::Instant::now();
    let reset = copy.generated.manifest.top_module().ports.iter().any(|p| p.name == "rst");
    let sides = Sides {
        top,
        reset,
        after_reset: true,
        invariant: false,
        unpaired: "",
        generated: Source::Files(&generated),
        copy: Source::Files(&copy.files),
    };
    let limit = Duration::from_secs(args.time_limit);
    let by_module = modules::check(&copy.generated, &copy.files, limit, &work.join("modules"))?;
    let verdict = match &by_module {
        ByModule::Same | ByModule::Proved(_) => Equivalence::Proved,
        ByModule::Whole(_) => equiv::check(&sides, args.depth, limit, work)?,
    };
    progress.finish();
    let result = match &verdict {
        Equivalence::Proved => "proved".to_string(),
        Equivalence::ProvedAfterReset { .. } => "proved".to_string(),
        Equivalence::Bounded { cycles, .. } => format!("bounded to {cycles}"),
        Equivalence::Unknown { .. } => "not proved".to_string(),
        Equivalence::Differs { .. } => "FAILED".to_string(),
    };
    println!(
        "{EQUIVALENCE:<name_width$}  {result:<15} {:>7.1} s  the copy's outputs equal the generated {top}'s for every input sequence",
        start.elapsed().as_secs_f64()
    );
    match &by_module {
        ByModule::Same => println!("  every module is the generated one, comments and spacing aside"),
        ByModule::Proved(changed) => {
            let proved = match changed.len() {
                1 => "differs and is proved equivalent on its own",
                _ => "differ, each proved equivalent on its own",
            };
            println!("  module by module: {} {proved}; every other module is the generated one", changed.join(", "));
        }
        ByModule::Whole(why) => println!("  compared as a whole: {why}"),
    }
    match &verdict {
        Equivalence::Proved => {}
        Equivalence::ProvedAfterReset { cycles } => println!(
            "  the copy differs only in what reset loads: every register equals the generated one {cycles} cycles \
             after reset, from every power-up state; proved for every input sequence that holds reset in its \
             first cycle only"
        ),
        Equivalence::Bounded { why, .. } | Equivalence::Unknown { why } => {
            println!("  not proved: {why}; logs in {}", work.display());
        }
        Equivalence::Differs { output, cycle, generated, copy: copied, vcd } => {
            println!(
                "  first difference: output `{output}` in cycle {cycle} (reset in cycle 1): generated {generated}, copy {copied}"
            );
            println!("  counterexample: {}", vcd.display());
            println!("  re-check in lockstep: {}", recheck(copy.block, args));
        }
    }
    Ok(verdict)
}

/// A property's result over its parts: failed if one failed, bounded if one is bounded.
fn summary(parts: &[&(&Job, prove::Checked)]) -> String {
    if parts.iter().any(|(_, r)| matches!(r.outcome, Outcome::Failed { .. })) {
        return "FAILED".into();
    }
    if parts.iter().any(|(_, r)| matches!(r.outcome, Outcome::NotFinished)) {
        return "not finished".into();
    }
    match parts.iter().filter_map(|(_, r)| if let Outcome::Bounded(n) = r.outcome { Some(n) } else { None }).min() {
        Some(n) => format!("bounded to {n}"),
        None => "proved".into(),
    }
}

/// The lockstep cosim that exercises `block`: a solver trace is not a seed, so this re-checks
/// the block under random stimulus rather than replaying the trace.
fn recheck(block: impl std::fmt::Display, args: &ProveArgs) -> String {
    let rtl = args.rtl.as_ref().map(|d| format!(" --rtl {}", d.display())).unwrap_or_default();
    format!("rfgen cosim {} --block {block}{rtl} --cycles 1000000", args.source.flags())
}
