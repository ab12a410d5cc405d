//! Proof that lockstep catches real RTL bugs: each mutation edits the generated Verilog of a
//! small config and the cosim must report a mismatch, with its cycle. Also: results do not
//! depend on Verilator's randomization of uninitialized state.

mod common;

use common::*;
use rfgen_cosim::blocks::bdi::{CodecKnobs, CodecStimulus, RandomCodecInputs};
use rfgen_cosim::blocks::mrf::{Knobs, RandomStimulus};
use rfgen_cosim::random::{self, RunOptions, RunResult};
use rfgen_cosim::session::{CosimOptions, cosim_design, cosim_kernel};
use rfgen_gen::{Checked, Design, SramKind};
use rfgen_model::blocks::bdi::{Codec, CodecIn};
use rfgen_model::blocks::mrf::Mrf;

/// A named edit of one generated file: every occurrence of `from` becomes `to`.
struct Mutation {
    name: &'static str,
    file: &'static str,
    from: &'static str,
    to: &'static str,
}

/// For the `small` config: 2 clusters of 4 lanes, 2 bank groups, 16 rows, 2 collectors.
const MUTATIONS: &[Mutation] = &[
    Mutation {
        name: "inverted arbitration priority",
        file: "small_rr_arbiter_6.v",
        from: "assign grant = (|upper) ? upper_first : any_first;",
        to: "assign grant = (|upper) ? any_first : upper_first;",
    },
    Mutation { name: "off-by-one read row", file: "small_mrf_bank_group.v", from: "(rd_row)", to: "(rd_row + 4'd1)" },
    Mutation {
        name: "wrong bank for operand slot 1",
        file: "small_mrf.v",
        from: "(slot_group[1] == 1'd0)",
        to: "(slot_group[1] == 1'd1)",
    },
    Mutation {
        name: "dropped lane 2 of the write mask",
        file: "small_sram_1r1w_16x128.v",
        from: "if (wr_mask[2])",
        to: "if (1'b0)",
    },
    Mutation {
        name: "dispatch one cycle early",
        file: "small_operand_collector.v",
        from: "assign ready = busy & ~(|pending) & ~(|inflight);",
        to: "assign ready = busy & ~(|pending);",
    },
    Mutation {
        name: "write-first bank instead of read-first",
        file: "small_sram_1r1w_16x128.v",
        from: "if (rd_en) rd_data <= mem[rd_addr];",
        to: "if (rd_en) rd_data <= (wr_en && wr_addr == rd_addr && wr_mask == 4'hf) ? wr_data : mem[rd_addr];",
    },
    Mutation {
        name: "issue into the highest free collector",
        file: "small_mrf.v",
        from: "assign cu_alloc = {2{issue_valid}} & alloc_first;",
        to: "assign cu_alloc = {2{issue_valid}} & (cu_busy[0] ? 2'b01 : 2'b10) & free;",
    },
    Mutation {
        name: "dispatch offer not held while refused",
        file: "small_rr_arbiter_2.v",
        from: "ptr <= advance ? next_idx : grant_idx;",
        to: "ptr <= next_idx;",
    },
];

fn mutate(design: &Design, m: &Mutation) -> Design {
    let mut d = design.clone();
    let (_, text) =
        d.files.iter_mut().find(|(n, _)| n == m.file).unwrap_or_else(|| panic!("{}: no file {}", m.name, m.file));
    assert!(text.contains(m.from), "{}: `{}` not found in {}", m.name, m.from, m.file);
    *text = text.replace(m.from, m.to);
    d
}

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
    for m in MUTATIONS {
        let result = random_run(&checked, &mutate(&design, m), 21, 1, 20_000);
        let mismatch = result.mismatch.unwrap_or_else(|| panic!("mutation `{}` was not detected", m.name));
        assert_eq!(result.cycles, mismatch.cycle + 1, "{}: the run stops at the reported cycle", m.name);
        assert!(!mismatch.ports.is_empty(), "{}: the report names a port", m.name);
        caught.push(format!("{} -> cycle {} port {}", m.name, mismatch.cycle, mismatch.ports[0].port));
    }
    assert_eq!(caught.len(), MUTATIONS.len());
    eprintln!("{}", caught.join("\n"));
}

