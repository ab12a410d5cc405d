//! The lockstep adapter: a block's golden model and its Verilated RTL run as one [`Block`].
//! Every cycle the inputs go to both, and every output the model defines is compared with the
//! RTL's; the first difference is kept as the run's [`Failure`]. Anything that drives a block
//! model — the random stimulus, or the SM model running a kernel — drives the adapter the same
//! way, so RTL is checked under random and real traffic by the same code.

use crate::glue::{Expected, Glue};
use crate::verilator::{Layout, Rtl, RtlLib};
use crate::wave::ExpectedTrace;
use anyhow::{Result, bail};
use rfgen_model::block::Block;
use std::fmt::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// Cycles with `rst` high before cycle 0.
pub const RESET_CYCLES: u64 = 2;

/// Waveform time of a cycle's evaluation: the shim advances 10 per cycle, reset cycles first.
pub fn cycle_time(cycle: u64) -> u64 {
    10 * (cycle + RESET_CYCLES)
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

/// A block model and its RTL in lockstep; or, for benchmarks, the model side alone (its model
/// and port encoding, keeping the input frames it drove when asked to).
pub struct Lockstep<B: Glue> {
    model: B,
    ports: B::Ports,
    lib: Arc<RtlLib>,
    rtl: Option<Rtl>,
    /// Model side alone: every input frame driven, in order.
    frames: Option<Vec<u32>>,
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
        Lockstep::build(model, ports, lib, Some(rtl), None, waveform)
    }

    /// The model side without RTL, for timing it (and, with `keep_frames`, recording the input
    /// frames that replay the same traffic on the RTL alone).
    pub fn model_side(model: B, lib: &Arc<RtlLib>, keep_frames: bool) -> Result<Self> {
        let ports = model.bind(lib.layout())?;
        Lockstep::build(model, ports, lib, None, keep_frames.then(Vec::new), None)
    }

    fn build(
        model: B,
        ports: B::Ports,
        lib: &Arc<RtlLib>,
        rtl: Option<Rtl>,
        frames: Option<Vec<u32>>,
        waveform: Option<(Waveform, Option<ExpectedTrace>)>,
    ) -> Result<Self> {
        let layout = lib.layout();
        let mut l = Lockstep {
            ports,
            rtl,
            frames,
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

    /// The input frames the model side drove (see [`Lockstep::model_side`]).
    pub fn into_frames(self) -> Vec<u32> {
        self.frames.unwrap_or_default()
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
        let (Some((w, trace)), Some(rtl)) = (self.waveform.take(), &mut self.rtl) else { return Ok(None) };
        rtl.trace_close();
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
        self.cycle = 0;
        let Some(rtl) = &mut self.rtl else { return };
        let rst = self.lib.layout().input("rst").clone();
        self.inp.fill(0);
        rst.put(&mut self.inp, 1);
        for _ in 0..RESET_CYCLES {
            rtl.eval(&self.inp, &mut self.out);
            fold(&mut self.raw_digest, &self.out);
            rtl.tick();
        }
        rst.put(&mut self.inp, 0);
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
        self.model.expect(&self.ports, &self.model.outputs(), inp, &mut self.exp);
        if let Some(port) = self.exp.undecided(layout) {
            self.error = Some(format!(
                "cycle {}: the lockstep block decided nothing for output port `{}`; every output must be compared or skipped",
                self.cycle, port.name
            ));
            return;
        }
        self.model.drive(&self.ports, inp, &mut self.inp);
        let Some(rtl) = &mut self.rtl else {
            if let Some(frames) = &mut self.frames {
                frames.extend_from_slice(&self.inp);
            }
            self.model.tick(inp);
            self.cycle += 1;
            return;
        };
        if let Some((w, _)) = &self.waveform
            && w.from == self.cycle
            && self.cycle > 0
        {
            rtl.trace_enable(true);
        }
        rtl.eval(&self.inp, &mut self.out);
        fold(&mut self.raw_digest, &self.out);
        if let Some((w, Some(trace))) = &mut self.waveform
            && self.cycle >= w.from
        {
            trace.record(cycle_time(self.cycle), &self.exp.values, &self.exp.mask);
        }
        let (out, exp) = (&self.out, &self.exp);
        if out.iter().zip(&exp.values).zip(&exp.mask).any(|((&o, &e), &m)| (o ^ e) & m != 0) {
            self.mismatch = Some(Mismatch { cycle: self.cycle, ports: diff_ports(layout, exp, out) });
        }
        self.model.tick(inp);
        rtl.tick(); // also after a mismatch, so the waveform shows the failing edge
        self.cycle += 1;
    }
}

/// Folds one cycle's outputs into the digest (a weighted sum per cycle, so the words fold in
/// parallel, then one FNV step).
fn fold(digest: &mut u64, out: &[u32]) {
    let cycle =
        out.iter().enumerate().fold(0u64, |a, (i, &o)| a.wrapping_add((o as u64).wrapping_mul(2 * i as u64 + 1)));
    *digest = (*digest ^ cycle).wrapping_mul(0x0000_0100_0000_01b3);
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
