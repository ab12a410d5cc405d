//! The lockstep adapter: a block's golden model and its Verilated RTL run as one [`Block`].
//! Every cycle the inputs go to both, and every output the model defines is compared with the
//! RTL's; the first difference is kept as the run's [`Failure`]. Anything that drives a block
//! model — the random stimulus, or the SM model running a kernel — drives the adapter the same
//! way, so RTL is checked under random and real traffic by the same code. The RTL runs a few
//! hundred cycles behind the model on a thread of its own.

use crate::glue::{Expected, Glue};
use crate::verilator::{Layout, Rtl, RtlLib};
use crate::wave::ExpectedTrace;
use anyhow::{Result, bail};
use rfgen_model::block::Block;
use std::fmt::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};
use std::thread::JoinHandle;

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

/// Cycles the RTL checks at a time on its own thread. The model side runs ahead by at most two
/// batches and learns of a mismatch two batches after the one holding it: a run stops at a cycle
/// that depends only on where the mismatch is, not on how fast either side ran.
const BATCH: usize = 256;

/// The cycles a run has when it stops on a mismatch at `cycle` (unless it ended before): the
/// model side learns of it once the batch two after the mismatch's is full.
pub fn stops_after(cycle: u64) -> u64 {
    (cycle / BATCH as u64 + 3) * BATCH as u64
}

/// A block model and its RTL in lockstep; or, for benchmarks, the model side alone (its model
/// and port encoding, keeping the input frames it drove when asked to). The RTL runs on a thread
/// of its own ([`Checker`]), so the model and the RTL share the work of a cycle.
pub struct Lockstep<B: Glue> {
    model: B,
    ports: B::Ports,
    lib: Arc<RtlLib>,
    checker: Option<CheckerThread>,
    /// Model side alone: every input frame driven, in order.
    frames: Option<Vec<u32>>,
    inp: Vec<u32>,
    exp: Expected,
    cycle: u64,
    /// The checker reported a mismatch.
    failed: bool,
    error: Option<String>,
    verdict: Verdict,
}

/// What the checker found, once the run is finished.
#[derive(Clone, Debug)]
struct Verdict {
    mismatch: Option<Mismatch>,
    raw_digest: u64,
    waveform: Option<PathBuf>,
}

impl<B: Glue> Lockstep<B> {
    /// Binds `model` to a fresh instance of `lib` (uninitialized state from `x_seed`) and resets
    /// both. With a waveform, its cycles are recorded from `from`.
    pub fn new(model: B, lib: &Arc<RtlLib>, x_seed: u32, waveform: Option<Waveform>) -> Result<Self> {
        let ports = model.bind(lib.layout())?;
        let checker = CheckerThread::start(lib, x_seed, waveform)?;
        Ok(Lockstep::build(model, ports, lib, Some(checker), None))
    }

    /// The model side without RTL, for timing it (and, with `keep_frames`, recording the input
    /// frames that replay the same traffic on the RTL alone).
    pub fn model_side(model: B, lib: &Arc<RtlLib>, keep_frames: bool) -> Result<Self> {
        let ports = model.bind(lib.layout())?;
        Ok(Lockstep::build(model, ports, lib, None, keep_frames.then(Vec::new)))
    }

    fn build(
        model: B,
        ports: B::Ports,
        lib: &Arc<RtlLib>,
        checker: Option<CheckerThread>,
        frames: Option<Vec<u32>>,
    ) -> Self {
        let layout = lib.layout();
        let mut l = Lockstep {
            ports,
            checker,
            frames,
            inp: vec![0; layout.in_words],
            exp: Expected::new(layout),
            lib: lib.clone(),
            cycle: 0,
            failed: false,
            error: None,
            verdict: Verdict { mismatch: None, raw_digest: 0, waveform: None },
            model,
        };
        l.reset();
        l
    }

    /// Resets the model and the RTL in the middle of a run; cycles go on being counted from the
    /// start of the run, so a mismatch names one cycle of it.
    pub fn reset_mid_run(&mut self) {
        let held = B::RESET_HOLDS_INPUTS.then(|| self.inp.clone());
        self.reset_both(held);
    }