/// Through the same path as `rfgen cosim`: the mismatch comes with a waveform of its last cycles.
#[test]
fn mismatch_writes_a_waveform_of_the_last_cycles() {
    let checked = small("small");
    let design = mutate(&rfgen_gen::generate(&checked, SramKind::Behavioural), &MUTATIONS[5]);
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
    let m = Mutation {
        name: "busy not reset",
        file: "small_operand_collector.v",
        from: "busy <= 1'b0;\n      pending",
        to: "pending",
    };
    let broken = mutate(&design, &m);
    let caught =
        [1u32, 2, 3, 4].iter().filter(|&&x| random_run(&checked, &broken, 8, x, 2_000).mismatch.is_some()).count();
    assert!(caught > 0, "an unreset busy bit is caught under some x-seed");
}

/// For the compressed `csmall` config: 8 lanes in 4 clusters, all seven modes, 2-cycle
/// compressor, 1-cycle decompressor, 3-cycle wake-up, 2 bank groups of 16 rows.
const COMPRESSED_MUTATIONS: &[Mutation] = &[
    Mutation {
        name: "sign-extension check one bit short (<4,1> accepts deltas up to 255)",
        file: "csmall_compressor.v",
        from: "(&d4[31:7]) | ~(|d4[31:7])",
        to: "(&d4[31:8]) | ~(|d4[31:8])",
    },
    Mutation {
        name: "wrong mode priority: <8,0> no longer wins over <4,1>",
        file: "csmall_compressor.v",
        from: "assign sel[1] = ~s1_bypass & s1_fit[1] & ~s1_fit[0] & ~s1_fit[3];",
        to: "assign sel[1] = ~s1_bypass & s1_fit[1] & ~s1_fit[0];",
    },
    Mutation {
        name: "wrong chunk order: deltas 1 and 2 swapped in the <4,1> payload",
        file: "csmall_compressor.v",
        from: "s1_lo4[23:16], s1_lo4[7:0], s1_data[31:0]",
        to: "s1_lo4[7:0], s1_lo4[23:16], s1_data[31:0]",
    },
    Mutation {
        name: "decompressor does not sign-extend <4,1> deltas",
        file: "csmall_decompressor.v",
        from: "{{24{in_chunks[39]}}, in_chunks[39:32]}",
        to: "{{24{1'b0}}, in_chunks[39:32]}",
    },
    Mutation {
        name: "wake-up counter off by one",
        file: "csmall_bank_power.v",
        from: "timer3 <= 2'd3;",
        to: "timer3 <= 2'd2;",
    },
    Mutation {
        name: "no dummy MOV before a partial write to a compressed register",
        file: "csmall_mrf_write_port.v",
        from: "assign need_mov = head_valid & s2_partial & head_compressed;",
        to: "assign need_mov = 1'b0;",
    },
    Mutation {
        name: "reads enable every bank, not only those holding chunks",
        file: "csmall_mrf_bank_group.v",
        from: "assign bank_rd_en = {4{grant_valid | mov_rd}} & rd_occ;",
        to: "assign bank_rd_en = {4{grant_valid | mov_rd}};",
    },
    Mutation {
        name: "a finished warp's registers stay valid (its banks are never gated)",
        file: "csmall_range_table.v",
        from: "valid <= valid & ~free_rows;",
        to: "valid <= valid;",
    },
    Mutation {
        name: "bank 3's entries counted without their valid bits (invalid registers keep it on)",
        file: "csmall_range_table.v",
        from: "assign holds3[r] = valid[r] &",
        to: "assign holds3[r] =",
    },
    Mutation {
        name: "a freed warp's rows run one row into the next warp's",
        file: "csmall_mrf.v",
        from: "(ROW < free_hi)",
        to: "(ROW <= free_hi)",
    },
    Mutation {
        name: "range indicator not registered with the bank read",
        file: "csmall_mrf_bank_group.v",
        from: ".in_ri     (fetch_ri)",
        to: ".in_ri     (rd_ri)",
    },
    Mutation {
        name: "dummy MOV read does not hold off the operand slots",
        file: "csmall_mrf_bank_group.v",
        from: "assign req = slot_req & {6{~mov_rd}};",
        to: "assign req = slot_req;",
    },
];

fn compressed_run(checked: &Checked, design: &Design, seed: u64, cycles: u64) -> RunResult<Mrf> {
    let lib = build(design);
    let mut stimulus = RandomStimulus::new(&checked.geometry, seed, Knobs::compressed());
    mrf_run(&lib, Mrf::for_config(checked), &mut stimulus, cycles, 1)
}

