//! Lockstep runner: every cycle the same inputs go to the RTL and to the model, and every
//! output bit the model defines is compared. Stops at the first mismatch.

use crate::verilator::{Layout, Rtl, RtlLib};
use anyhow::Result;
use std::fmt::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// Cycles with `rst` high before cycle 0.
pub const RESET_CYCLES: u64 = 2;

/// The model side of a lockstep run: a block's golden model plus its stimulus.
pub trait Lockstep {
    /// Resets the model; the runner resets the RTL through its `rst` port.
    fn reset(&mut self);
    /// Chooses the inputs of `cycle` and writes them into `inp` (every port but `rst`); writes
    /// the model's outputs into `exp` and, into `mask`, the bits the RTL must match.
    fn step(&mut self, cycle: u64, inp: &mut [u32], exp: &mut [u32], mask: &mut [u32]);
    /// Clock edge of the model with the inputs of the last `step`.
    fn tick(&mut self);
    /// Event counts for the summary.
    fn stats(&self) -> Vec<(&'static str, u64)>;
    /// A finite stimulus has run out.
    fn done(&self) -> bool {
        false
    }
}

/// Record cycles `from..` into a waveform file.
#[derive(Clone, Debug)]
pub struct Waveform {
    pub path: PathBuf,
    pub from: u64,
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub cycles: u64,
    /// Seed for Verilator's randomization of uninitialized state.
    pub x_seed: u32,
    pub waveform: Option<Waveform>,
}

/// One output port that differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortDiff {
    pub port: String,
    pub expected: String,
    pub actual: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub ports: Vec<PortDiff>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "MISMATCH at cycle {}", self.cycle)?;
        for p in &self.ports {
            writeln!(f, "  port {}:\n    expected {}\n    actual   {}", p.port, p.expected, p.actual)?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct RunResult {
    /// Cycles compared (including the failing one).
    pub cycles: u64,
    pub mismatch: Option<Mismatch>,
    /// Hash of every compared output bit of every cycle.
    pub digest: u64,
}

/// Runs `block` against a fresh instance of `lib`. `progress` is called every 65,536 cycles.
pub fn run(
    lib: &Arc<RtlLib>,
    block: &mut dyn Lockstep,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<RunResult> {
    let layout = lib.layout();
    let rst = layout.input("rst").clone();
    let mut inp = vec![0u32; layout.in_words];
    let mut out = vec![0u32; layout.out_words];
    let mut exp = vec![0u32; layout.out_words];
    let mut mask = vec![0u32; layout.out_words];
    let mut rtl = Rtl::new(lib, opts.x_seed);
    if let Some(w) = &opts.waveform {
        rtl.trace_open(&w.path)?;
        rtl.trace_enable(w.from == 0);
    }

    block.reset();
    rst.put(&mut inp, 1);
    for _ in 0..RESET_CYCLES {
        rtl.eval(&inp, &mut out);
        rtl.tick();
    }
    rst.put(&mut inp, 0);

    let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
    for cycle in 0..opts.cycles {
        if let Some(w) = &opts.waveform {
            if w.from == cycle && cycle > 0 {
                rtl.trace_enable(true);
            }
        }
        block.step(cycle, &mut inp, &mut exp, &mut mask);
        rtl.eval(&inp, &mut out);
        let (mut differs, mut fold) = (0u32, 0u64);
        for (i, ((&o, &e), &m)) in out.iter().zip(&exp).zip(&mask).enumerate() {
            differs |= (o ^ e) & m;
            fold = fold.wrapping_add(((o & m) as u64).wrapping_mul(2 * i as u64 + 1));
        }
        digest = (digest ^ fold).wrapping_mul(0x0000_0100_0000_01b3);
        let differs = differs != 0;
        if differs {
            rtl.tick(); // so the waveform shows the failing edge
            let ports = diff_ports(layout, &exp, &out, &mask);
            return Ok(RunResult { cycles: cycle + 1, mismatch: Some(Mismatch { cycle, ports }), digest });
        }
        block.tick();
        rtl.tick();
        if cycle & 0xffff == 0xffff {
            progress(cycle + 1);
        }
        if block.done() {
            return Ok(RunResult { cycles: cycle + 1, mismatch: None, digest });
        }
    }
    Ok(RunResult { cycles: opts.cycles, mismatch: None, digest })
}

fn diff_ports(layout: &Layout, exp: &[u32], out: &[u32], mask: &[u32]) -> Vec<PortDiff> {
    let mut diffs = Vec::new();
    for p in &layout.outputs {
        let r = p.range();
        let bad: Vec<usize> = r.clone().filter(|&i| (exp[i] ^ out[i]) & mask[i] != 0).map(|i| i - p.offset).collect();
        if bad.is_empty() {
            continue;
        }
        let (mut expected, mut actual) = (String::new(), String::new());
        if p.words <= 2 {
            let _ = write!(expected, "0x{:x}", p.get(exp));
            let _ = write!(actual, "0x{:x}", p.get(out));
        } else {
            // Wide ports: list the differing 32-bit words (lanes, for register data).
            for (n, &w) in bad.iter().enumerate() {
                if n == 4 {
                    let more = format!(" ... and {} more words", bad.len() - 4);
                    expected += &more;
                    actual += &more;
                    break;
                }
                let i = p.offset + w;
                let _ = write!(expected, "{}word {w} = 0x{:08x}", if n > 0 { ", " } else { "" }, exp[i]);
                let _ = write!(actual, "{}word {w} = 0x{:08x}", if n > 0 { ", " } else { "" }, out[i]);
            }
        }
        diffs.push(PortDiff { port: p.name.clone(), expected, actual });
    }
    diffs
}
