//! The `bdi` cosim block: the codec model (compressor feeding decompressor) driven by a stimulus,
//! encoded onto the ports of the generated `<prefix>_bdi_codec`. Every compressor output is
//! compared while `cmp_valid`; the decompressor's `out_data` is compared against the register
//! that entered the compressor, so the check is the round trip itself.

mod values;

pub use values::Pattern;

use crate::lockstep::{Expected, Lockstep};
use crate::verilator::{Layout as PortLayout, PortSlot};
use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rfgen_gen::bdi::{Layout, MODES};
use rfgen_model::blocks::bdi::Codec;

/// Inputs of one codec cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodecIn {
    pub en: bool,
    pub valid: bool,
    pub bypass: bool,
    pub data: Vec<u32>,
}

/// Chooses the codec's inputs of each cycle.
pub trait CodecStimulus {
    fn next(&mut self, cycle: u64, inp: &mut CodecIn);
    fn done(&self) -> bool {
        false
    }
}

/// Probabilities of the random codec stimulus.
#[derive(Clone, Debug)]
pub struct CodecKnobs {
    pub en: f64,
    pub valid: f64,
    pub bypass: f64,
}

impl Default for CodecKnobs {
    fn default() -> Self {
        CodecKnobs { en: 0.9, valid: 0.85, bypass: 0.1 }
    }
}

/// Seeded random stimulus: kernel-shaped and uniform values ([`Pattern::random`]).
pub struct RandomCodecStimulus {
    rng: Xoshiro256PlusPlus,
    lanes: u32,
    knobs: CodecKnobs,
}

impl RandomCodecStimulus {
    pub fn new(lanes: u32, seed: u64, knobs: CodecKnobs) -> Self {
        RandomCodecStimulus { rng: Xoshiro256PlusPlus::seed_from_u64(seed), lanes, knobs }
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.rng.next_u32() as f64) < p * 4_294_967_296.0
    }
}

impl CodecStimulus for RandomCodecStimulus {
    fn next(&mut self, _cycle: u64, inp: &mut CodecIn) {
        inp.en = self.chance(self.knobs.en);
        inp.valid = self.chance(self.knobs.valid);
        inp.bypass = self.chance(self.knobs.bypass);
        if inp.valid {
            let rng = &mut self.rng;
            Pattern::random(self.lanes, || rng.next_u64()).fill(&mut inp.data);
        }
    }
}

/// One cycle of a scripted codec stimulus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodecStep {
    pub en: bool,
    /// A register enters (when `en`), with its bypass flag.
    pub input: Option<(Pattern, bool)>,
}

/// A finite stimulus, one step per cycle (for proptest and exhaustive sweeps).
pub struct ScriptedCodecStimulus {
    steps: Vec<CodecStep>,
    cycle: usize,
}

impl ScriptedCodecStimulus {
    pub fn new(steps: Vec<CodecStep>) -> Self {
        ScriptedCodecStimulus { steps, cycle: 0 }
    }
}

impl CodecStimulus for ScriptedCodecStimulus {
    fn next(&mut self, cycle: u64, inp: &mut CodecIn) {
        self.cycle = cycle as usize + 1;
        let step = self.steps.get(cycle as usize);
        inp.en = step.is_none_or(|s| s.en);
        inp.valid = false;
        if let Some((pattern, bypass)) = step.and_then(|s| s.input.as_ref()) {
            inp.valid = true;
            inp.bypass = *bypass;
            pattern.fill(&mut inp.data);
        }
    }

    fn done(&self) -> bool {
        self.cycle >= self.steps.len()
    }
}

/// Event counts of a codec run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodecStats {
    pub compressed: u64,
    pub bypassed: u64,
    /// Registers that left the compressor, by range indicator (index 0: uncompressed).
    pub by_ri: Vec<u64>,
    /// Round trips completed (decompressed registers compared with what entered).
    pub round_trips: u64,
}

struct Ports {
    en: PortSlot,
    in_valid: PortSlot,
    in_bypass: PortSlot,
    in_data: PortSlot,
    cmp_valid: PortSlot,
    cmp_ri: PortSlot,
    cmp_banks: PortSlot,
    cmp_bank_en: PortSlot,
    cmp_chunks: PortSlot,
    out_valid: PortSlot,
    out_data: PortSlot,
}

pub struct CodecLockstep<S> {
    model: Codec,
    stimulus: S,
    inp: CodecIn,
    ports: Ports,
    /// Registers inside the codec, oldest first: what each must decompress to. A ring of
    /// `compress_latency + decompress_latency` buffers, so no cycle allocates.
    inside: Vec<Vec<u32>>,
    oldest: usize,
    count: usize,
    /// Canonical index (in `MODES`) of each range indicator's mode.
    mode_of_ri: Vec<usize>,
    stats: CodecStats,
}

