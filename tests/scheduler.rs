//! The warp scheduler's RTL against its model: every policy under random traffic on a small SM
//! (6 warps, 3 active) and the default one, every library kernel driving it from the SM model,
//! and seeded RTL bugs caught.

mod common;

use common::*;
use rfgen_gen::Checked;
use rfgen_gen::config::{self, SchedulerPolicy};
use rfgen_model::blocks::scheduler::Scheduler;
use rfgen_model::kernel::library;

const POLICIES: [SchedulerPolicy; 3] = [SchedulerPolicy::Lrr, SchedulerPolicy::Gto, SchedulerPolicy::TwoLevel];

/// The default SM and the small one, with `policy`.
fn configs(policy: SchedulerPolicy) -> [Checked; 2] {
    [config::preset("baseline").unwrap(), config::parse(SCHEDULER_SMALL).unwrap()].map(|mut c| {
        c.config.scheduler.policy = policy;
        c
    })
}

#[test]
fn every_scheduler_rtl_agrees_with_its_model() {
    for policy in POLICIES {
        for checked in configs(policy) {
            let design = rfgen_gen::emit::generate_scheduler(&checked);
            let (mismatch, stats) = random_lockstep::<Scheduler>(&checked, &design, 20_000, 9, 3);
            assert!(mismatch.is_none(), "{policy:?} {}: {}", checked.config.name, mismatch.unwrap());
            let stat = |n: &str| stats.iter().find(|s| s.0 == n).unwrap().1;
            assert!(stat("cycles anything eligible") > 15_000 && stat("last-instruction flags") > 300, "{stats:?}");
            match policy {
                SchedulerPolicy::TwoLevel => assert!(stat("deschedules") > 1_000, "{stats:?}"),
                SchedulerPolicy::Gto => assert!(stat("warps launched") > 1_000, "{stats:?}"),
                SchedulerPolicy::Lrr => {}
            }
        }
    }
}

/// The SM model drives each policy's RTL with every library kernel (two-level also behind a
/// register file cache, whose flushes hold refills): RTL and model agree on every grant.
#[test]
fn every_library_kernel_drives_every_scheduler_rtl() {
    use rfgen_cosim::session::cosim_kernel;
    let mut points: Vec<Checked> = POLICIES.iter().map(|&p| configs(p)[0].clone()).collect();
    points.push(config::preset("isca11-rfc").unwrap());
    for checked in points {
        let design = rfgen_gen::emit::generate_scheduler(&checked);
        let opts = kernel_options(rfgen_gen::Block::Scheduler);
        let (mut instructions, mut deschedules) = (0, 0);
        for lib in library::KERNELS {
            let k = lib.parse().unwrap();
            let r = cosim_kernel(&checked, &design, &k, &opts, &mut |_| {}).unwrap();
            let name = &checked.config.name;
            assert!(
                r.passed(),
                "{name} {:?} {}: {:?} {:?}",
                checked.config.scheduler.policy,
                k.name,
                r.mismatch,
                r.kernel_error
            );
            instructions += r.stats.iter().find(|s| s.0 == "warp instructions").unwrap().1;
            deschedules += r.stats.iter().find(|s| s.0 == "deschedules").unwrap().1;
        }
        assert!(instructions > 10_000, "{instructions}");
        let two_level = checked.config.scheduler.policy == SchedulerPolicy::TwoLevel;
        assert_eq!(deschedules > 0, two_level, "{}", checked.config.name);
    }
}

#[test]
fn cli_generates_and_cosimulates_the_scheduler() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("sched");
    let out = rfgen(&["gen", "--block", "scheduler", "--preset", "isca11-rfc", "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(out_dir.join("isca11_rfc_scheduler.v")).unwrap();
    assert!(text.contains("two-level") && text.contains("rfgen gen --block scheduler"), "{text}");
    let out = rfgen(&["cosim", "--block", "scheduler", "--preset", "isca11-rfc", "--cycles", "5000", "--seed", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("PASS"), "{}", stdout(&out));
}

#[test]
fn lockstep_catches_every_scheduler_mutation() {
    for family in mutants::of_block("scheduler") {
        let checked = (family.config)();
        let design = rfgen_gen::emit::generate_scheduler(&checked);
        for m in family.mutants {
            let (mismatch, _) = random_lockstep::<Scheduler>(&checked, &m.apply(&design), 20_000, 9, 3);
            let mismatch = mismatch.unwrap_or_else(|| panic!("mutation `{}` was not detected", m.name));
            eprintln!("{} -> cycle {} port {}", m.name, mismatch.cycle, mismatch.ports[0].port);
        }
    }
}

/// TRWS (seed 003 §4.3) on LRR and GTO: the warps marked first are scheduled before the others,
/// in lockstep with the model; a scheduler that ignores the mark is caught.
#[test]
fn trws_schedules_marked_warps_first() {
    for policy in [SchedulerPolicy::Lrr, SchedulerPolicy::Gto] {
        let text = format!("{SCHEDULER_SMALL}[rename]\nenabled = true\ntrws = true\ncmos_rows = 48\n");
        let mut checked = config::parse(&text).unwrap();
        checked.config.scheduler.policy = policy;
        let design = rfgen_gen::emit::generate_scheduler(&checked);
        let (mismatch, _) = random_lockstep::<Scheduler>(&checked, &design, 20_000, 9, 3);
        assert!(mismatch.is_none(), "{policy:?}: {}", mismatch.unwrap());
        let from = "assign pick = (|eligible_first) ? eligible_first : eligible;";
        let bad = mutated(design, "ssmall_scheduler.v", from, "assign pick = eligible;", "TRWS ignored");
        let (mismatch, _) = random_lockstep::<Scheduler>(&checked, &bad, 20_000, 9, 3);
        assert!(mismatch.is_some(), "{policy:?}: a scheduler ignoring TRWS was not caught");
    }
}

/// Resets in the middle of a random run (model and RTL together): the greedy scheduler's last
/// issuer left valid by reset is caught. At the start of a run nothing tells it apart (every
/// warp is as old as its slot, so the greedy choice and the oldest agree); after a mid-run
/// reset, a warp launched again before any grant is the youngest and must not be kept.
#[test]
fn a_wrong_reset_value_is_caught_by_a_mid_run_reset() {
    let mut checked = config::parse(SCHEDULER_SMALL).unwrap();
    checked.config.scheduler.policy = SchedulerPolicy::Gto;
    let design = rfgen_gen::emit::generate_scheduler(&checked);
    let (mismatch, stats) = random_lockstep::<Scheduler>(&checked, &design, 20_000, 9, 3);
    assert!(mismatch.is_none(), "{}", mismatch.unwrap());
    let resets = stats.iter().find(|s| s.0 == "resets in the run").unwrap().1;
    assert!(resets > 10, "{stats:?}");
    let wrong = mutated(
        design,
        "ssmall_scheduler.v",
        "last_valid <= 1'b0;",
        "last_valid <= 1'b1;",
        "last issuer valid at reset",
    );
    let (mismatch, _) = random_lockstep::<Scheduler>(&checked, &wrong, 20_000, 9, 3);
    assert!(mismatch.is_some(), "a scheduler leaving its last issuer valid at reset is caught");
}
