//! `rfgen cosim`: lockstep cosimulation of a generated block against its golden model.

use super::{ConfigSource, bad_input};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rfgen_cosim::blocks::{self, BLOCKS};
use rfgen_cosim::session::{self, CosimOptions, Event};
use rfgen_cosim::verilator::default_cache_dir;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Cosimulate generated RTL against the golden model, cycle by cycle
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen cosim --list
  rfgen cosim --cycles 1000000                    # default SM, random seed (printed)
  rfgen cosim --preset baseline --seed 7 --cycles 20000 --trace run.fst
  rfgen cosim --config small.toml --block mrf
  rfgen cosim --block bdi --cycles 1000000        # BDI compressor + decompressor

Exit status: 0 when RTL and model agree, 1 on a mismatch or failure, 2 on bad input.")]
pub struct CosimArgs {
    #[command(flatten)]
    source: ConfigSource,
    /// Block to check (see --list)
    #[arg(long, default_value = "mrf")]
    block: String,
    /// List the blocks and exit
    #[arg(long)]
    list: bool,
    /// Cycles to run after reset (1 to 10^10)
    #[arg(long, default_value_t = 100_000)]
    cycles: u64,
    /// Stimulus seed (default: random, printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Seed for Verilator's randomization of uninitialized state (default: the stimulus seed)
    #[arg(long)]
    x_seed: Option<u32>,
    /// Record a waveform of the whole run (.vcd or .fst)
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Folder for the waveform written on a mismatch
    #[arg(long, value_name = "DIR", default_value = ".")]
    wave_dir: PathBuf,
    /// Verilator build cache (default: $RFGEN_CACHE_DIR or ~/.cache/rfgen)
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

pub fn run(args: CosimArgs) -> anyhow::Result<ExitCode> {
    if args.list {
        for b in BLOCKS {
            println!("{:<8} {}", b.name, b.about);
        }
        return Ok(ExitCode::SUCCESS);
    }
    blocks::find(&args.block).map_err(|e| bad_input(e.to_string()))?;
    if !(1..=MAX_CYCLES).contains(&args.cycles) {
        return Err(bad_input(format!(
            "--cycles {}: allowed 1 to {MAX_CYCLES} (a billion cycles take about an hour)",
            args.cycles
        )));
    }
    if let Some(t) = &args.trace {
        let ext = t.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext != "vcd" && ext != "fst" {
            return Err(bad_input(format!("--trace {}: the file name must end in .vcd or .fst", t.display())));
        }
        writable_file("--trace", t)?;
    }
    writable_folder("--wave-dir", &args.wave_dir)?;
    let checked = args.source.load()?;
    // A config the block cannot be built from is bad input, like any other config error.
    (blocks::find(&args.block)?.design)(&checked).map_err(|e| bad_input(format!("{}: {e}", args.source.flags())))?;
    let seed = args.seed.unwrap_or_else(random_seed);
    let x_seed = args.x_seed.unwrap_or(seed as u32);
    let opts = CosimOptions {
        block: args.block.clone(),
        cycles: args.cycles,
        seed,
        x_seed,
        trace: args.trace.clone(),
        fail_wave_dir: Some(args.wave_dir.clone()),
        cache: args.cache_dir.clone().unwrap_or_else(default_cache_dir),
    };
    println!(
        "cosim {}: config {} (hash {}), seed {seed}, x-seed {x_seed}, {} cycles",
        args.block,
        checked.config.name,
        checked.hash(),
        args.cycles
    );
    let bar = ProgressBar::new(args.cycles);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} cycles {per_sec} eta {eta}").expect("valid template"),
    );
    let report = session::cosim(&checked, &opts, &mut |e| match e {
        Event::Building { top, key } => {
            bar.suspend(|| eprintln!("building Verilator model of {top} ({key}); later runs reuse it"))
        }
        Event::Progress(c) => bar.set_position(c),
    })?;
    bar.finish_and_clear();
    if let Some(t) = &args.trace {
        if !t.is_file() {
            anyhow::bail!("the waveform {} was not written", t.display());
        }
    }

    println!("  {:<26} {}", "top", report.top);
    println!("  {:<26} {}", "cycles", report.cycles);
    for (name, v) in &report.stats {
        println!("  {name:<26} {v}");
    }
    println!("  {:<26} {}", "mismatches", report.mismatch.is_some() as u32);
    match &report.mismatch {
        None => {
            println!("PASS: RTL and model agree on every compared output in {} cycles", report.cycles);
            Ok(ExitCode::SUCCESS)
        }
        Some(m) => {
            print!("{m}");
            let x = if args.x_seed.is_some() { format!(" --x-seed {x_seed}") } else { String::new() };
            println!("  seed: {seed}");
            println!(
                "  reproduce: rfgen cosim {} --block {} --seed {seed}{x} --cycles {}",
                args.source.flags(),
                args.block,
                m.cycle + 1
            );
            if let Some(w) = &report.waveform {
                println!("  waveform: {}", w.display());
            }
            println!("FAIL: RTL and model differ");
            Ok(ExitCode::from(1))
        }
    }
}

/// Longest run `--cycles` accepts.
const MAX_CYCLES: u64 = 10_000_000_000;

/// An output file's folder exists, and the path is not a folder.
pub fn writable_file(flag: &str, path: &Path) -> anyhow::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    writable_folder(flag, parent)?;
    if path.is_dir() {
        return Err(bad_input(format!("{flag} {}: is a folder, not a file name", path.display())));
    }
    Ok(())
}

/// A folder rfgen will write into exists and is a folder.
pub fn writable_folder(flag: &str, dir: &Path) -> anyhow::Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() && !m.permissions().readonly() => Ok(()),
        Ok(m) if m.is_dir() => Err(bad_input(format!("{flag}: folder {} is read-only", dir.display()))),
        Ok(_) => Err(bad_input(format!("{flag}: {} is not a folder", dir.display()))),
        Err(e) => Err(bad_input(format!("{flag}: folder {} does not exist ({e})", dir.display()))),
    }
}

fn random_seed() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    let t = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    (t as u64 ^ (std::process::id() as u64) << 32) % 1_000_000_000
}
