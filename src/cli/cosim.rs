//! `rfgen cosim`: lockstep cosimulation of a block's RTL against its golden model, under random
//! stimulus or under the traffic of a kernel running on the SM model.

use super::progress::Progress;
use super::{ConfigSource, bad_input};
use clap::Args;
use rfgen_cosim::blocks::{self, BLOCKS, KernelMode};
use rfgen_cosim::session::{self, CosimOptions, CosimReport, Event};
use rfgen_cosim::user_rtl;
use rfgen_cosim::verilator::{default_cache_dir, x_seed_of};
use rfgen_gen::{Block, Checked, Design, SramKind};
use rfgen_model::kernel::Kernel;
use rfgen_model::sim::Grid;
use rfgen_model::sm::{SimError, launch};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Cosimulate generated RTL against the golden model, cycle by cycle
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen cosim --list
  rfgen cosim --cycles 1000000                    # default SM, random seed (printed)
  rfgen cosim --preset baseline --seed 7 --cycles 20000 --trace run.fst
  rfgen cosim --kernel matmul                     # the SM model runs matmul on the MRF's RTL
  rfgen cosim --preset isca15-bdi --kernel pathfinder
  rfgen cosim --block bdi --cycles 1000000        # BDI compressor + decompressor
  rfgen cosim --rtl my-rtl/ --kernel saxpy        # re-verify an edited copy of rtl-out/baseline
  rfgen cosim --block scoreboard --seed 5 --x-seeds 8   # power-up states: x-seeds 5 to 12

Random mode drives the block with protocol-respecting random stimulus for --cycles cycles.
Kernel mode (--kernel) runs the kernel on the SM model with the block's RTL in place of its
model: every output is compared every cycle and every operand is checked against the kernel's
functional values. With --rtl, the RTL in DIR (its filelist <top>.f, else every .v/.sv file)
replaces the generated one; its top's ports are read from the Verilog and must match the
block's interface (every difference is listed, exit 2). Registers without a reset power up
with values Verilator draws from the x-seed: --x-seeds N runs the stimulus from N of them, one
line each, the first failure in full with a reproducer naming its --x-seed.

