//! Proof that lockstep catches real RTL bugs: each mutation edits the generated Verilog of a
//! small config and the cosim must report a mismatch, with its cycle. Also: results do not
//! depend on Verilator's randomization of uninitialized state.

mod common;

use common::mutants::{COMPRESSED_MRF, COMPRESSED_MRF_CORNERS, MRF, Mutant};
use common::*;
use rfgen_cosim::blocks::bdi::{CodecKnobs, CodecStimulus, RandomCodecInputs};
use rfgen_cosim::blocks::mrf::{Knobs, RandomStimulus};
use rfgen_cosim::random::{self, RunOptions, RunResult};
use rfgen_cosim::session::{CosimOptions, cosim_design, cosim_kernel};
use rfgen_gen::{Checked, Design, SramKind};
use rfgen_model::blocks::bdi::{Codec, CodecIn};
use rfgen_model::blocks::mrf::Mrf;

fn random_run(checked: &Checked, design: &Design, seed: u64, x_seed: u32, cycles: u64) -> RunResult<Mrf> {
    let g = &checked.geometry;
    let lib = build(design);
    mrf_run(&lib, Mrf::new(g), &mut RandomStimulus::new(g, seed, Knobs::default()), cycles, x_seed)
}

#[test]
fn lockstep_reports_every_mutation_with_its_cycle() {
    let checked = small("small");
    let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
    let clean = random_run(&checked, &design, 21, 1, 20_000);
    assert!(clean.mismatch.is_none(), "the unmutated design passes: {}", clean.mismatch.unwrap());
    let mut caught = Vec::new();
    for m in MRF {
        let result = random_run(&checked, &m.apply(&design), 21, 1, 20_000);
        let mismatch = result.mismatch.unwrap_or_else(|| panic!("mutation `{}` was not detected", m.name));
        let stop = rfgen_cosim::lockstep::stops_after(mismatch.cycle);
        assert_eq!(result.cycles, stop, "{}: the run stops where the lockstep learns of the mismatch", m.name);
        assert!(!mismatch.ports.is_empty(), "{}: the report names a port", m.name);
        caught.push(format!("{} -> cycle {} port {}", m.name, mismatch.cycle, mismatch.ports[0].port));
    }
    assert_eq!(caught.len(), MRF.len());
    eprintln!("{}", caught.join("\n"));
}

/// Through the same path as `rfgen cosim`: the mismatch comes with a waveform of its last cycles.
#[test]
fn mismatch_writes_a_waveform_of_the_last_cycles() {
    let checked = small("small");
    let design = MRF[5].apply(&rfgen_gen::generate(&checked, SramKind::Behavioural));
    let dir = tempfile::tempdir().unwrap();
    let opts = CosimOptions {
        block: rfgen_gen::Block::Mrf,
        cycles: 10_000,
        seed: 21,
        x_seed: 21,
        trace: None,
        fail_wave_dir: Some(dir.path().to_path_buf()),
        cache: cache_dir(),
    };
    let report = cosim_design(&checked, &design, &opts, &mut |_| {}).unwrap();
    let m = report.mismatch.expect("the mutation is caught");
    let wave = report.waveform.expect("a waveform is written");
    assert_eq!(wave, dir.path().join("cosim-mrf-seed21.vcd"));
    assert!(m.cycle > 100, "late enough to check the window start");
    let vcd = std::fs::read_to_string(&wave).unwrap();
    // Cycle c is sampled at time 10 * (c + reset cycles); the window ends at the failing edge.
    let last = 10 * (m.cycle + 2) + 5;
    assert!(vcd.contains(&format!("\n#{last}\n")), "the waveform reaches the failing cycle");
    let first = 10 * (m.cycle - 64 + 2);
    assert!(vcd.contains(&format!("\n#{first}\n")), "the window starts 64 cycles before");
    assert!(!vcd.contains(&format!("\n#{}\n", first - 10)), "and not earlier");
}

/// Verilator's randomization of uninitialized state really reaches the outputs (the RTL's raw
/// outputs, unwritten registers' data among them, differ between x-seeds), and yet every
/// compared bit agrees with the model under both seeds.
#[test]
fn results_do_not_depend_on_uninitialized_state() {
    for checked in [small("small"), small("odd")] {
        let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
        let a = random_run(&checked, &design, 8, 1, 30_000);
        let b = random_run(&checked, &design, 8, 0xdead_beef, 30_000);
        assert!(a.mismatch.is_none() && b.mismatch.is_none(), "{}", checked.config.name);
        assert_ne!(a.raw_digest, b.raw_digest, "{}: the x-seed changes uncompared output bits", checked.config.name);
    }
}

