//! Seed 002's write-after-read hazard on the SM model: without protection the heartwall pattern
//! corrupts operands, reported as WAR hazards naming the instruction pair; every warpboard
//! prevents it, at a cost the model measures.

mod common;

use common::*;
use rfgen_gen::config::{self, WarPolicy};
use rfgen_model::kernel::library;
use rfgen_model::sm::Sm;

const PROTECTING: [WarPolicy; 5] = [
    WarPolicy::ReleaseOnCommit,
    WarPolicy::ReleaseOnRead,
    WarPolicy::Bloom1,
    WarPolicy::Bloom2,
    WarPolicy::BloomUnbounded,
];

fn with_policy(policy: WarPolicy) -> rfgen_gen::Checked {
    let mut c = config::preset("war-warpboard").unwrap();
    c.config.warpboard.policy = policy;
    c
}

fn run(checked: &rfgen_gen::Checked, kernel: &str) -> rfgen_model::sm::SimStats {
    let k = library::find(kernel).unwrap().parse().unwrap();
    let mut sm = Sm::new(checked, &k).unwrap();
    sm.run(10_000_000, &mut |_| {}).unwrap();
    sm.stats().clone()
}

#[test]
fn heartwall_corrupts_operands_without_a_warpboard_and_never_with_one() {
    let none = run(&with_policy(WarPolicy::None), "heartwall");
    assert!(none.war_hazards > 0, "the hazard happens on this design point");
    assert_eq!(none.war_hazards, none.operand_mismatches, "every wrong operand is explained as a WAR hazard");
    // The mad reading r0 (line 23) and the add writing it right after (line 24).
    for e in &none.mismatch_examples {
        assert_eq!((e.line, e.operand, e.war_writer_line), (23, 1, Some(24)), "{e:?}");
    }
    for policy in PROTECTING {
        let s = run(&with_policy(policy), "heartwall");
        assert_eq!(s.operand_mismatches, 0, "{policy:?}");
        assert!(s.stalls.warpboard > 0, "{policy:?} held some instruction");
        assert_eq!(s.warp_instructions, none.warp_instructions, "{policy:?} runs the same program");
    }
}

/// Release-on-commit keeps one instruction per warp in flight, release-on-read one per warp in
/// the collectors: both cost more than a bloomboard, whose counters only stall writes.
#[test]
fn coarser_warpboards_stall_more() {
    let cycles = |p| run(&with_policy(p), "matmul").cycles;
    let (commit, read, bloom2, unbounded) = (
        cycles(WarPolicy::ReleaseOnCommit),
        cycles(WarPolicy::ReleaseOnRead),
        cycles(WarPolicy::Bloom2),
        cycles(WarPolicy::BloomUnbounded),
    );
    assert!(commit > read && read > bloom2, "{commit} {read} {bloom2}");
    assert!(bloom2 >= unbounded, "{bloom2} {unbounded}");
}

#[test]
fn every_library_kernel_runs_right_under_every_warpboard() {
    for policy in PROTECTING {
        let mut c = config::preset("baseline").unwrap();
        c.config.warpboard.policy = policy;
        for lib in library::KERNELS {
            let s = run(&c, lib.name);
            assert_eq!(s.operand_mismatches, 0, "{policy:?} {}", lib.name);
            assert!(s.stalls.warpboard > 0 || policy != WarPolicy::ReleaseOnCommit, "{}", lib.name);
        }
    }
}

#[test]
fn cli_sim_names_the_hazard_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("none.toml");
    let text = include_str!("../configs/war-warpboard.toml").replace("policy = \"bloom2\"", "policy = \"none\"");
    std::fs::write(&path, text).unwrap();
    let out = rfgen(&["sim", "--config", path.to_str().unwrap(), "--kernel", "heartwall"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("WAR hazards"), "{text}");
    assert!(text.contains("line 23 operand 1") && text.contains("(WAR: overwritten by line 24)"), "{text}");

    let out = rfgen(&["sim", "--preset", "war-warpboard", "--kernel", "heartwall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("warpboard "), "the stall breakdown names the warpboard");
}