Exit status: 0 when RTL and model agree, 1 on a mismatch or failure, 2 on bad input.")]
pub struct CosimArgs {
    #[command(flatten)]
    source: ConfigSource,
    /// Block to check (see --list)
    #[arg(long, default_value = "mrf", value_parser = Block::parse)]
    block: Block,
    /// List the blocks and exit
    #[arg(long)]
    list: bool,
    /// Random mode: cycles to run after reset (default 100000). Kernel mode: the cycle limit
    /// (default 200000000). At most 10^10.
    #[arg(long, value_parser = super::cycles)]
    cycles: Option<u64>,
    /// Run this library kernel, .kir file, .ptx file or built-in PTX workload ptx:NAME
    /// (docs/ptx.md) on the SM model, driving the block's RTL
    #[arg(long, value_name = "NAME|FILE")]
    kernel: Option<String>,
    /// Random-stimulus seed (default: random, printed)
    #[arg(long, conflicts_with = "kernel")]
    seed: Option<u64>,
    /// Seed for Verilator's randomization of uninitialized state, 1 or more (default: the
    /// stimulus seed, 1 for seed 0, or 1 in kernel mode)
    #[arg(long, value_parser = super::x_seed)]
    x_seed: Option<u32>,
    /// Run the stimulus once under each of N x-seeds on the same build: the default x-seed and
    /// the N-1 after it (seed S: S to S+N-1; kernel mode: 1 to N); a line per x-seed, the first
    /// failure in full. 1 to 100
    #[arg(long, value_name = "N", value_parser = super::x_seed_count, conflicts_with_all = ["x_seed", "trace"])]
    x_seeds: Option<u32>,
    /// Record a waveform of the whole run (.vcd or .fst)
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Folder for the waveform written on a mismatch
    #[arg(long, value_name = "DIR", default_value = ".")]
    wave_dir: PathBuf,
    /// Kernel mode: on a mismatch, do not reduce the kernel to a small one that still mismatches
    #[arg(long, requires = "kernel")]
    no_shrink: bool,
    /// Check a copy of the block's RTL in DIR (hand-edited, SRAM leaf swapped, rewritten by a
    /// tool) instead of generating it; its top's ports must match the block's interface
    #[arg(long, value_name = "DIR")]
    rtl: Option<PathBuf>,
    /// Verilator build cache (default: $RFGEN_CACHE_DIR or ~/.cache/rfgen)
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

pub fn run(args: CosimArgs) -> anyhow::Result<ExitCode> {
    if args.list {
        for b in BLOCKS {
            let kernel = if b.kernel.is_some() { " [--kernel]" } else { "" };
            println!("{:<11} {}{kernel}", b.block.name(), b.block.about());
        }
        return Ok(ExitCode::SUCCESS);
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
    let seed = args.seed.unwrap_or_else(random_seed);
    let stimulus = match &args.kernel {
        Some(spec) => Stimulus::Kernel(spec.clone()),
        None => Stimulus::Random { seed },
    };
    let spec = stimulus.kernel_spec(args.block, &checked);
    let (kernel, source, scaled) = match &spec {
        Some(spec) => {
            let k = launched_kernel(args.block, &checked, spec, &stimulus, &args.source)?;
            (Some(k.kernel), k.source, k.scaled)
        }
        None => (None, String::new(), None),
    };
    // A config the block cannot be built from is bad input, like any other config error.
    let generated = args
        .block
        .generate(&checked, SramKind::Behavioural)
        .map_err(|e| bad_input(format!("{}: {e}", args.source.flags())))?;
    let design = match &args.rtl {
        None => generated,
        Some(dir) => user_rtl::load(dir, &generated)
            .map_err(|e| if e.is_input_error() { bad_input(e.to_string()) } else { anyhow::anyhow!(e) })?,
    };
    let x_seeds = match args.x_seeds {
        Some(n) => stimulus.x_seeds(n),
        None => vec![args.x_seed.unwrap_or(stimulus.default_x_seed())],
    };
    let opts = CosimOptions {
        block: args.block,
        cycles: args.cycles.unwrap_or(stimulus.default_cycles(args.block)),
        seed,
        x_seed: x_seeds[0],
        trace: args.trace.clone(),
        fail_wave_dir: Some(args.wave_dir.clone()),
        cache: args.cache_dir.clone().unwrap_or_else(default_cache_dir),
    };
    let x_text = match x_seeds.as_slice() {
        [first, .., last] => format!("x-seeds {first} to {last}"),
        [one] if args.x_seeds.is_some() => format!("x-seeds {one}"),
        _ => format!("x-seed {}", opts.x_seed),
    };
    let what = match &kernel {
        Some(k) => format!("kernel {} on the SM model, {x_text}", k.name),
        None => format!("seed {seed}, {x_text}, {} cycles", opts.cycles),
    };
    let rtl = args.rtl.as_ref().map_or(String::new(), |d| format!(", RTL from {}", d.display()));
    println!("cosim {}: config {} (hash {}){rtl}, {what}", args.block, checked.config.name, checked.hash());
    if let Some(s) = &scaled {
        println!("  {:<26} {s}", "launch");
    }
    let ptx = spec.as_deref().is_some_and(super::ptx::names_ptx);
    let setup = Setup { args: &args, checked, design, kernel, source, stimulus, ptx, opts };
    match args.x_seeds {
        None => setup.run_one(),
        Some(_) => setup.run_each(&x_seeds),
    }
}

/// A cosim as the flags set it up, all but the x-seed of each run.
struct Setup<'a> {
    args: &'a CosimArgs,
    checked: Checked,
    design: Design,
    kernel: Option<Kernel>,
    /// The kernel's source text, which a failing run is reduced from.
    source: String,
    stimulus: Stimulus,
    /// The kernel is PTX, which the reducer cannot take.
    ptx: bool,
    opts: CosimOptions,
}

impl Setup<'_> {
    /// One run under the x-seed of `--x-seed` (or the default): its report, then PASS, or what
    /// failed and how to repeat it.
    fn run_one(&self) -> anyhow::Result<ExitCode> {
        let report = self.session(self.opts.x_seed, true)?;
        if let Some(t) = &self.args.trace
            && !t.is_file()
        {
            anyhow::bail!("the waveform {} was not written", t.display());
        }
        print_report(&report, self.kernel.as_ref());
        if report.passed() {
            println!("PASS: RTL and model agree on every compared output in {} cycles", report.cycles);
            return Ok(ExitCode::SUCCESS);
        }
        self.explain(&report, self.opts.x_seed, self.args.x_seed.is_some())?;
        println!("FAIL: RTL and model differ");
        Ok(ExitCode::from(1))
    }

