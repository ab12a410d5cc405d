//! What a block provides to be cosimulated: its [`Glue`] (the typed interface bound to the
//! Verilated model's buffers, and the encoding of inputs and expected outputs), a [`Stimulus`]
//! that respects its protocol, and the constructors the shared runners need ([`CosimBlock`]).

use crate::verilator::{Layout, PortSlot};
use anyhow::{Result, bail};
use rfgen_gen::Checked;
use rfgen_gen::verilog::Port;
use rfgen_model::block::Block;

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
    /// Outputs follow from the state (`out`), or, for a block that decides within the cycle
    /// (the warp scheduler's grant), from the state and this cycle's inputs (`inp`).
    fn expect(&self, ports: &Self::Ports, out: &Self::Out<'_>, inp: &Self::In, exp: &mut Expected);
    /// Whether a reset in the middle of a run holds the last cycle's inputs on the RTL (else
    /// they are all 0): a block whose reset clears every register whatever its inputs shows a
    /// register left out of its reset only with inputs that would set it. Blocks with memories
    /// keep 0: a write offered during reset lands in the RTL's memory, and the model's reset
    /// knows nothing of it.
    const RESET_HOLDS_INPUTS: bool = false;
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
        let mask = &mut self.mask[port.range()];
        let all = if mask.len() >= 64 { u64::MAX } else { (1u64 << mask.len()) - 1 };
        match known & all {
            0 => mask.fill(0),
            k if k == all => {
                mask.fill(u32::MAX);
                self.values[port.range()].copy_from_slice(words);
            }
            k => {
                for (lane, m) in mask.iter_mut().enumerate() {
                    *m = 0u32.wrapping_sub((k >> lane) as u32 & 1);
                }
                self.values[port.range()].copy_from_slice(words);
            }
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

    /// Compares port `to` as `from` compares its port `from_port` (the same port seen through
    /// an enclosing top).
    pub(crate) fn route(&mut self, from: &Expected, from_port: &PortSlot, to: &PortSlot) {
        self.values[to.range()].copy_from_slice(&from.values[from_port.range()]);
        self.mask[to.range()].copy_from_slice(&from.mask[from_port.range()]);
        self.decide(to);
    }

    /// The first output port not decided since the last call; clears the record.
    pub(crate) fn undecided<'a>(&mut self, layout: &'a Layout) -> Option<&'a PortSlot> {
        let missing = layout.outputs.iter().find(|p| self.decided[p.index / 64] >> (p.index % 64) & 1 == 0);
        self.decided.fill(0);
        missing
    }
}

/// Chooses a block's inputs each cycle, seeing the outputs of that cycle.
pub trait Stimulus<B: Block> {
    fn next(&mut self, cycle: u64, out: &B::Out<'_>, inp: &mut B::In);
    /// A finite stimulus has run out.
    fn done(&self) -> bool {
        false
    }
    /// Called before each cycle's [`Stimulus::next`]: whether the block is reset now, model and
    /// RTL together, in the middle of the run. A stimulus that says yes now and then has forgotten
    /// what it tracked of the block's state; the default never resets.
    fn reset_now(&mut self) -> bool {
        false
    }
}

/// How often a stimulus that resets the block in the middle of a run does, on average: state
/// right after a reset is reached many times a run, and long histories still build up between.
pub const MEAN_CYCLES_BETWEEN_RESETS: f64 = 250.0;

/// A stimulus's draw for [`Stimulus::reset_now`], once in [`MEAN_CYCLES_BETWEEN_RESETS`] cycles
/// on average.
pub fn draw_reset(rng: &mut impl rand::Rng) -> bool {
    rng.random_bool(1.0 / MEAN_CYCLES_BETWEEN_RESETS)
}

/// What the shared runners need of a block besides its glue.
pub trait CosimBlock: Glue + Sized {
    fn model(checked: &Checked) -> Result<Self>;
}

/// A block with random protocol-respecting stimulus of its own (the composed pipeline's random
/// stimulus is random programs instead).
pub trait RandomBlock: CosimBlock {
    type Stimulus: Stimulus<Self>;
    /// Random protocol-respecting stimulus from a seed.
    fn stimulus(checked: &Checked, seed: u64) -> Self::Stimulus;
    /// Inputs of an idle cycle, where a run starts.
    fn idle(&self) -> Self::In;
    /// Event counts for the summary of a run.
    fn summary(&self, stimulus: &Self::Stimulus) -> Vec<(&'static str, u64)>;
}

/// Binds every port of an interface (`map` is its own `map`) to the RTL, or names every port
/// that does not fit.
pub fn bind_all<I, O>(
    iface: &I,
    layout: &Layout,
    map: impl FnOnce(&I, &mut dyn FnMut(&Port) -> PortSlot) -> O,
) -> Result<O> {
    let mut problems = Vec::new();
    let bound = map(iface, &mut |p: &Port| {
        layout.bind(p).unwrap_or_else(|e| {
            problems.push(e);
            PortSlot { name: p.name.clone(), index: usize::MAX, width: p.width, offset: 0, words: 0 }
        })
    });
    if !problems.is_empty() {
        bail!("the RTL does not have the block's interface: {}", problems.join("; "));
    }
    Ok(bound)
}

/// Writes `values`, element `i` at bit `width * i`, into a port (`width` ≤ 64).
pub fn pack(buf: &mut [u32], port: &PortSlot, width: usize, values: impl Iterator<Item = u64>) {
    let words = &mut buf[port.range()];
    words.fill(0);
    let keep = if width == 64 { u64::MAX } else { (1 << width) - 1 };
    for (i, v) in values.enumerate() {
        let at = i * width;
        let x = u128::from(v & keep) << (at % 32);
        for (k, word) in words.iter_mut().skip(at / 32).take(3).enumerate() {
            *word |= (x >> (32 * k)) as u32;
        }
    }
}

/// One field per source slot packed into a port value, source `s` at bit `width * s`.
pub fn sources<T: Copy + Into<u64>>(v: [T; 3], width: u32) -> u64 {
    v.iter().rev().fold(0, |m, &x| m << width | x.into())
}
