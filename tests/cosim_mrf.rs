//! Lockstep cosimulation of the generated MRF against its golden model: proptest stimulus with
//! shrinking on small configs and on the full default, long random runs, and the CLI.

mod common;

use common::*;
use proptest::prelude::*;
use rfgen_cosim::blocks::bdi::Pattern;
use rfgen_cosim::blocks::mrf::{Knobs, RandomStimulus, Script, ScriptCycle, ScriptInstr, ScriptWb, ScriptedStimulus};
use rfgen_cosim::glue::{Expected, Glue, Stimulus};
use rfgen_cosim::random::{self, RunOptions};
use rfgen_gen::{Checked, Geometry, SramKind};
use rfgen_model::block::Block;
use rfgen_model::blocks::mrf::Mrf;

fn script(g: &Geometry, max_cycles: usize) -> impl Strategy<Value = Script> {
    let (w, r, tags, lanes) = (g.warps, g.registers, 1u32 << g.tag_bits.min(16), g.lanes);
    let src = proptest::option::weighted(0.7, 0..r);
    let instr =
        (0..w, [src.clone(), src.clone(), src], 0..tags).prop_map(|(warp, srcs, tag)| ScriptInstr { warp, srcs, tag });
    let full = if lanes == 64 { u64::MAX } else { (1u64 << lanes) - 1 };
    let mask = prop_oneof![3 => Just(full), 1 => any::<u64>()];
    let wb = (0..w, 0..r, mask, any::<u32>()).prop_map(|(warp, reg, mask, base)| ScriptWb {
        warp,
        reg,
        mask,
        data: Pattern::Ramp { base, stride: 0x0100_0193 },
    });
    let cycle = (proptest::bool::weighted(0.8), proptest::bool::weighted(0.75), proptest::option::weighted(0.6, wb))
        .prop_map(|(offer, ready, wb)| ScriptCycle { offer, ready, wb, cache: Default::default() });
    (proptest::collection::vec(instr, 0..60), proptest::collection::vec(cycle, 1..max_cycles))
        .prop_map(|(instrs, cycles)| Script { instrs, cycles })
}

/// Runs proptest scripts against the RTL of `checked`; a failure shrinks to a minimal script.
fn lockstep_scripts(checked: &Checked, cases: u32, max_cycles: usize) {
    let g = checked.geometry.clone();
    let lib = build(&rfgen_gen::generate(checked, SramKind::Behavioural));
    let config = ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() };
    proptest!(config, |(s in script(&g, max_cycles), x_seed in any::<u32>())| {
        let cycles = s.cycles.len() as u64;
        let result = mrf_run(&lib, Mrf::new(&g), &mut ScriptedStimulus::new(s), cycles, x_seed);
        prop_assert!(result.mismatch.is_none(), "{}", result.mismatch.unwrap());
        prop_assert_eq!(result.cycles, cycles);
    });
}

#[test]
fn proptest_lockstep_small_configs() {
    for (name, _) in SMALL {
        lockstep_scripts(&small(name), 150, 250);
    }
}

#[test]
fn proptest_lockstep_default_config() {
    lockstep_scripts(&baseline(), 40, 400);
}

/// Long random runs; also checks that the stimulus really exercises the subsystem.
#[test]
fn random_lockstep_has_conflicts_and_agrees() {
    for checked in [small("small"), small("odd"), small("wide"), baseline()] {
        let g = checked.geometry.clone();
        let lib = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
        let mut stimulus = RandomStimulus::new(&g, 11, Knobs::default());
        let result = mrf_run(&lib, Mrf::new(&g), &mut stimulus, 100_000, 5);
        assert!(result.mismatch.is_none(), "{}: {}", checked.config.name, result.mismatch.unwrap());
        let s = result.block.model().stats();
        assert!(s.dispatched > 30_000, "{}: only {} dispatched", checked.config.name, s.dispatched);
        assert!(s.bank_conflicts > 5_000, "{}: only {} bank conflicts", checked.config.name, s.bank_conflicts);
        assert!(s.issued - s.dispatched <= g.collectors as u64);
    }
}

/// A block that leaves one output port undecided fails the run at once, naming the port: a
/// forgotten port can never go unchecked.
#[test]
fn an_output_port_the_block_forgets_fails_the_run() {
    /// The MRF model with glue that never mentions `disp_tag`.
    struct Forgetful(Mrf);
    impl Block for Forgetful {
        type In = <Mrf as Block>::In;
        type Out<'a> = <Mrf as Block>::Out<'a>;
        fn reset(&mut self) {
            self.0.reset()
        }
        fn outputs(&self) -> Self::Out<'_> {
            self.0.outputs()
        }
        fn tick(&mut self, inp: &Self::In) {
            self.0.tick(inp)
        }
    }
    impl Glue for Forgetful {
        type Ports = Vec<rfgen_cosim::verilator::PortSlot>;
        fn bind(&self, layout: &rfgen_cosim::verilator::Layout) -> anyhow::Result<Self::Ports> {
            Ok(layout.outputs.clone())
        }
        fn drive(&self, _: &Self::Ports, _: &Self::In, _: &mut [u32]) {}
        fn expect(&self, outputs: &Self::Ports, _: &Self::Out<'_>, _: &Self::In, exp: &mut Expected) {
            for p in outputs.iter().filter(|p| p.name != "disp_tag") {
                exp.skip(p);
            }
        }
    }
    struct Idle;
    impl Stimulus<Forgetful> for Idle {
        fn next(&mut self, _: u64, _: &<Mrf as Block>::Out<'_>, _: &mut <Mrf as Block>::In) {}
    }
    let checked = small("small");
    let lib = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
    let idle = rfgen_model::blocks::mrf::MrfIn::new(&checked.geometry);
    let opts = RunOptions { cycles: 10, x_seed: 1, waveform: None };
    let e = random::run(&lib, Forgetful(Mrf::new(&checked.geometry)), &mut Idle, idle, &opts, &mut |_| {})
        .err()
        .expect("the run fails");
    assert_eq!(
        e.to_string(),
        "cycle 0: the lockstep block decided nothing for output port `disp_tag`; every output must be compared or skipped"
    );
}

#[test]
fn cli_cosim_default_config_passes() {
    let out = rfgen(&["cosim", "--cycles", "200000", "--seed", "3"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("seed 3"), "{text}");
    for line in ["cycles                     200000", "mismatches                 0", "PASS"] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    let conflicts: u64 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("bank conflicts"))
        .map(|v| v.trim().parse().unwrap())
        .expect("a bank conflict count");
    assert!(conflicts > 10_000, "{text}");
}

#[test]
fn cli_cosim_lists_blocks_and_writes_traces() {
    let out = rfgen(&["cosim", "--list"]);
    assert!(out.status.success());
    assert!(stdout(&out).starts_with("sm "), "{}", stdout(&out));

    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("small.toml");
    std::fs::write(&cfg, SMALL[1].1).unwrap();
    for ext in ["vcd", "fst"] {
        let trace = dir.path().join(format!("run.{ext}"));
        let out = rfgen(&[
            "cosim",
            "--config",
            cfg.to_str().unwrap(),
            "--cycles",
            "300",
            "--seed",
            "9",
            "--trace",
            trace.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
        let bytes = std::fs::read(&trace).unwrap();
        assert!(bytes.len() > 1000, "{ext} trace of {} bytes", bytes.len());
        if ext == "vcd" {
            let text = String::from_utf8_lossy(&bytes);
            assert!(text.contains("disp_src0_data") && text.contains("#3015"), "the trace covers the run");
        }
    }
}
