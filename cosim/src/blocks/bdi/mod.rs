//! The `bdi` cosim block: the codec model (compressor feeding decompressor) bound to the
//! generated `<prefix>_bdi_codec` through its typed interface. Every compressor output is
//! compared while `cmp_valid`, the decompressed register while `out_valid`; the stimulus also
//! checks that what leaves the model is the register that entered, so the check covers the
//! round trip itself.

mod values;

pub use values::Pattern;

use crate::glue::{CosimBlock, Expected, Glue, RandomBlock, Stimulus, bind_all};
use crate::verilator::{Layout as PortLayout, PortSlot};
use anyhow::Result;
use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rfgen_gen::Checked;
use rfgen_gen::blocks::bdi::interface::CodecPorts;
use rfgen_gen::layout::bdi::{Layout, MODES};
use rfgen_model::blocks::bdi::{Codec, CodecIn, CodecOut};
use std::collections::VecDeque;

impl Glue for Codec {
    type Ports = CodecPorts<PortSlot>;

    fn bind(&self, layout: &PortLayout) -> Result<Self::Ports> {
        bind_all(&CodecPorts::new(self.layout()), layout, |i, f| i.map(f))
    }

    fn drive(&self, p: &Self::Ports, i: &CodecIn, buf: &mut [u32]) {
        p.en.put(buf, i.en as u64);
        p.in_valid.put(buf, i.in_valid as u64);
        p.in_bypass.put(buf, i.in_bypass as u64);
        buf[p.in_data.range()].copy_from_slice(&i.in_data);
    }

    fn expect(&self, p: &Self::Ports, out: &CodecOut, _inp: &Self::In, exp: &mut Expected) {
        exp.set(&p.cmp_valid, out.cmp_valid as u64);
        exp.set_if(out.cmp_valid, &p.cmp_ri, out.cmp_ri as u64);
        exp.set_if(out.cmp_valid, &p.cmp_banks, out.cmp_banks as u64);
        exp.set_if(out.cmp_valid, &p.cmp_bank_en, out.cmp_bank_en);
        if out.cmp_valid {
            exp.set_words(&p.cmp_chunks, out.cmp_chunks)
        } else {
            exp.skip(&p.cmp_chunks)
        }
        exp.set(&p.out_valid, out.out_valid as u64);
        if out.out_valid { exp.set_words(&p.out_data, out.out_data) } else { exp.skip(&p.out_data) }
    }
}

impl CosimBlock for Codec {
    fn model(checked: &Checked) -> Result<Self> {
        Ok(Codec::new(&checked.codec_layout()?))
    }
}

impl RandomBlock for Codec {
    type Stimulus = CodecStimulus<RandomCodecInputs>;

    fn stimulus(checked: &Checked, seed: u64) -> Self::Stimulus {
        let l = checked.codec_layout().expect("the design was generated, so the layout is valid");
        CodecStimulus::new(&l, RandomCodecInputs::new(l.lanes, seed, CodecKnobs::default()))
    }

    fn idle(&self) -> CodecIn {
        CodecIn::new(self.layout())
    }

    fn summary(&self, stimulus: &Self::Stimulus) -> Vec<(&'static str, u64)> {
        stimulus.summary()
    }
}

/// Chooses what enters the codec each cycle.
pub trait CodecInputs {
    fn next(&mut self, cycle: u64, inp: &mut CodecIn);
    fn done(&self) -> bool {
        false
    }
}

/// Probabilities of the random codec inputs.
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

/// Seeded random inputs: kernel-shaped and uniform values ([`Pattern::random`]), and one in ten
/// the next register of a sweep of single-value deltas at every edge ([`Pattern::spike_sweep`]).
pub struct RandomCodecInputs {
    rng: Xoshiro256PlusPlus,
    lanes: u32,
    knobs: CodecKnobs,
    spikes: u64,
}

impl RandomCodecInputs {
    pub fn new(lanes: u32, seed: u64, knobs: CodecKnobs) -> Self {
        RandomCodecInputs { rng: Xoshiro256PlusPlus::seed_from_u64(seed), lanes, knobs, spikes: 0 }
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.rng.next_u32() as f64) < p * 4_294_967_296.0
    }
}

