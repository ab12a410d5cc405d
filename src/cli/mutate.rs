//! `rfgen mutate`: a mutation campaign on a block's generated RTL — how much of its behaviour the
//! lockstep's stimulus checks (docs/mutate.md).

use super::cosim::writable_file;
use super::progress::Progress;
use super::synth::pool;
use super::{ConfigSource, bad_input, claim_folder};
use crate::mutate::equiv::{self, Cut, Equivalence};
use crate::mutate::{self, MAX_MUTANTS, Mutant, Stimulus, Verdict, parts};
use crate::sweep::write_atomic;
use clap::Args;
use rayon::prelude::*;
use rfgen_cosim::blocks;
use rfgen_cosim::session::{self, Event};
use rfgen_cosim::verilator::default_cache_dir;
use rfgen_gen::{Block, SramKind};
use rfgen_model::kernel::Kernel;
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Measure how many RTL mutants of a block the lockstep catches (a mutation score)
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen mutate --preset small                          # 20 mutants of the MRF
  rfgen mutate --preset small --block scheduler --count 200 --json scheduler.json
  rfgen mutate --preset small --count 200 --only 180,186   # two of that draw checked again
  rfgen mutate --preset small --count 50 --kernel none --min-score 95   # a CI gate
  rfgen mutate --preset small --block scoreboard --x-seeds 4   # 4 power-up states per run

Yosys draws COUNT mutants of the block's flattened netlist (`mutate -list`: a bit of a cell's
port inverted, stuck at 0 or 1, or inverted where another bit of the port is 0 or 1) and builds them all into one netlist
with a selector input, so one Verilator build serves the campaign. Each mutant runs in lockstep
against the block's model: random stimulus with --seeds seeds of --cycles cycles, then, for the
blocks the SM model drives, every --kernel, each from --x-seeds power-up states of the
registers without a reset (Verilator's x-seed: random seed S from S first); the first run whose
outputs differ catches it. The unmutated netlist must pass the same runs first. A mutant no run
catches survived: an escape of the stimulus, or an edit that changes nothing the block's ports
show (an equivalent mutant). A survivor whose edit sits in another block generated inside this
one (the composed top's issue stage, scoreboard, ...) runs under that block's own lockstep,
inner first. Each survivor left is checked as `rfgen prove --rtl` checks a copy: proved
equivalent by induction, else searched for a difference over --equiv-depth cycles from reset
(found: an escape; none: equivalent within the bound). The score is caught /
(mutants - equivalent).

Exit status: 0 when the campaign ran (and the score reached --min-score), 1 below it or when
the unmutated netlist fails, 2 on bad input.")]
pub struct MutateArgs {
    #[command(flatten)]
    source: ConfigSource,
    /// The block to mutate (rfgen cosim --list)
    #[arg(long, default_value = "mrf", value_parser = Block::parse)]
    block: Block,
    /// Mutants to draw
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=MAX_MUTANTS as i64))]
    count: u32,
    /// Seed of Yosys' choice of mutants
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Run only these of the drawn mutants (their numbers, comma-separated): a campaign's
    /// survivors checked again, the score over them alone
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    only: Vec<u32>,
    /// Random-stimulus runs per mutant (seeds 1 to K), 0 to 100
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(0..=100))]
    seeds: u64,
    /// Power-up states per run: each random seed S of K runs under x-seeds S, S+K, ...,
    /// S+(N-1)K, each kernel under 1 to N (the unmutated netlist must pass them all); 1 to 100
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = super::x_seed_count)]
    x_seeds: u32,
    /// Cycles of each random-stimulus run (the runs are cheap beside the equivalence checks:
    /// 50,000 reach pairs of registers and warps that 5,000 left to chance)
    #[arg(long, default_value_t = 50_000, value_parser = super::cycles)]
    cycles: u64,
    /// Kernel traffic after the random runs (repeat): a library kernel, ptx:NAME or a file;
    /// `none` for random stimulus only (default: every library kernel the SM holds)
    #[arg(long = "kernel", value_name = "NAME|FILE")]
    kernels: Vec<String>,
    /// Check each survivor for equivalence over this many cycles from reset (Yosys' SAT
    /// solver); 0 to skip
    #[arg(long, value_name = "CYCLES", default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=200))]
    equiv_depth: u32,
    /// Seconds the solver gets per survivor for each proof and for the search; a survivor
    /// neither proved nor refuted in time is unknown and counts as an escape
    #[arg(long, value_name = "SECONDS", default_value_t = equiv::TIMEOUT_S, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    equiv_time: u64,
    /// Exit 1 when the score is below PERCENT
    #[arg(long, value_name = "PERCENT")]
    min_score: Option<f64>,
    /// Write the campaign as JSON to FILE
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Keep the Yosys scripts, logs and the mutants' netlist in DIR (default: a temporary folder)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Mutants run in parallel (default: number of cores)
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Verilator build cache (default: $RFGEN_CACHE_DIR or ~/.cache/rfgen)
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