    /// The same stimulus under each of `x_seeds` (`--x-seeds`): a line per x-seed, then the
    /// first that failed in full, its reproducer naming it.
    fn run_each(&self, x_seeds: &[u32]) -> anyhow::Result<ExitCode> {
        let mut failed = Vec::new();
        let mut first_failure = None;
        for &x_seed in x_seeds {
            // Only the first failure is explained, so only it needs a waveform.
            let report = self.session(x_seed, first_failure.is_none())?;
            let verdict =
                if report.passed() { format!("pass, {} cycles", report.cycles) } else { failure_summary(&report) };
            println!("  x-seed {x_seed:<19} {verdict}");
            if !report.passed() {
                failed.push(x_seed.to_string());
                first_failure.get_or_insert((x_seed, report));
            }
        }
        let Some((x_seed, report)) = first_failure else {
            println!("PASS: RTL and model agree on every compared output under {} x-seeds", x_seeds.len());
            return Ok(ExitCode::SUCCESS);
        };
        println!("x-seed {x_seed}, the first that failed:");
        print_report(&report, self.kernel.as_ref());
        self.explain(&report, x_seed, true)?;
        println!(
            "FAIL: RTL and model differ under {} of {} x-seeds ({})",
            failed.len(),
            x_seeds.len(),
            failed.join(", ")
        );
        Ok(ExitCode::from(1))
    }

    /// One lockstep run under `x_seed`, with a progress bar; `wave`: write the waveform of a
    /// mismatch.
    fn session(&self, x_seed: u32, wave: bool) -> anyhow::Result<CosimReport> {
        let fail_wave_dir = if wave { self.opts.fail_wave_dir.clone() } else { None };
        let opts = CosimOptions { x_seed, fail_wave_dir, ..self.opts.clone() };
        let kernel = self.kernel.is_some();
        let progress = match kernel {
            true => Progress::new(None, "{spinner} {pos} cycles {per_sec}"),
            false => Progress::new(Some(opts.cycles), "{bar:40} {pos}/{len} cycles {per_sec} eta {eta}"),
        };
        let total = opts.cycles;
        let mut events = |e: Event| match e {
            Event::Building { top, key } => progress.line(&building(top, key)),
            Event::Progress(c) => progress.set_position(c, |c| match kernel {
                true => format!("cycle {c}"),
                false => format!("cycle {c} of {total}"),
            }),
        };
        let report = run_session(&self.checked, &self.design, self.kernel.as_ref(), &opts, &mut events);
        progress.finish();
        report
    }

    /// What a failed run under `x_seed` found and the command that repeats it (with `--x-seed`
    /// when `name_x_seed`); a failing kernel is then reduced to the smallest that still
    /// mismatches.
    fn explain(&self, report: &CosimReport, x_seed: u32, name_x_seed: bool) -> anyhow::Result<()> {
        let args = self.args;
        explain_failure(args, report, &self.stimulus, name_x_seed.then_some(x_seed));
        if report.mismatch.is_some() && report.undefined_reads > 0 && self.checked.config.rename.enabled {
            println!(
                "  note: a register never written has no physical register under renaming; the RTL's table holds whatever it powered up with, so its bank, and the timing, may differ from the model's. Write every register before reading it."
            );
        }
        if self.ptx && report.mismatch.is_some() && !args.no_shrink {
            eprintln!("(a PTX kernel is not reduced: the reducer works on the lines of kernel-IR files)");
        }
        if report.mismatch.is_none() || self.kernel.is_none() || args.no_shrink || self.ptx {
            return Ok(());
        }
        eprintln!("reducing the kernel to the smallest one that still mismatches (--no-shrink skips this)");
        let opts = CosimOptions { x_seed, ..self.opts.clone() };
        let mut events = |e: Event| {
            if let Event::Building { top, key } = e {
                eprintln!("{}", building(top, key));
            }
        };
        let reduced = session::reduce(
            &self.checked,
            &self.design,
            &self.source,
            &opts,
            &args.wave_dir,
            &mut events,
            &mut |line| eprintln!("  {line}"),
        )?;
        if let Some(r) = reduced {
            println!(
                "reduced to {} instructions ({} tries); mismatch at cycle {}:",
                r.instructions, r.tries, r.mismatch.cycle
            );
            print!("{}", r.mismatch);
            println!("  reduced kernel: {}", r.file.display());
            for line in r.text.lines() {
                println!("    {line}");
            }
            let reduced = Stimulus::Kernel(r.file.display().to_string());
            let command = reproducer(&args.source, args.block, &reduced, None, Some(x_seed), args.rtl.as_deref());
            println!("  reproduce: {command}");
            println!(
                "  waveform: {} (the RTL beside the model's expected outputs, scope rfgen_model)",
                r.waveform.display()
            );
        }
        Ok(())
    }
}

