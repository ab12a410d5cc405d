//! The issue stage's RTL (`<prefix>_issue`: scoreboard, warpboard, scheduler and the check
//! between them) against the model the SM runs: random traffic over the scheduler and warpboard
//! policies on a small SM and two full-size ones, every library kernel driving it from the SM
//! model, and seeded RTL bugs in each part and in the check caught.

mod common;

use common::*;
use rfgen_gen::config::{self, SchedulerPolicy, WarPolicy};
use rfgen_model::blocks::issue::Issue;
use rfgen_model::kernel::library;

/// Every scheduler policy and every kind of warpboard (none, a busy bit, 1-bit and counting
/// bins) on the small SM, and the two full-size presets of the issue stage.
#[test]
fn issue_stage_rtl_agrees_with_its_model() {
    use SchedulerPolicy::*;
    let mut points = vec![
        issue_small(Lrr, WarPolicy::None),
        issue_small(Gto, WarPolicy::Bloom2),
        issue_small(TwoLevel, WarPolicy::ReleaseOnRead),
        issue_small(TwoLevel, WarPolicy::Bloom1),
        issue_small(Gto, WarPolicy::ReleaseOnCommit),
        issue_small(Lrr, WarPolicy::BloomUnbounded),
    ];
    // Beside an ORF/LRF the stage has a per-warp stall (a fill on its way).
    points.push(upper("osmall"));
    // Beside a rename stage with TRWS: the stall (no register free) and the warps put first.
    let mut renamed = issue_small(Gto, WarPolicy::None);
    renamed.config.rename = config::Rename { enabled: true, trws: true, cmos_rows: 48, ..Default::default() };
    points.push(config::check(renamed.config).unwrap());
    points.push(config::preset("war-warpboard").unwrap());
    points.push(config::preset("isca11-rfc").unwrap());
    for checked in points {
        let design = rfgen_gen::emit::generate_issue(&checked);
        let (mismatch, stats) = random_lockstep::<Issue>(&checked, &design, 20_000, 11, 3);
        let c = &checked.config;
        let what = format!("{} {:?} {:?}", c.name, c.scheduler.policy, c.warpboard.policy);
        assert!(mismatch.is_none(), "{what}: {}", mismatch.unwrap());
        let stat = |n: &str| stats.iter().find(|s| s.0 == n).unwrap().1;
        assert!(
            stat("register releases") > 1_000 && stat("leaves") > 5_000 && stat("resets in the run") > 10,
            "{what}: {stats:?}"
        );
    }
}

/// The SM model drives the issue stage's RTL with every library kernel: RTL and model agree on
/// every grant and eligible warp, the warpboard and scoreboard held some slots.
#[test]
fn every_library_kernel_drives_the_issue_stage_rtl() {
    use rfgen_cosim::session::cosim_kernel;
    for checked in [config::preset("war-warpboard").unwrap(), config::preset("isca11-rfc").unwrap()] {
        let design = rfgen_gen::emit::generate_issue(&checked);
        let opts = kernel_options(rfgen_gen::Block::Issue);
        let mut held = [0; 3];
        for lib in library::KERNELS {
            let k = lib.parse().unwrap();
            let r = cosim_kernel(&checked, &design, &k, &opts, &mut |_| {}).unwrap();
            let name = &checked.config.name;
            assert!(r.passed(), "{name} {}: {:?} {:?}", k.name, r.mismatch, r.kernel_error);
            let stat = |n: &str| r.stats.iter().find(|s| s.0 == n).unwrap().1;
            for (h, n) in held.iter_mut().zip([
                "issue slots the scoreboard held",
                "issue slots the warpboard held",
                "deschedules",
            ]) {
                *h += stat(n);
            }
        }
        let c = &checked.config;
        assert!(held[0] > 0, "{}", c.name);
        assert_eq!(held[1] > 0, c.warpboard.policy != WarPolicy::None, "{}", c.name);
        assert_eq!(held[2] > 0, c.scheduler.policy == SchedulerPolicy::TwoLevel, "{}", c.name);
    }
}

#[test]
fn cli_generates_and_cosimulates_the_issue_stage() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("issue");
    let out = rfgen(&["gen", "--block", "issue", "--preset", "war-warpboard", "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for module in ["issue", "scoreboard", "warpboard", "scheduler", "reg_map"] {
        assert!(out_dir.join(format!("war_warpboard_{module}.v")).exists(), "{module}");
    }
    let out = rfgen(&["cosim", "--block", "issue", "--preset", "war-warpboard", "--kernel", "heartwall"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("PASS"), "{}", stdout(&out));
}

#[test]
fn lockstep_catches_every_issue_stage_mutation() {
    for family in mutants::of_block("issue") {
        let checked = (family.config)();
        let design = rfgen_gen::emit::generate_issue(&checked);
        for m in family.mutants {
            let (mismatch, _) = random_lockstep::<Issue>(&checked, &m.apply(&design), 20_000, 11, 3);
            let mismatch = mismatch.unwrap_or_else(|| panic!("mutation `{}` was not detected", m.name));
            eprintln!("{} -> cycle {} port {}", m.name, mismatch.cycle, mismatch.ports[0].port);
        }
    }
}

/// `rfgen bench cosim --kernel` for a block inside the issue path: the SM model drives the issue
/// stage's RTL, and the three figures are measured on that traffic.
#[test]
fn cli_benchmarks_the_issue_stage_under_a_kernel() {
    let out = rfgen(&[
        "bench",
        "cosim",
        "--block",
        "issue",
        "--preset",
        "war-warpboard",
        "--kernel",
        "matmul",
        "--cycles",
        "2000",
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(
        text.contains("block issue, config war-warpboard") && text.contains("kernel matmul on the SM model"),
        "{text}"
    );
    for figure in ["(a) lockstep cosim", "(b) Verilated RTL", "(c) model alone"] {
        let line = text.lines().find(|l| l.contains(figure)).unwrap_or_else(|| panic!("no {figure} in {text}"));
        let cps: f64 = line.split_whitespace().find_map(|w| w.parse().ok()).unwrap();
        assert!(cps > 0.0, "{line}");
    }
}
