//! Synthetic kernels with controlled operand-value statistics (SPEC §7).
//!
//! A synthetic kernel is a loop whose body is generated from a seed. Each body instruction
//! reads `reads` registers on average, chosen among recently written values with a geometric
//! recency distribution (mean distance `lifetime` instructions); a fraction `long_latency` of
//! the instructions are global loads and `sfu` are SFU operations; a fraction `divergence` of
//! the body sits inside branches taken by half of each warp; and values derive from the thread
//! id (similar across lanes) except that a share `noise` of them mixes in random lane data. A source already read is usually (`prefer_unread`) swapped for
//! an unread value. The defaults are calibrated so that whole kernels, loop and branch overhead
//! included, land near SPEC §7: 1.6 reads per instruction, 7% of reads by SFU/MEM/TEX, 79%
//! non-divergent instructions, most values read once, 79% of writes within ±2^15
//! (`tests/sim.rs` checks the bands).

use super::{Kernel, parse};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq)]
pub struct Knobs {
    /// Instructions in the loop body.
    pub length: u32,
    pub iterations: u32,
    pub blocks: u32,
    pub threads: u32,
    /// Mean register reads per instruction.
    pub reads: f64,
    /// Mean distance, in instructions, from a value's write to a read of it.
    pub lifetime: f64,
    pub long_latency: f64,
    pub sfu: f64,
    pub divergence: f64,
    /// Share of results (and loads) that take random lane data; later instructions spread it,
    /// so the share of dissimilar writes is larger (the default gives about 79% similar).
    pub noise: f64,
    /// Chance that a source already read is replaced by an unread value.
    pub prefer_unread: f64,
    /// Chance that a source skips the value the previous instruction wrote: instruction-level
    /// parallelism, so a few warps hide the ALU latency (seed 000 §5.2's traces).
    pub ilp: f64,
    /// Share of source reads that read a long-lived, lane-uniform value (like a loop invariant
    /// or base address), replaced after about `4 × reads` reads: the heavy tail of values read
    /// many times (SPEC §7's ~10% read more than twice).
    pub hot: f64,
    /// Chance that a chunk of the body ends at a block barrier (`bar`), where every warp of the
    /// block has converged.
    pub barriers: f64,
    /// Share of ALU instructions guarded by a predicate just computed from lane data (`setp`,
    /// then `@p2`): partial writes and predicate dependencies.
    pub predicated: f64,
    /// Predicates the guards draw from, `p2` up (`p0` and `p1` steer the loop and the
    /// divergence): with more than one, every predicate's scoreboard bit is reached.
    pub predicates: u32,
    /// Registers per thread the kernel uses: r0–r4 (thread id, offset, loop counter, scratch,
    /// noise), the value registers the body rotates through, and the long-lived one.
    pub registers: u32,
    pub seed: u64,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            length: 400,
            iterations: 8,
            blocks: 8,
            threads: 256,
            reads: 2.0,
            lifetime: 5.0,
            long_latency: 0.06,
            sfu: 0.05,
            divergence: 0.25,
            noise: 0.02,
            prefer_unread: 0.8,
            hot: 0.26,
            ilp: 0.5,
            barriers: 0.0,
            predicated: 0.0,
            predicates: 1,
            registers: 29,
            seed: 1,
        }
    }
}

const KEYS: &str = "length iterations blocks threads reads lifetime long_latency sfu divergence noise prefer_unread hot ilp barriers predicated predicates registers seed";

