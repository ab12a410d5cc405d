//! The register file cache (seed 000) in lockstep with its model: proptest scripts with the
//! cache protocol (activations, flushes, releases, last reads, long-latency results) that shrink
//! on failure, long random runs that must exercise every rule, the library kernels driving the
//! paper's RTL (preset isca11-rfc) from the SM model, and seeded RTL bugs that lockstep catches.

mod common;

use common::*;
use proptest::prelude::*;
use rfgen_cosim::blocks::bdi::Pattern;
use rfgen_cosim::blocks::mrf::{
    Knobs, RandomStimulus, Script, ScriptCache, ScriptCycle, ScriptInstr, ScriptWb, ScriptedStimulus,
};
use rfgen_cosim::session::{CosimOptions, cosim_kernel};
use rfgen_gen::{Checked, Design, Geometry, SramKind};
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::kernel::library::KERNELS;

fn script(g: &Geometry, max_cycles: usize) -> impl Strategy<Value = Script> {
    // Few registers, so that reads find what was written.
    let (w, r, tags, lanes) = (g.warps, g.registers.min(6), 1u32 << g.tag_bits.min(16), g.lanes);
    let src = proptest::option::weighted(0.8, 0..r);
    let instr =
        (0..w, [src.clone(), src.clone(), src], 0..tags).prop_map(|(warp, srcs, tag)| ScriptInstr { warp, srcs, tag });
    let full = if lanes == 64 { u64::MAX } else { (1u64 << lanes) - 1 };
    let mask = prop_oneof![4 => Just(full), 1 => any::<u64>()];
    let wb = (0..w, 0..r, mask, any::<u32>()).prop_map(|(warp, reg, mask, base)| ScriptWb {
        warp,
        reg,
        mask,
        data: Pattern::Ramp { base, stride: 0x0100_0193 },
    });
    let warp = proptest::option::weighted(0.3, 0..w);
    let cache = (
        warp.clone(),
        proptest::option::weighted(0.06, 0..w),
        proptest::option::weighted(0.02, 0..w),
        any::<[bool; 3]>(),
        proptest::bool::weighted(0.2),
    )
        .prop_map(|(act, flush, release, last, long)| ScriptCache {
            act,
            flush,
            release: release.map_or(0, |w| 1 << w),
            last,
            long,
        });
    let cycle =
        (proptest::bool::weighted(0.8), proptest::bool::weighted(0.75), proptest::option::weighted(0.7, wb), cache)
            .prop_map(|(offer, ready, wb, cache)| ScriptCycle { offer, ready, wb, cache });
    (proptest::collection::vec(instr, 0..60), proptest::collection::vec(cycle, 1..max_cycles))
        .prop_map(|(instrs, cycles)| Script { instrs, cycles })
}

#[test]
fn proptest_lockstep_small_caches() {
    for (name, _) in CACHED {
        let checked = cached(name);
        let g = checked.geometry.clone();
        let lib = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
        let config = ProptestConfig { cases: 60, failure_persistence: None, ..ProptestConfig::default() };
        proptest!(config, |(s in script(&g, 250), x_seed in any::<u32>())| {
            let cycles = s.cycles.len() as u64;
            let result = mrf_run(&lib, Mrf::for_config(&checked), &mut ScriptedStimulus::new(s), cycles, x_seed);
            prop_assert!(result.mismatch.is_none(), "{name}: {}", result.mismatch.unwrap());
        });
    }
}

/// Long random runs agree with the RTL and exercise every rule of the cache.
#[test]
fn random_runs_exercise_every_rule() {
    for (name, _) in CACHED {
        let checked = cached(name);
        let lib = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
        let mut stimulus = RandomStimulus::new(&checked.geometry, 3, Knobs::for_config(&checked));
        let result = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, 100_000, 7);
        assert!(result.mismatch.is_none(), "{name}: {}", result.mismatch.unwrap());
        let s = result.block.model().stats();
        let r = &s.rfc;
        assert!(r.read_hits > 2_000 && r.write_hits > 1_000 && r.allocations > 2_000, "{name}: {r:?}");
        assert!(r.evictions > 300 && r.bypasses > 2_000, "{name}: {r:?}");
        assert!(r.flushes > 200 && r.flush_writes > 200 && r.activations > 500, "{name}: {r:?}");
        if checked.config.rfc.liveness {
            assert!(r.dead_evictions > 50, "{name}: {r:?}");
        } else {
            assert_eq!(r.dead_evictions, 0, "{name}: no liveness, nothing dies");
        }
        assert!(s.mrf_writes < s.writes + r.flush_writes + r.evictions, "{name}: the cache keeps some writes");
        assert!(s.wb_stall_cycles > 0, "{name}: evictions and flushes hold write-backs off");
    }
}