    /// Resets the model, and the RTL with the other inputs `held` or 0.
    fn reset_both(&mut self, held: Option<Vec<u32>>) {
        self.model.reset();
        if let Some(c) = &mut self.checker
            && let Err(e) = c.reset(held)
        {
            self.error = Some(e.to_string());
        }
    }

    /// The input frames the model side drove (see [`Lockstep::model_side`]).
    pub fn into_frames(self) -> Vec<u32> {
        self.frames.unwrap_or_default()
    }

    pub fn model(&self) -> &B {
        &self.model
    }

    /// Cycles the model ran since reset.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The first cycle whose outputs differ, if any (known once [`Lockstep::finish`] ran).
    pub fn mismatch(&self) -> Option<&Mismatch> {
        self.verdict.mismatch.as_ref()
    }

    /// The run is over: a mismatch, or glue that left an output undecided (an error of the
    /// cosim code, not of the RTL).
    pub fn failed(&self) -> bool {
        self.failed || self.error.is_some()
    }

    /// Fails with the glue error, if any.
    pub fn check_glue(&self) -> Result<()> {
        match &self.error {
            Some(e) => bail!("{e}"),
            None => Ok(()),
        }
    }

    /// Hash of every output bit of the RTL in every cycle it ran, compared or not (reset cycles
    /// included; known once [`Lockstep::finish`] ran): it changes with the x-seed exactly when
    /// uninitialized state reaches an output.
    pub fn raw_digest(&self) -> u64 {
        self.verdict.raw_digest
    }

    /// Ends the run: the RTL checks the cycles still on their way, and the waveform is closed
    /// (with the model's expected outputs added to a VCD). Returns the waveform's path.
    pub fn finish(&mut self) -> Result<Option<PathBuf>> {
        if let Some(c) = self.checker.take() {
            self.verdict = c.finish()?;
        }
        Ok(self.verdict.waveform.clone())
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
        self.reset_both(None);
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
        self.model.expect(&self.ports, &self.model.outputs(), inp, &mut self.exp);
        if let Some(port) = self.exp.undecided(layout) {
            self.error = Some(format!(
                "cycle {}: the lockstep block decided nothing for output port `{}`; every output must be compared or skipped",
                self.cycle, port.name
            ));
            return;
        }
        self.model.drive(&self.ports, inp, &mut self.inp);
        match &mut self.checker {
            Some(c) => match c.push(self.cycle, &self.inp, &self.exp) {
                Ok(failed) => self.failed = failed,
                Err(e) => self.error = Some(e.to_string()),
            },
            None => {
                if let Some(frames) = &mut self.frames {
                    frames.extend_from_slice(&self.inp);
                }
            }
        }
        self.model.tick(inp);
        self.cycle += 1;
    }
}

/// The RTL side of the lockstep: each cycle it applies the inputs the model side drove, compares
/// the outputs with the model's, records the waveform and clocks the edge.
struct Checker {
    rtl: Rtl,
    lib: Arc<RtlLib>,
    out: Vec<u32>,
    waveform: Option<(Waveform, Option<ExpectedTrace>)>,
    mismatch: Option<Mismatch>,
    raw_digest: u64,
}

impl Checker {
    fn new(lib: &Arc<RtlLib>, x_seed: u32, waveform: Option<Waveform>) -> Result<Self> {
        let layout = lib.layout();
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
        let out = vec![0; layout.out_words];
        Ok(Checker { rtl, lib: lib.clone(), out, waveform, mismatch: None, raw_digest: 0xcbf2_9ce4_8422_2325 })
    }

    /// `rst` high for [`RESET_CYCLES`] cycles with the other inputs 0, or for one cycle with
    /// them `held`: a second cycle would already see the registers the first one cleared, and
    /// hide what the held inputs would have set in a register the reset misses.
    fn reset(&mut self, held: Option<Vec<u32>>) {
        let layout = self.lib.layout();
        let cycles = if held.is_some() { 1 } else { RESET_CYCLES };
        let mut inp = held.unwrap_or_else(|| vec![0; layout.in_words]);
        layout.input("rst").put(&mut inp, 1);
        for _ in 0..cycles {
            self.rtl.eval(&inp, &mut self.out);
            fold(&mut self.raw_digest, &self.out);
            self.rtl.tick();
        }
    }