impl Knobs {
    /// Parses `key=value,key=value`; unspecified knobs keep their defaults.
    pub fn parse(text: &str) -> Result<Knobs, String> {
        let mut k = Knobs::default();
        let mut given: Vec<&str> = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) =
                item.split_once('=').ok_or_else(|| format!("`{item}` is not key=value (keys: {KEYS})"))?;
            if given.contains(&key) {
                return Err(format!("knob `{key}` is given twice"));
            }
            given.push(key);
            let int = |lo: u32, hi: u32| -> Result<u32, String> {
                value
                    .parse::<u32>()
                    .ok()
                    .filter(|v| (lo..=hi).contains(v))
                    .ok_or_else(|| format!("{key} = {value}: allowed {lo} to {hi}"))
            };
            let frac = |lo: f64, hi: f64| -> Result<f64, String> {
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|v| (lo..=hi).contains(v))
                    .ok_or_else(|| format!("{key} = {value}: allowed {lo} to {hi}"))
            };
            match key {
                "length" => k.length = int(1, 100_000)?,
                "iterations" => k.iterations = int(1, 1_000_000)?,
                "blocks" => k.blocks = int(1, super::parse::MAX_BLOCKS)?,
                "threads" => k.threads = int(1, super::parse::MAX_THREADS)?,
                "reads" => k.reads = frac(0.0, 3.0)?,
                "lifetime" => k.lifetime = frac(1.0, 100.0)?,
                "long_latency" => k.long_latency = frac(0.0, 1.0)?,
                "sfu" => k.sfu = frac(0.0, 1.0)?,
                "divergence" => k.divergence = frac(0.0, 1.0)?,
                "noise" => k.noise = frac(0.0, 1.0)?,
                "prefer_unread" => k.prefer_unread = frac(0.0, 1.0)?,
                "hot" => k.hot = frac(0.0, 1.0)?,
                "ilp" => k.ilp = frac(0.0, 1.0)?,
                "barriers" => k.barriers = frac(0.0, 1.0)?,
                "predicated" => k.predicated = frac(0.0, 1.0)?,
                "predicates" => k.predicates = int(1, GUARDS)?,
                "registers" => k.registers = int(FIRST + HOT + 2, MAX_REGISTERS)?,
                "seed" => {
                    k.seed = value.parse().map_err(|_| format!("seed = {value}: allowed a non-negative integer"))?
                }
                _ => return Err(format!("unknown knob `{key}` (keys: {KEYS})")),
            }
        }
        if k.long_latency + k.sfu > 1.0 {
            return Err("long_latency + sfu must be at most 1".into());
        }
        Ok(k)
    }
}

/// Register holding per-lane random data.
const NOISE: u32 = 4;

/// The first value register.
const FIRST: u32 = NOISE + 1;

/// Registers a kernel may name (r0 to r255).
const MAX_REGISTERS: u32 = 256;

/// Predicates a guard may use: `p2` to `p7` (a kernel names `p0` to `p7`).
const GUARDS: u32 = 6;

/// Long-lived values (after the body's registers), set at the top of every loop iteration and
/// replaced now and then.
const HOT: u32 = 1;

/// Memory regions: random data (the default contents) and lane-similar data.
const RANDOM_BASE: u32 = 0x0100_0000;
const SIMILAR_BASE: u32 = 0x0200_0000;

/// Generates the kernel text for `knobs`.
pub fn source(knobs: &Knobs) -> String {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(knobs.seed);
    let mut s = String::new();
    let _ = writeln!(s, "; synthetic kernel: {knobs:?}");
    let _ = writeln!(s, ".kernel synthetic\n.grid {} {}", knobs.blocks, knobs.threads);
    // Similar data: a ramp with a small stride, 4 KiB repeated by masking addresses.
    let ramp: Vec<String> = (0..1024).map(|i| (1000 + 3 * i).to_string()).collect();
    let _ = writeln!(s, ".data {SIMILAR_BASE:#x} {}", ramp.join(" "));
    // r0 thread id, r1 byte offset of the thread, r2 loop counter, r3 scratch address,
    // r4 per-lane random noise (mixed into dissimilar values).
    let _ = writeln!(s, "    mov r0, %gtid\n    shl r1, r0, 2\n    mov r2, 0\n    and r3, r1, 0xffc");
    let _ = writeln!(s, "    ld.global r{NOISE}, [r3 + {RANDOM_BASE:#x}]");
    let first = FIRST;
    let regs = knobs.registers - FIRST - HOT;
    // Every value register starts with a lane-similar value.
    for r in first..first + regs {
        let _ = writeln!(s, "    add r{r}, r0, {}", r * 7);
    }
    let _ = writeln!(s, "LOOP:");
    let hot = first + regs;
    for h in hot..hot + HOT {
        let _ = writeln!(s, "    add r{h}, r2, {}", h * 16);
    }
    let mut values = Values {
        recent: (first..first + regs).collect(),
        reads: vec![1; (first + regs) as usize],
        hot: hot..hot + HOT,
        next_hot: 0,
    };
    let mut i = 0;
    let mut label = 0;
    while i < knobs.length {
        // The body comes in chunks of 4 instructions; a chunk is divergent with probability
        // `divergence`: half of each warp (lanes 2-3, 6-7, ...: pairs of neighbours, so divergent
        // writes have successive active lanes) runs it.
        let n = (knobs.length - i).min(4);
        let divergent = rng.random_bool(knobs.divergence);
        if divergent {
            let _ = writeln!(s, "    and r3, r0, 2\n    setp.eq p1, r3, 0\n@p1 bra SKIP{label}");
        }
        for _ in 0..n {
            body_instruction(&mut s, &mut rng, knobs, &mut values);
        }
        if divergent {
            let _ = writeln!(s, "SKIP{label}:");
            label += 1;
        }
        // Knobs at zero draw nothing, so the defaults give the kernels they always gave.
        if knobs.barriers > 0.0 && rng.random_bool(knobs.barriers) {
            let _ = writeln!(s, "    bar");
        }
        i += n;
    }
    let last = values.recent.last().copied().unwrap_or(first);
    let _ = writeln!(s, "    add r2, r2, 1\n    setp.lt p0, r2, {}\n@p0 bra LOOP", knobs.iterations);
    let _ = writeln!(s, "    st.global [r1 + {:#x}], r{last}\n    exit", 0x0300_0000u32);
    s
}

