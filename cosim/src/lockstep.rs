//! The lockstep adapter: a block's golden model and its Verilated RTL run as one [`Block`].
//! Every cycle the inputs go to both, and every output the model defines is compared with the
//! RTL's; the first difference is kept as the run's [`Failure`]. Anything that drives a block
//! model — the random stimulus, or the SM model running a kernel — drives the adapter the same
//! way, so RTL is checked under random and real traffic by the same code.

use crate::verilator::{Layout, PortSlot, Rtl, RtlLib};
use crate::wave::ExpectedTrace;
use anyhow::{Result, bail};
use rfgen_model::block::Block;
use std::fmt::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// Cycles with `rst` high before cycle 0.
pub const RESET_CYCLES: u64 = 2;

/// How a block model meets its RTL: the block's typed interface bound to the Verilated model's
/// buffers, and the encoding of its inputs and outputs onto them.
pub trait Glue: Block + 'static {
    /// The block's interface with every port bound to its slot.
    type Ports;
    /// Binds the interface this model implies to the RTL's ports; fails naming what is missing.
    fn bind(&self, layout: &Layout) -> Result<Self::Ports>;
    /// Writes this cycle's inputs (every input port but `clk` and `rst`).
    fn drive(&self, ports: &Self::Ports, inp: &Self::In, buf: &mut [u32]);
    /// Decides every output port for this cycle: what the RTL must show, and which bits count.
    fn expect(&self, ports: &Self::Ports, out: &Self::Out<'_>, exp: &mut Expected);
}

