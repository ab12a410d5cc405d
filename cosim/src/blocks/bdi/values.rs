//! Register values shaped like what kernels write (seed 004 §3: uniform values, thread-id ramps,
//! narrow dynamic ranges) plus values at the edges of each delta width and uniform noise, for
//! the BDI codec and the compressed MRF stimulus.

use rfgen_gen::layout::bdi::Mode;

/// How to fill a warp register; deterministic given its fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Every lane the same (block ids, constants, loop counters).
    Equal(u32),
    /// Thread-id ramp: lane `i` is `base + i·stride` modulo 2^32, for any stride (negative
    /// strides wrap).
    Ramp { base: u32, stride: u32 },
    /// 64-bit ramp over lane pairs: pair `j` (lane `2j` low word, `2j+1` high word) is
    /// `base + j·stride` modulo 2^64.
    Ramp64 { base: u64, stride: u64 },
    /// `base` plus signed noise of at most `bits` bits per lane (a narrow dynamic range).
    Noise { base: u32, bits: u32, seed: u64 },
    /// Values whose differences to value 0 sit at the edges of a `k+1`-bit signed delta: each is
    /// one of `2^k - 1`, `-2^k`, `0`, `±1`, and with `outside = Some(j)` value `j` gets `2^k` or
    /// `-2^k - 1`, just out of range. `wide` makes the values 64-bit lane pairs.
    Boundary { base: u64, k: u32, wide: bool, outside: Option<u32>, seed: u64 },
    /// Every value equals `base` except value `at`, which is `base + delta` (one thread off the
    /// others); `wide` makes the values 64-bit lane pairs. For exhaustive sweeps of a delta.
    Spike { base: u64, wide: bool, at: u32, delta: u64 },
    /// Independent uniform words.
    Uniform(u64),
}