/// Register-selection state of the generator.
struct Values {
    /// Value registers, least recently written first.
    recent: Vec<u32>,
    /// Reads of each register's current value.
    reads: Vec<u32>,
    /// The long-lived registers, and the one written last.
    hot: std::ops::Range<u32>,
    next_hot: u32,
}

impl Values {
    /// A source: one of the long-lived values with probability `hot`, else geometric recency
    /// with mean distance `lifetime`; a value read before is passed over for the nearest unread
    /// one with probability `prefer_unread`, so most values are read once (SPEC §7).
    fn pick(&mut self, rng: &mut Xoshiro256PlusPlus, knobs: &Knobs) -> u32 {
        if rng.random_bool(knobs.hot) {
            return rng.random_range(self.hot.clone());
        }
        let p = 1.0 / knobs.lifetime;
        let mut d = if self.recent.len() > 1 && rng.random_bool(knobs.ilp) { 2 } else { 1 };
        while d < self.recent.len() && !rng.random_bool(p) {
            d += 1;
        }
        let at = self.recent.len() - d;
        let mut r = self.recent[at];
        if self.reads[r as usize] > 0 && rng.random_bool(knobs.prefer_unread) {
            // The unread value nearest the drawn distance, older first, so lifetimes keep their
            // distribution.
            let unread = |x: &&u32| self.reads[**x as usize] == 0;
            let older = self.recent[..at].iter().rev().find(unread);
            let newer = self.recent[at..self.recent.len() + 1 - d.min(2)].iter().find(unread);
            if let Some(&u) = older.or(newer) {
                r = u;
            }
        }
        self.reads[r as usize] += 1;
        r
    }

    /// The register receiving a new value: the least recently written one.
    fn write(&mut self) -> u32 {
        let dst = self.recent.remove(0);
        self.reads[dst as usize] = 0;
        self.recent.push(dst);
        dst
    }
}

fn body_instruction(s: &mut String, rng: &mut Xoshiro256PlusPlus, knobs: &Knobs, v: &mut Values) {
    // Now and then the long-lived value is replaced, by a value the same in every lane (as loop
    // invariants and base addresses are): with `hot / 4` per instruction, each is read about
    // `4 × reads` times before it is.
    if rng.random_bool(knobs.hot / 4.0) {
        v.next_hot = (v.next_hot + 1) % v.hot.len() as u32;
        let _ = writeln!(s, "    add r{}, r2, {}", v.hot.start + v.next_hot, rng.random_range(1..64u32) * 16);
    }
    let roll: f64 = rng.random();
    if roll < knobs.long_latency {
        let base = if rng.random_bool(knobs.noise) { RANDOM_BASE } else { SIMILAR_BASE };
        let a = v.pick(rng, knobs);
        let dst = v.write();
        let _ = writeln!(s, "    and r3, r{a}, 0xffc\n    ld.global r{dst}, [r3 + {base:#x}]");
    } else if roll < knobs.long_latency + knobs.sfu {
        let a = v.pick(rng, knobs);
        let dst = v.write();
        let op = ["popc", "clz", "isqrt"][rng.random_range(0..3)];
        let _ = writeln!(s, "    {op} r{dst}, r{a}");
    } else {
        // 0 to 3 register reads with mean `reads`, the rest small immediates.
        let whole = knobs.reads.floor() as usize;
        let n = (whole + rng.random_bool(knobs.reads - whole as f64) as usize).min(3);
        let mut src: Vec<String> = (0..n).map(|_| format!("r{}", v.pick(rng, knobs))).collect();
        let mut imm = rng.random_range(1..8u32).to_string();
        if rng.random_bool(knobs.noise) {
            // A dissimilar value: random data enters through the noise register.
            match src.last_mut() {
                Some(last) if n > 1 => *last = format!("r{NOISE}"),
                _ => imm = format!("r{NOISE}"),
            }
        }
        let (op, args) = match n {
            0 => ("mov", vec![imm]),
            1 => (["add", "xor", "shl", "sub"][rng.random_range(0..4)], vec![src[0].clone(), imm]),
            2 => (["add", "sub", "max", "min", "xor"][rng.random_range(0..5)], src),
            _ => ("mad", src),
        };
        let guard = if knobs.predicated > 0.0 && rng.random_bool(knobs.predicated) {
            // One predicate draws nothing, so the default kernels stay as they were.
            let p = 2 + if knobs.predicates > 1 { rng.random_range(0..knobs.predicates) } else { 0 };
            let a = v.pick(rng, knobs);
            let _ = writeln!(s, "    setp.ltu p{p}, r{a}, r{NOISE}");
            format!("@p{p} ")
        } else {
            "    ".to_string()
        };
        let dst = v.write();
        let _ = writeln!(s, "{guard}{op} r{dst}, {}", args.join(", "));
    }
}

