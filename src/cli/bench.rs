//! `rfgen bench`: throughput benchmarks whose figures go into the README.

use super::ConfigSource;
use clap::{Args, Subcommand};
use rfgen_cosim::blocks;
use rfgen_cosim::session::{Event, load};
use rfgen_cosim::verilator::TraceKind;
use rfgen_cosim::verilator::default_cache_dir;
use rfgen_gen::{Block, SramKind};
use std::path::PathBuf;
use std::process::ExitCode;

/// Measure simulation throughput
#[derive(Args)]
#[command(arg_required_else_help = false, subcommand_required = true)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchWhat,
}

#[derive(Subcommand)]
enum BenchWhat {
    /// Simulated SM cycles/s and warp instructions/s of the golden model on one thread
    #[command(
        after_help = "Examples:\n  rfgen bench sim --kernel matmul\n  rfgen bench sim --preset isca15-bdi --kernel pathfinder --seconds 5\n  rfgen bench sim --kernel ptx:sgemm\n  rfgen bench sim --kernel workloads/nbody.toml"
    )]
    Sim {
        #[command(flatten)]
        source: ConfigSource,
        /// Library kernel, .kir or .ptx file (or its launch file), ptx:NAME or synthetic:KNOBS
        #[arg(long, default_value = "matmul", value_name = "NAME|FILE")]
        kernel: String,
        /// Repeat the kernel until this many seconds have passed
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
    /// Cycles/s of lockstep cosim, of the Verilated RTL alone and of the model alone
    #[command(
        after_help = "Examples:\n  rfgen bench cosim --preset baseline --cycles 1000000\n  rfgen bench cosim --kernel matmul     # the SM model drives the MRF's RTL\n  rfgen bench cosim --block issue --preset war-warpboard --kernel matmul"
    )]
    Cosim {
        #[command(flatten)]
        source: ConfigSource,
        #[arg(long, default_value = "mrf", value_parser = Block::parse)]
        block: Block,
        /// Cycles to run (kernel mode: the kernel is repeated until at least this many)
        #[arg(long, default_value_t = 1_000_000, value_parser = super::cycles)]
        cycles: u64,
        /// Kernel mode: run this library kernel, .kir or .ptx file on the SM model, driving the block's
        /// RTL (blocks the SM holds: see rfgen cosim --list)
        #[arg(long, value_name = "NAME|FILE")]
        kernel: Option<String>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Verilator build cache (default: $RFGEN_CACHE_DIR or ~/.cache/rfgen)
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
    },
}

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    match args.what {
        BenchWhat::Sim { source, kernel, seconds } => {
            let checked = source.load()?;
            let (k, _) = super::kernel_within(&kernel, checked.config.sm.registers_per_thread)?;
            let (mut cycles, mut instructions, mut runs) = (0u64, 0u64, 0u32);
            let start = std::time::Instant::now();
            while start.elapsed().as_secs_f64() < seconds || runs == 0 {
                let (stats, _) = rfgen_model::sim::run(&checked, &k, u64::MAX, &mut |_| {})?;
                cycles += stats.cycles;
                instructions += stats.warp_instructions;
                runs += 1;
            }
            let secs = start.elapsed().as_secs_f64();
            println!(
                "sim benchmark: kernel {kernel}, config {}, {runs} runs of {} cycles, one thread",
                checked.config.name,
                cycles / runs as u64
            );
            println!("  simulated cycles/s        {:>12.0}", cycles as f64 / secs);
            println!("  warp instructions/s       {:>12.0}", instructions as f64 / secs);
            println!("  peak memory (VmHWM)       {:>12}", peak_memory().unwrap_or_else(|| "unknown".into()));
            Ok(ExitCode::SUCCESS)
        }
        BenchWhat::Cosim { source, block, cycles, kernel, seed, cache_dir } => {
            let checked = source.load()?;
            let info = blocks::find(block);
            let registers = checked.config.sm.registers_per_thread;
            let kernel = kernel.map(|k| super::kernel_within(&k, registers).map(|(k, _)| k)).transpose()?;
            // The kernel as launched on this SM (scaled if its block does not fit).
            let launched = match &kernel {
                Some(k) => Some(super::cosim::kernel_mode(block, &checked, k, &source)?),
                None => None,
            };
            let cache = cache_dir.unwrap_or_else(default_cache_dir);
            let design = block.generate(&checked, SramKind::Behavioural)?;
            let lib = load(&design, TraceKind::None, &cache, &mut |e| {
                if let Event::Building { top, key } = e {
                    eprintln!("building Verilator model of {top} ({key})");
                }
            })?;
            let (r, traffic) = match &launched {
                Some((mode, k)) => {
                    ((mode.bench)(&checked, &lib, k, cycles)?, format!("kernel {} on the SM model, repeated", k.name))
                }
                _ => ((info.bench)(&checked, &lib, cycles, seed)?, format!("random stimulus, seed {seed}")),
            };
            println!("cosim benchmark: block {block}, config {}, {} cycles, {traffic}", checked.config.name, r.cycles);
            println!(
                "  (a) lockstep cosim   {:>12.0} cycles/s  ({:.0}% of b)",
                r.lockstep_cps,
                100.0 * r.lockstep_cps / r.rtl_cps
            );
            println!("  (b) Verilated RTL    {:>12.0} cycles/s", r.rtl_cps);
            println!("  (c) model alone      {:>12.0} cycles/s  ({:.1}x b)", r.model_cps, r.model_cps / r.rtl_cps);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Peak resident memory of this process, from /proc (Linux).
fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).map(|v| v.trim().to_string())
}