/// SplitMix64: a tiny deterministic generator for filling one register.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Pattern {
    /// Writes the register, one word per lane.
    pub fn fill(&self, out: &mut [u32]) {
        match *self {
            Pattern::Equal(v) => out.fill(v),
            Pattern::Ramp { base, stride } => {
                for (i, w) in out.iter_mut().enumerate() {
                    *w = base.wrapping_add(stride.wrapping_mul(i as u32));
                }
            }
            Pattern::Ramp64 { base, stride } => {
                let mut v = base;
                for pair in out.chunks_mut(2) {
                    pair[0] = v as u32;
                    if let Some(hi) = pair.get_mut(1) {
                        *hi = (v >> 32) as u32;
                    }
                    v = v.wrapping_add(stride);
                }
            }
            Pattern::Noise { base, bits, seed } => {
                let mut rng = Mix(seed);
                let bits = bits.clamp(1, 32);
                for w in out.iter_mut() {
                    let noise = ((rng.next() as i64) >> (64 - bits)) as u32;
                    *w = base.wrapping_add(noise);
                }
            }
            Pattern::Boundary { base, k, wide, outside, seed } => {
                let mut rng = Mix(seed);
                let edge = 1i64 << k.min(62);
                let inside = [edge - 1, -edge, 0, 1, -1];
                let values = if wide { out.len() / 2 } else { out.len() };
                for j in 0..values.max(1) {
                    let delta = if j == 0 {
                        0
                    } else if outside == Some(j as u32) {
                        if rng.next() & 1 == 0 { edge } else { -edge - 1 }
                    } else {
                        inside[(rng.next() % inside.len() as u64) as usize]
                    };
                    let v = base.wrapping_add(delta as u64);
                    if wide && out.len() >= 2 {
                        out[2 * j] = v as u32;
                        out[2 * j + 1] = (v >> 32) as u32;
                    } else {
                        out[j] = v as u32;
                    }
                }
            }
            Pattern::Spike { base, wide, at, delta } => {
                let put = |out: &mut [u32], j: usize, v: u64| {
                    if wide {
                        out[2 * j] = v as u32;
                        out[2 * j + 1] = (v >> 32) as u32;
                    } else {
                        out[j] = v as u32;
                    }
                };
                let values = if wide { out.len() / 2 } else { out.len() };
                for j in 0..values {
                    put(out, j, base);
                }
                if (at as usize) < values {
                    put(out, at as usize, base.wrapping_add(delta));
                }
            }
            Pattern::Uniform(seed) => {
                let mut rng = Mix(seed);
                for w in out.iter_mut() {
                    *w = rng.next() as u32;
                }
            }
        }
    }

    /// The `n`th of a sweep over every value index, width and edge: one value off the others
    /// (`base`) by 2^k, 2^k - 1, -2^k or -2^k - 1, k from 0 to 31. A width's fit check reads
    /// every bit above it, so an edit of one bit of one value's check shows only for a delta
    /// at that bit's edge in that value; 4,096 registers of 32 lanes reach them all.
    pub fn spike_sweep(lanes: u32, n: u64, base: u64) -> Pattern {
        let (kind, k, at) = (n % 4, (n / 4) % 32, (n / 128) % u64::from(lanes.max(1)));
        let delta = match kind {
            0 => 1u64 << k,
            1 => (1u64 << k) - 1,
            2 => 0u64.wrapping_sub(1 << k),
            _ => 0u64.wrapping_sub(1 << k).wrapping_sub(1),
        };
        Pattern::Spike { base, wide: false, at: at as u32, delta }
    }

    /// Values that fit `mode` and no narrower delta of its base: every lane equal (a 64-bit
    /// value repeated, for an 8-byte base), or deltas at the edges of the mode's delta width.
    pub fn fitting(mode: Mode, mut r: impl FnMut() -> u64) -> Pattern {
        let (wide, base) = (mode.base == 8, r());
        match mode.delta {
            0 if wide => Pattern::Ramp64 { base, stride: 0 },
            0 => Pattern::Equal(base as u32),
            d => Pattern::Boundary { base, k: 8 * d - 1, wide, outside: None, seed: r() },
        }
    }

    /// Every value equal but one, whose difference to the others is 0 or −1 with one bit
    /// flipped (`wide`: 64-bit values): it fails a fit check at that bit alone, so an edit of
    /// any one bit of any value's check shows.
    pub fn flipped(lanes: u32, mut r: impl FnMut() -> u64) -> Pattern {
        let wide = lanes >= 4 && r().is_multiple_of(2);
        let (values, bits) = if wide { (lanes / 2, 64) } else { (lanes, 32) };
        let near = if r().is_multiple_of(2) { 0 } else { u64::MAX };
        let at = 1 + (r() % u64::from(values.max(2) - 1)) as u32;
        Pattern::Spike { base: r(), wide, at, delta: near ^ 1 << (r() % bits) }
    }

    /// A pattern drawn from `r` (64 random bits per call), weighted toward kernel-like values
    /// and toward bases near the wrap-around and sign edges.
    pub fn random(lanes: u32, mut r: impl FnMut() -> u64) -> Pattern {
        let base = match r() % 8 {
            0 => 0u64.wrapping_sub(r() % 64),
            1 => 0x8000_0000u64.wrapping_sub(r() % 64),
            2 => r() % 64,
            _ => r(),
        };
        let stride = match r() % 4 {
            0 => 1,
            1 => (r() % 9) as u32,
            2 => 0u32.wrapping_sub((r() % 9) as u32),
            _ => r() as u32 >> (r() % 32),
        };
        match r() % 20 {
            0..=2 => Pattern::Equal(base as u32),
            3..=6 => Pattern::Ramp { base: base as u32, stride },
            7 => Pattern::Ramp64 { base: base | r() << 32, stride: stride as u64 },
            8..=10 => Pattern::Noise { base: base as u32, bits: 1 + (r() % 17) as u32, seed: r() },
            11..=15 => {
                let wide = r().is_multiple_of(3);
                let k = [7, 15, 31][(r() % if wide { 3 } else { 2 }) as usize];
                let values = if wide { lanes / 2 } else { lanes };
                let outside = (r().is_multiple_of(2) && values > 1).then(|| 1 + (r() % (values as u64 - 1)) as u32);
                Pattern::Boundary { base, k, wide, outside, seed: r() }
            }
            _ => Pattern::Uniform(r()),
        }
    }
}