impl<S: CodecStimulus> CodecLockstep<S> {
    pub fn new(l: &Layout, ports: &PortLayout, stimulus: S) -> Self {
        let (i, o) = (|n: &str| ports.input(n).clone(), |n: &str| ports.output(n).clone());
        CodecLockstep {
            model: Codec::new(l),
            stimulus,
            inp: CodecIn { en: false, valid: false, bypass: false, data: vec![0; l.lanes as usize] },
            ports: Ports {
                en: i("en"),
                in_valid: i("in_valid"),
                in_bypass: i("in_bypass"),
                in_data: i("in_data"),
                cmp_valid: o("cmp_valid"),
                cmp_ri: o("cmp_ri"),
                cmp_banks: o("cmp_banks"),
                cmp_bank_en: o("cmp_bank_en"),
                cmp_chunks: o("cmp_chunks"),
                out_valid: o("out_valid"),
                out_data: o("out_data"),
            },
            inside: vec![vec![0; l.lanes as usize]; (l.compress_latency + l.decompress_latency) as usize],
            oldest: 0,
            count: 0,
            mode_of_ri: l.modes.iter().map(|m| MODES.iter().position(|x| *x == m.mode).unwrap()).collect(),
            stats: CodecStats { by_ri: vec![0; l.modes.len() + 1], ..Default::default() },
        }
    }

    pub fn stats(&self) -> &CodecStats {
        &self.stats
    }
}

impl<S: CodecStimulus> Lockstep for CodecLockstep<S> {
    fn reset(&mut self) {
        self.model.reset();
        self.count = 0;
    }

    fn step(&mut self, cycle: u64, inp: &mut [u32], exp: &mut Expected) {
        self.stimulus.next(cycle, &mut self.inp);
        let (p, i) = (&self.ports, &self.inp);
        p.en.put(inp, i.en as u64);
        p.in_valid.put(inp, i.valid as u64);
        p.in_bypass.put(inp, i.bypass as u64);
        inp[p.in_data.range()].copy_from_slice(&i.data);

        let (cmp_valid, packed) = self.model.compressor.output();
        exp.set(&p.cmp_valid, cmp_valid as u64);
        exp.set_if(cmp_valid, &p.cmp_ri, packed.ri as u64);
        exp.set_if(cmp_valid, &p.cmp_banks, packed.banks as u64);
        exp.set_if(cmp_valid, &p.cmp_bank_en, packed.bank_en());
        if cmp_valid {
            exp.set_words(&p.cmp_chunks, &packed.chunks)
        } else {
            exp.skip(&p.cmp_chunks)
        }

        let (out_valid, _) = self.model.decompressor.output();
        exp.set(&p.out_valid, out_valid as u64);
        if out_valid && self.count > 0 {
            exp.set_words(&p.out_data, &self.inside[self.oldest])
        } else {
            exp.skip(&p.out_data)
        }
    }

    fn tick(&mut self) {
        let i = &self.inp;
        let ring = self.inside.len();
        if self.model.decompressor.output().0 {
            self.oldest = (self.oldest + 1) % ring;
            self.count -= 1;
            self.stats.round_trips += 1;
        }
        let (cmp_valid, packed) = self.model.compressor.output();
        if cmp_valid && i.en {
            self.stats.by_ri[packed.ri as usize] += 1;
        }
        if i.en && i.valid {
            self.inside[(self.oldest + self.count) % ring].copy_from_slice(&i.data);
            self.count += 1;
            if i.bypass {
                self.stats.bypassed += 1;
            } else {
                self.stats.compressed += 1;
            }
        }
        self.model.tick(i.en, i.valid, i.bypass, &i.data);
    }

    fn stats(&self) -> Vec<(&'static str, u64)> {
        let s = &self.stats;
        let mut v = vec![
            ("registers compressed", s.compressed),
            ("registers bypassed", s.bypassed),
            ("round trips checked", s.round_trips),
            ("stored uncompressed", s.by_ri[0]),
        ];
        const NAMES: [&str; MODES.len()] = [
            "stored as <4,0>",
            "stored as <4,1>",
            "stored as <4,2>",
            "stored as <8,0>",
            "stored as <8,1>",
            "stored as <8,2>",
            "stored as <8,4>",
        ];
        v.extend(s.by_ri[1..].iter().zip(&self.mode_of_ri).map(|(&n, &m)| (NAMES[m], n)));
        v
    }

    fn done(&self) -> bool {
        self.stimulus.done()
    }
}
