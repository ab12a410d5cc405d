//! Cosim throughput: (a) lockstep, (b) the Verilated RTL alone, (c) the model alone, all on
//! the same traffic — random stimulus, or the SM running a kernel. (b) replays the input frames
//! the model side drove, recorded beforehand, through a minimal eval/tick loop; (c) runs the
//! model side (stimulus or SM, model, port encoding) without RTL.

use crate::glue::{RandomBlock, Stimulus};
use crate::kernel::{self, InSm, KernelOptions};
use crate::lockstep::{Lockstep, RESET_CYCLES};
use crate::random::{self, RunOptions};
use crate::verilator::{Rtl, RtlLib, x_seed_of};
use anyhow::{Result, anyhow, ensure};
use rfgen_gen::Checked;
use rfgen_model::block::Block;
use rfgen_model::kernel::Kernel;
use std::sync::Arc;
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct BenchReport {
    pub cycles: u64,
    pub lockstep_cps: f64,
    pub rtl_cps: f64,
    pub model_cps: f64,
}

/// Random stimulus for `cycles` cycles.
pub fn bench_random<B: RandomBlock>(
    checked: &Checked,
    lib: &Arc<RtlLib>,
    cycles: u64,
    seed: u64,
) -> Result<BenchReport> {
    let drive = |keep: bool| -> Result<(Lockstep<B>, f64)> {
        let model = B::model(checked)?;
        let mut inp = model.idle();
        let mut rec = Lockstep::model_side(model, lib, keep)?;
        let mut stimulus = B::stimulus(checked, seed);
        let t = Instant::now();
        for c in 0..cycles {
            stimulus.next(c, &rec.outputs(), &mut inp);
            rec.tick(&inp);
        }
        Ok((rec, t.elapsed().as_secs_f64()))
    };
    let (_, model_secs) = drive(false)?;
    let (recorded, _) = drive(true)?;
    let rtl_secs = replay(lib, &recorded.into_frames(), x_seed_of(seed));

    let model = B::model(checked)?;
    let idle = model.idle();
    let opts = RunOptions { cycles, x_seed: x_seed_of(seed), waveform: None };
    let t = Instant::now();
    let r = random::run(lib, model, &mut B::stimulus(checked, seed), idle, &opts, &mut |_| {})?;
    let lockstep_secs = t.elapsed().as_secs_f64();
    ensure!(r.mismatch.is_none(), "the benchmark run found a mismatch: {}", r.mismatch.unwrap());
    Ok(report(cycles, lockstep_secs, rtl_secs, model_secs))
}

/// The SM running `kernel` with block `B`'s RTL in lockstep for (a), its model side alone for
/// (c). Each measure repeats the kernel until `min_cycles` cycles have run, so that short kernels
/// time reliably.
pub fn bench_kernel<B: InSm>(
    checked: &Checked,
    lib: &Arc<RtlLib>,
    kernel: &Kernel,
    min_cycles: u64,
) -> Result<BenchReport> {
    let drive = |keep: bool| -> Result<(Lockstep<B>, u64)> {
        let side = Lockstep::model_side(B::model(checked)?, lib, keep)?;
        let mut sm = B::place(checked, kernel, side).map_err(|e| anyhow!("{e}"))?;
        sm.run(u64::MAX, &mut |_| {})?;
        let cycles = sm.cycle();
        Ok((B::take(sm), cycles))
    };
    let (recorded, cycles) = drive(true)?;
    let reps = min_cycles.div_ceil(cycles.max(1)).max(1);
    let timed = |f: &mut dyn FnMut() -> Result<()>| -> Result<f64> {
        let t = Instant::now();
        for _ in 0..reps {
            f()?;
        }
        Ok(t.elapsed().as_secs_f64())
    };
    let model_secs = timed(&mut || drive(false).map(|_| ()))?;
    let frames = recorded.into_frames();
    let rtl_secs = timed(&mut || {
        replay(lib, &frames, 1);
        Ok(())
    })?;
    let opts = KernelOptions { x_seed: 1, max_cycles: u64::MAX, waveform: None };
    let lockstep_secs = timed(&mut || {
        let outcome = kernel::run_block::<B>(checked, lib, kernel, &opts, &mut |_| {})?;
        ensure!(outcome.passed(), "the benchmark run failed: {:?}", outcome.mismatch);
        Ok(())
    })?;
    Ok(report(cycles * reps, lockstep_secs, rtl_secs, model_secs))
}

/// (b): the RTL alone over recorded input frames, after reset; returns the seconds taken.
fn replay(lib: &Arc<RtlLib>, frames: &[u32], x_seed: u32) -> f64 {
    let layout = lib.layout();
    let mut rtl = Rtl::new(lib, x_seed);
    let mut out = vec![0u32; layout.out_words];
    let mut reset = vec![0u32; layout.in_words];
    layout.input("rst").put(&mut reset, 1);
    for _ in 0..RESET_CYCLES {
        rtl.eval(&reset, &mut out);
        rtl.tick();
    }
    let t = Instant::now();
    for frame in frames.chunks(layout.in_words) {
        rtl.eval(frame, &mut out);
        rtl.tick();
    }
    std::hint::black_box(&out);
    t.elapsed().as_secs_f64()
}

fn report(cycles: u64, lockstep: f64, rtl: f64, model: f64) -> BenchReport {
    let c = cycles as f64;
    BenchReport { cycles, lockstep_cps: c / lockstep, rtl_cps: c / rtl, model_cps: c / model }
}
