//! The compressed MRF (`compression.enabled`) in lockstep with its model: proptest with
//! shrinking on small compressed configs and on preset isca15-bdi; long random runs that must
//! cover divergence, dummy MOVs, power gating and wake-up; the documented timing example through
//! the RTL; statistics that agree with the compared bank strobes; X-independence; the CLI.

mod common;

use common::*;
use proptest::prelude::*;
use rfgen_cosim::blocks::bdi::Pattern;
use rfgen_cosim::blocks::mrf::{Knobs, RandomStimulus, Script, ScriptCycle, ScriptInstr, ScriptWb, ScriptedStimulus};
use rfgen_cosim::glue::Stimulus;
use rfgen_gen::{Checked, Geometry, SramKind};
use rfgen_model::blocks::mrf::{Mrf, MrfIn, MrfOut};

/// Scripts that mostly touch a few registers, so writes compress, get partially overwritten
/// (dummy MOVs) and are read back.
fn script(g: &Geometry, max_cycles: usize) -> impl Strategy<Value = Script> {
    // At the idle input's stride (the largest), only the warps that have rows.
    let (w, r, tags, lanes) = (g.resident_warps(g.registers), g.registers, 1u32 << g.tag_bits.min(16), g.lanes);
    let warp = prop_oneof![3 => 0..w.min(2), 1 => 0..w];
    let reg = prop_oneof![3 => 0..r.min(4), 1 => 0..r];
    let src = proptest::option::weighted(0.7, reg.clone());
    let instr = (warp.clone(), [src.clone(), src.clone(), src], 0..tags).prop_map(|(warp, srcs, tag)| ScriptInstr {
        warp,
        srcs,
        tag,
    });
    let full = if lanes == 64 { u64::MAX } else { (1u64 << lanes) - 1 };
    let mask = prop_oneof![3 => Just(full), 1 => any::<u64>()];
    let wb = (warp, reg, mask, pattern()).prop_map(|(warp, reg, mask, data)| ScriptWb { warp, reg, mask, data });
    let cycle = (proptest::bool::weighted(0.7), proptest::bool::weighted(0.75), proptest::option::weighted(0.6, wb))
        .prop_map(|(offer, ready, wb)| ScriptCycle { offer, ready, wb, cache: Default::default() });
    (proptest::collection::vec(instr, 0..60), proptest::collection::vec(cycle, 1..max_cycles))
        .prop_map(|(instrs, cycles)| Script { instrs, cycles })
}

fn lockstep_scripts(checked: &Checked, cases: u32, max_cycles: usize) {
    let lib = build(&rfgen_gen::generate(checked, SramKind::Behavioural));
    let g = checked.geometry.clone();
    let config = ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() };
    proptest!(config, |(s in script(&g, max_cycles), x_seed in any::<u32>())| {
        let cycles = s.cycles.len() as u64;
        let result = mrf_run(&lib, Mrf::for_config(checked), &mut ScriptedStimulus::new(s), cycles, x_seed);
        prop_assert!(result.mismatch.is_none(), "{}: {}", checked.config.name, result.mismatch.unwrap());
    });
}

#[test]
fn proptest_lockstep_small_compressed_configs() {
    for (name, _) in COMPRESSED {
        lockstep_scripts(&compressed(name), 80, 250);
    }
}

#[test]
fn proptest_lockstep_isca15_bdi() {
    lockstep_scripts(&isca15_bdi(), 30, 300);
}

/// Sums the bank strobes and `wb_ready` the model drives (and lockstep compares) every cycle.
struct Observed<S> {
    inner: S,
    rd: u64,
    wr: u64,
    gated: u64,
    stalls: u64,
}

impl<S: Stimulus<Mrf>> Stimulus<Mrf> for Observed<S> {
    fn next(&mut self, cycle: u64, out: &MrfOut, inp: &mut MrfIn) {
        let ones = |v: &[u64]| v.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
        self.rd += ones(out.bank_rd_en);
        self.wr += ones(out.bank_wr_en);
        self.gated += ones(out.bank_gated);
        self.inner.next(cycle, out, inp);
        self.stalls += u64::from(inp.wb_valid && !out.wb_ready);
    }
}

/// Long random runs: RTL and model agree, the statistics for `rfgen sim` match the strobes the
/// RTL drives, and the run covers every feature (frees of finished warps included).
#[test]
fn random_runs_cover_divergence_movs_and_wake_up() {
    let configs: Vec<(Checked, u64)> =
        COMPRESSED.iter().map(|(n, _)| (compressed(n), 60_000)).chain([(isca15_bdi(), 100_000)]).collect();
    for (checked, cycles) in configs {
        let name = checked.config.name.clone();
        let lib = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
        let stimulus = RandomStimulus::new(&checked.geometry, 7, Knobs::for_config(&checked));
        let mut o = Observed { inner: stimulus, rd: 0, wr: 0, gated: 0, stalls: 0 };
        let result = mrf_run(&lib, Mrf::for_config(&checked), &mut o, cycles, 3);
        assert!(result.mismatch.is_none(), "{name}: {}", result.mismatch.unwrap());
        let s = result.block.model().stats();
        assert_eq!(
            (s.bank_reads, s.bank_writes, s.gated_bank_cycles(), s.wb_stall_cycles),
            (o.rd, o.wr, o.gated, o.stalls),
            "{name}"
        );
        assert!(
            s.full_writes_by_ri.iter().all(|&n| n > 20),
            "{name}: every mode and uncompressed: {:?}",
            s.full_writes_by_ri
        );
        assert!(
            s.partial_writes > 1000 && s.dummy_movs > 200,
            "{name}: {} partial writes, {} MOVs",
            s.partial_writes,
            s.dummy_movs
        );
        assert!(s.bank_wakeups > 50 && s.gated_bank_cycles() > 10_000, "{name}: {} wake-ups", s.bank_wakeups);
        assert!(s.warps_freed > cycles / 200, "{name}: {} warps freed", s.warps_freed);
        assert!(s.dispatched > cycles / 10 && s.bank_conflicts > 1000, "{name}: {} dispatched", s.dispatched);
        assert!(s.decompressions > 1000 && s.compressions > 10_000, "{name}");
    }
}