    /// One cycle; nothing once a mismatch is found (its edge is still clocked, so the waveform
    /// shows it).
    fn check(&mut self, cycle: u64, inp: &[u32], values: &[u32], mask: &[u32]) {
        if self.mismatch.is_some() {
            return;
        }
        if let Some((w, _)) = &self.waveform
            && w.from == cycle
            && cycle > 0
        {
            self.rtl.trace_enable(true);
        }
        self.rtl.eval(inp, &mut self.out);
        fold(&mut self.raw_digest, &self.out);
        if let Some((w, Some(trace))) = &mut self.waveform
            && cycle >= w.from
        {
            trace.record(cycle_time(cycle), values, mask);
        }
        let out = &self.out;
        if out.iter().zip(values).zip(mask).any(|((&o, &e), &m)| (o ^ e) & m != 0) {
            let ports = diff_ports(self.lib.layout(), values, mask, out);
            self.mismatch = Some(Mismatch { cycle, ports });
        }
        self.rtl.tick();
    }

    fn finish(mut self) -> Result<Verdict> {
        let mut waveform = None;
        if let Some((w, trace)) = self.waveform.take() {
            self.rtl.trace_close();
            if let Some(trace) = trace {
                trace.merge_into(&w.path)?;
            }
            waveform = Some(w.path);
        }
        Ok(Verdict { mismatch: self.mismatch, raw_digest: self.raw_digest, waveform })
    }
}

/// What the model side sends the checker's thread.
enum ToChecker {
    /// Reset, the other inputs held at these words or 0.
    Reset(Option<Vec<u32>>),
    /// `n` cycles from `first`: per cycle the input words, the expected output values and the
    /// mask of compared bits.
    Cycles {
        first: u64,
        n: usize,
        words: Vec<u32>,
    },
    Finish,
}

/// What it answers: that it started, and after each batch the buffer back and whether a
/// mismatch is known.
enum FromChecker {
    Started(Result<()>),
    Checked { words: Vec<u32>, mismatch: bool },
}

/// A [`Checker`] on a thread of its own (its simulator instance is created there and never
/// leaves it), fed batches of cycles.
struct CheckerThread {
    to: SyncSender<ToChecker>,
    from: Receiver<FromChecker>,
    handle: JoinHandle<Result<Verdict>>,
    batch: Vec<u32>,
    spare: Vec<Vec<u32>>,
    first: u64,
    n: usize,
    in_flight: usize,
}

impl CheckerThread {
    fn start(lib: &Arc<RtlLib>, x_seed: u32, waveform: Option<Waveform>) -> Result<Self> {
        let (to, inbox) = sync_channel(2);
        let (outbox, from) = channel();
        let lib = lib.clone();
        let handle = std::thread::Builder::new().name("rtl-checker".into()).spawn(move || -> Result<Verdict> {
            let mut c = match Checker::new(&lib, x_seed, waveform) {
                Ok(c) => c,
                Err(e) => {
                    let _ = outbox.send(FromChecker::Started(Err(e)));
                    bail!("the RTL checker did not start");
                }
            };
            let _ = outbox.send(FromChecker::Started(Ok(())));
            let layout = lib.layout();
            let (i, o) = (layout.in_words, layout.out_words);
            while let Ok(msg) = inbox.recv() {
                match msg {
                    ToChecker::Reset(held) => c.reset(held),
                    ToChecker::Cycles { first, n, words } => {
                        for (k, frame) in words.chunks_exact(i + 2 * o).take(n).enumerate() {
                            let (inp, rest) = frame.split_at(i);
                            c.check(first + k as u64, inp, &rest[..o], &rest[o..]);
                        }
                        let mismatch = c.mismatch.is_some();
                        if outbox.send(FromChecker::Checked { words, mismatch }).is_err() {
                            break;
                        }
                    }
                    ToChecker::Finish => break,
                }
            }
            c.finish()
        })?;
        match from.recv() {
            Ok(FromChecker::Started(Ok(()))) => {}
            Ok(FromChecker::Started(Err(e))) => return Err(e),
            _ => bail!("the RTL checker's thread stopped before it started"),
        }
        Ok(CheckerThread { to, from, handle, batch: Vec::new(), spare: Vec::new(), first: 0, n: 0, in_flight: 0 })
    }