/// The X-independence check above can fail: without the reset of `busy`, some x-seed makes the
/// collectors start busy with garbage, and lockstep reports it.
#[test]
fn x_independence_check_detects_unreset_state() {
    let checked = small("small");
    let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
    let m = Mutant {
        name: "busy not reset",
        file: "small_operand_collector.v",
        from: "busy <= 1'b0;\n      pending",
        to: "pending",
    };
    let broken = m.apply(&design);
    let caught =
        [1u32, 2, 3, 4].iter().filter(|&&x| random_run(&checked, &broken, 8, x, 2_000).mismatch.is_some()).count();
    assert!(caught > 0, "an unreset busy bit is caught under some x-seed");
}

fn compressed_run(checked: &Checked, design: &Design, seed: u64, cycles: u64) -> RunResult<Mrf> {
    let lib = build(design);
    let mut stimulus = RandomStimulus::new(&checked.geometry, seed, Knobs::for_config(checked));
    mrf_run(&lib, Mrf::for_config(checked), &mut stimulus, cycles, 1)
}

#[test]
fn lockstep_reports_every_compressed_mrf_mutation() {
    let checked = compressed("csmall");
    let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
    let clean = compressed_run(&checked, &design, 21, 40_000);
    assert!(clean.mismatch.is_none(), "the unmutated design passes: {}", clean.mismatch.unwrap());
    let mut caught = Vec::new();
    // The corners: caught since the compressible phases hold every mode and start from empty
    // bank groups and a fifth of the values are one bit off fitting (before, all three passed
    // this run).
    for m in COMPRESSED_MRF.iter().chain(COMPRESSED_MRF_CORNERS) {
        let result = compressed_run(&checked, &m.apply(&design), 21, 40_000);
        let mismatch = result.mismatch.unwrap_or_else(|| panic!("mutation `{}` was not detected", m.name));
        caught.push(format!("{} -> cycle {} port {}", m.name, mismatch.cycle, mismatch.ports[0].port));
    }
    eprintln!("{}", caught.join("\n"));
}

/// The codec of the default config: the round-trip check catches decompressor bugs too.
#[test]
fn lockstep_reports_codec_mutations() {
    let checked = baseline();
    let design = rfgen_gen::emit::generate_bdi_codec(&checked).unwrap();
    let layout =
        rfgen_gen::layout::bdi::Layout::new(&checked.geometry, &checked.config.compression, &checked.config.timing)
            .unwrap();
    let run = |design: &Design| {
        let lib = build(design);
        let mut stimulus = CodecStimulus::new(&layout, RandomCodecInputs::new(32, 5, CodecKnobs::default()));
        let opts = RunOptions { cycles: 5_000, x_seed: 1, waveform: None };
        random::run(&lib, Codec::new(&layout), &mut stimulus, CodecIn::new(&layout), &opts, &mut |_| {}).unwrap()
    };
    assert!(run(&design).mismatch.is_none());
    let mutations = [
        Mutant {
            name: "sign-extension check one bit long (<4,2> refuses deltas from 2^14)",
            file: "baseline_compressor.v",
            from: "(&d4[31:15]) | ~(|d4[31:15])",
            to: "(&d4[31:14]) | ~(|d4[31:14])",
        },
        Mutant {
            name: "decompressor reads delta 2 of <4,2> from delta 1's place",
            file: "baseline_decompressor.v",
            from: "{{16{in_chunks[63]}}, in_chunks[63:48]}",
            to: "{{16{in_chunks[47]}}, in_chunks[47:32]}",
        },
    ];
    for m in &mutations {
        let result = run(&m.apply(&design));
        let mismatch = result.mismatch.unwrap_or_else(|| panic!("mutation `{}` was not detected", m.name));
        eprintln!("{} -> cycle {} port {}", m.name, mismatch.cycle, mismatch.ports[0].port);
    }
}

