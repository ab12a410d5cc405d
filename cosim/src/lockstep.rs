//! Lockstep runner: every cycle the same inputs go to the RTL and to the model, and every
//! output bit the model defines is compared. Stops at the first mismatch.

use crate::verilator::{Layout, PortSlot, Rtl, RtlLib};
use anyhow::{Result, bail};
use std::fmt::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// Cycles with `rst` high before cycle 0.
pub const RESET_CYCLES: u64 = 2;

/// The model's outputs of one cycle: the expected values, the bits the RTL must match, and
/// which ports the block decided on. Every output port must be decided every cycle — compared
/// (fully or lane by lane) or skipped — so a port the block forgets fails the run at once
/// instead of going unchecked.
pub struct Expected {
    pub values: Vec<u32>,
    pub mask: Vec<u32>,
    decided: Vec<u64>,
}

impl Expected {
    pub fn new(layout: &Layout) -> Expected {
        Expected {
            values: vec![0; layout.out_words],
            mask: vec![0; layout.out_words],
            decided: vec![0; layout.outputs.len().div_ceil(64)],
        }
    }

    fn decide(&mut self, port: &PortSlot) {
        self.decided[port.index / 64] |= 1 << (port.index % 64);
    }

    /// Compares a port of at most 64 bits.
    pub fn set(&mut self, port: &PortSlot, value: u64) {
        port.put(&mut self.values, value);
        port.full_mask(&mut self.mask);
        self.decide(port);
    }

    /// Compares a wide port, one 32-bit word per element.
    pub fn set_words(&mut self, port: &PortSlot, words: &[u32]) {
        self.values[port.range()].copy_from_slice(words);
        port.full_mask(&mut self.mask);
        self.decide(port);
    }

    /// Compares the words (lanes) of a wide port whose bit is set in `known`; the rest are skipped.
    pub fn set_lanes(&mut self, port: &PortSlot, words: &[u32], known: u64) {
        if known != 0 {
            self.values[port.range()].copy_from_slice(words);
        }
        for (lane, m) in self.mask[port.range()].iter_mut().enumerate() {
            *m = 0u32.wrapping_sub((known >> lane) as u32 & 1);
        }
        self.decide(port);
    }

    /// Leaves a port out of this cycle's comparison (its value means nothing now).
    pub fn skip(&mut self, port: &PortSlot) {
        self.mask[port.range()].fill(0);
        self.decide(port);
    }

    /// Compares `value` while `valid`, else skips the port.
    pub fn set_if(&mut self, valid: bool, port: &PortSlot, value: u64) {
        if valid { self.set(port, value) } else { self.skip(port) }
    }

    /// The first output port not decided since the last call; clears the record.
    fn undecided<'a>(&mut self, layout: &'a Layout) -> Option<&'a PortSlot> {
        let missing = layout.outputs.iter().find(|p| self.decided[p.index / 64] >> (p.index % 64) & 1 == 0);
        self.decided.fill(0);
        missing
    }
}

/// The model side of a lockstep run: a block's golden model plus its stimulus.
pub trait Lockstep {
    /// Resets the model; the runner resets the RTL through its `rst` port.
    fn reset(&mut self);
    /// Chooses the inputs of `cycle` and writes them into `inp` (every port but `rst`); decides
    /// every output port in `exp`.
    fn step(&mut self, cycle: u64, inp: &mut [u32], exp: &mut Expected);
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
    /// Hash of every output bit of the RTL in every cycle, compared or not (reset cycles
    /// included): it changes with the x-seed exactly when uninitialized state reaches an output.
    pub raw_digest: u64,
}

/// Runs `block` against a fresh instance of `lib`. `progress` is called every 65,536 cycles.
/// Fails (an error, not a mismatch) when the block leaves an output port undecided.
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
    let mut exp = Expected::new(layout);
    let mut rtl = Rtl::new(lib, opts.x_seed);
    if let Some(w) = &opts.waveform {
        rtl.trace_open(&w.path)?;
        rtl.trace_enable(w.from == 0);
    }
    let mut raw_digest: u64 = 0xcbf2_9ce4_8422_2325;
    let mut fold = |out: &[u32]| {
        for &o in out {
            raw_digest = (raw_digest ^ o as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        raw_digest
    };

    block.reset();
    rst.put(&mut inp, 1);
    for _ in 0..RESET_CYCLES {
        rtl.eval(&inp, &mut out);
        fold(&out);
        rtl.tick();
    }
    rst.put(&mut inp, 0);

    for cycle in 0..opts.cycles {
        if let Some(w) = &opts.waveform {
            if w.from == cycle && cycle > 0 {
                rtl.trace_enable(true);
            }
        }
        block.step(cycle, &mut inp, &mut exp);
        if let Some(port) = exp.undecided(layout) {
            bail!(
                "cycle {cycle}: the lockstep block decided nothing for output port `{}`; every output must be compared or skipped",
                port.name
            );
        }
        rtl.eval(&inp, &mut out);
        let digest = fold(&out);
        let differs = out.iter().zip(&exp.values).zip(&exp.mask).any(|((&o, &e), &m)| (o ^ e) & m != 0);
        if differs {
            rtl.tick(); // so the waveform shows the failing edge
            let ports = diff_ports(layout, &exp.values, &out, &exp.mask);
            return Ok(RunResult { cycles: cycle + 1, mismatch: Some(Mismatch { cycle, ports }), raw_digest: digest });
        }
        block.tick();
        rtl.tick();
        if cycle & 0xffff == 0xffff {
            progress(cycle + 1);
        }
        if block.done() {
            return Ok(RunResult { cycles: cycle + 1, mismatch: None, raw_digest: digest });
        }
    }
    Ok(RunResult { cycles: opts.cycles, mismatch: None, raw_digest })
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
