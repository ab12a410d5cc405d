//! Golden model of BDI register compression (seed 004 §4–5): the compressor, the decompressor
//! and the codec that chains them (generated `<prefix>_compressor`, `<prefix>_decompressor`,
//! `<prefix>_bdi_codec`). The mode table is `rfgen_gen::layout::bdi`; `docs/bdi.md` shows the same
//! rules with a bit layout and a timing diagram.
//!
//! # Compression
//! - A register of `L` lanes is cut into values of the mode's base size: 32-bit lanes for base
//!   4; lane pairs `lane 2j | lane 2j+1 << 32` for base 8. Value 0 is the **base**.
//! - **Fit rule**: every other value's difference to the base, computed modulo 2^(8·base) (so it
//!   wraps at 2^32 for base 4), read as a signed number, must lie in `[-2^(8D-1), 2^(8D-1))`
//!   for a `D`-byte delta; for `D = 0` it must be zero. The RTL tests the same thing as a sign
//!   extension: the bits above the delta's sign bit all equal it.
//! - **Choice**: among the enabled modes that fit, the one needing the fewest banks; ties go to
//!   the canonical order `<4,0> <4,1> <4,2> <8,0> <8,1> <8,2> <8,4>` (`Layout::priority`). If
//!   none fits, or the write asks for a bypass (a partial-mask write), the register stays
//!   uncompressed: range indicator 0, all `C` banks.
//! - **Payload**: the base at bits `[8·base-1:0]`, then delta `j` (j = 1, 2, …) at bits
//!   `8·base + 8D(j-1)` upward, each the low `8D` bits of the difference; every bit above the
//!   payload is zero. Chunk `c` (one bank entry of `E` bits) is bits `[E·c+E-1 : E·c]`, stored in
//!   the register's bank of cluster `c`; the payload occupies `ceil(size / E)` chunks from chunk 0.
//!   Uncompressed, the chunks are the lanes themselves (the baseline layout).
//! - **Range indicator**: 0 = uncompressed, `i + 1` for the `i`-th enabled mode in canonical
//!   order. The decompressor reads a code no mode uses as uncompressed.
//!
//! # Decompression
//! Value 0 is the base; value `j` is the base plus delta `j` sign-extended to the base size,
//! modulo 2^(8·base). Only payload bits are read: chunks beyond the mode's banks may hold
//! anything.
//!
//! # Pipelines
//! The compressor has `compress_latency` register stages and an `en` input: at an edge with
//! `en`, every stage moves on one place and the input enters; without `en` every stage holds. A
//! register entering at an edge is on the outputs `compress_latency` advancing edges later. The
//! decompressor has `decompress_latency` stages and always advances. Outputs other than `valid`
//! mean something only while `valid` is set. Reset clears the valid bits only.

use crate::block::Block;
use rfgen_gen::layout::bdi::{Layout, Mode, ModeLayout};

/// What the compressor produces for one register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    /// Range indicator: 0 = uncompressed, else `mode.ri`.
    pub ri: u32,
    /// Banks (chunks) the register occupies.
    pub banks: u32,
    /// The chunks as lanes-sized words: chunk `c` is words `[c·E/32, (c+1)·E/32)`.
    pub chunks: Vec<u32>,
}

impl Packed {
    pub fn new(l: &Layout) -> Packed {
        Packed { ri: 0, banks: l.clusters, chunks: vec![0; l.lanes as usize] }
    }

    /// Bank-enable mask: bit `c` set when chunk `c` is stored.
    pub fn bank_en(&self) -> u64 {
        low_bits(self.banks)
    }
}