/// The campaign as `--json` writes it.
#[derive(Serialize)]
struct Campaign<'a> {
    config: &'a str,
    config_hash: String,
    block: String,
    top: &'a str,
    seed: u32,
    random_seeds: &'a [u64],
    /// Power-up states (Verilator x-seeds) each seed and kernel ran from.
    x_seeds: u32,
    cycles: u64,
    kernels: Vec<&'a str>,
    /// Drawn edits left out: an asynchronous read port's enable, which Yosys cannot write.
    unwritable: usize,
    caught: usize,
    /// Of those, caught by the lockstep of a part around the edit (after the block's own).
    caught_by_parts: usize,
    survived: usize,
    /// Survivors no input sequence of `equiv_depth` cycles tells from the unmutated netlist.
    equivalent: usize,
    equiv_depth: u32,
    /// Seconds the solver had per survivor, for each proof and for the search.
    equiv_time: u64,
    /// caught / (mutants - equivalent).
    score_percent: f64,
    seconds: f64,
    mutants: Vec<Outcome<'a>>,
}

#[derive(Serialize)]
struct Outcome<'a> {
    #[serde(flatten)]
    mutant: &'a Mutant,
    #[serde(flatten)]
    verdict: &'a Verdict,
    #[serde(flatten)]
    equivalence: &'a Option<Equivalence>,
}

