//! Seed 002's write-after-read hazard on the SM model: without protection the heartwall pattern
//! corrupts operands, reported as WAR hazards naming the instruction pair; every warpboard
//! prevents it, at a cost the model measures. RTL level: every policy's generated warpboard in
//! lockstep with its model under random issue-stage traffic, and seeded RTL bugs caught.

mod common;

use common::*;
use rfgen_gen::Checked;
use rfgen_gen::config::{self, WarPolicy};
use rfgen_model::blocks::warpboard::Warpboard;
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
    assert!(stderr(&out).contains("(write-after-read hazards); set warpboard.policy"), "{}", stderr(&out));

    let out = rfgen(&["sim", "--preset", "war-warpboard", "--kernel", "heartwall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("warpboard "), "the stall breakdown names the warpboard");
}

fn configs(policy: WarPolicy) -> [Checked; 2] {
    let mut small = config::parse(WARPBOARD_SMALL).unwrap();
    small.config.warpboard.policy = policy;
    let mut default = config::preset("baseline").unwrap();
    default.config.warpboard.policy = policy;
    [default, small]
}

#[test]
fn every_warpboard_rtl_agrees_with_its_model() {
    for policy in PROTECTING {
        // The small SM too for the bins (one bank group; bloomN counts to 9 in 4 bits there).
        let bloom = !matches!(policy, WarPolicy::ReleaseOnCommit | WarPolicy::ReleaseOnRead);
        for checked in configs(policy).into_iter().take(if bloom { 2 } else { 1 }) {
            let design = rfgen_gen::emit::generate_warpboard(&checked).unwrap();
            let (mismatch, stats) = random_lockstep::<Warpboard>(&checked, &design, 20_000, 5, 3);
            assert!(mismatch.is_none(), "{policy:?} {}: {}", checked.config.name, mismatch.unwrap());
            let stat = |n: &str| stats.iter().find(|s| s.0 == n).unwrap().1;
            assert!(
                stat("instructions issued") > 3_000
                    && stat("issues the warpboard stalled") > 300
                    && stat("resets in the run") > 5,
                "{stats:?}"
            );
        }
    }
}

/// The SM model drives each policy's RTL with every library kernel: RTL and model agree, every
/// operand is right, and the warpboard held some issue slots.
#[test]
fn every_library_kernel_drives_every_warpboard_rtl() {
    use rfgen_cosim::session::cosim_kernel;
    for policy in PROTECTING {
        let [checked, _] = configs(policy);
        let design = rfgen_gen::emit::generate_warpboard(&checked).unwrap();
        let opts = kernel_options(rfgen_gen::Block::Warpboard);
        let mut held = 0;
        for lib in library::KERNELS {
            let k = lib.parse().unwrap();
            let r = cosim_kernel(&checked, &design, &k, &opts, &mut |_| {}).unwrap();
            assert!(r.passed(), "{policy:?} {}: {:?} {:?}", k.name, r.mismatch, r.kernel_error);
            held += r.stats.iter().find(|s| s.0 == "issue slots the warpboard held").unwrap().1;
        }
        assert!(held > 0, "{policy:?}");
    }
}

#[test]
fn cosim_of_the_warpboard_needs_a_policy() {
    let out = rfgen(&["cosim", "--block", "warpboard", "--cycles", "10"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`warpboard.policy` = \"none\": there is no warpboard to generate"),
        "{}",
        stderr(&out)
    );
    let out = rfgen(&["cosim", "--block", "warpboard", "--preset", "war-warpboard", "--cycles", "5000", "--seed", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("PASS"), "{}", stdout(&out));
}

#[test]
fn lockstep_catches_every_warpboard_mutation() {
    for family in mutants::of_block("warpboard") {
        let checked = (family.config)();
        let design = rfgen_gen::emit::generate_warpboard(&checked).unwrap();
        for m in family.mutants {
            let (mismatch, _) = random_lockstep::<Warpboard>(&checked, &m.apply(&design), 20_000, 5, 3);
            let mismatch = mismatch.unwrap_or_else(|| panic!("mutation `{}` was not detected", m.name));
            eprintln!("{} -> cycle {} port {}", m.name, mismatch.cycle, mismatch.ports[0].port);
        }
    }
}
