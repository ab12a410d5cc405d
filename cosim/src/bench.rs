//! Cosim throughput: (a) lockstep, (b) the Verilated RTL alone, (c) the model alone, all on
//! the same traffic — random stimulus, or the SM running a kernel. (b) replays the input frames
//! the model side drove, recorded beforehand, through a minimal eval/tick loop; (c) runs the
//! model side (stimulus or SM, model, port encoding) without RTL.

use crate::glue::{CosimBlock, Expected, Glue, Stimulus};
use crate::kernel::{self, KernelOptions};
use crate::lockstep::RESET_CYCLES;
use crate::random::{self, RunOptions};
use crate::verilator::{Rtl, RtlLib};
use anyhow::{Result, ensure};
use rfgen_gen::Checked;
use rfgen_model::block::Block;
use rfgen_model::blocks::mrf::{Mrf, MrfBlock, MrfStats};
use rfgen_model::kernel::Kernel;
use rfgen_model::sm::Sm;
use std::sync::Arc;
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct BenchReport {
    pub cycles: u64,
    pub lockstep_cps: f64,
    pub rtl_cps: f64,
    pub model_cps: f64,
}

/// The model side of lockstep without the RTL: the model and its port encoding, keeping the
/// input frames it drove when asked to.
struct Recorder<B: Glue> {
    model: B,
    ports: B::Ports,
    frame: Vec<u32>,
    exp: Expected,
    frames: Option<Vec<u32>>,
}

impl<B: Glue> Recorder<B> {
    fn new(model: B, lib: &RtlLib, keep: bool) -> Result<Self> {
        let layout = lib.layout();
        let ports = model.bind(layout)?;
        Ok(Recorder {
            model,
            ports,
            frame: vec![0; layout.in_words],
            exp: Expected::new(layout),
            frames: keep.then(Vec::new),
        })
    }
}

impl<B: Glue> Block for Recorder<B> {
    type In = B::In;
    type Out<'a>
        = B::Out<'a>
    where
        B: 'a;

    fn reset(&mut self) {
        self.model.reset();
    }

    fn outputs(&self) -> B::Out<'_> {
        self.model.outputs()
    }

    fn tick(&mut self, inp: &B::In) {
        self.model.expect(&self.ports, &self.model.outputs(), inp, &mut self.exp);
        self.model.drive(&self.ports, inp, &mut self.frame);
        if let Some(f) = &mut self.frames {
            f.extend_from_slice(&self.frame);
        }
        self.model.tick(inp);
    }
}

impl<B: Glue + MrfBlock> MrfBlock for Recorder<B> {
    fn stats(&self) -> &MrfStats {
        self.model.stats()
    }
}

/// Random stimulus for `cycles` cycles.
pub fn bench_random<B: CosimBlock>(
    checked: &Checked,
    lib: &Arc<RtlLib>,
    cycles: u64,
    seed: u64,
) -> Result<BenchReport> {
    let drive = |keep: bool| -> Result<(Recorder<B>, f64)> {
        let model = B::model(checked)?;
        let mut inp = model.idle();
        let mut rec = Recorder::new(model, lib, keep)?;
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
    let rtl_secs = replay(lib, recorded.frames.as_deref().unwrap_or_default(), seed as u32);

    let model = B::model(checked)?;
    let idle = model.idle();
    let opts = RunOptions { cycles, x_seed: seed as u32, waveform: None };
    let t = Instant::now();
    let r = random::run(lib, model, &mut B::stimulus(checked, seed), idle, &opts, &mut |_| {})?;
    let lockstep_secs = t.elapsed().as_secs_f64();
    ensure!(r.mismatch.is_none(), "the benchmark run found a mismatch: {}", r.mismatch.unwrap());
    Ok(report(cycles, lockstep_secs, rtl_secs, model_secs))
}

/// The SM running `kernel`, with the MRF's RTL in lockstep for (a). Each measure repeats the
/// kernel until `min_cycles` cycles have run, so that short kernels time reliably.
pub fn bench_kernel(checked: &Checked, lib: &Arc<RtlLib>, kernel: &Kernel, min_cycles: u64) -> Result<BenchReport> {
    let drive = |keep: bool| -> Result<(Recorder<Mrf>, u64)> {
        let rec = Recorder::new(Mrf::for_config(checked), lib, keep)?;
        let mut sm = Sm::with_mrf(checked, kernel, rec).map_err(|e| anyhow::anyhow!("{e}"))?;
        sm.run(u64::MAX, &mut |_| {})?;
        let cycles = sm.cycle();
        Ok((sm.into_mrf(), cycles))
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
    let frames = recorded.frames.unwrap_or_default();
    let rtl_secs = timed(&mut || {
        replay(lib, &frames, 1);
        Ok(())
    })?;
    let opts = KernelOptions { x_seed: 1, max_cycles: u64::MAX, waveform: None };
    let lockstep_secs = timed(&mut || {
        let outcome = kernel::run(checked, lib, kernel, &opts, &mut |_| {})?;
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