pub fn run(args: MutateArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    if let Some(p) = args.min_score
        && !(0.0..=100.0).contains(&p)
    {
        return Err(bad_input(format!("--min-score {p}: a percentage from 0 to 100")));
    }
    if let Some(path) = &args.json {
        writable_file("--json", path)?;
    }
    let pool = pool(args.jobs)?;
    let checked = args.source.load()?;
    let design = args.block.generate(&checked, SramKind::Behavioural).map_err(|e| bad_input(e.to_string()))?;
    let (kernels, skipped) = kernels(&args, &checked)?;
    for why in &skipped {
        eprintln!("note: {why}");
    }
    let seeds: Vec<u64> = (1..=args.seeds).collect();
    if seeds.is_empty() && kernels.is_empty() {
        return Err(bad_input("--seeds 0 and no kernel: nothing would run the mutants"));
    }
    // Without --out, a temporary folder, kept only when the campaign cannot run.
    let mut temp = None;
    let dir = match &args.out {
        Some(dir) => {
            claim_folder(dir, "mutate", "a later campaign replaces its files")?;
            dir.clone()
        }
        None => {
            let t = tempfile::tempdir()?;
            let path = t.path().to_path_buf();
            temp = Some(t);
            path
        }
    };

    let top = &design.manifest.top;
    let progress = Progress::new(Some(0), "{bar:40} {pos}/{len} mutants {elapsed} eta {eta}");
    progress.line(&format!(
        "mutate {top} of {} (hash {}): drawing {} mutants",
        checked.config.name,
        checked.hash(),
        args.count
    ));
    let mut drawn = mutate::draw(&design, &checked, args.count, args.seed, &dir)?;
    if let Some(missing) = args.only.iter().find(|i| !drawn.mutants.iter().any(|m| m.index == **i)) {
        progress.finish();
        let last = drawn.mutants.iter().map(|m| m.index).max().unwrap_or(0);
        return Err(bad_input(format!(
            "--only {missing}: no such mutant among the {} drawn (numbers 1 to {last}, edits Yosys cannot write left out)",
            drawn.mutants.len()
        )));
    }
    if !args.only.is_empty() {
        drawn.mutants.retain(|m| args.only.contains(&m.index));
    }
    if drawn.unwritable > 0 {
        progress.line(&format!(
            "left out {} of them: edits of an asynchronous read port's enable, which Yosys cannot write",
            drawn.unwritable
        ));
    }
    let cache = args.cache_dir.clone().unwrap_or_else(default_cache_dir);
    let lib = session::load_variants(&drawn.netlist, mutate::SELECT, &cache, &mut |e| {
        if let Event::Building { top, key } = e {
            progress.line(&format!("building {top} with {} mutants ({key})", drawn.mutants.len()));
        }
    })?;
    let stimulus = Stimulus {
        seeds: &seeds,
        cycles: args.cycles,
        kernels: &kernels,
        max_cycles: 50_000_000,
        x_seeds: args.x_seeds,
    };
    if let Verdict::Caught { by, x_seed, cycle, output } = mutate::run(args.block, &checked, &lib, 0, &stimulus)? {
        progress.finish();
        temp.map(tempfile::TempDir::keep);
        eprintln!(
            "error: the unmutated netlist of {top} differs from the model ({by}, x-seed {x_seed}, cycle {cycle}, {output}): Yosys' netlist is not the generated RTL's behaviour; see {}",
            dir.display()
        );
        return Ok(ExitCode::from(1));
    }
    progress.bar().set_length(drawn.mutants.len() as u64);
    let verdicts: Vec<Verdict> = pool.install(|| {
        drawn
            .mutants
            .par_iter()
            .map(|m| {
                let v = mutate::run(args.block, &checked, &lib, m.index, &stimulus);
                progress.bar().inc(1);
                v
            })
            .collect::<anyhow::Result<_>>()
    })?;
    progress.finish();

    // Survivors through the lockstep of each part around their edit first: a part's random
    // stimulus catches in seconds what the equivalence check would spend minutes failing to
    // prove (an issue-stage edit the composed top's programs rarely meet).
    let inside = parts::find(args.block, &checked, &design);
    let reaching: Vec<&Mutant> =
        drawn.mutants.iter().zip(&verdicts).filter(|(_, v)| matches!(v, Verdict::Survived)).map(|(m, _)| m).collect();
    let mut by_part = if inside.is_empty() || reaching.is_empty() {
        HashMap::new()
    } else {
        pool.install(|| parts::run(&drawn, &inside, &reaching, &checked, &stimulus, &cache, &mut |l| eprintln!("{l}")))
    };
    let by_parts = by_part.len();
    let verdicts: Vec<Verdict> =
        drawn.mutants.iter().zip(verdicts).map(|(m, v)| by_part.remove(&m.index).unwrap_or(v)).collect();
    let checking = verdicts.iter().filter(|v| matches!(v, Verdict::Survived)).count();
    if args.equiv_depth > 0 && checking > 0 {
        eprintln!("checking {checking} survivors for equivalence over {} cycles", args.equiv_depth);
    }
    let equivalence: Vec<Option<Equivalence>> = pool.install(|| {
        drawn
            .mutants
            .par_iter()
            .zip(&verdicts)
            .map(|(m, v)| match v {
                Verdict::Survived if args.equiv_depth > 0 => {
                    equiv::check(&drawn, m, args.equiv_depth, std::time::Duration::from_secs(args.equiv_time), &dir)
                        .map(Some)
                }
                _ => Ok(None),
            })
            .collect::<anyhow::Result<_>>()
    })?;
    let caught = verdicts.iter().filter(|v| matches!(v, Verdict::Caught { .. })).count();
    let survived = verdicts.len() - caught;
    let equivalent = equivalence.iter().flatten().filter(|e| e.is_equivalent()).count();
    let score = 100.0 * caught as f64 / (verdicts.len() - equivalent).max(1) as f64;
    println!("{:>5}  {:<7} {:<44} verdict", "#", "edit", "where");
    for ((m, v), e) in drawn.mutants.iter().zip(&verdicts).zip(&equivalence) {
        let verdict = match (v, e) {
            (Verdict::Caught { by, x_seed, cycle, output }, _) => {
                format!("caught by {by}, x-seed {x_seed}, at cycle {cycle} ({output})")
            }
            (Verdict::Survived, None) => "SURVIVED".to_string(),
            (Verdict::Survived, Some(Equivalence::Proved { module, cut })) => {
                format!("survived: equivalent (proved by induction{})", scope(" in", module, *cut, &drawn.top))
            }
            (Verdict::Survived, Some(Equivalence::ProvedAfterReset { cycles, module, cut })) => format!(
                "survived: equivalent after reset (it changes only what reset loads; every register equal {cycles} cycles after reset{})",
                scope(" in", module, *cut, &drawn.top)
            ),
            (Verdict::Survived, Some(Equivalence::Equivalent { cycles, module, cut })) => format!(
                "survived: equivalent (no difference within {cycles} cycles{})",
                scope(" at the ports of", module, *cut, &drawn.top)
            ),
            (Verdict::Survived, Some(Equivalence::Differs { first_output, first_cycle })) => {
                format!("SURVIVED: an ESCAPE ({first_output} differs in cycle {first_cycle} of a sequence from reset)")
            }
            (Verdict::Survived, Some(Equivalence::Unknown { why })) => format!("SURVIVED (equivalence unknown: {why})"),
            (Verdict::Survived, Some(Equivalence::Undefined { module })) => {
                format!("survived: equivalent (the edited bit is one {module} leaves undefined, x)")
            }
            (Verdict::Survived, Some(Equivalence::Unwritten { module })) => {
                format!("survived: equivalent (the edited bit is one this write port of {module} never writes)")
            }
            (Verdict::Survived, Some(Equivalence::WrittenAsForced { module })) => format!(
                "survived: equivalent (every write of this port of {module} gives the edited bit the value it forces)"
            ),
        };
        println!("{:>5}  {:<7} {:<44} {verdict}", m.index, m.mode, m.location());
    }
    let stimulus_text = {
        let mut parts = vec![format!("{} random seeds × {} cycles", seeds.len(), args.cycles)];
        if !kernels.is_empty() {
            parts.push(format!("{} kernels", kernels.len()));
        }
        if args.x_seeds > 1 {
            parts.push(format!("each under {} x-seeds", args.x_seeds));
        }
        parts.join(", ")
    };
    println!(
        "\n{top}: {caught} of {} non-equivalent mutants caught ({score:.1} %{}); {survived} of {} survived, {equivalent} of them equivalent; stimulus: {stimulus_text}; {:.0} s",
        verdicts.len() - equivalent,
        if by_parts > 0 { format!(", {by_parts} of them by a part's own lockstep") } else { String::new() },
        verdicts.len(),
        start.elapsed().as_secs_f64()
    );
    if survived > equivalent {
        println!(
            "a survivor not shown equivalent is an escape, or equivalent beyond the bound; the edit is in the netlist {}",
            drawn.netlist.files[0].0
        );
    }
    if let Some(path) = &args.json {
        let campaign = Campaign {
            config: &checked.config.name,
            config_hash: checked.hash().to_string(),
            block: args.block.name().to_string(),
            top,
            seed: args.seed,
            random_seeds: &seeds,
            x_seeds: args.x_seeds,
            cycles: args.cycles,
            kernels: kernels.iter().map(|k| k.name.as_str()).collect(),
            unwritable: drawn.unwritable,
            caught,
            caught_by_parts: by_parts,
            survived,
            equivalent,
            equiv_depth: args.equiv_depth,
            equiv_time: args.equiv_time,
            score_percent: score,
            seconds: start.elapsed().as_secs_f64(),
            mutants: drawn
                .mutants
                .iter()
                .zip(&verdicts)
                .zip(&equivalence)
                .map(|((mutant, verdict), equivalence)| Outcome { mutant, verdict, equivalence })
                .collect(),
        };
        write_atomic(path, &serde_json::to_vec_pretty(&campaign)?)?;
    }
    match args.min_score {
        Some(min) if score < min => {
            eprintln!("error: score {score:.1} % is below --min-score {min}");
            Ok(ExitCode::from(1))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// The kernels to run as launched on the SM, and notes on those it cannot hold.
fn kernels(args: &MutateArgs, checked: &rfgen_gen::Checked) -> anyhow::Result<(Vec<Kernel>, Vec<String>)> {
    if super::no_kernels(&args.kernels)? {
        return Ok((Vec::new(), Vec::new()));
    }
    let Ok(mode) = blocks::kernel_mode(args.block) else {
        if args.kernels.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        return Err(bad_input(blocks::kernel_mode(args.block).err().unwrap_or_default()));
    };
    if let Some(missing) = (mode.missing)(checked) {
        return Err(bad_input(format!("--kernel with {}: {missing}", args.source.flags())));
    }
    let names: Vec<String> = if args.kernels.is_empty() {
        rfgen_model::kernel::library::KERNELS.iter().map(|k| k.name.to_string()).collect()
    } else {
        args.kernels.clone()
    };
    let (mut launched, mut skipped) = (Vec::new(), Vec::new());
    for name in &names {
        let (k, _) = super::kernel_within(name, checked.config.sm.registers_per_thread)?;
        match rfgen_model::sm::launch(checked, &k) {
            Ok(l) => launched.push(l.into_owned()),
            Err(e) if args.kernels.is_empty() => skipped.push(format!("kernel {name} left out: {e}")),
            Err(e) => return Err(bad_input(format!("--kernel {name}: {e}"))),
        }
    }
    Ok((launched, skipped))
}

/// Where a survivor was shown equivalent, for its line: nothing for the whole block, else
/// `lead` and the module, and what was cut out.
fn scope(lead: &str, module: &str, cut: Cut, top: &str) -> String {
    match (module == top, cut) {
        (true, Cut::Nothing) => String::new(),
        (_, Cut::AllButTheCell) => format!("{lead} the edited cell of {module} alone"),
        (_, Cut::AllButTheCellAndItsDrivers) => format!("{lead} the edited cell of {module} with the cells driving it"),
        (_, Cut::AllButTheCombinationalCone) => {
            format!("{lead} the logic between flip-flops around the edited cell of {module}")
        }
        (_, Cut::Nothing) => format!("{lead} {module}"),
        (_, Cut::Instances) => format!("{lead} {module}, its instances cut out"),
        (_, Cut::MemoryLeaves) => format!("{lead} {module}, its memory leaves cut out as what they observe"),
        (_, Cut::MemoriesWithInvariants) => format!("{lead} {module} with its invariants, its memories cut out"),
        (_, Cut::MemoriesWithInvariantsReadsObserved) => {
            format!(
                "{lead} {module} with its invariants, its memories cut out, the leaves' read registers compared where read"
            )
        }
    }
}
