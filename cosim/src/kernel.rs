//! Kernel-driven lockstep: the SM model runs a kernel with a block's lockstep adapter in place
//! of its model, so the RTL sees the traffic of a real kernel — issue, bank conflicts,
//! write-backs, compression, renames — and every output is compared every cycle while the SM
//! keeps checking every operand against the kernel's functional values. One runner serves every
//! block: each states, by implementing [`InSm`], which part of the SM model it replaces.

use crate::glue::CosimBlock;
use crate::lockstep::{Lockstep, Mismatch, Waveform};
use crate::verilator::RtlLib;
use anyhow::{Result, anyhow, bail};
use rfgen_gen::Checked;
use rfgen_model::blocks::sm_rf::SmRfBlock;
use rfgen_model::kernel::Kernel;
use rfgen_model::sm::{SimError, SimStats, Sm};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct KernelOptions {
    /// Seed for Verilator's randomization of uninitialized state.
    pub x_seed: u32,
    /// Stop with [`SimError::CycleLimit`] after this many cycles.
    pub max_cycles: u64,
    pub waveform: Option<Waveform>,
}

/// How a kernel-driven run ended.
#[derive(Clone, Debug)]
pub struct KernelOutcome {
    /// SM cycles run (up to and including a mismatch).
    pub cycles: u64,
    pub mismatch: Option<Mismatch>,
    /// The SM's statistics; `operand_mismatches` counts operands that differ from the kernel's
    /// functional values.
    pub sim: SimStats,
    /// The kernel faulted or ran out of cycles.
    pub error: Option<SimError>,
    pub stats: Vec<(&'static str, u64)>,
}

impl KernelOutcome {
    /// RTL and model agreed on every cycle, and every operand was right.
    pub fn passed(&self) -> bool {
        self.mismatch.is_none() && self.error.is_none() && self.sim.operand_mismatches == 0
    }
}

/// The SM model with block `B`'s lockstep pair in place of `B`'s model.
pub type SmWith<'k, B> = Sm<'k, <B as InSm>::Rf>;

/// Where a block sits in the SM model: the SM built with the block's lockstep pair (or its model
/// side alone, for benchmarks) in the block's place, the pair found in it and taken back out.
pub trait InSm: CosimBlock {
    /// The register-file pipeline (issue stage, rename stage and MRF) of the SM holding this
    /// block.
    type Rf: SmRfBlock;
    /// What the config lacks for the SM to hold this block, if anything.
    fn missing(_: &Checked) -> Option<String> {
        None
    }
    /// The SM running `k` with `pair` in this block's place; fails if `k` does not fit.
    fn place<'k>(c: &Checked, k: &'k Kernel, pair: Lockstep<Self>) -> Result<SmWith<'k, Self>, SimError>;
    fn pair<'a>(sm: &'a SmWith<'_, Self>) -> &'a Lockstep<Self>;
    fn take(sm: SmWith<'_, Self>) -> Lockstep<Self>;
    /// What a kernel-driven run reports beside its cycles.
    fn kernel_stats(&self, sim: &SimStats) -> Vec<(&'static str, u64)>;
}

/// Runs `kernel` on the SM of `checked` with block `B`'s RTL, loaded as `lib`, in place of its
/// model.
pub fn run_block<B: InSm>(
    checked: &Checked,
    lib: &Arc<RtlLib>,
    kernel: &Kernel,
    opts: &KernelOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<KernelOutcome> {
    if let Some(missing) = B::missing(checked) {
        bail!("{missing}");
    }
    let pair = Lockstep::new(B::model(checked)?, lib, opts.x_seed, opts.waveform.clone())?;
    let mut sm = B::place(checked, kernel, pair).map_err(|e| anyhow!("{e}"))?;
    let error = drive(&mut sm, opts, progress, |sm| B::pair(sm).failed());
    let sim = sm.stats().clone();
    let mut pair = B::take(sm);
    let stats = pair.model().kernel_stats(&sim);
    pair.check_glue()?;
    pair.finish()?;
    Ok(KernelOutcome { cycles: sim.cycles, mismatch: pair.mismatch().cloned(), sim, error, stats })
}

/// Steps the SM until the kernel is done, the lockstep pair `failed`, the kernel fails or the
/// cycle limit; the kernel's error, if any.
fn drive<P: SmRfBlock>(
    sm: &mut Sm<P>,
    opts: &KernelOptions,
    progress: &mut dyn FnMut(u64),
    failed: impl Fn(&Sm<P>) -> bool,
) -> Option<SimError> {
    let mut error = None;
    while !sm.done() && !failed(sm) {
        if sm.cycle() >= opts.max_cycles {
            error = Some(SimError::CycleLimit(opts.max_cycles));
            break;
        }
        if let Err(e) = sm.step() {
            error = Some(e);
            break;
        }
        if sm.cycle() & 0xffff == 0 {
            progress(sm.cycle());
        }
    }
    sm.finish();
    error
}
