//! BDI register compression. Model level: the round trip for every mode set, the fewest-banks
//! choice against an independent oracle, and exhaustive checks of the delta-fit rule at ±2^7,
//! ±2^15 and ±2^31. RTL level: the generated codec (compressor feeding decompressor) in lockstep
//! with proptest shrinking, a boundary sweep and a long random run; the codec's decompressed
//! output is compared with the register that entered, so each run also checks the RTL round trip.

mod common;

use common::*;
use proptest::prelude::*;
use rfgen_cosim::blocks::bdi::{
    CodecInputs, CodecKnobs, CodecStats, CodecStep, CodecStimulus, Pattern, RandomCodecInputs, ScriptedCodecInputs,
};
use rfgen_cosim::lockstep::Mismatch;
use rfgen_cosim::random::{self, RunOptions};
use rfgen_gen::config::Checked;
use rfgen_gen::layout::bdi::{Layout, MODES, Mode};
use rfgen_model::blocks::bdi::{Codec, CodecIn};
use rfgen_model::blocks::bdi::{Packed, compress, decompress, fits};

/// A lockstep run of the codec against `lib` with `inputs`: its mismatch and the stimulus' counts.
fn codec_run<I: CodecInputs>(
    lib: &std::sync::Arc<rfgen_cosim::verilator::RtlLib>,
    l: &Layout,
    inputs: I,
    cycles: u64,
    x_seed: u32,
) -> (Option<Mismatch>, CodecStats) {
    let mut stimulus = CodecStimulus::new(l, inputs);
    let opts = RunOptions { cycles, x_seed, waveform: None };
    let r = random::run(lib, Codec::new(l), &mut stimulus, CodecIn::new(l), &opts, &mut |_| {}).unwrap();
    (r.mismatch, stimulus.stats().clone())
}

fn layout(checked: &Checked) -> Layout {
    rfgen_gen::layout::bdi::Layout::new(&checked.geometry, &checked.config.compression, &checked.config.timing).unwrap()
}

/// The default geometry with the given compression settings.
fn default_with(compression: &str) -> Checked {
    rfgen_gen::config::parse(&format!("name = \"bdi\"\n[compression]\n{compression}")).unwrap()
}

const ALL_MODES: &str = "modes = [\"4,0\", \"4,1\", \"4,2\", \"8,0\", \"8,1\", \"8,2\", \"8,4\"]\n";

/// Every non-empty subset of the seven modes, on the default geometry (all of them save banks).
fn every_mode_set() -> Vec<Layout> {
    (1u32..1 << MODES.len())
        .map(|set| {
            let names: Vec<String> = MODES
                .iter()
                .enumerate()
                .filter(|(i, _)| set >> i & 1 == 1)
                .map(|(_, m)| format!("\"{}\"", m.name()))
                .collect();
            layout(&default_with(&format!("modes = [{}]\n", names.join(", "))))
        })
        .collect()
}

/// Independent oracle for the fit rule: exact signed arithmetic on the values.
fn oracle_fits(mode: &Mode, data: &[u32]) -> bool {
    let bits = mode.base_bits();
    let value = |j: usize| -> i128 {
        if bits == 32 { data[j] as i128 } else { (data[2 * j] as u64 | (data[2 * j + 1] as u64) << 32) as i128 }
    };
    let values = data.len() * 32 / bits as usize;
    let (modulus, half) = (1i128 << bits, 1i128 << (bits - 1));
    (1..values).all(|j| {
        let mut diff = (value(j) - value(0)).rem_euclid(modulus);
        if diff >= half {
            diff -= modulus;
        }
        if mode.delta == 0 {
            diff == 0
        } else {
            let edge = 1i128 << (mode.delta_bits() - 1);
            -edge <= diff && diff < edge
        }
    })
}

