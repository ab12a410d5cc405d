//! Kernel-driven lockstep: the SM model runs a kernel with the block's lockstep adapter in
//! place of its model, so the RTL sees the traffic of a real kernel — issue, bank conflicts,
//! write-backs, compression — and every output is compared every cycle while the SM keeps
//! checking every operand against the kernel's functional values.

use crate::glue::Glue;
use crate::lockstep::{Lockstep, Mismatch, Waveform};
use crate::verilator::RtlLib;
use anyhow::Result;
use rfgen_gen::Checked;
use rfgen_model::blocks::issue::IssueBlock;
use rfgen_model::blocks::mrf::{Mrf, MrfBlock};
use rfgen_model::blocks::rename::RenameBlock;
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
    /// The kernel did not fit, faulted or ran out of cycles.
    pub error: Option<SimError>,
    pub stats: Vec<(&'static str, u64)>,
}

impl KernelOutcome {
    /// RTL and model agreed on every cycle, and every operand was right.
    pub fn passed(&self) -> bool {
        self.mismatch.is_none() && self.error.is_none() && self.sim.operand_mismatches == 0
    }
}

/// Runs `kernel` on the SM of `checked` with its MRF in lockstep with `lib`.
pub fn run(
    checked: &Checked,
    lib: &Arc<RtlLib>,
    kernel: &Kernel,
    opts: &KernelOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<KernelOutcome> {
    let block = Lockstep::new(Mrf::for_config(checked), lib, opts.x_seed, opts.waveform.clone())?;
    let mut sm = Sm::with_mrf(checked, kernel, block).map_err(|e| anyhow::anyhow!("{e}"))?;
    let error = drive(&mut sm, opts, progress, |sm| sm.mrf().failed());
    let sim = sm.stats().clone();
    let mut block = sm.into_mrf();
    let stats = crate::blocks::mrf::summary(block.model());
    outcome(&mut block, sim, error, stats)
}

/// Steps the SM until the kernel is done, the lockstep pair `failed`, the kernel fails or the
/// cycle limit; the kernel's error, if any.
pub fn drive<M: MrfBlock, I: IssueBlock, R: RenameBlock>(
    sm: &mut Sm<M, I, R>,
    opts: &KernelOptions,
    progress: &mut dyn FnMut(u64),
    failed: impl Fn(&Sm<M, I, R>) -> bool,
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

/// The outcome of a kernel-driven run of the lockstep pair `block`.
pub fn outcome<B: Glue>(
    block: &mut Lockstep<B>,
    sim: SimStats,
    error: Option<SimError>,
    stats: Vec<(&'static str, u64)>,
) -> Result<KernelOutcome> {
    block.check_glue()?;
    block.finish_waveform()?;
    Ok(KernelOutcome { cycles: sim.cycles, mismatch: block.mismatch().cloned(), sim, error, stats })
}