fn building(top: &str, key: &str) -> String {
    format!("building Verilator model of {top} ({key}); later runs reuse it")
}

fn print_report(report: &CosimReport, kernel: Option<&Kernel>) {
    println!("  {:<26} {}", "top", report.top);
    println!("  {:<26} {}", "cycles", report.cycles);
    for (name, v) in &report.stats {
        println!("  {name:<26} {v}");
    }
    println!("  {:<26} {}", "mismatches", report.mismatch.is_some() as u32);
    if kernel.is_some() {
        println!("  {:<26} {}", "operand mismatches", report.operand_mismatches);
    }
    if report.undefined_reads > 0 {
        println!("  warning: the kernel read {} lanes of registers it never wrote", report.undefined_reads);
    }
}

fn explain_failure(args: &CosimArgs, report: &CosimReport, stimulus: &Stimulus, x_seed: Option<u32>) {
    print!("{}", failure_details(report));
    // A random run stops at its mismatch: repeating it needs no more cycles than that.
    let cycles = match stimulus {
        Stimulus::Random { seed } if args.block != Block::Sm => {
            println!("  seed: {seed}");
            Some(report.mismatch.as_ref().map_or(report.cycles, |m| m.cycle + 1))
        }
        _ => args.cycles,
    };
    let command = reproducer(&args.source, args.block, stimulus, cycles, x_seed, args.rtl.as_deref());
    println!("  reproduce: {command}");
    if let Some(w) = &report.waveform {
        println!("  waveform: {}", w.display());
    }
}

/// A failed run in one line: the cycle and ports of its mismatch, else its first detail.
pub fn failure_summary(report: &CosimReport) -> String {
    match &report.mismatch {
        Some(m) => {
            let ports: Vec<&str> = m.ports.iter().map(|p| p.port.as_str()).collect();
            format!("MISMATCH at cycle {} on {}", m.cycle, ports.join(", "))
        }
        None => failure_details(report).lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("failed").to_string(),
    }
}

/// What went wrong in a failed run, one indented line each: the mismatch report, operands that
/// differ, the kernel's fault or cycle limit.
pub fn failure_details(report: &CosimReport) -> String {
    let mut text = String::new();
    if let Some(m) = &report.mismatch {
        text += &m.to_string();
    }
    if report.operand_mismatches > 0 {
        text += &format!(
            "  {} operands differ from the kernel's functional values (rfgen sim shows them)\n",
            report.operand_mismatches
        );
    }
    match &report.kernel_error {
        Some(SimError::CycleLimit(c)) => {
            text += &format!("  the kernel did not finish within {c} cycles (raise --cycles)\n")
        }
        Some(e) => text += &format!("  {e}\n"),
        None => {}
    }
    text
}

/// What drives a block in one cosim run.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Stimulus {
    /// The block's protocol-respecting random stimulus from a seed; for the composed top, whose
    /// random stimulus is a random program, that program run as a kernel.
    Random { seed: u64 },
    /// A kernel on the SM model, as `--kernel` names it.
    Kernel(String),
}

/// Random stimulus runs this many cycles unless told otherwise.
pub const RANDOM_CYCLES: u64 = 100_000;
/// A kernel's cycle limit unless told otherwise.
pub const KERNEL_CYCLE_LIMIT: u64 = 200_000_000;

impl Stimulus {
    /// The `--kernel` that drives `block`: the named one, or the composed top's random program.
    pub fn kernel_spec(&self, block: Block, checked: &Checked) -> Option<String> {
        match (self, block) {
            (Stimulus::Kernel(spec), _) => Some(spec.clone()),
            (Stimulus::Random { seed }, Block::Sm) => Some(blocks::sm::random_program_spec(checked, *seed)),
            (Stimulus::Random { .. }, _) => None,
        }
    }

    /// Cycles to run (random) or the cycle limit (a kernel, the composed top's random program).
    pub fn default_cycles(&self, block: Block) -> u64 {
        match (self, block) {
            (Stimulus::Random { .. }, b) if b != Block::Sm => RANDOM_CYCLES,
            _ => KERNEL_CYCLE_LIMIT,
        }
    }