/// The timing example of docs/bdi.md, replayed on the RTL of preset isca15-bdi: a write waits
/// for its bank to wake, a compressed read touches one bank, a partial write triggers a dummy
/// MOV. The model test `documented_compressed_timing` checks each cycle of it.
#[test]
fn documented_timing_example_through_rtl() {
    let checked = isca15_bdi();
    let lib = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
    let instr = |tag| ScriptInstr { warp: 0, srcs: [Some(0), None, None], tag };
    let wb = |mask, v| Some(ScriptWb { warp: 0, reg: 0, mask, data: Pattern::Equal(v) });
    let cycles = (0..36)
        .map(|c| ScriptCycle {
            offer: c == 14 || c == 30,
            ready: true,
            wb: match c {
                0 => wb(u64::MAX, 7),
                1 => wb(1, 99),
                _ => None,
            },
            cache: Default::default(),
        })
        .collect();
    let script = Script { instrs: vec![instr(0xC), instr(0xD)], cycles };
    let result = mrf_run(&lib, Mrf::for_config(&checked), &mut ScriptedStimulus::new(script), 36, 9);
    assert!(result.mismatch.is_none(), "{}", result.mismatch.unwrap());
    let s = result.block.model().stats();
    assert_eq!((s.dummy_movs, s.bank_wakeups, s.dispatched), (1, 8, 2));
}

#[test]
fn results_do_not_depend_on_uninitialized_state() {
    let checked = compressed("csmall");
    let lib = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
    let raw: Vec<u64> = [1u32, 0xdead_beef]
        .iter()
        .map(|&x_seed| {
            let mut stimulus = RandomStimulus::new(&checked.geometry, 8, Knobs::for_config(&checked));
            let r = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, 30_000, x_seed);
            assert!(r.mismatch.is_none());
            r.raw_digest
        })
        .collect();
    assert_ne!(raw[0], raw[1], "the x-seed reaches uncompared output bits, and every compared bit agrees");
}

#[test]
fn cli_cosim_isca15_bdi_passes() {
    let out = rfgen(&["cosim", "--preset", "isca15-bdi", "--cycles", "50000", "--seed", "2"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    for line in [
        "top                        isca15_bdi_mrf",
        "mismatches                 0",
        "dummy MOVs",
        "bank wake-ups",
        "PASS",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
}

/// `compression.gate_delay` (conegroup: 3 idle edges): a bank is gated only after that many
/// idle edges in a row, so fewer banks wake than with immediate gating on the same stimulus;
/// the RTL agrees, and a delay one edge short in the RTL is caught.
#[test]
fn gating_delay_holds_idle_banks_and_is_checked() {
    let delayed = compressed("conegroup");
    assert_eq!(delayed.config.compression.gate_delay, 3);
    let mut at_once = delayed.config.clone();
    at_once.compression.gate_delay = 0;
    let at_once = rfgen_gen::config::check(at_once).unwrap();
    let run = |checked: &Checked, design: &rfgen_gen::Design| {
        let lib = build(design);
        let mut stimulus = RandomStimulus::new(&checked.geometry, 11, Knobs::for_config(checked));
        mrf_run(&lib, Mrf::for_config(checked), &mut stimulus, 20_000, 2)
    };
    let design = rfgen_gen::generate(&delayed, SramKind::Behavioural);
    let (d, i) = (run(&delayed, &design), run(&at_once, &rfgen_gen::generate(&at_once, SramKind::Behavioural)));
    assert!(d.mismatch.is_none() && i.mismatch.is_none());
    let (ds, is) = (d.block.model().stats(), i.block.model().stats());
    assert!(ds.gated_bank_cycles() > 1000, "{}", ds.gated_bank_cycles());
    assert!(
        ds.bank_wakeups < is.bank_wakeups && ds.gated_bank_cycles() < is.gated_bank_cycles(),
        "delayed: {} wake-ups, {} gated; at once: {} wake-ups, {} gated",
        ds.bank_wakeups,
        ds.gated_bank_cycles(),
        is.bank_wakeups,
        is.gated_bank_cycles()
    );
    let short = mutants::GATING_DELAY[0].apply(&design);
    let m = run(&delayed, &short).mismatch.expect("a gating delay one edge short is caught");
    eprintln!("delay one edge short: caught at cycle {} on {}", m.cycle, m.ports[0].port);
}