/// The mutants above under the traffic of a real kernel (`tests/data/operand_stress.kir`: three
/// sources per instruction, bank conflicts, divergent write-backs) on the SM model, beside the
/// random stimulus: every mutant is caught by one mode or the other, and the README lists those
/// only one of them catches (printed here).
#[test]
fn mutants_under_kernel_traffic() {
    let kernel = rfgen_model::kernel::parse(include_str!("data/operand_stress.kir")).unwrap();
    let opts = CosimOptions {
        block: rfgen_gen::Block::Mrf,
        cycles: 1_000_000,
        seed: 0,
        x_seed: 1,
        trace: None,
        fail_wave_dir: None,
        cache: cache_dir(),
    };
    let mut table = Vec::new();
    let mut kernel_caught = 0;
    let sets: [(Checked, &[Mutant], u64); 2] = [(small("small"), MRF, 0), (compressed("csmall"), COMPRESSED_MRF, 1)];
    for (checked, mutations, kind) in sets {
        let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
        let clean = cosim_kernel(&checked, &design, &kernel, &opts, &mut |_| {}).unwrap();
        assert!(clean.passed(), "the unmutated {} passes: {:?}", checked.config.name, clean.mismatch);
        for m in mutations {
            let mutant = m.apply(&design);
            let by_kernel = cosim_kernel(&checked, &mutant, &kernel, &opts, &mut |_| {}).unwrap();
            let random = match kind {
                0 => random_run(&checked, &mutant, 21, 1, 20_000),
                _ => compressed_run(&checked, &mutant, 21, 40_000),
            };
            let (k, r) = (!by_kernel.passed(), random.mismatch.is_some());
            assert!(k || r, "mutation `{}` escapes both modes", m.name);
            kernel_caught += k as u32;
            let cycle = by_kernel.mismatch.as_ref().map_or("-".into(), |m| m.cycle.to_string());
            table.push(format!("{:<80} kernel {:<5} (cycle {cycle:>5})  random {r}", m.name, k));
        }
    }
    eprintln!("{}", table.join("\n"));
    assert!(kernel_caught as usize >= (MRF.len() + COMPRESSED_MRF.len()) / 2, "{}", table.join("\n"));
}

/// An arbiter that grants two slots at once: slot 4 with slot 0, when both wait, slots 1 to 3
/// do not and the pointer has just wrapped to 0. Slots of both collectors must wait on one bank
/// group together, which the crowded seeds' hot group brings about (`Knobs::hot_group`); with
/// their sources spread over the groups, 50,000 cycles of both seeds never showed it.
#[test]
fn a_double_grant_across_collectors_is_caught_by_the_crowded_seeds() {
    let checked = small("small");
    let double = Mutant {
        name: "slot 4 granted beside slot 0",
        file: "small_rr_arbiter_6.v",
        from: "(|upper[3:0])",
        to: "(|upper[3:1])",
    };
    let design = double.apply(&rfgen_gen::generate(&checked, SramKind::Behavioural));
    let lib = build(&design);
    let g = &checked.geometry;
    let seed = 2;
    let mut stimulus = RandomStimulus::new(g, seed, Knobs::for_config(&checked).for_seed(seed));
    let result = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, 50_000, 1);
    assert!(result.mismatch.is_some(), "the double grant was not caught in {} cycles", result.cycles);
}

/// An arbiter whose pointer resets to requester 4 instead of 0. It shows only in the first
/// grant after a reset that slots on both sides of requester 4 wait for, and then only if the
/// order of the two reads matters: the crowded seeds reset the MRF now and then
/// (`Knobs::reset`) and write the sources being read (`Knobs::write_a_source`). With one reset
/// per run it escaped 50,000 cycles of both seeds.
#[test]
fn a_wrong_arbiter_reset_pointer_is_caught_by_the_crowded_seeds_resets() {
    let checked = small("small");
    let g = &checked.geometry;
    let seed = 2;
    let run = |design: &Design| {
        let mut stimulus = RandomStimulus::new(g, seed, Knobs::for_config(&checked).for_seed(seed));
        let result = mrf_run(&build(design), Mrf::for_config(&checked), &mut stimulus, 50_000, 1);
        (result.mismatch, stimulus.resets)
    };
    let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
    let (clean, resets) = run(&design);
    assert!(clean.is_none(), "the unmutated design passes: {}", clean.unwrap());
    assert!(resets > 50, "only {resets} resets in the run");
    let wrong = Mutant {
        name: "pointer reset to requester 4",
        file: "small_rr_arbiter_6.v",
        from: "if (rst) ptr <= 3'd0;",
        to: "if (rst) ptr <= 3'd4;",
    };
    let (mismatch, _) = run(&wrong.apply(&design));
    assert!(mismatch.is_some(), "an arbiter pointer reset to requester 4 was not caught");
}