    /// Verilator's x-seed: the stimulus seed, or 1 under a named kernel.
    pub fn default_x_seed(&self) -> u32 {
        match self {
            Stimulus::Random { seed } => x_seed_of(*seed),
            Stimulus::Kernel(_) => 1,
        }
    }

    /// The x-seeds of `--x-seeds n`: the default one and the `n - 1` after it.
    pub fn x_seeds(&self, n: u32) -> Vec<u32> {
        match self {
            // From the seed's own x-seed up, past 0 (see `x_seed_of`).
            Stimulus::Random { seed } => {
                (0..).map(|i: u64| seed.wrapping_add(i) as u32).filter(|&x| x != 0).take(n as usize).collect()
            }
            Stimulus::Kernel(_) => (1..=n).collect(),
        }
    }
}

/// The command line that repeats a run: cycles and x-seed when they are not the defaults the
/// stimulus implies, `--rtl` for a user's RTL.
pub fn reproducer(
    source: &ConfigSource,
    block: Block,
    stimulus: &Stimulus,
    cycles: Option<u64>,
    x_seed: Option<u32>,
    rtl: Option<&Path>,
) -> String {
    let mut command = format!("rfgen cosim {} --block {block}", source.flags());
    match stimulus {
        Stimulus::Random { seed } => command += &format!(" --seed {seed}"),
        Stimulus::Kernel(spec) => command += &format!(" --kernel {spec}"),
    }
    if let Some(c) = cycles {
        command += &format!(" --cycles {c}");
    }
    if let Some(x) = x_seed {
        command += &format!(" --x-seed {x}");
    }
    if let Some(dir) = rtl {
        command += &format!(" --rtl {}", dir.display());
    }
    command
}

/// A kernel ready to drive a block's RTL: as launched on the config's SM, its source text, and
/// the note on a launch scaled to fit.
pub struct LaunchedKernel {
    pub kernel: Kernel,
    pub source: String,
    pub scaled: Option<String>,
}

/// The kernel `spec` (a `--kernel` argument, or the composed top's random program) as it drives
/// `block` on the SM of `checked`; bad input when the block or config has no kernel mode or the
/// kernel does not fit the SM.
pub fn launched_kernel(
    block: Block,
    checked: &Checked,
    spec: &str,
    stimulus: &Stimulus,
    config: &ConfigSource,
) -> anyhow::Result<LaunchedKernel> {
    let (mut declared, source) = super::kernel_within(spec, checked.config.sm.registers_per_thread)?;
    if let Stimulus::Random { seed } = stimulus {
        declared.name = format!("random-program-{seed}");
    }
    let (_, kernel) = kernel_mode(block, checked, &declared, config)?;
    let scaled = (Grid::of(&kernel) != Grid::of(&declared))
        .then(|| super::sim::scaled_launch(&Grid::of(&declared), &Grid::of(&kernel)));
    Ok(LaunchedKernel { kernel, source, scaled })
}

/// One lockstep session: under `kernel` on the SM model, else under random stimulus.
pub fn run_session(
    checked: &Checked,
    design: &rfgen_gen::Design,
    kernel: Option<&Kernel>,
    opts: &CosimOptions,
    events: &mut dyn FnMut(Event),
) -> anyhow::Result<CosimReport> {
    match kernel {
        Some(k) => session::cosim_kernel(checked, design, k, opts, events),
        None => session::cosim_design(checked, design, opts, events),
    }
}

/// The kernel mode of `block`, checked before any RTL is built: the SM model drives the block,
/// the config has what it needs (renaming, for the rename stage) and `kernel` launches on the SM
/// (with its own block or scaled, as `rfgen sim` runs it); the mode and the kernel as launched.
pub fn kernel_mode(
    block: Block,
    checked: &Checked,
    kernel: &Kernel,
    source: &ConfigSource,
) -> anyhow::Result<(&'static KernelMode, Kernel)> {
    let mode = blocks::kernel_mode(block).map_err(bad_input)?;
    if let Some(missing) = (mode.missing)(checked) {
        return Err(bad_input(format!("--kernel with {}: {missing}", source.flags())));
    }
    let launched = launch(checked, kernel).map_err(|e| bad_input(e.to_string()))?;
    Ok((mode, launched.into_owned()))
}

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
