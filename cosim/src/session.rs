//! A complete cosim run as `rfgen cosim` performs it: take the block's RTL (generated, or a
//! user's copy checked against the block's interface), build (or reuse) its Verilator library,
//! run lockstep — random stimulus, or the SM running a kernel — and on a mismatch replay the run
//! with tracing to write a waveform of its last cycles with the model's expected outputs.

use crate::blocks;
use crate::kernel::KernelOptions;
use crate::lockstep::{Mismatch, Waveform};
use crate::random::RunOptions;
use crate::verilator::{BuildPlan, Layout, RtlLib, TraceKind};
use anyhow::Result;
use rfgen_gen::{Block, Checked, Design, SramKind};
use rfgen_model::kernel::Kernel;
use rfgen_model::sm::SimError;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Cycles before a mismatch kept in its waveform.
pub const WAVE_WINDOW: u64 = 64;

#[derive(Clone, Debug)]
pub struct CosimOptions {
    pub block: Block,
    /// Random mode: cycles to run. Kernel mode: the SM's cycle limit.
    pub cycles: u64,
    /// Random mode: the stimulus seed.
    pub seed: u64,
    pub x_seed: u32,
    /// Record the whole run (`.vcd` or `.fst`).
    pub trace: Option<PathBuf>,
    /// Where to write the waveform of a mismatch (none: do not write one).
    pub fail_wave_dir: Option<PathBuf>,
    pub cache: PathBuf,
}

/// Progress notifications for a user interface.
pub enum Event<'a> {
    /// A Verilator build starts (it is not cached yet).
    Building { top: &'a str, key: &'a str },
    /// Cycles completed so far.
    Progress(u64),
}

