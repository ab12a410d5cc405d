//! `rfgen prove`: the properties of every generated block, checked with Yosys and z3
//! (docs/prove.md), one line per property.

use super::progress::Progress;
use super::synth::pool;
use super::{ConfigSource, bad_input, claim_folder, path_error};
use crate::prove::{self, Outcome};
use clap::Args;
use rayon::prelude::*;
use rfgen_gen::formal::{self, Harness, PROPERTIES, PROVED_BLOCKS, Property};
use rfgen_gen::{Block, SramKind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Prove properties of the generated RTL with Yosys and an SMT solver
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen prove --preset isca15-bdi --block bdi    # the BDI round trip for every register value
  rfgen prove --preset small                     # every property of every block of a config
  rfgen prove --block mrf --depth 30 --out proofs/
  rfgen prove --preset small --block bdi --rtl my-rtl/   # an edited copy of the RTL

Each property is bounded model checking from reset plus k-induction, or one check from an
arbitrary state that covers every cycle of a pipeline; its result is `proved`, `bounded to N`
(the bounded check passed, the induction did not close) or `FAILED` with a counterexample as a
VCD and a Verilog test bench. Needs yosys, yosys-smtbmc and z3. Every property, its proof and
its results: docs/prove.md.")]
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
    /// Check the RTL in DIR (a copy of what `rfgen gen --block B` writes, file names unchanged)
    /// instead of generating it
    #[arg(long, value_name = "DIR")]
    rtl: Option<PathBuf>,
    /// Solver runs in parallel (default: number of cores)
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
}

/// The blocks to prove.
fn blocks(args: &ProveArgs, checked: &rfgen_gen::Checked) -> anyhow::Result<Vec<Block>> {
    let names = || PROVED_BLOCKS.map(|b| b.name()).join(", ");
    match args.block {
        Some(b) if PROVED_BLOCKS.contains(&b) => Ok(vec![b]),
        Some(b) => Err(bad_input(format!("block `{b}` has no properties yet (blocks with properties: {})", names()))),
        None => Ok(PROVED_BLOCKS.into_iter().filter(|b| b.in_config(checked)).collect()),
    }
}

/// The Verilog sources of `block`'s design: generated, or read from `--rtl DIR`.
fn sources(design: &rfgen_gen::Design, rtl: Option<&PathBuf>) -> anyhow::Result<Vec<(String, String)>> {
    let generated = design.sources().cloned();
    let Some(dir) = rtl else { return Ok(generated.collect()) };
    generated
        .map(|(name, _)| {
            let path = dir.join(&name);
            let text = std::fs::read_to_string(&path).map_err(|e| path_error("--rtl", &path, e))?;
            Ok((name, text))
        })
        .collect()
}

/// One harness with the sources of its design.
struct Job {
    harness: Harness,
    sources: std::sync::Arc<Vec<(String, String)>>,
    dir: PathBuf,
}

pub fn run(args: ProveArgs) -> anyhow::Result<ExitCode> {
    let checked = args.source.load()?;
    let blocks = blocks(&args, &checked)?;
    prove::check_tools().map_err(bad_input)?;
    let pool = pool(args.jobs)?;
    let (work, temporary) = match &args.out {
        Some(out) => {
            claim_folder(out, "prove", "its subfolders are replaced by the next `rfgen prove --out` here")?;
            (out.clone(), None)
        }
        None => {
            let t = tempfile::Builder::new().prefix(&format!("rfgen-prove-{}-", checked.config.name)).tempdir()?;
            (t.path().to_path_buf(), Some(t))
        }
    };

    let mut jobs = Vec::new();
    for block in &blocks {
        let design = block.generate(&checked, SramKind::Behavioural).map_err(|e| bad_input(e.to_string()))?;
        let sources = std::sync::Arc::new(sources(&design, args.rtl.as_ref())?);
        let harnesses =
            formal::harnesses(&checked, *block, &design, args.depth).map_err(|e| bad_input(e.to_string()))?;
        for harness in harnesses {
            let mut folder = harness.property.name.to_string();
            if !harness.part.is_empty() {
                folder += &format!("-{}", harness.part.replace(' ', "-"));
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
    progress.line(&format!(
        "proving {} properties of {} ({} checks) with yosys-smtbmc and z3 in {}",
        jobs.iter().map(|j| j.harness.property.name).collect::<std::collections::BTreeSet<_>>().len(),
        checked.config.name,
        jobs.len(),
        work.display()
    ));
    // The longest checks (the BDI lanes) come first in the list: start them first.
    let results: Vec<(&Job, prove::Checked)> = pool.install(|| {
        jobs.par_iter()
            .map(|job| {
                let r = prove::check(&job.harness, &job.sources, &job.dir)?;
                progress.bar().inc(1);
                Ok((job, r))
            })
            .collect::<anyhow::Result<_>>()
    })?;
    progress.finish();

    let mut failed = false;
    let name_width = PROPERTIES.iter().map(|p| p.name.len()).max().unwrap_or(0);
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
                println!("  as a test bench: {}", testbench.display());
                println!("  re-check in lockstep: {}", recheck(property, &args));
            }
        }
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

/// A property's result over its parts: failed if one failed, bounded if one is bounded.
fn summary(parts: &[&(&Job, prove::Checked)]) -> String {
    if parts.iter().any(|(_, r)| matches!(r.outcome, Outcome::Failed { .. })) {
        return "FAILED".into();
    }
    match parts.iter().filter_map(|(_, r)| if let Outcome::Bounded(n) = r.outcome { Some(n) } else { None }).min() {
        Some(n) => format!("bounded to {n}"),
        None => "proved".into(),
    }
}

/// The lockstep cosim that exercises the block a property is about: a solver trace is not a
/// seed, so this re-checks the block under random stimulus rather than replaying the trace.
fn recheck(property: &Property, args: &ProveArgs) -> String {
    let rtl = args.rtl.as_ref().map(|d| format!(" --rtl {}", d.display())).unwrap_or_default();
    format!("rfgen cosim {} --block {}{rtl} --cycles 1000000", args.source.flags(), property.block)
}
