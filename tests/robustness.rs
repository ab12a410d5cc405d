//! Random valid configurations never make rfgen panic: each is generated, runs kernels on the
//! SM model (which either finishes with every operand right — or, without a warpboard, wrong
//! only by write-after-read hazards — or says the kernel does not fit), and a few run a short
//! lockstep cosim of their RTL.

mod common;

use common::*;
use proptest::prelude::*;
use rfgen_cosim::session::{CosimOptions, cosim};
use rfgen_gen::config::WarPolicy;
use rfgen_gen::{Checked, SramKind};
use rfgen_model::kernel::{self, synthetic};
use rfgen_model::sm::{SimError, Sm};

/// A configuration with every section drawn at random inside (and near) its limits.
/// `small` keeps the geometry small enough for a quick Verilator build.
fn config(small: bool) -> impl Strategy<Value = String> {
    let max_shift = if small { 3 } else { 6 };
    let geometry = (0u32..=max_shift, 0u32..=max_shift, 0u32..=if small { 2 } else { 5 }, 1u32..=4)
        .prop_flat_map(move |(lanes, clusters, groups, regs_mult)| {
            let lanes = 1u32 << lanes;
            let clusters = 1u32 << clusters.min(lanes.trailing_zeros());
            let groups = 1u32 << groups;
            let registers = (groups * regs_mult).clamp(2, 256).next_multiple_of(groups);
            (Just((lanes, clusters, groups, registers)), 2u32..=if small { 6 } else { 64 }, 0u32..=1)
        })
        .prop_map(|((lanes, clusters, groups, registers), warps, spare)| {
            let entries = (warps * registers / groups).next_power_of_two().max(2) << spare;
            format!(
                "[sm]\nwarps = {warps}\nlanes = {lanes}\nclusters = {clusters}\nregisters_per_thread = {registers}\n\
                 [mrf]\nbanks = {}\nentries = {entries}\n",
                groups * clusters
            )
        });
    let collectors =
        (1u32..=if small { 4 } else { 16 }, 1u32..=6).prop_map(|(n, t)| format!("collectors = {n}\ntag_bits = {t}\n"));
    let scheduler = (prop::sample::select(vec!["lrr", "gto", "two_level"]), 1u32..=2)
        .prop_map(|(p, a)| format!("[scheduler]\npolicy = \"{p}\"\nactive_warps = {a}\n"));
    let timing = (1u32..=30, 1u32..=40, 1u32..=500, 1u32..=64, 1u32..=64, 1u32..=64).prop_map(
        |(alu, sfu, dram, talu, tsfu, bw)| {
            format!(
                "[latency]\nalu = {alu}\nsfu = {sfu}\nshared = {sfu}\ntexture = {dram}\ndram = {dram}\n\
                 [throughput]\nalu = {talu}\nsfu = {tsfu}\ntexture = {tsfu}\n\
                 [memory]\nshared_bytes_per_cycle = {bw}\ndram_bytes_per_cycle = {bw}\n"
            )
        },
    );
    let compression = (any::<bool>(), prop::sample::subsequence(vec!["4,0", "4,1", "4,2", "8,0", "8,1", "8,2", "8,4"], 1..=3), 1u32..=3, 1u32..=2, 0u32..=12)
        .prop_map(|(on, modes, lc, ld, wake)| {
            let modes: Vec<String> = modes.iter().map(|m| format!("\"{m}\"")).collect();
            format!(
                "[compression]\nenabled = {on}\nmodes = [{}]\ncompress_latency = {lc}\ndecompress_latency = {ld}\nwakeup_cycles = {wake}\n",
                modes.join(", ")
            )
        });
    let cache = (any::<bool>(), 1u32..=8, any::<bool>(), any::<bool>()).prop_map(|(on, entries, lru, live)| {
        let replacement = if lru { "lru" } else { "fifo" };
        format!("[rfc]\nenabled = {on}\nentries = {entries}\nreplacement = \"{replacement}\"\nliveness = {live}\n")
    });
    let policies = vec!["none", "release_on_commit", "release_on_read", "bloom1", "bloom2", "bloom_unbounded"];
    let warpboard = prop::sample::select(policies).prop_map(|p| format!("[warpboard]\npolicy = \"{p}\"\n"));
    (geometry, collectors, scheduler, timing, compression, cache, warpboard)
        .prop_map(|(g, c, s, t, z, r, w)| format!("name = \"rnd\"\n{g}{c}{s}{t}{z}{r}{w}"))
}

/// A short kernel with loads, divergence, a predicate and two registers, so it fits any SM.
const TWO_REGISTERS: &str = ".kernel two\n.grid 3 48\n  mov r0, %gtid\n  shl r1, r0, 2\n  ld.global r0, [r1 + 0x1000]\n\
                             setp.ltu p0, r0, 0x80000000\n@p0 add r0, r0, r1\n  st.global [r1 + 0x8000], r0\n  exit\n";

fn run_kernels(checked: &Checked) {
    let small =
        synthetic::Knobs { length: 30, iterations: 2, blocks: 2, threads: 64, registers: 14, ..Default::default() };
    for k in [kernel::parse(TWO_REGISTERS).unwrap(), synthetic::generate(&small)] {
        match Sm::new(checked, &k).and_then(|mut sm| sm.run(2_000_000, &mut |_| {}).map(|_| sm.stats().clone())) {
            // Without a warpboard a wrong operand may only be a write-after-read hazard; with
            // one, none may happen.
            Ok(stats) if checked.config.warpboard.policy == WarPolicy::None => {
                assert_eq!(stats.operand_mismatches, stats.war_hazards, "{}: {:?}", k.name, stats.mismatch_examples)
            }
            Ok(stats) => assert_eq!(stats.operand_mismatches, 0, "{}: {:?}", k.name, stats.mismatch_examples),
            Err(SimError::DoesNotFit(_)) => {}
            Err(e) => panic!("{}: {e}", k.name),
        }
    }
}

#[test]
fn random_valid_configs_generate_and_simulate_without_panic() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 300, ..Default::default() });
    let valid = std::cell::Cell::new(0);
    runner
        .run(&config(false), |text| {
            let Ok(checked) = rfgen_gen::config::parse(&text) else { return Ok(()) };
            valid.set(valid.get() + 1);
            let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
            prop_assert!(design.files.iter().any(|(f, _)| f == "manifest.json"));
            run_kernels(&checked);
            Ok(())
        })
        .unwrap();
    assert!(valid.get() >= 100, "only {} of 300 random configs were valid", valid.get());
}

#[test]
fn random_small_configs_pass_a_short_cosim() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 6, ..Default::default() });
    runner
        .run(&config(true).prop_filter("valid", |t| rfgen_gen::config::parse(t).is_ok()), |text| {
            let checked = rfgen_gen::config::parse(&text).unwrap();
            let opts = CosimOptions {
                block: "mrf".into(),
                cycles: 3_000,
                seed: 1,
                x_seed: 1,
                trace: None,
                fail_wave_dir: None,
                cache: cache_dir(),
            };
            let report = cosim(&checked, &opts, &mut |_| {}).map_err(|e| TestCaseError::fail(format!("{e:#}")))?;
            prop_assert!(report.mismatch.is_none(), "{text}\n{}", report.mismatch.unwrap());
            Ok(())
        })
        .unwrap();
}
