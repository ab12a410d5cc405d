//! Cosim throughput: (a) lockstep, (b) the Verilated RTL alone, (c) the model alone, all on
//! the same stimulus. (b) replays input frames recorded from the stimulus through a minimal
//! eval/tick loop; (c) runs the block's model side (stimulus, model, port encoding) without RTL.

use crate::blocks;
use crate::lockstep::{self, Expected, RESET_CYCLES, RunOptions};
use crate::session::{Event, load};
use crate::verilator::{Rtl, TraceKind};
use anyhow::{Result, ensure};
use rfgen_gen::Checked;
use std::path::Path;
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct BenchReport {
    pub cycles: u64,
    pub lockstep_cps: f64,
    pub rtl_cps: f64,
    pub model_cps: f64,
}

pub fn bench_cosim(
    checked: &Checked,
    block: &str,
    cycles: u64,
    seed: u64,
    cache: &Path,
    events: &mut dyn FnMut(Event),
) -> Result<BenchReport> {
    let info = blocks::find(block)?;
    let design = (info.design)(checked)?;
    let lib = load(&design, TraceKind::None, cache, events)?;
    let layout = lib.layout().clone();

    // (c) model side alone, into one reused frame.
    let mut model = (info.random)(checked, &layout, seed);
    let mut frame = vec![0u32; layout.in_words];
    let mut exp = Expected::new(&layout);
    model.reset();
    let t = Instant::now();
    for c in 0..cycles {
        model.step(c, &mut frame, &mut exp);
        model.tick();
    }
    let model_secs = t.elapsed().as_secs_f64();
    std::hint::black_box((&frame, &exp.values, &exp.mask));

    // The same stimulus recorded as input frames for (b), untimed.
    let mut recorder = (info.random)(checked, &layout, seed);
    let mut frames = vec![0u32; layout.in_words * cycles as usize];
    recorder.reset();
    for (c, f) in frames.chunks_mut(layout.in_words).enumerate() {
        recorder.step(c as u64, f, &mut exp);
        recorder.tick();
    }

    // (b) RTL alone: reset, then eval/tick over the recorded frames.
    let mut rtl = Rtl::new(&lib, seed as u32);
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
    let rtl_secs = t.elapsed().as_secs_f64();
    std::hint::black_box(&out);
    drop(frames);

    // (a) lockstep.
    let mut block_model = (info.random)(checked, &layout, seed);
    let opts = RunOptions { cycles, x_seed: seed as u32, waveform: None };
    let t = Instant::now();
    let result = lockstep::run(&lib, block_model.as_mut(), &opts, &mut |_| {})?;
    let lockstep_secs = t.elapsed().as_secs_f64();
    ensure!(result.mismatch.is_none(), "the benchmark run found a mismatch: {}", result.mismatch.unwrap());

    let c = cycles as f64;
    Ok(BenchReport { cycles, lockstep_cps: c / lockstep_secs, rtl_cps: c / rtl_secs, model_cps: c / model_secs })
}