/// Generates and parses a synthetic kernel.
pub fn generate(knobs: &Knobs) -> Kernel {
    parse(&source(knobs)).expect("generated kernels parse")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knobs_parse_with_clear_errors() {
        let k = Knobs::parse("length=50, seed=9").unwrap();
        assert_eq!((k.length, k.seed, k.reads), (50, 9, Knobs::default().reads));
        assert_eq!(Knobs::parse("speed=3").unwrap_err(), format!("unknown knob `speed` (keys: {KEYS})"));
        assert_eq!(Knobs::parse("reads=7").unwrap_err(), "reads = 7: allowed 0 to 3");
        assert!(Knobs::parse("length").unwrap_err().contains("is not key=value"));
        assert_eq!(Knobs::parse("registers=257").unwrap_err(), "registers = 257: allowed 8 to 256");
    }

    /// The guards draw from `predicates` predicates, `p2` up; one keeps every guard on `p2`.
    #[test]
    fn guards_draw_from_the_predicates_the_knob_allows() {
        let text = |predicates| source(&Knobs { length: 400, predicated: 0.5, predicates, ..Knobs::default() });
        // Guards of ALU instructions (`p0` and `p1` guard the loop's and the divergence's branches).
        let used = |t: &str| {
            (0..8).filter(|p| t.contains(&format!("@p{p} ")) && !t.contains(&format!("@p{p} bra"))).collect::<Vec<_>>()
        };
        assert_eq!(used(&text(1)), vec![2]);
        assert_eq!(used(&text(GUARDS)), (2..8).collect::<Vec<_>>());
        assert_eq!(Knobs::parse("predicates=7").unwrap_err(), "predicates = 7: allowed 1 to 6");
    }

    #[test]
    fn every_allowed_register_count_generates_a_kernel_of_that_many() {
        for registers in [8, 9, 29, 250, 251, 252, 255, 256] {
            let k = Knobs::parse(&format!("registers={registers},length=40")).unwrap();
            assert_eq!(generate(&k).regs, registers);
        }
    }

    #[test]
    fn generation_is_deterministic_and_parses() {
        let k = Knobs { length: 300, ..Knobs::default() };
        assert_eq!(source(&k), source(&k));
        assert_ne!(source(&k), source(&Knobs { seed: 2, ..k.clone() }));
        let kernel = generate(&k);
        assert!(kernel.code.len() > 300);
        assert_eq!(kernel.regs, k.registers, "the kernel uses exactly its registers");
    }

    #[test]
    fn barriers_and_predicated_writes_come_with_their_knobs_only() {
        let plain = source(&Knobs { length: 200, ..Knobs::default() });
        assert!(!plain.contains("    bar") && !plain.contains("@p2"), "{plain}");
        let k = Knobs { length: 200, barriers: 0.3, predicated: 0.3, ..Knobs::default() };
        let text = source(&k);
        let count = |what: &str| text.lines().filter(|l| l.starts_with(what)).count();
        // 50 chunks and about 140 ALU instructions: far more than one of each, far from all.
        assert!((5..30).contains(&count("    bar")), "{text}");
        assert!((15..80).contains(&count("@p2 ")), "{text}");
        assert_eq!(count("    setp.ltu p2"), count("@p2 "), "each guard is computed just before");
        generate(&k);
    }
}