/// The model's outputs of one cycle: the expected values, the bits the RTL must match, and
/// which ports the block decided on. Every output port must be decided every cycle — compared
/// (fully or lane by lane) or skipped — so a port the glue forgets fails the run at once
/// instead of going unchecked.
#[derive(Clone, Debug)]
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

    /// Compares a port given as 64-bit words of bits (bit `i` of the port at bit `i % 64` of
    /// word `i / 64`).
    pub fn set_bits(&mut self, port: &PortSlot, bits: &[u64]) {
        for (i, v) in self.values[port.range()].iter_mut().enumerate() {
            *v = (bits[i / 2] >> (32 * (i % 2))) as u32;
        }
        port.full_mask(&mut self.mask);
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

/// Record cycles `from..` into a waveform file: the RTL's signals from Verilator and, with
/// `expected` and a VCD, the model's expected outputs beside them (scope `rfgen_model`; kept in
/// memory until the run ends, so meant for short windows).
#[derive(Clone, Debug)]
pub struct Waveform {
    pub path: PathBuf,
    pub from: u64,
    pub expected: bool,
}

/// A block model and its RTL in lockstep.
pub struct Lockstep<B: Glue> {
    model: B,
    ports: B::Ports,
    lib: Arc<RtlLib>,
    rtl: Rtl,
    inp: Vec<u32>,
    out: Vec<u32>,
    exp: Expected,
    cycle: u64,
    mismatch: Option<Mismatch>,
    error: Option<String>,
    raw_digest: u64,
    waveform: Option<(Waveform, Option<ExpectedTrace>)>,
}

impl<B: Glue> Lockstep<B> {
    /// Binds `model` to a fresh instance of `lib` (uninitialized state from `x_seed`) and resets
    /// both. With a waveform, its cycles are recorded from `from`.
    pub fn new(model: B, lib: &Arc<RtlLib>, x_seed: u32, waveform: Option<Waveform>) -> Result<Self> {
        let layout = lib.layout();
        let ports = model.bind(layout)?;
        let mut rtl = Rtl::new(lib, x_seed);
        let waveform = match waveform {
            Some(w) => {
                rtl.trace_open(&w.path)?;
                rtl.trace_enable(w.from == 0);
                let trace = w.expected.then(|| ExpectedTrace::new(layout));
                Some((w, trace))
            }
            None => None,
        };
        let mut l = Lockstep {
            ports,
            rtl,
            inp: vec![0; layout.in_words],
            out: vec![0; layout.out_words],
            exp: Expected::new(layout),
            lib: lib.clone(),
            cycle: 0,
            mismatch: None,
            error: None,
            raw_digest: 0xcbf2_9ce4_8422_2325,
            waveform,
            model,
        };
        l.reset();
        Ok(l)
    }

    pub fn model(&self) -> &B {
        &self.model
    }

    /// Cycles run since reset.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The first cycle whose outputs differ, if any.
    pub fn mismatch(&self) -> Option<&Mismatch> {
        self.mismatch.as_ref()
    }

    /// The run is over: a mismatch, or glue that left an output undecided (an error of the
    /// cosim code, not of the RTL).
    pub fn failed(&self) -> bool {
        self.mismatch.is_some() || self.error.is_some()
    }

    /// Fails with the glue error, if any.
    pub fn check_glue(&self) -> Result<()> {
        match &self.error {
            Some(e) => bail!("{e}"),
            None => Ok(()),
        }
    }

    /// Hash of every output bit of the RTL in every cycle, compared or not (reset cycles
    /// included): it changes with the x-seed exactly when uninitialized state reaches an output.
    pub fn raw_digest(&self) -> u64 {
        self.raw_digest
    }

    /// Closes the waveform, adding the model's expected outputs to a VCD; returns its path.
    pub fn finish_waveform(&mut self) -> Result<Option<PathBuf>> {
        let Some((w, trace)) = self.waveform.take() else { return Ok(None) };
        self.rtl.trace_close();
        if let Some(trace) = trace {
            trace.merge_into(&w.path)?;
        }
        Ok(Some(w.path))
    }
}

impl<B: Glue> Block for Lockstep<B> {
    type In = B::In;
    type Out<'a>
        = B::Out<'a>
    where
        B: 'a;

    /// Resets the model, and the RTL through `rst` for [`RESET_CYCLES`] cycles.
    fn reset(&mut self) {
        self.model.reset();
        let rst = self.lib.layout().input("rst").clone();
        self.inp.fill(0);
        rst.put(&mut self.inp, 1);
        for _ in 0..RESET_CYCLES {
            self.rtl.eval(&self.inp, &mut self.out);
            fold(&mut self.raw_digest, &self.out);
            self.rtl.tick();
        }
        rst.put(&mut self.inp, 0);
        self.cycle = 0;
    }

    fn outputs(&self) -> B::Out<'_> {
        self.model.outputs()
    }

    fn tick(&mut self, inp: &B::In) {
        if self.failed() {
            self.model.tick(inp);
            return;
        }
        let layout = self.lib.layout();
        if let Some((w, _)) = &self.waveform {
            if w.from == self.cycle && self.cycle > 0 {
                self.rtl.trace_enable(true);
            }
        }
        self.model.expect(&self.ports, &self.model.outputs(), &mut self.exp);
        if let Some(port) = self.exp.undecided(layout) {
            self.error = Some(format!(
                "cycle {}: the lockstep block decided nothing for output port `{}`; every output must be compared or skipped",
                self.cycle, port.name
            ));
            return;
        }
        self.model.drive(&self.ports, inp, &mut self.inp);
        self.rtl.eval(&self.inp, &mut self.out);
        fold(&mut self.raw_digest, &self.out);
        if let Some((w, Some(trace))) = &mut self.waveform {
            if self.cycle >= w.from {
                trace.record(self.cycle, &self.exp);
            }
        }
        let (out, exp) = (&self.out, &self.exp);
        if out.iter().zip(&exp.values).zip(&exp.mask).any(|((&o, &e), &m)| (o ^ e) & m != 0) {
            self.mismatch = Some(Mismatch { cycle: self.cycle, ports: diff_ports(layout, exp, out) });
        }
        self.model.tick(inp);
        self.rtl.tick(); // also after a mismatch, so the waveform shows the failing edge
        self.cycle += 1;
    }
}

fn fold(digest: &mut u64, out: &[u32]) {
    for &o in out {
        *digest = (*digest ^ o as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
}

fn diff_ports(layout: &Layout, exp: &Expected, out: &[u32]) -> Vec<PortDiff> {
    let mut diffs = Vec::new();
    for p in &layout.outputs {
        let r = p.range();
        let bad: Vec<usize> =
            r.clone().filter(|&i| (exp.values[i] ^ out[i]) & exp.mask[i] != 0).map(|i| i - p.offset).collect();
        if bad.is_empty() {
            continue;
        }
        let (mut expected, mut actual) = (String::new(), String::new());
        if p.words <= 2 {
            let _ = write!(expected, "0x{:x}", p.get(&exp.values));
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
                let _ = write!(expected, "{}word {w} = 0x{:08x}", if n > 0 { ", " } else { "" }, exp.values[i]);
                let _ = write!(actual, "{}word {w} = 0x{:08x}", if n > 0 { ", " } else { "" }, out[i]);
            }
        }
        diffs.push(PortDiff { port: p.name.clone(), expected, actual });
    }
    diffs
}