#[derive(Clone, Debug)]
pub struct CosimReport {
    pub block: Block,
    pub top: String,
    pub cycles: u64,
    pub stats: Vec<(&'static str, u64)>,
    pub mismatch: Option<Mismatch>,
    pub waveform: Option<PathBuf>,
    /// Kernel mode: operands that differ from the kernel's functional values.
    pub operand_mismatches: u64,
    /// Kernel mode: source lanes the kernel read from registers its warp never wrote.
    pub undefined_reads: u64,
    /// Kernel mode: the kernel faulted or ran out of cycles.
    pub kernel_error: Option<SimError>,
}

impl CosimReport {
    pub fn passed(&self) -> bool {
        self.mismatch.is_none() && self.operand_mismatches == 0 && self.kernel_error.is_none()
    }
}

/// Builds (or finds in the cache) and loads the library of a design's top module.
pub fn load(design: &Design, trace: TraceKind, cache: &Path, events: &mut dyn FnMut(Event)) -> Result<Arc<RtlLib>> {
    load_plan(design, BuildPlan::new(design, trace, cache)?, events)
}

/// [`load`] of a design holding several variants of the block, selected by the input
/// `variant_port` ([`RtlLib::with_variant`]).
pub fn load_variants(
    design: &Design,
    variant_port: &str,
    cache: &Path,
    events: &mut dyn FnMut(Event),
) -> Result<Arc<RtlLib>> {
    load_plan(design, BuildPlan::with_variant_port(design, cache, variant_port)?, events)
}

fn load_plan(design: &Design, plan: BuildPlan, events: &mut dyn FnMut(Event)) -> Result<Arc<RtlLib>> {
    if !plan.is_built() {
        events(Event::Building { top: &design.manifest.top, key: plan.key() });
    }
    let path = plan.build()?;
    RtlLib::load(&path, Layout::new(design.manifest.top_module()))
}

/// Random-stimulus lockstep of the block's generated RTL.
pub fn cosim(checked: &Checked, opts: &CosimOptions, events: &mut dyn FnMut(Event)) -> Result<CosimReport> {
    cosim_design(checked, &opts.block.generate(checked, SramKind::Behavioural)?, opts, events)
}

/// [`cosim`] of a given design of the block (a user's copy, or a deliberately broken one).
pub fn cosim_design(
    checked: &Checked,
    design: &Design,
    opts: &CosimOptions,
    events: &mut dyn FnMut(Event),
) -> Result<CosimReport> {
    let block = blocks::find(opts.block);
    // A replay stops at the failing cycle, like the run it repeats.
    let run = |lib: &Arc<RtlLib>, waveform: Option<Waveform>, events: &mut dyn FnMut(Event)| {
        let run_opts = RunOptions { cycles: opts.cycles, x_seed: opts.x_seed, waveform };
        (block.random)(checked, lib, opts.seed, &run_opts, &mut |c| events(Event::Progress(c)))
    };
    let lib = load(design, trace_kind(opts), &opts.cache, events)?;
    let outcome = run(&lib, whole_run(opts), events)?;
    let ran = Ran {
        cycles: outcome.cycles,
        stats: outcome.stats,
        mismatch: outcome.mismatch,
        operand_mismatches: 0,
        undefined_reads: 0,
        kernel_error: None,
    };
    let wave_name = format!("cosim-{}-seed{}.vcd", opts.block, opts.seed);
    finish(design, opts, ran, &wave_name, events, &mut |lib, w| run(lib, Some(w), &mut |_| {}).map(|_| ()))
}

/// Kernel-driven lockstep: the SM model runs `kernel` with the block's RTL in place of its
/// model (`opts.cycles` is the cycle limit).
pub fn cosim_kernel(
    checked: &Checked,
    design: &Design,
    kernel: &Kernel,
    opts: &CosimOptions,
    events: &mut dyn FnMut(Event),
) -> Result<CosimReport> {
    let mode = blocks::kernel_mode(opts.block).map_err(anyhow::Error::msg)?;
    let run = |lib: &Arc<RtlLib>, waveform: Option<Waveform>, events: &mut dyn FnMut(Event)| {
        let k_opts = KernelOptions { x_seed: opts.x_seed, max_cycles: opts.cycles, waveform };
        (mode.run)(checked, lib, kernel, &k_opts, &mut |c| events(Event::Progress(c)))
    };
    let lib = load(design, trace_kind(opts), &opts.cache, events)?;
    let o = run(&lib, whole_run(opts), events)?;
    let ran = Ran {
        cycles: o.cycles,
        stats: o.stats,
        mismatch: o.mismatch,
        operand_mismatches: o.sim.operand_mismatches,
        undefined_reads: o.sim.undefined_reads,
        kernel_error: o.error,
    };
    let wave_name = format!("cosim-{}-{}.vcd", opts.block, kernel.name);
    finish(design, opts, ran, &wave_name, events, &mut |lib, w| run(lib, Some(w), &mut |_| {}).map(|_| ()))
}

/// What a run found, before its report.
struct Ran {
    cycles: u64,
    stats: Vec<(&'static str, u64)>,
    mismatch: Option<Mismatch>,
    operand_mismatches: u64,
    undefined_reads: u64,
    kernel_error: Option<SimError>,
}

/// The report of a run; after a mismatch (and without a whole-run trace) `replay` runs it again
/// on a VCD-tracing build, recording the last [`WAVE_WINDOW`] cycles into `wave_name`.
fn finish(
    design: &Design,
    opts: &CosimOptions,
    ran: Ran,
    wave_name: &str,
    events: &mut dyn FnMut(Event),
    replay: &mut dyn FnMut(&Arc<RtlLib>, Waveform) -> Result<()>,
) -> Result<CosimReport> {
    let mut waveform = opts.trace.clone();
    if let (Some(m), None, Some(dir)) = (&ran.mismatch, &opts.trace, &opts.fail_wave_dir) {
        let path = dir.join(wave_name);
        let lib = load(design, TraceKind::Vcd, &opts.cache, events)?;
        replay(&lib, window(&path, m))?;
        waveform = Some(path);
    }
    Ok(CosimReport {
        block: opts.block,
        top: design.manifest.top.clone(),
        cycles: ran.cycles,
        stats: ran.stats,
        mismatch: ran.mismatch,
        waveform,
        operand_mismatches: ran.operand_mismatches,
        undefined_reads: ran.undefined_reads,
        kernel_error: ran.kernel_error,
    })
}

/// A failing kernel reduced to a small one that still mismatches.
#[derive(Clone, Debug)]
pub struct Reduced {
    pub kernel: Kernel,
    /// Its source text, also written to `file`.
    pub text: String,
    pub file: PathBuf,
    pub instructions: usize,
    pub mismatch: Mismatch,
    /// The reduced run's waveform (its whole run, with the model's expected outputs).
    pub waveform: PathBuf,
    pub tries: u32,
}

/// After a kernel-driven mismatch: shrinks `source` to the smallest kernel that still shows an
/// RTL mismatch ([`crate::shrink`]), writes it as `cosim-<block>-<kernel>-reduced.kir` and its
/// run's waveform beside it in `dir`. `progress` gets one line per accepted reduction.
pub fn reduce(
    checked: &Checked,
    design: &Design,
    source: &str,
    opts: &CosimOptions,
    dir: &Path,
    events: &mut dyn FnMut(Event),
    progress: &mut dyn FnMut(&str),
) -> Result<Option<Reduced>> {
    let lib = load(design, TraceKind::None, &opts.cache, events)?;
    let k_opts = KernelOptions { x_seed: opts.x_seed, max_cycles: opts.cycles, waveform: None };
    let fails = |o: &crate::kernel::KernelOutcome| o.mismatch.is_some();
    let Some(shrunk) = crate::shrink::shrink(opts.block, checked, &lib, source, &k_opts, &fails, progress)? else {
        return Ok(None);
    };
    let stem = format!("cosim-{}-{}-reduced", opts.block, shrunk.kernel.name);
    let file = dir.join(format!("{stem}.kir"));
    std::fs::write(&file, &shrunk.text).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", file.display()))?;
    let waveform = dir.join(format!("{stem}.vcd"));
    let lib = load(design, TraceKind::Vcd, &opts.cache, events)?;
    let w_opts =
        KernelOptions { waveform: Some(Waveform { path: waveform.clone(), from: 0, expected: true }), ..k_opts };
    (blocks::kernel_mode(opts.block).map_err(anyhow::Error::msg)?.run)(
        checked,
        &lib,
        &shrunk.kernel,
        &w_opts,
        &mut |_| {},
    )?;
    let mismatch = shrunk.outcome.mismatch.clone().expect("a reduced kernel fails");
    Ok(Some(Reduced {
        instructions: crate::shrink::instruction_count(&shrunk.kernel),
        kernel: shrunk.kernel,
        text: shrunk.text,
        file,
        mismatch,
        waveform,
        tries: shrunk.tries,
    }))
}

fn trace_kind(opts: &CosimOptions) -> TraceKind {
    opts.trace.as_deref().map(TraceKind::for_path).unwrap_or(TraceKind::None)
}

fn whole_run(opts: &CosimOptions) -> Option<Waveform> {
    opts.trace.clone().map(|path| Waveform { path, from: 0, expected: false })
}

/// The last [`WAVE_WINDOW`] cycles before a mismatch, and the failing one.
fn window(path: &Path, m: &Mismatch) -> Waveform {
    Waveform { path: path.to_path_buf(), from: m.cycle.saturating_sub(WAVE_WINDOW), expected: true }
}