impl CodecInputs for RandomCodecInputs {
    fn next(&mut self, _cycle: u64, inp: &mut CodecIn) {
        inp.en = self.chance(self.knobs.en);
        inp.in_valid = self.chance(self.knobs.valid);
        inp.in_bypass = self.chance(self.knobs.bypass);
        if inp.in_valid {
            let pattern = if self.chance(0.1) {
                self.spikes += 1;
                Pattern::spike_sweep(self.lanes, self.spikes - 1, self.rng.next_u64())
            } else {
                let rng = &mut self.rng;
                Pattern::random(self.lanes, || rng.next_u64())
            };
            pattern.fill(&mut inp.in_data);
        }
    }
}

/// One cycle of scripted codec inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodecStep {
    pub en: bool,
    /// A register enters (when `en`), with its bypass flag.
    pub input: Option<(Pattern, bool)>,
}

/// Finite inputs, one step per cycle (for proptest and exhaustive sweeps).
pub struct ScriptedCodecInputs {
    steps: Vec<CodecStep>,
    cycle: usize,
}

impl ScriptedCodecInputs {
    pub fn new(steps: Vec<CodecStep>) -> Self {
        ScriptedCodecInputs { steps, cycle: 0 }
    }
}

impl CodecInputs for ScriptedCodecInputs {
    fn next(&mut self, cycle: u64, inp: &mut CodecIn) {
        self.cycle = cycle as usize + 1;
        let step = self.steps.get(cycle as usize);
        inp.en = step.is_none_or(|s| s.en);
        inp.in_valid = false;
        if let Some((pattern, bypass)) = step.and_then(|s| s.input.as_ref()) {
            inp.in_valid = true;
            inp.in_bypass = *bypass;
            pattern.fill(&mut inp.in_data);
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
    /// Decompressed registers equal to the register that entered.
    pub round_trips: u64,
    /// Decompressed registers that differ from it (a model bug; always 0).
    pub lost: u64,
}

/// Drives the codec with `I` and checks each decompressed register against the one that
/// entered, oldest first.
pub struct CodecStimulus<I> {
    inputs: I,
    inside: VecDeque<Vec<u32>>,
    /// Canonical index (in `MODES`) of each range indicator's mode.
    mode_of_ri: Vec<usize>,
    stats: CodecStats,
}

impl<I: CodecInputs> CodecStimulus<I> {
    pub fn new(l: &Layout, inputs: I) -> Self {
        CodecStimulus {
            inputs,
            inside: VecDeque::new(),
            mode_of_ri: l.modes.iter().map(|m| MODES.iter().position(|x| *x == m.mode).unwrap()).collect(),
            stats: CodecStats { by_ri: vec![0; l.modes.len() + 1], ..Default::default() },
        }
    }

    pub fn stats(&self) -> &CodecStats {
        &self.stats
    }

    fn summary(&self) -> Vec<(&'static str, u64)> {
        let s = &self.stats;
        let mut v = vec![
            ("registers compressed", s.compressed),
            ("registers bypassed", s.bypassed),
            ("round trips checked", s.round_trips),
            ("round trips lost", s.lost),
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
}

impl<I: CodecInputs> Stimulus<Codec> for CodecStimulus<I> {
    fn next(&mut self, cycle: u64, out: &CodecOut, inp: &mut CodecIn) {
        // What leaves the codec this cycle was counted at the edge before: check it now.
        if out.out_valid {
            match self.inside.pop_front() {
                Some(entered) if entered == out.out_data => self.stats.round_trips += 1,
                _ => self.stats.lost += 1,
            }
        }
        self.inputs.next(cycle, inp);
        if out.cmp_valid && inp.en {
            self.stats.by_ri[out.cmp_ri as usize] += 1;
        }
        if inp.en && inp.in_valid {
            self.inside.push_back(inp.in_data.clone());
            if inp.in_bypass {
                self.stats.bypassed += 1;
            } else {
                self.stats.compressed += 1;
            }
        }
    }

    fn done(&self) -> bool {
        self.inputs.done()
    }
}