#[test]
fn lockstep_reports_every_compressed_mrf_mutation() {
    let checked = compressed("csmall");
    let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
    let clean = compressed_run(&checked, &design, 21, 40_000);
    assert!(clean.mismatch.is_none(), "the unmutated design passes: {}", clean.mismatch.unwrap());
    let mut caught = Vec::new();
    for m in COMPRESSED_MUTATIONS {
        let result = compressed_run(&checked, &mutate(&design, m), 21, 40_000);
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
    let layout = rfgen_gen::layout::bdi::Layout::new(&checked.geometry, &checked.config.compression).unwrap();
    let run = |design: &Design| {
        let lib = build(design);
        let mut stimulus = CodecStimulus::new(&layout, RandomCodecInputs::new(32, 5, CodecKnobs::default()));
        let opts = RunOptions { cycles: 5_000, x_seed: 1, waveform: None };
        random::run(&lib, Codec::new(&layout), &mut stimulus, CodecIn::new(&layout), &opts, &mut |_| {}).unwrap()
    };
    assert!(run(&design).mismatch.is_none());
    let mutations = [
        Mutation {
            name: "sign-extension check one bit long (<4,2> refuses deltas from 2^14)",
            file: "baseline_compressor.v",
            from: "(&d4[31:15]) | ~(|d4[31:15])",
            to: "(&d4[31:14]) | ~(|d4[31:14])",
        },
        Mutation {
            name: "decompressor reads delta 2 of <4,2> from delta 1's place",
            file: "baseline_decompressor.v",
            from: "{{16{in_chunks[63]}}, in_chunks[63:48]}",
            to: "{{16{in_chunks[47]}}, in_chunks[47:32]}",
        },
    ];
    for m in &mutations {
        let result = run(&mutate(&design, m));
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
    let sets: [(Checked, &[Mutation], u64); 2] =
        [(small("small"), MUTATIONS, 0), (compressed("csmall"), COMPRESSED_MUTATIONS, 1)];
    for (checked, mutations, kind) in sets {
        let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
        let clean = cosim_kernel(&checked, &design, &kernel, &opts, &mut |_| {}).unwrap();
        assert!(clean.passed(), "the unmutated {} passes: {:?}", checked.config.name, clean.mismatch);
        for m in mutations {
            let mutant = mutate(&design, m);
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
    assert!(kernel_caught as usize >= (MUTATIONS.len() + COMPRESSED_MUTATIONS.len()) / 2, "{}", table.join("\n"));
}

/// The MRF's mutants above inside the composed top (`<prefix>_sm_rf`, the issue stage feeding the
/// same MRF) under the same kernel traffic: composing the parts must not hide a bug of one of
/// them. Every mutant is caught but the two this kernel cannot reach in the MRF alone either
/// (docs/cosim.md: no WAR hazard to make a same-cycle read and write; no refused dispatch while
/// another collector is ready), which random stimulus catches.
#[test]
fn mrf_mutants_are_caught_in_the_composed_top() {
    const KERNEL_ESCAPES: [&str; 2] =
        ["write-first bank instead of read-first", "dispatch offer not held while refused"];
    let kernel = rfgen_model::kernel::parse(include_str!("data/operand_stress.kir")).unwrap();
    let opts = CosimOptions {
        block: rfgen_gen::Block::Sm,
        cycles: 1_000_000,
        seed: 0,
        x_seed: 1,
        trace: None,
        fail_wave_dir: None,
        cache: cache_dir(),
    };
    let checked = small("small");
    let composed = rfgen_gen::emit::generate_sm_rf(&checked, SramKind::Behavioural);
    let clean = cosim_kernel(&checked, &composed, &kernel, &opts, &mut |_| {}).unwrap();
    assert!(clean.passed(), "the unmutated composed top passes: {:?}", clean.mismatch);
    let mut table = Vec::new();
    for m in MUTATIONS {
        let run = cosim_kernel(&checked, &mutate(&composed, m), &kernel, &opts, &mut |_| {}).unwrap();
        let port = run.mismatch.as_ref().map_or("-".into(), |x| format!("{} at cycle {}", x.ports[0].port, x.cycle));
        table.push(format!("{:<50} {port}", m.name));
        let escapes = KERNEL_ESCAPES.contains(&m.name);
        assert_eq!(run.passed(), escapes, "`{}`: caught {} in the composed top", m.name, !run.passed());
    }
    eprintln!("{}", table.join("\n"));
}
