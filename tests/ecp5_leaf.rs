//! The ECP5 memory leaf (`rfgen gen --sram ecp5`, what `rfgen synth --target ecp5` maps): an
//! MRF built with it keeps the behavioural leaf's timing in random and kernel-driven lockstep,
//! with the read data registered (the DP16KD's output register) or not; a leaf without its
//! collision bypass is caught; it is clean under Verilator `-Wall` and Icarus, and Yosys maps
//! each 32-bit lane to one DP16KD; banks deeper than a DP16KD are refused by name.

mod common;

use common::*;
use rfgen_gen::{Checked, Design, SramKind};
use rfgen_model::blocks::mrf::Mrf;
use std::process::Command;

/// The `small` test config (banks of 16 rows of 4 lanes), as it is and with its read data
/// registered, and the leaf file of each.
fn points() -> Vec<(Checked, &'static str)> {
    let text = SMALL.iter().find(|(n, _)| *n == "small").unwrap().1;
    let registered = format!("{text}\n[timing]\nmrf_registered_grant = true\nmrf_registered_read = true\n");
    vec![
        (small("small"), "small_sram_1r1w_16x128.v"),
        (rfgen_gen::config::parse(&registered).unwrap(), "small_sram_1r1w_16x128_r2.v"),
    ]
}

fn ecp5(checked: &Checked) -> Design {
    rfgen_gen::generate(checked, SramKind::Ecp5)
}

#[test]
fn the_ecp5_leaf_agrees_with_the_model() {
    for (checked, leaf) in points() {
        let design = ecp5(&checked);
        let text = &design.files.iter().find(|(f, _)| f == leaf).expect("the design has its leaf").1;
        assert!(text.contains("DP16KD #(") && text.contains("`ifdef SYNTHESIS"), "{leaf}: the primitives");
        for (seed, x_seed) in [(7, 3), (8, 9)] {
            let (mismatch, stats) = random_lockstep::<Mrf>(&checked, &design, 20_000, seed, x_seed);
            assert!(mismatch.is_none(), "{leaf}, seed {seed}: {}", mismatch.unwrap());
            let stat = |n: &str| stats.iter().find(|s| s.0 == n).map_or(0, |s| s.1);
            assert!(stat("operand reads") > 5_000 && stat("register writes") > 5_000, "{leaf}: {stats:?}");
        }
    }
}

/// Kernel-driven, from the CLI: the `small` preset's MRF (read data registered) with the leaf
/// written by `rfgen gen --sram ecp5`, checked as a copy with `rfgen cosim --rtl`.
#[test]
fn the_small_preset_runs_kernels_on_the_ecp5_leaf() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = dir.path().join("rtl");
    let rtl = rtl.to_str().unwrap();
    let o = rfgen(&["gen", "--preset", "small", "--block", "mrf", "--sram", "ecp5", "--out", rtl]);
    assert!(o.status.success(), "{}", stderr(&o));
    for kernel in ["vecadd", "bfs"] {
        let cache = cache_dir();
        let args = ["cosim", "--preset", "small", "--block", "mrf", "--rtl", rtl, "--kernel", kernel];
        let o = rfgen(&[&args[..], &["--cache-dir", cache.to_str().unwrap()]].concat());
        assert!(o.status.success() && stdout(&o).contains("PASS"), "{kernel}: {}{}", stdout(&o), stderr(&o));
    }
}

/// Without the bypass a read of the word landing that cycle gets the block RAM's undefined data
/// (the model's: the old word inverted).
#[test]
fn a_leaf_without_its_bypass_is_caught() {
    for (checked, leaf) in points() {
        let (from, to) = if leaf.ends_with("_r2.v") {
            ("hit_q <= {4{rd_en & wq_en & (rd_addr == wq_addr)}} & wq_mask;", "hit_q <= 4'b0;")
        } else {
            ("hit_q <= {4{wq_en & (rd_addr == wq_addr)}} & wq_mask;", "hit_q <= 4'b0;")
        };
        let design = mutated(ecp5(&checked), leaf, from, to, "no bypass");
        let (mismatch, _) = random_lockstep::<Mrf>(&checked, &design, 20_000, 7, 3);
        assert!(mismatch.is_some(), "{leaf}: a leaf without its bypass passed");
    }
}

#[test]
fn the_ecp5_leaf_is_lint_clean_and_maps_one_dp16kd_per_lane() {
    for (checked, leaf) in points() {
        let design = ecp5(&checked);
        let dir = tempfile::tempdir().unwrap();
        design.write(&dir.path().join("rtl"), false).unwrap();
        let rtl = dir.path().join("rtl");
        let files: Vec<String> = design.sources().map(|(n, _)| n.clone()).collect();
        let run = |program: &str, args: &[&str]| {
            let out = Command::new(program).current_dir(&rtl).args(args).output().expect("installed by scripts/test");
            (
                out.status.success(),
                format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
            )
        };
        let mut args = vec!["--lint-only", "-Wall"];
        args.extend(files.iter().map(String::as_str));
        let (ok, log) = run("verilator", &args);
        assert!(ok && log.trim().is_empty(), "verilator -Wall with {leaf}:\n{log}");
        let mut args = vec!["-g2005", "-Wall", "-o", "/dev/null", "-s", &design.manifest.top];
        args.extend(files.iter().map(String::as_str));
        let (ok, log) = run("iverilog", &args);
        assert!(ok && log.trim().is_empty(), "iverilog with {leaf}:\n{log}");
        let top = leaf.trim_end_matches(".v");
        let (ok, log) = run("yosys", &["-p", &format!("read_verilog {leaf}; synth_ecp5 -top {top}; stat")]);
        assert!(ok, "yosys on {leaf}:\n{log}");
        let count = |cell: &str| {
            log.lines().rev().find_map(|l| l.trim().strip_prefix(cell).and_then(|n| n.trim().parse::<u32>().ok()))
        };
        assert_eq!(count("DP16KD"), Some(checked.geometry.lanes_per_cluster), "{leaf}: one DP16KD per lane\n{log}");
        assert_eq!(count("TRELLIS_DPR16X4"), None, "{leaf}: no LUT RAM");
    }
}

#[test]
fn banks_deeper_than_a_dp16kd_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rtl");
    let o = rfgen(&[
        "gen",
        "--preset",
        "war-warpboard",
        "--block",
        "mrf",
        "--sram",
        "ecp5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("at most 512 words") && stderr(&o).contains("1024 rows"), "{}", stderr(&o));
    assert!(!out.exists(), "nothing is written");
}