fn low_bits(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// The smallest delta, in bytes, that holds a signed difference: 0, 1, 2, 4, else 8.
fn delta_bytes(d: i64) -> u32 {
    if d == 0 {
        0
    } else if i8::try_from(d).is_ok() {
        1
    } else if i16::try_from(d).is_ok() {
        2
    } else if i32::try_from(d).is_ok() {
        4
    } else {
        8
    }
}

/// Value `j` of base size `base` bytes.
fn value(data: &[u32], base: u32, j: usize) -> u64 {
    match base {
        4 => data[j] as u64,
        _ => data[2 * j] as u64 | (data[2 * j + 1] as u64) << 32,
    }
}

/// The widest delta, in bytes, any value of `data` needs against the base, for a base size.
fn needed_delta(data: &[u32], base: u32) -> u32 {
    let values = data.len() * 4 / base as usize;
    let b = value(data, base, 0);
    (1..values)
        .map(|j| {
            let diff = value(data, base, j).wrapping_sub(b);
            delta_bytes(if base == 4 { diff as u32 as i32 as i64 } else { diff as i64 })
        })
        .max()
        .unwrap_or(0)
}

/// Whether `mode` can hold `data`: every difference to the base fits its delta (fit rule).
pub fn fits(mode: &Mode, data: &[u32]) -> bool {
    needed_delta(data, mode.base) <= mode.delta
}

/// The mode the compressor picks for `data`, if any fits.
pub fn choose<'a>(l: &'a Layout, data: &[u32]) -> Option<&'a ModeLayout> {
    let need4 = if l.has_base(4) { needed_delta(data, 4) } else { 0 };
    let need8 = if l.has_base(8) { needed_delta(data, 8) } else { 0 };
    l.priority.iter().map(|&i| &l.modes[i]).find(|m| m.mode.delta >= if m.mode.base == 4 { need4 } else { need8 })
}

/// Writes the low `bits` of `v` at bit `at` of `words` (fields never straddle a word, except
/// a 64-bit base, which starts on one).
fn put(words: &mut [u32], at: u32, bits: u32, v: u64) {
    let (w, shift) = ((at / 32) as usize, at % 32);
    if bits == 64 {
        words[w] = v as u32;
        words[w + 1] = (v >> 32) as u32;
    } else {
        words[w] |= ((v & ((1u64 << bits) - 1)) as u32) << shift;
    }
}

/// Reads `bits` at bit `at` of `words`, sign-extended to 64 bits (zero-extended for 64).
fn get_signed(words: &[u32], at: u32, bits: u32) -> u64 {
    let (w, shift) = ((at / 32) as usize, at % 32);
    if bits == 64 {
        return words[w] as u64 | (words[w + 1] as u64) << 32;
    }
    let raw = (words[w] >> shift) as u64 & ((1u64 << bits) - 1);
    ((raw << (64 - bits)) as i64 >> (64 - bits)) as u64
}

/// Compresses `data` (one word per lane) into `out`; `bypass` keeps it uncompressed.
pub fn compress(l: &Layout, data: &[u32], bypass: bool, out: &mut Packed) {
    let chosen = if bypass { None } else { choose(l, data) };
    let Some(m) = chosen else {
        out.ri = 0;
        out.banks = l.clusters;
        out.chunks.copy_from_slice(data);
        return;
    };
    out.ri = m.ri;
    out.banks = m.banks;
    out.chunks.fill(0);
    let (base, bits, d) = (m.mode.base, m.mode.base_bits(), m.mode.delta_bits());
    let b = value(data, base, 0);
    put(&mut out.chunks, 0, bits, b);
    if d > 0 {
        for j in 1..m.values as usize {
            put(&mut out.chunks, bits + d * (j as u32 - 1), d, value(data, base, j).wrapping_sub(b));
        }
    }
}

/// Decompresses chunks with range indicator `ri` into `out` (one word per lane).
pub fn decompress(l: &Layout, ri: u32, chunks: &[u32], out: &mut [u32]) {
    let Some(m) = l.mode(ri) else {
        out.copy_from_slice(chunks);
        return;
    };
    let (base, bits, d) = (m.mode.base, m.mode.base_bits(), m.mode.delta_bits());
    let b = get_signed(chunks, 0, bits);
    for j in 0..m.values as usize {
        let delta = if j == 0 || d == 0 { 0 } else { get_signed(chunks, bits + d * (j as u32 - 1), d) };
        let v = b.wrapping_add(delta);
        if base == 4 {
            out[j] = v as u32;
        } else {
            out[2 * j] = v as u32;
            out[2 * j + 1] = (v >> 32) as u32;
        }
    }
}

/// The compressor pipeline (`<prefix>_compressor`): a ring of `compress_latency` stages. The
/// result is computed when a register enters; the stages only delay it.
#[derive(Clone, Debug)]
pub struct Compressor {
    layout: Layout,
    valid: Vec<bool>,
    packed: Vec<Packed>,
    /// Stage the last entering register went to; the next one holds the oldest, the output.
    newest: usize,
}

impl Compressor {
    pub fn new(l: &Layout) -> Compressor {
        let n = l.compress_latency as usize;
        Compressor { layout: l.clone(), valid: vec![false; n], packed: vec![Packed::new(l); n], newest: 0 }
    }

    pub fn reset(&mut self) {
        self.valid.fill(false);
    }