fn kernel_options() -> CosimOptions {
    CosimOptions {
        block: rfgen_gen::Block::Mrf,
        cycles: 5_000_000,
        seed: 0,
        x_seed: 1,
        trace: None,
        fail_wave_dir: None,
        cache: cache_dir(),
    }
}

/// Every library kernel on `checked`: RTL and model agree, every operand is right, the named
/// statistics are above 100, and the kernels with long-latency loads flush the cache.
fn every_library_kernel_passes(checked: &Checked, busy: &[&str]) {
    let design = rfgen_gen::generate(checked, SramKind::Behavioural);
    let mut flushing = 0;
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        let r = cosim_kernel(checked, &design, &k, &kernel_options(), &mut |_| {}).unwrap();
        assert!(r.passed(), "{}: {:?} {:?}", k.name, r.mismatch, r.kernel_error);
        let stat = |name: &str| r.stats.iter().find(|(n, _)| *n == name).unwrap().1;
        assert!(busy.iter().all(|n| stat(n) > 100), "{}: {:?}", k.name, r.stats);
        flushing += (stat("RFC flushes") > 0) as usize;
    }
    // heartwall loads nothing: its warps are never descheduled.
    assert_eq!(flushing, KERNELS.len() - 1);
}

/// The SM model drives the paper's RFC (8 active warps x 6 entries, two-level, liveness).
#[test]
fn every_library_kernel_passes_on_the_paper_rfc() {
    every_library_kernel_passes(&isca11_rfc(), &["RFC read hits"]);
}

/// The paper's cache in front of the compressed MRF (isca11-rfc with compression).
#[test]
fn every_library_kernel_passes_on_the_rfc_in_front_of_the_compressed_mrf() {
    let text = format!("{}\n[compression]\nenabled = true\n", include_str!("../configs/isca11-rfc.toml"));
    let checked = rfgen_gen::config::parse(&text).unwrap();
    every_library_kernel_passes(&checked, &["RFC read hits", "full writes compressed"]);
}

/// The small caches under a kernel's traffic.
#[test]
fn small_caches_pass_under_a_kernel() {
    let kernel = rfgen_model::kernel::parse(include_str!("data/operand_stress.kir")).unwrap();
    for (name, _) in CACHED.iter().filter(|(n, _)| cached(n).geometry.registers >= 8) {
        let checked = cached(name);
        let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
        let r = cosim_kernel(&checked, &design, &kernel, &kernel_options(), &mut |_| {}).unwrap();
        assert!(r.passed(), "{name}: {:?} {:?}", r.mismatch, r.kernel_error);
    }
}

/// Seeded bugs of the cache (tests/common/mutants.rs), each caught by a random run with its cycle.
#[test]
fn lockstep_reports_every_cache_mutation_with_its_cycle() {
    let mut caught = Vec::new();
    for (config, mutants) in [("rsmall", mutants::RFC), ("rcsmall", mutants::RFC_COMPRESSED)] {
        let checked = cached(config);
        let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
        let run = |d: &Design| {
            let lib = build(d);
            let mut stimulus = RandomStimulus::new(&checked.geometry, 21, Knobs::for_config(&checked));
            mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, 30_000, 1)
        };
        assert!(run(&design).mismatch.is_none(), "{config}: the unmutated cache passes");
        for m in mutants {
            let result = run(&m.apply(&design));
            let mismatch = result.mismatch.unwrap_or_else(|| panic!("mutation `{}` was not detected", m.name));
            let stop = rfgen_cosim::lockstep::stops_after(mismatch.cycle);
            assert_eq!(result.cycles, stop, "{}: the run stops where the lockstep learns of it", m.name);
            caught.push(format!("{} -> cycle {} port {}", m.name, mismatch.cycle, mismatch.ports[0].port));
        }
    }
    assert_eq!(caught.len(), mutants::RFC.len() + mutants::RFC_COMPRESSED.len());
    eprintln!("{}", caught.join("\n"));
}