/// Range indicator the compressor must pick: the fitting mode with the fewest banks, ties in
/// canonical order; 0 when none fits.
fn oracle_choice(l: &Layout, data: &[u32]) -> u32 {
    l.modes.iter().filter(|m| oracle_fits(&m.mode, data)).min_by_key(|m| (m.banks, m.ri)).map_or(0, |m| m.ri)
}

fn check_register(l: &Layout, data: &[u32]) -> Result<(), TestCaseError> {
    let mut p = Packed::new(l);
    compress(l, data, false, &mut p);
    prop_assert_eq!(p.ri, oracle_choice(l, data), "mode choice");
    prop_assert_eq!(p.banks, l.banks(p.ri));
    if let Some(m) = l.mode(p.ri) {
        let (word, bit) = ((m.payload_bits / 32) as usize, m.payload_bits % 32);
        prop_assert!(bit == 0 || p.chunks[word] >> bit == 0, "zero above the payload");
        prop_assert!(p.chunks[word + (bit != 0) as usize..].iter().all(|&w| w == 0), "zero above the payload");
    }
    let mut back = vec![0; data.len()];
    decompress(l, p.ri, &p.chunks, &mut back);
    prop_assert_eq!(&back, data, "round trip with range indicator {}", p.ri);
    // A bypassed register is stored as it is.
    compress(l, data, true, &mut p);
    prop_assert_eq!((p.ri, p.banks, &p.chunks[..]), (0, l.clusters, data));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, failure_persistence: None, ..ProptestConfig::default() })]

    /// decompress(compress(x)) == x and the fewest-banks choice, for every mode set.
    #[test]
    fn every_mode_set_round_trips_and_picks_the_fewest_banks(set in 0usize..127, p in pattern()) {
        thread_local!(static SETS: Vec<Layout> = every_mode_set());
        let l = SETS.with(|s| s[set].clone());
        let mut data = vec![0; 32];
        p.fill(&mut data);
        check_register(&l, &data)?;
    }

    /// The same on the small compressed geometries (ties, 64 lanes, two-lane chunks).
    #[test]
    fn small_geometries_round_trip(config in 0usize..COMPRESSED.len(), p in pattern()) {
        let l = layout(&compressed(COMPRESSED[config].0));
        let mut data = vec![0; l.lanes as usize];
        p.fill(&mut data);
        check_register(&l, &data)?;
    }
}

/// A register whose values all equal `base` except value `at`, which is `base + delta`.
fn spike(lanes: usize, wide: bool, base: u64, at: u32, delta: u64) -> Vec<u32> {
    let mut data = vec![0; lanes];
    Pattern::Spike { base, wide, at, delta }.fill(&mut data);
    data
}

/// Bases at the wrap-around and sign edges of 32 and 64 bits, and an ordinary one.
const BASES: [u64; 6] =
    [0, 0xffff_ff80, 0x7fff_ffc0, 0xffff_ffff_ffff_ff80, 0x7fff_ffff_ffff_ffc0, 0x1234_5678_9abc_def0];