    fn oldest(&self) -> usize {
        (self.newest + 1) % self.valid.len()
    }

    /// Which stages hold a register, indexed like the stages' ring (see [`WritePort`]).
    ///
    /// [`WritePort`]: crate::blocks::mrf::WritePort
    pub fn stage_valid(&self) -> &[bool] {
        &self.valid
    }

    /// `out_valid` and the other outputs.
    pub fn output(&self) -> (bool, &Packed) {
        let o = self.oldest();
        (self.valid[o], &self.packed[o])
    }

    /// One edge: with `en` the register `(valid, bypass, data)` enters and every stage moves on.
    pub fn tick(&mut self, en: bool, valid: bool, bypass: bool, data: &[u32]) {
        if !en {
            return;
        }
        self.newest = self.oldest();
        self.valid[self.newest] = valid;
        if valid {
            compress(&self.layout, data, bypass, &mut self.packed[self.newest]);
        }
    }
}

/// The decompressor pipeline (`<prefix>_decompressor`): `decompress_latency` stages, always
/// advancing.
#[derive(Clone, Debug)]
pub struct Decompressor {
    layout: Layout,
    valid: Vec<bool>,
    data: Vec<Vec<u32>>,
    newest: usize,
}

impl Decompressor {
    pub fn new(l: &Layout) -> Decompressor {
        let n = l.decompress_latency as usize;
        Decompressor { layout: l.clone(), valid: vec![false; n], data: vec![vec![0; l.lanes as usize]; n], newest: 0 }
    }

    pub fn reset(&mut self) {
        self.valid.fill(false);
    }

    /// `out_valid` and `out_data`.
    pub fn output(&self) -> (bool, &[u32]) {
        let o = (self.newest + 1) % self.valid.len();
        (self.valid[o], &self.data[o])
    }

    pub fn tick(&mut self, valid: bool, ri: u32, chunks: &[u32]) {
        self.newest = (self.newest + 1) % self.valid.len();
        self.valid[self.newest] = valid;
        if valid {
            decompress(&self.layout, ri, chunks, &mut self.data[self.newest]);
        }
    }
}

/// Inputs of the codec (`<prefix>_bdi_codec`) in one cycle: one field per input port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodecIn {
    pub en: bool,
    pub in_valid: bool,
    pub in_bypass: bool,
    /// One word per lane.
    pub in_data: Vec<u32>,
}

impl CodecIn {
    pub fn new(l: &Layout) -> Self {
        CodecIn { en: false, in_valid: false, in_bypass: false, in_data: vec![0; l.lanes as usize] }
    }
}

/// Outputs of the codec in one cycle; `cmp_*` mean something while `cmp_valid`, `out_data`
/// while `out_valid`.
#[derive(Clone, Debug)]
pub struct CodecOut<'a> {
    pub cmp_valid: bool,
    pub cmp_ri: u32,
    pub cmp_banks: u32,
    pub cmp_bank_en: u64,
    pub cmp_chunks: &'a [u32],
    pub out_valid: bool,
    pub out_data: &'a [u32],
}

/// The codec (`<prefix>_bdi_codec`): a compressor whose output enters a decompressor at every
/// edge with `en` at which it is valid.
#[derive(Clone, Debug)]
pub struct Codec {
    pub compressor: Compressor,
    pub decompressor: Decompressor,
}

impl Codec {
    pub fn new(l: &Layout) -> Codec {
        Codec { compressor: Compressor::new(l), decompressor: Decompressor::new(l) }
    }

    pub fn layout(&self) -> &Layout {
        &self.compressor.layout
    }
}

impl Block for Codec {
    type In = CodecIn;
    type Out<'a> = CodecOut<'a>;

    fn reset(&mut self) {
        self.compressor.reset();
        self.decompressor.reset();
    }

