//! A complete cosim run as `rfgen cosim` performs it: generate the block's RTL, build (or reuse)
//! its Verilator library, run lockstep with random stimulus, and on a mismatch replay the same
//! seed with tracing to write a waveform of the last cycles.

use crate::blocks;
use crate::lockstep::{self, Mismatch, RunOptions, Waveform};
use crate::verilator::{BuildPlan, Layout, RtlLib, TraceKind};
use anyhow::Result;
use rfgen_gen::{Checked, Design};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Cycles before a mismatch kept in its waveform.
pub const WAVE_WINDOW: u64 = 64;

#[derive(Clone, Debug)]
pub struct CosimOptions {
    pub block: String,
    pub cycles: u64,
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
    pub block: String,
    pub top: String,
    pub cycles: u64,
    pub stats: Vec<(&'static str, u64)>,
    pub mismatch: Option<Mismatch>,
    pub waveform: Option<PathBuf>,
}

/// Builds (or finds in the cache) and loads the library of a design's top module.
pub fn load(design: &Design, trace: TraceKind, cache: &Path, events: &mut dyn FnMut(Event)) -> Result<Arc<RtlLib>> {
    let plan = BuildPlan::new(design, trace, cache)?;
    if !plan.is_built() {
        events(Event::Building { top: &design.manifest.top, key: plan.key() });
    }
    let path = plan.build()?;
    RtlLib::load(&path, Layout::new(design.manifest.top_module()))
}

pub fn cosim(checked: &Checked, opts: &CosimOptions, events: &mut dyn FnMut(Event)) -> Result<CosimReport> {
    let block = blocks::find(&opts.block)?;
    cosim_design(checked, &(block.design)(checked)?, opts, events)
}

/// [`cosim`] of a given design of the block (for instance a deliberately broken one).
pub fn cosim_design(
    checked: &Checked,
    design: &Design,
    opts: &CosimOptions,
    events: &mut dyn FnMut(Event),
) -> Result<CosimReport> {
    let block_info = blocks::find(&opts.block)?;
    let trace = opts.trace.as_deref().map(TraceKind::for_path).unwrap_or(TraceKind::None);
    let lib = load(design, trace, &opts.cache, events)?;
    let mut block = (block_info.random)(checked, lib.layout(), opts.seed);
    let run_opts = RunOptions {
        cycles: opts.cycles,
        x_seed: opts.x_seed,
        waveform: opts.trace.clone().map(|path| Waveform { path, from: 0 }),
    };
    let result = lockstep::run(&lib, block.as_mut(), &run_opts, &mut |c| events(Event::Progress(c)))?;
    let mut waveform = opts.trace.clone();
    if let (Some(m), None, Some(dir)) = (&result.mismatch, &opts.trace, &opts.fail_wave_dir) {
        let path = dir.join(format!("cosim-{}-seed{}.vcd", opts.block, opts.seed));
        let lib = load(design, TraceKind::Vcd, &opts.cache, events)?;
        let mut replay = (block_info.random)(checked, lib.layout(), opts.seed);
        let replay_opts = RunOptions {
            cycles: m.cycle + 1,
            x_seed: opts.x_seed,
            waveform: Some(Waveform { path: path.clone(), from: m.cycle.saturating_sub(WAVE_WINDOW) }),
        };
        lockstep::run(&lib, replay.as_mut(), &replay_opts, &mut |_| {})?;
        waveform = Some(path);
    }
    Ok(CosimReport {
        block: opts.block.clone(),
        top: design.manifest.top.clone(),
        cycles: result.cycles,
        stats: block.stats(),
        mismatch: result.mismatch,
        waveform,
    })
}