/// Every 32-bit delta in [-2^16 - 64, 2^16 + 64], which covers the edges of <4,1> and <4,2>,
/// at the first and last lane, on six bases; and 64-bit deltas within ±4096 of 0, ±2^7, ±2^15,
/// ±2^31 and ±2^32 for the <8,*> modes. Each is checked against exact arithmetic.
#[test]
fn delta_fit_is_exact_at_every_boundary() {
    let l = layout(&default_with(ALL_MODES));
    let narrow: Vec<Mode> = MODES.iter().copied().filter(|m| m.base == 4).collect();
    let wide: Vec<Mode> = MODES.iter().copied().filter(|m| m.base == 8).collect();
    let mut checked = 0u64;
    for &base in &BASES {
        for at in [1, 31] {
            for delta in -(1i64 << 16) - 64..=(1 << 16) + 64 {
                let data = spike(32, false, base, at, delta as u64);
                for m in &narrow {
                    assert_eq!(fits(m, &data), oracle_fits(m, &data), "<{}> base {base:#x} delta {delta}", m.name());
                }
                checked += 1;
            }
        }
        for at in [1, 15] {
            for edge in [0i64, 1 << 7, 1 << 15, 1 << 31, 1 << 32] {
                for sign in [1, -1] {
                    for offset in -4096..=4096 {
                        let delta = sign * edge + offset;
                        let data = spike(32, true, base, at, delta as u64);
                        for m in &wide {
                            assert_eq!(
                                fits(m, &data),
                                oracle_fits(m, &data),
                                "<{}> base {base:#x} delta {delta}",
                                m.name()
                            );
                        }
                        let mut p = Packed::new(&l);
                        compress(&l, &data, false, &mut p);
                        assert_eq!(p.ri, oracle_choice(&l, &data), "choice for 64-bit delta {delta}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 1_500_000);
    // The edges themselves, spelled out.
    let f = |m: usize, d: i64| fits(&MODES[m], &spike(32, m >= 3, 0, 1, d as u64));
    assert!(f(1, 127) && !f(1, 128) && f(1, -128) && !f(1, -129));
    assert!(f(2, 32767) && !f(2, 32768) && f(2, -32768) && !f(2, -32769));
    assert!(f(6, (1 << 31) - 1) && !f(6, 1 << 31) && f(6, -(1 << 31)) && !f(6, -(1 << 31) - 1));
    assert!(f(0, 0) && !f(0, 1) && !f(0, -1));
}

/// Scripted steps: `en` mostly high, a register entering most cycles, a few bypassed.
fn steps(max: usize) -> impl Strategy<Value = Vec<CodecStep>> {
    let input = proptest::option::weighted(0.8, (pattern(), proptest::bool::weighted(0.1)));
    let step = (proptest::bool::weighted(0.85), input).prop_map(|(en, input)| CodecStep { en, input });
    proptest::collection::vec(step, 1..max)
}

/// Steps that empty the pipelines (at most 8 + 8 stages).
fn flush() -> impl Iterator<Item = CodecStep> {
    std::iter::repeat_n(CodecStep { en: true, input: None }, 16)
}

/// Runs proptest scripts against the codec RTL of `checked`; a failure shrinks to a minimal one.
fn codec_scripts(checked: &Checked, cases: u32) {
    let l = layout(checked);
    let lib = build(&rfgen_gen::emit::generate_bdi_codec(checked).unwrap());
    let config = ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() };
    proptest!(config, |(mut s in steps(40), x_seed in any::<u32>())| {
        s.extend(flush());
        let cycles = s.len() as u64;
        let (mismatch, st) = codec_run(&lib, &l, ScriptedCodecInputs::new(s), cycles, x_seed);
        prop_assert!(mismatch.is_none(), "{}: {}", checked.config.name, mismatch.unwrap());
        prop_assert_eq!(st.round_trips, st.compressed + st.bypassed, "every register came back");
        prop_assert_eq!(st.lost, 0);
    });
}

#[test]
fn codec_lockstep_small_configs() {
    for (name, _) in COMPRESSED {
        codec_scripts(&compressed(name), 60);
    }
}

#[test]
fn codec_lockstep_default_configs() {
    codec_scripts(&baseline(), 40);
    codec_scripts(&default_with(&format!("{ALL_MODES}compress_latency = 3\ndecompress_latency = 2\n")), 40);
}

/// The boundary registers through the RTL: every delta within ±40 of each edge, 32- and 64-bit,
/// at three positions and on every base, one register per cycle.
#[test]
fn codec_boundary_sweep_through_rtl() {
    let checked = default_with(ALL_MODES);
    let l = layout(&checked);
    let mut steps = Vec::new();
    for &base in &BASES {
        for (wide, at) in [(false, 1), (false, 17), (false, 31), (true, 1), (true, 8), (true, 15)] {
            let edges: &[i64] = if wide { &[0, 1 << 7, 1 << 15, 1 << 31] } else { &[0, 1 << 7, 1 << 15] };
            for &edge in edges {
                for sign in [1, -1] {
                    for offset in -40..=40 {
                        let delta = (sign * edge + offset) as u64;
                        let p = Pattern::Spike { base, wide, at, delta };
                        steps.push(CodecStep { en: true, input: Some((p, false)) });
                    }
                }
            }
        }
    }
    let lib = build(&rfgen_gen::emit::generate_bdi_codec(&checked).unwrap());
    let registers = steps.len() as u64;
    steps.extend(flush());
    let cycles = steps.len() as u64;
    let (mismatch, st) = codec_run(&lib, &l, ScriptedCodecInputs::new(steps), cycles, 1);
    assert!(mismatch.is_none(), "{}", mismatch.unwrap());
    assert_eq!((st.round_trips, st.lost), (registers, 0));
    assert!(st.by_ri.iter().all(|&n| n > 20), "every mode and uncompressed occur: {:?}", st.by_ri);
}

/// A long random run: every mode is chosen, and every register comes back.
#[test]
fn codec_random_run_uses_every_mode() {
    for checked in [default_with(ALL_MODES), compressed("csmall"), compressed("cwide")] {
        let l = layout(&checked);
        let lib = build(&rfgen_gen::emit::generate_bdi_codec(&checked).unwrap());
        let inputs = RandomCodecInputs::new(l.lanes, 17, CodecKnobs::default());
        let (mismatch, st) = codec_run(&lib, &l, inputs, 50_000, 3);
        assert!(mismatch.is_none(), "{}: {}", checked.config.name, mismatch.unwrap());
        assert_eq!(st.lost, 0);
        assert!(st.by_ri.iter().all(|&n| n > 50), "{}: {:?}", checked.config.name, st.by_ri);
        assert!(st.bypassed > 1000 && st.round_trips + 8 > st.compressed + st.bypassed);
    }
}

#[test]
fn cli_cosim_bdi_passes() {
    let out = rfgen(&["cosim", "--block", "bdi", "--cycles", "20000", "--seed", "4"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    for line in
        ["top                        baseline_bdi_codec", "mismatches                 0", "stored as <4,1>", "PASS"]
    {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
}

/// A mode that saves no bank in the geometry is bad input, named with the modes that would work.
#[test]
fn cli_cosim_bdi_refuses_a_mode_that_saves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("two.toml");
    std::fs::write(&cfg, "name = \"two\"\n[sm]\nclusters = 2\n[mrf]\nbanks = 8\n").unwrap();
    let out = rfgen(&["cosim", "--block", "bdi", "--config", cfg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let want = "`compression.modes` = \"4,2\": needs 2 of the 2 banks of a register, saving none (sm.lanes = 32, sm.clusters = 2) (allowed: 4,0 4,1 8,0 8,1 8,2)";
    assert!(stderr(&out).contains(want), "{}", stderr(&out));
}

/// One bit of one value's 8-bit fit check held at 1 (`isca15-bdi`: value 17's bit 24): only a
/// register whose value 17 alone sits at -2^24 - 1 from value 0 shows it, and the random
/// stimulus' sweep of single-value deltas at every edge reaches it (uniform, ramp and boundary
/// values alone did not in two runs of 50,000 cycles).
#[test]
fn the_delta_sweep_reaches_one_bit_of_one_values_fit_check() {
    let checked = rfgen_gen::config::preset("isca15-bdi").unwrap();
    let design = rfgen_gen::emit::generate_bdi_codec(&checked).unwrap();
    let mutant = mutants::Mutant {
        name: "value 17's 8-bit fit ignores bit 24",
        file: "isca15_bdi_compressor.v",
        from: "assign ok4_1[16] = (&d4[543:519])",
        to: "assign ok4_1[16] = (&{d4[543:537], 1'b1, d4[535:519]})",
    };
    let (mismatch, _) = random_lockstep::<Codec>(&checked, &mutant.apply(&design), 50_000, 1, 1);
    assert!(mismatch.is_some(), "`{}` was not caught", mutant.name);
}