    fn outputs(&self) -> CodecOut<'_> {
        let (cmp_valid, packed) = self.compressor.output();
        let (out_valid, out_data) = self.decompressor.output();
        CodecOut {
            cmp_valid,
            cmp_ri: packed.ri,
            cmp_banks: packed.banks,
            cmp_bank_en: packed.bank_en(),
            cmp_chunks: &packed.chunks,
            out_valid,
            out_data,
        }
    }

    fn tick(&mut self, i: &CodecIn) {
        let (out_valid, packed) = self.compressor.output();
        self.decompressor.tick(out_valid && i.en, packed.ri, &packed.chunks);
        self.compressor.tick(i.en, i.in_valid, i.in_bypass, &i.in_data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(modes: &[&str]) -> Layout {
        layout_timed(modes, "")
    }

    /// The layout of `modes` with the `[timing]` options of `timing`.
    fn layout_timed(modes: &[&str], timing: &str) -> Layout {
        let list: Vec<String> = modes.iter().map(|m| format!("{m:?}")).collect();
        let text = format!("[compression]\nmodes = [{}]\n[timing]\n{timing}", list.join(", "));
        let checked = rfgen_gen::config::parse(&text).unwrap();
        Layout::new(&checked.geometry, &checked.config.compression, &checked.config.timing).unwrap()
    }

    #[test]
    fn thread_id_ramp_packs_as_4_1() {
        let l = layout(&["4,0", "4,1", "4,2"]);
        let data: Vec<u32> = (0..32).map(|i| 1000 + i).collect();
        let mut p = Packed::new(&l);
        compress(&l, &data, false, &mut p);
        assert_eq!((p.ri, p.banks, p.bank_en()), (2, 3, 0b111));
        assert_eq!(p.chunks[0], 1000, "the base");
        assert_eq!(p.chunks[1], 0x0403_0201, "deltas 1..4, delta 1 in the low byte");
        assert!(p.chunks[9..].iter().all(|&w| w == 0), "zero above the 35-byte payload");
        let mut back = vec![0; 32];
        decompress(&l, p.ri, &p.chunks, &mut back);
        assert_eq!(back, data);
    }

    /// A enters the codec of `l` at the edge ending cycle 0, B at 1: per cycle, the first chunk
    /// leaving the compressor and the first lane leaving the decompressor.
    fn codec_timing(l: &Layout) -> Vec<(Option<u32>, Option<u32>)> {
        let mut codec = Codec::new(l);
        let (a, b) = (vec![1; 32], vec![2; 32]);
        let mut seen = Vec::new();
        for cycle in 0..6 {
            let (cmp_valid, packed) = codec.compressor.output();
            let (out_valid, data) = codec.decompressor.output();
            seen.push((cmp_valid.then_some(packed.chunks[0]), out_valid.then_some(data[0])));
            let input = [Some(&a), Some(&b)].get(cycle).copied().flatten();
            let data = input.unwrap_or(&a).clone();
            codec.tick(&CodecIn { en: true, in_valid: input.is_some(), in_bypass: false, in_data: data });
        }
        seen
    }

    /// The codec timing diagram of docs/bdi.md.
    #[test]
    fn documented_codec_timing() {
        let seen = codec_timing(&layout(&["4,0", "4,1", "4,2"]));
        let want = [(None, None), (None, None), (Some(1), None), (Some(2), Some(1)), (None, Some(2)), (None, None)];
        assert_eq!(seen, want);
    }

    /// The same with the compressor's first stage split (`timing.bdi_split_compressor`): one
    /// cycle more through the compressor.
    #[test]
    fn documented_split_codec_timing() {
        let l = layout_timed(&["4,0", "4,1", "4,2"], "bdi_split_compressor = true\n");
        assert_eq!((l.compress_latency, l.split_deltas), (3, true));
        let seen = codec_timing(&l);
        let want = [(None, None), (None, None), (None, None), (Some(1), None), (Some(2), Some(1)), (None, Some(2))];
        assert_eq!(seen, want);
    }

    /// With each value's fit registered too (`timing.bdi_registered_fit`): one cycle more again.
    #[test]
    fn documented_registered_fit_codec_timing() {
        let l = layout_timed(&["4,0", "4,1", "4,2"], "bdi_split_compressor = true\nbdi_registered_fit = true\n");
        assert_eq!((l.compress_latency, l.split_deltas, l.registered_fit), (4, true, true));
        let seen = codec_timing(&l);
        let want = [(None, None), (None, None), (None, None), (None, None), (Some(1), None), (Some(2), Some(1))];
        assert_eq!(seen, want);
    }

    #[test]
    fn pipeline_delays_by_latency_and_holds_without_en() {
        let l = layout(&["4,0"]);
        let mut c = Compressor::new(&l);
        let data = vec![7; 32];
        c.tick(true, true, false, &data);
        assert!(!c.output().0, "two stages by default");
        c.tick(false, false, false, &data);
        assert!(!c.output().0, "held");
        c.tick(true, false, false, &data);
        assert_eq!((c.output().0, c.output().1.ri), (true, 1));
    }
}
