//! `rfgen cosim --x-seeds N`: the same stimulus from N power-up states of the registers without
//! a reset, one line each; a bug only some power-up states show is missed by a run from one of
//! the others and caught by several, and the reproducer names the x-seed that failed.

mod common;

use common::*;
use std::path::Path;

/// The `x-seed K  verdict` lines of a multi-x-seed run, in order.
fn verdicts(out: &str) -> Vec<(u32, String)> {
    out.lines()
        .filter_map(|l| l.strip_prefix("  x-seed "))
        .filter_map(|l| {
            let (x, verdict) = l.split_once(' ')?;
            Some((x.parse().ok()?, verdict.trim().to_string()))
        })
        .collect()
}

#[test]
fn several_x_seeds_run_the_same_stimulus_one_line_each() {
    let o = rfgen(&[
        "cosim",
        "--preset",
        "small",
        "--block",
        "scoreboard",
        "--seed",
        "5",
        "--cycles",
        "3000",
        "--x-seeds",
        "3",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("seed 5, x-seeds 5 to 7, 3000 cycles"), "{out}");
    let lines = verdicts(&out);
    assert_eq!(lines.iter().map(|(x, _)| *x).collect::<Vec<_>>(), [5, 6, 7], "{out}");
    assert!(lines.iter().all(|(_, v)| v == "pass, 3000 cycles"), "{out}");
    assert!(out.contains("PASS: RTL and model agree on every compared output under 3 x-seeds"), "{out}");
    // One build serves every x-seed: built at most once (not at all when cached).
    assert!(stderr(&o).matches("building Verilator model").count() <= 1, "{}", stderr(&o));

    // Under a kernel the x-seeds start from 1, the kernel mode's default.
    let k = rfgen(&["cosim", "--preset", "small", "--block", "scoreboard", "--kernel", "vecadd", "--x-seeds", "2"]);
    let out = stdout(&k);
    assert_eq!(k.status.code(), Some(0), "{out}{}", stderr(&k));
    assert!(out.contains("kernel vecadd on the SM model, x-seeds 1 to 2"), "{out}");
    assert_eq!(verdicts(&out).iter().map(|(x, _)| *x).collect::<Vec<_>>(), [1, 2], "{out}");

    // Without the flag, one run as before: no per-x-seed lines.
    let one = rfgen(&["cosim", "--preset", "small", "--block", "scoreboard", "--seed", "5", "--cycles", "3000"]);
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert!(stdout(&one).contains("seed 5, x-seed 5, 3000 cycles"), "{}", stdout(&one));
    assert!(verdicts(&stdout(&one)).is_empty(), "{}", stdout(&one));
}

/// The `small` scoreboard written into `tmp/rtl` with a reset that misses the top bit of
/// `pending`: that bit powers up as the x-seed draws it and reaches the output at once, so about
/// half of the power-up states show the bug.
fn unreset_pending_bit(tmp: &Path) -> std::path::PathBuf {
    let dir = tmp.join("rtl");
    let g = rfgen(&["gen", "--preset", "small", "--block", "scoreboard", "--out", dir.to_str().unwrap()]);
    assert_eq!(g.status.code(), Some(0), "{}", stderr(&g));
    let file = dir.join("small_scoreboard.v");
    let text = std::fs::read_to_string(&file).unwrap();
    let (from, to) = ("      pending <= 256'd0;", "      pending[254:0] <= 255'd0;");
    assert!(text.contains(from), "the scoreboard resets `pending` as one vector:\n{text}");
    std::fs::write(&file, text.replace(from, to)).unwrap();
    dir
}

/// A single x-seed may hide the unreset bit; several catch it.
#[test]
fn a_bug_only_some_power_up_states_show_is_caught_by_several_x_seeds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = unreset_pending_bit(tmp.path());
    let waves = tmp.path().join("waves");
    std::fs::create_dir(&waves).unwrap();

    let rtl = dir.to_str().unwrap();
    let wave_dir = waves.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["cosim", "--preset", "small", "--block", "scoreboard", "--rtl", rtl, "--seed", "5"];
        args.extend(["--cycles", "50", "--wave-dir", wave_dir]);
        args.extend(extra);
        rfgen(&args)
    };
    let o = run(&["--x-seeds", "16"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    let lines = verdicts(&out);
    assert_eq!(lines.len(), 16, "{out}");
    let failed: Vec<u32> = lines.iter().filter(|(_, v)| v.starts_with("MISMATCH")).map(|(x, _)| *x).collect();
    let passed: Vec<u32> = lines.iter().filter(|(_, v)| v.starts_with("pass")).map(|(x, _)| *x).collect();
    assert_eq!(failed.len() + passed.len(), 16, "{out}");
    assert!(!failed.is_empty() && !passed.is_empty(), "some power-up states show the bug, others not:\n{out}");
    assert!(lines.iter().filter(|(_, v)| v.starts_with("MISMATCH")).all(|(_, v)| v.ends_with("on pending")), "{out}");
    let list: Vec<String> = failed.iter().map(u32::to_string).collect();
    assert!(
        out.contains(&format!("FAIL: RTL and model differ under {} of 16 x-seeds ({})", failed.len(), list.join(", "))),
        "{out}"
    );

    // The first failure is explained in full, its reproducer naming its x-seed: run alone, it fails.
    assert!(out.contains(&format!("x-seed {}, the first that failed:", failed[0])), "{out}");
    let reproduce = out.lines().find_map(|l| l.trim().strip_prefix("reproduce: rfgen ")).expect("a reproducer");
    assert!(reproduce.contains(&format!(" --x-seed {} ", failed[0])), "{reproduce}");
    let mut args: Vec<&str> = reproduce.split_whitespace().collect();
    args.extend(["--wave-dir", wave_dir]);
    let again = rfgen(&args);
    assert_eq!(again.status.code(), Some(1), "{}", stdout(&again));
    assert!(stdout(&again).contains("port pending"), "{}", stdout(&again));
    assert!(Path::new(&waves).join("cosim-scoreboard-seed5.vcd").is_file());

    // A run from one power-up state that hides it passes: one x-seed alone misses the bug.
    let alone = run(&["--x-seed", &passed[0].to_string()]);
    assert_eq!(alone.status.code(), Some(0), "{}", stdout(&alone));
}

/// Verilator takes x-seed 0 as "draw one from the system": no run may use it, or it could not be
/// repeated.
#[test]
fn x_seed_zero_is_never_used() {
    let o = rfgen(&["cosim", "--preset", "small", "--block", "scoreboard", "--x-seed", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("could not be repeated"), "{}", stderr(&o));
    // Seed 0 runs from x-seed 1, and its --x-seeds from 1 up.
    let o = rfgen(&["cosim", "--preset", "small", "--block", "scoreboard", "--seed", "0", "--cycles", "200"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("seed 0, x-seed 1, 200 cycles"), "{}", stdout(&o));
    let o = rfgen(&[
        "cosim",
        "--preset",
        "small",
        "--block",
        "scoreboard",
        "--seed",
        "0",
        "--cycles",
        "200",
        "--x-seeds",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(verdicts(&stdout(&o)).iter().map(|(x, _)| *x).collect::<Vec<_>>(), [1, 2], "{}", stdout(&o));
}

/// `rfgen regress --x-seeds N` runs every case from N power-up states, each its own case named
/// by its x-seed: the same unreset bit fails some of them, and each failure's reproducer names
/// its x-seed.
#[test]
fn regress_runs_every_case_under_several_x_seeds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = unreset_pending_bit(tmp.path());
    let junit = tmp.path().join("r.xml");
    let o = rfgen(&[
        "regress",
        "--preset",
        "small",
        "--block",
        "scoreboard",
        "--rtl",
        dir.to_str().unwrap(),
        "--kernel",
        "none",
        "--seeds",
        "1",
        "--cycles",
        "50",
        "--x-seeds",
        "16",
        "--junit",
        junit.to_str().unwrap(),
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), 16, "{xml}");
    // One case under the seed's own x-seed, fifteen named by theirs; some fail, some pass.
    assert_eq!(xml.matches("<testcase name=\"random seed ").count(), 16, "{xml}");
    let named = xml.lines().filter(|l| l.trim_start().starts_with("<testcase ") && l.contains(", x-seed ")).count();
    assert_eq!(named, 15, "{xml}");
    let failed = xml.matches("<failure").count();
    assert!(failed > 0 && failed < 16, "some power-up states show the bug, others not:\n{out}");
    // Each failure named by its x-seed has a reproducer naming it, which fails alone.
    let report = &out[out.find("failed cases:").expect("the failures are listed")..];
    let lines: Vec<&str> = report.lines().collect();
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(x) = line.split(", x-seed ").nth(1).and_then(|r| r.strip_suffix(": MISMATCH at cycle 0")) else {
            continue;
        };
        let reproduce = lines[i..].iter().find_map(|l| l.trim().strip_prefix("reproduce: rfgen ")).unwrap();
        assert!(reproduce.contains(&format!(" --x-seed {x} ")), "{reproduce}");
        if checked == 0 {
            let again = rfgen(&reproduce.split_whitespace().collect::<Vec<_>>());
            assert_eq!(again.status.code(), Some(1), "{}", stdout(&again));
        }
        checked += 1;
    }
    assert!(checked > 0, "no failure under an x-seed of its own:\n{out}");
}
