//! Random-stimulus lockstep: a stimulus that respects a block's protocol chooses its inputs
//! cycle by cycle, seeing its outputs, and the lockstep adapter checks the RTL against the model.

use crate::glue::{Glue, Stimulus};
use crate::lockstep::{Lockstep, Mismatch, Waveform};
use crate::verilator::RtlLib;
use anyhow::Result;
use rfgen_model::block::Block;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub cycles: u64,
    /// Seed for Verilator's randomization of uninitialized state.
    pub x_seed: u32,
    pub waveform: Option<Waveform>,
}

pub struct RunResult<B: Glue> {
    /// Cycles compared (including the failing one).
    pub cycles: u64,
    pub mismatch: Option<Mismatch>,
    /// See [`Lockstep::raw_digest`].
    pub raw_digest: u64,
    /// The lockstep pair, for the model's statistics.
    pub block: Lockstep<B>,
}

/// Runs `model` against a fresh instance of `lib` with inputs from `stimulus`, starting from
/// `inp`, resetting both whenever the stimulus says ([`Stimulus::reset_now`]). `progress` is
/// called every 65,536 cycles. Fails (an error, not a mismatch) when the glue leaves an output
/// port undecided.
pub fn run<B: Glue, S: Stimulus<B>>(
    lib: &Arc<RtlLib>,
    model: B,
    stimulus: &mut S,
    mut inp: B::In,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<RunResult<B>> {
    let mut block = Lockstep::new(model, lib, opts.x_seed, opts.waveform.clone())?;
    for cycle in 0..opts.cycles {
        if stimulus.reset_now() {
            block.reset_mid_run();
        }
        stimulus.next(cycle, &block.outputs(), &mut inp);
        block.tick(&inp);
        if block.failed() || stimulus.done() {
            break;
        }
        if cycle & 0xffff == 0xffff {
            progress(cycle + 1);
        }
    }
    block.check_glue()?;
    block.finish()?;
    Ok(RunResult { cycles: block.cycle(), mismatch: block.mismatch().cloned(), raw_digest: block.raw_digest(), block })
}