    fn send(&self, msg: ToChecker) -> Result<()> {
        self.to.send(msg).map_err(|_| anyhow::anyhow!("the RTL checker's thread stopped"))
    }

    fn reset(&mut self, held: Option<Vec<u32>>) -> Result<()> {
        self.flush()?;
        self.send(ToChecker::Reset(held))
    }

    /// Adds a cycle; whether a mismatch is known (in the batch two before the one filling).
    fn push(&mut self, cycle: u64, inp: &[u32], exp: &Expected) -> Result<bool> {
        if self.n == 0 {
            self.first = cycle;
        }
        self.batch.extend_from_slice(inp);
        self.batch.extend_from_slice(&exp.values);
        self.batch.extend_from_slice(&exp.mask);
        self.n += 1;
        if self.n < BATCH {
            return Ok(false);
        }
        // At most two batches on their way: the oldest answers before another is sent.
        let mut failed = false;
        if self.in_flight == 2 {
            failed = self.answer()?;
        }
        self.flush()?;
        Ok(failed)
    }

    /// Sends the batch filling, if any.
    fn flush(&mut self) -> Result<()> {
        if self.n == 0 {
            return Ok(());
        }
        let mut next = self.spare.pop().unwrap_or_default();
        next.clear();
        let words = std::mem::replace(&mut self.batch, next);
        self.send(ToChecker::Cycles { first: self.first, n: self.n, words })?;
        self.in_flight += 1;
        self.n = 0;
        Ok(())
    }

    /// Waits for the oldest batch's answer; whether a mismatch is known.
    fn answer(&mut self) -> Result<bool> {
        match self.from.recv() {
            Ok(FromChecker::Checked { words, mismatch }) => {
                self.in_flight -= 1;
                self.spare.push(words);
                Ok(mismatch)
            }
            _ => bail!("the RTL checker's thread stopped"),
        }
    }

    fn finish(mut self) -> Result<Verdict> {
        self.flush()?;
        self.send(ToChecker::Finish)?;
        match self.handle.join() {
            Ok(verdict) => verdict,
            Err(_) => bail!("the RTL checker's thread panicked"),
        }
    }
}

/// Folds one cycle's outputs into the digest (a weighted sum per cycle, so the words fold in
/// parallel, then one FNV step).
fn fold(digest: &mut u64, out: &[u32]) {
    let cycle =
        out.iter().enumerate().fold(0u64, |a, (i, &o)| a.wrapping_add((o as u64).wrapping_mul(2 * i as u64 + 1)));
    *digest = (*digest ^ cycle).wrapping_mul(0x0000_0100_0000_01b3);
}

fn diff_ports(layout: &Layout, values: &[u32], mask: &[u32], out: &[u32]) -> Vec<PortDiff> {
    let mut diffs = Vec::new();
    for p in &layout.outputs {
        let r = p.range();
        let bad: Vec<usize> =
            r.clone().filter(|&i| (values[i] ^ out[i]) & mask[i] != 0).map(|i| i - p.offset).collect();
        if bad.is_empty() {
            continue;
        }
        let (mut expected, mut actual) = (String::new(), String::new());
        if p.words <= 2 {
            let _ = write!(expected, "0x{:x}", p.get(values));
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
                let _ = write!(expected, "{}word {w} = 0x{:08x}", if n > 0 { ", " } else { "" }, values[i]);
                let _ = write!(actual, "{}word {w} = 0x{:08x}", if n > 0 { ", " } else { "" }, out[i]);
            }
        }
        diffs.push(PortDiff { port: p.name.clone(), expected, actual });
    }
    diffs
}