#[test]
fn cli_cosim_and_gen_of_the_paper_rfc() {
    let out = rfgen(&["cosim", "--preset", "isca11-rfc", "--cycles", "30000", "--seed", "4"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    for line in ["top                        isca11_rfc_mrf", "RFC read hits", "RFC flushes", "PASS"] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    let checked: Checked = isca11_rfc();
    assert_eq!(checked.rfc.as_ref().map(|r| (r.slots, r.entries)), Some((8, 6)));
}

/// `rfgen sim` on the paper's RFC: every library kernel keeps its functional result, every
/// write-back and source operand is accounted for once, and the energy comparison follows the
/// wire distances.
#[test]
fn sim_accounts_for_every_operand_and_write_back() {
    let checked = isca11_rfc();
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        let r = rfgen_model::sim::simulate(&checked, &k, 50_000_000, &mut |_| {}).unwrap();
        let (s, c) = (&r.stats, r.rfc.as_ref().expect("an RFC report"));
        let t = s.rfc.as_ref().unwrap();
        assert_eq!(s.operand_mismatches, 0, "{}", k.name);
        // Each source operand is an RFC hit or an MRF read, whatever the timing.
        assert_eq!(t.read_hits + c.mrf_reads, c.uncached_mrf_reads, "{}", k.name);
        // Each write-back is kept (new entry or its entry) or bypassed; the MRF sees bypasses,
        // evictions and flushes.
        assert_eq!(t.allocations + t.write_hits + t.bypasses, c.uncached_mrf_writes, "{}", k.name);
        assert_eq!(t.bypasses + t.evictions + t.flush_writes, c.mrf_writes, "{}", k.name);
        assert!(c.read_reduction > 0.05 && c.write_reduction > 0.05, "{}: {c:?}", k.name);
        // Table 5's rows: closer RFCs save more; the configured 1 mm / 0.2 mm is the headline.
        let row = |m: f64, f: f64| c.table5.iter().find(|t| (t.mrf_mm, t.rfc_mm) == (m, f)).unwrap().energy_ratio;
        assert!(row(1.0, 1.0) > row(1.0, 0.2) && row(1.0, 0.2) > row(1.0, 0.0), "{}: {:?}", k.name, c.table5);
        assert!((row(1.0, 0.2) - c.energy_ratio).abs() < 1e-12);
        assert_eq!(r.energy.terms, ["mrf access", "mrf wire", "rfc access", "rfc wire"]);
        // Without the RFC the report compares like with like: the same kernel's work.
        assert_eq!(c.uncached_energy.rfc_access_pj, 0.0);
    }
}

#[test]
fn cli_sim_prints_the_rfc_report() {
    let out = rfgen(&["sim", "--preset", "isca11-rfc", "--kernel", "matmul"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    for line in
        ["register file cache (seed 000", "read hits", "MRF reads", "without the RFC", "[Table 5: 0.65]", "RFC wire"]
    {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    let out = rfgen(&["sim", "--preset", "isca11-rfc", "--kernel", "matmul", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rfc = &json["rfc"];
    assert_eq!((rfc["entries"].as_u64(), rfc["slots"].as_u64()), (Some(6), Some(8)));
    assert!(rfc["mrf_reads"].as_u64() < rfc["uncached_mrf_reads"].as_u64());
    assert!(json["stats"]["rfc"]["read_hits"].as_u64().unwrap() > 0);
}

/// A last read under a partial mask is not a dead value: the lanes on the other side of the
/// branch may still read it. Pathfinder's boundary branches did exactly that, and a one-entry
/// cache evicting such a value without writing it back delivered wrong operands.
#[test]
fn a_last_read_under_a_divergent_mask_keeps_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let o = rfgen(&[
        "sweep",
        "--preset",
        "isca11-rfc",
        "--param",
        "rfc.entries=1,2",
        "--kernel",
        "ptx:pathfinder",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().filter(|l| l.contains(",ok,")).count(), 2, "{csv}");
}
