//! `rfgen sweep` as a user runs it, with real Yosys (and Verilator) runs on small
//! configurations: results, plots, monotonic area, resume, failures and bad input.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;

/// 2 warps of 4 lanes in 2 clusters, 4 banks of 8 x 64 bit, 2 collectors. One bank for the
/// two clusters (`mrf.banks = 1`) is an invalid point.
const CONFIG: &str = "name = \"swp\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 2\nregisters_per_thread = 8\n\
                      [mrf]\nbanks = 4\nentries = 8\ncollectors = 2\ntag_bits = 2\n";

fn config(dir: &Path) -> String {
    let path = dir.join("swp.toml");
    std::fs::write(&path, CONFIG).unwrap();
    path.to_str().unwrap().to_string()
}

fn sweep(args: &[&str]) -> std::process::Output {
    rfgen(&[&["sweep"], args].concat())
}

fn results(out: &Path) -> Vec<Value> {
    let json: Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    json["points"].as_array().unwrap().clone()
}

fn figure(point: &Value, path: &[&str]) -> f64 {
    path.iter().fold(point, |v, k| &v[k]).as_f64().unwrap_or_else(|| panic!("{path:?} in {point}"))
}

/// Modified time and content of every stored point.
fn stored(out: &Path) -> Vec<(String, std::time::SystemTime, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(out.join("points"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let modified = std::fs::metadata(&p).unwrap().modified().unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), modified, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn area_grows_with_banks_and_with_depth() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let out = dir.path().join("mono");
    let o = sweep(&[
        "--config",
        &cfg,
        "--param",
        "mrf.banks=4,8,16",
        "--param",
        "mrf.entries=8,32",
        "--synth",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let points = results(&out);
    assert_eq!(points.len(), 6);
    assert!(points.iter().all(|p| p["status"] == "ok"), "{points:#?}");
    let at = |banks: u64, entries: u64| {
        points
            .iter()
            .find(|p| p["params"]["mrf.banks"] == banks && p["params"]["mrf.entries"] == entries)
            .unwrap_or_else(|| panic!("point {banks} x {entries}"))
    };
    for entries in [8, 32] {
        for (fewer, more) in [(4, 8), (8, 16)] {
            let (a, b) = (at(fewer, entries), at(more, entries));
            for fig in [&["area", "transistors"][..], &["area", "cells"], &["area", "sram", "um2"]] {
                assert!(figure(a, fig) < figure(b, fig), "{fig:?} grows from {fewer} to {more} banks");
            }
        }
    }
    for banks in [4, 8, 16] {
        let (a, b) = (at(banks, 8), at(banks, 32));
        assert!(figure(a, &["area", "sram", "um2"]) < figure(b, &["area", "sram", "um2"]), "deeper banks");
        assert!(figure(a, &["area", "transistors"]) <= figure(b, &["area", "transistors"]), "deeper banks");
    }
    // Every module is measured; below the top under its name without the point's prefix.
    for p in &points {
        let group = figure(p, &["modules", "mrf_bank_group", "transistors"]);
        assert!(group > 0.0 && group < figure(p, &["area", "transistors"]), "{p}");
        assert_eq!(p["modules"]["mrf"], p["area"], "the top is in the modules too");
    }
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.contains(",transistors,") && header.contains(",mrf_bank_group.transistors,"), "{header}");
    // Module prefixes differ per point.
    let names: std::collections::BTreeSet<&str> = points.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 6);
    assert!(names.iter().all(|n| n.starts_with("swp-") && n.len() == 12), "{names:?}");
    // A point's name carries its config hash, the one its files and the CSV name it by.
    for p in &points {
        let (name, hash) = (p["name"].as_str().unwrap(), p["config_hash"].as_str().unwrap());
        assert_eq!(&name[4..], &hash[..8], "{p}");
        assert!(out.join("work").join(hash).is_dir(), "{hash}");
    }
}

#[test]
fn sweep_writes_tables_and_plots_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let out = dir.path().join("sweep");
    let out_s = out.to_str().unwrap();
    let args =
        ["--config", &cfg, "--param", "mrf.collectors=1,2", "--param", "mrf.banks=1,4", "--synth", "--out", out_s];
    let o = sweep(&[&args[..], &["--jobs", "2"]].concat());
    assert!(o.status.success(), "invalid points are not fatal: {}", stderr(&o));
    assert!(stderr(&o).contains("4 points: 2 to measure, 0 done earlier, 2 invalid"), "{}", stderr(&o));

    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("mrf.collectors,mrf.banks,name,config_hash,status,cells,flip_flops,transistors"));
    assert_eq!(lines.len(), 5, "{csv}");
    assert!(
        lines[1].starts_with("1,1,,,invalid,") && lines[1].contains("`mrf.banks` = 1: must be a power of two"),
        "{csv}"
    );
    assert!(lines[2].starts_with("1,4,swp-") && lines[2].contains(",ok,"), "{csv}");
    let points = results(&out);
    assert_eq!(points.iter().filter(|p| p["status"] == "ok").count(), 2);
    for param in ["mrf.collectors", "mrf.banks"] {
        let svg = std::fs::read_to_string(out.join(format!("{param}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains(&format!("area vs {param}")) && svg.contains("transistors"));
    }
    assert!(stdout(&o).contains("mrf.collectors  mrf.banks"), "a summary table: {}", stdout(&o));

    // A rerun with the same settings measures nothing and rewrites the same results.
    let before = stored(&out);
    assert_eq!(before.len(), 2);
    let o = sweep(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("4 points: 0 to measure, 2 done earlier, 2 invalid"), "{}", stderr(&o));
    assert_eq!(stored(&out), before, "stored points are left alone");
    assert_eq!(std::fs::read_to_string(out.join("results.csv")).unwrap(), csv);

    // A point stored by another synthesis flow (older rfgen scripts or another Yosys) is
    // measured again; other settings measure every point again.
    let record = out.join("points").join(&before[0].0);
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains("\"flow\": \"rfgen flow "), "{text}");
    std::fs::write(&record, text.replace("\"flow\": \"rfgen flow ", "\"flow\": \"older rfgen flow ")).unwrap();
    let o = sweep(&args);
    assert!(stderr(&o).contains("1 to measure, 1 done earlier"), "{}", stderr(&o));
    let o = sweep(&[&args[..], &["--sram-um2-per-bit", "1.0"]].concat());
    assert!(stderr(&o).contains("2 to measure, 0 done earlier"), "{}", stderr(&o));
    let again = results(&out);
    let sram = |p: &Value| figure(p, &["area", "sram", "um2"]);
    let ok: Vec<_> = points.iter().zip(&again).filter(|(p, _)| p["status"] == "ok").collect();
    assert!(ok.iter().all(|(p, q)| (sram(q) / sram(p) - 1.0 / 0.5007).abs() < 1e-9), "re-costed");
}

#[test]
fn failed_points_are_reported_and_retried_and_cosim_runs_per_point() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let junk = dir.path().join("junk.lib");
    std::fs::write(&junk, "library (junk) {\n").unwrap();
    let out = dir.path().join("fail");
    let out_s = out.to_str().unwrap();
    let args = ["--config", &cfg, "--param", "mrf.collectors=1", "--out", out_s];
    let o = sweep(&[&args[..], &["--synth", "--liberty", junk.to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(1), "a failed point fails the sweep: {}", stderr(&o));
    let points = results(&out);
    assert_eq!(points[0]["status"], "failed");
    let message = points[0]["message"].as_str().unwrap();
    assert!(message.contains("Yosys failed") && message.contains(".liberty.log"), "{message}");
    assert!(!out.join("points").exists() || stored(&out).is_empty(), "failures are not stored");

    // The same folder, now with cosim: the point is measured and passes.
    let o = sweep(&[&args[..], &["--cosim", "2000", "--seed", "3"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let points = results(&out);
    assert_eq!(points[0]["status"], "ok", "{points:?}");
    assert_eq!(points[0]["cosim"]["cycles"], 2000);
    assert!(points[0]["cosim"]["mismatch"].is_null());
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(csv.lines().nth(1).unwrap().contains(",ok,pass,"), "{csv}");
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--param", "mrf.banks", "--out", o], "--param mrf.banks: expected PATH=LIST, e.g. mrf.collectors=2,4,8"),
        (
            &["--param", "mrf.bank=2", "--out", o],
            "unknown config key `bank` in [mrf] (allowed: banks, collectors, entries",
        ),
        (&["--param", "mfr.banks=2", "--out", o], "unknown config key `mfr` in the top level (allowed:"),
        (&["--param", "mrf=2", "--out", o], "`mrf` is a section; name a key inside it"),
        (&["--param", "name=a,b", "--out", o], "the design name is set per point"),
        (&["--param", "mrf.banks=2,,4", "--out", o], "empty value in the list"),
        (&["--param", "mrf.banks=4,4", "--out", o], "value 4 is listed twice"),
        (&["--param", "mrf.banks=4", "--param", "mrf.banks=8", "--out", o], "given twice"),
        (&["--param", "mrf.banks=4", "--out", o, "--jobs", "0"], "--jobs must be at least 1"),
        (&["--param", "mrf.banks=4", "--out", o, "--cosim", "0"], "--cosim must be at least 1 cycle"),
        (&["--param", "mrf.banks=4", "--out", o, "--liberty", "x.lib"], "--target and --liberty need --synth"),
        (&["--param", "mrf.banks=4", "--out", o, "--target", "ice40"], "--target and --liberty need --synth"),
        (&["--param", "mrf.banks=4", "--out", o, "--synth", "--target", "fpga"], "invalid value 'fpga' for '--target"),
        (&["--param", "mrf.banks=4", "--out", o, "--synth", "--liberty", "/no/cells.lib"], "cannot read Liberty file"),
        (&["--param", "mrf.banks=4"], "--out <DIR>"),
        (&["--param", "mrf.banks=4", "--out", o, "--kernel", "nope"], "`nope` is neither a library kernel (vecadd"),
        (&["--param", "mrf.banks=4", "--out", o, "--kernel", "all", "--kernel", "bfs"], "`bfs` is given twice"),
        (&["--out", o], "--param <PATH=LIST>"),
    ];
    for (args, message) in cases {
        let output = sweep(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains(message), "{args:?}: expected {message:?} in {}", stderr(&output));
    }
    assert!(!out.exists(), "bad input writes nothing");

    // A folder holding anything but an earlier sweep is refused and left as it was.
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("results.csv"), "my data").unwrap();
    let output = sweep(&["--param", "sm.warps=16,32", "--out", mine.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("a folder with other content"), "{}", stderr(&output));
    assert_eq!(std::fs::read_dir(&mine).unwrap().count(), 1);
    assert_eq!(std::fs::read_to_string(mine.join("results.csv")).unwrap(), "my data");
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let output = sweep(&["--param", "sm.warps=16,32", "--out", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("is not a folder"), "{}", stderr(&output));
    // An empty folder is taken, and the same sweep folder again.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for _ in 0..2 {
        let output = sweep(&["--param", "sm.warps=16,32", "--out", empty.to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
}

/// Kernels on the SM model of every point: per-kernel figures and, with several kernels, their
/// total energy and mean RFC savings; kernels that do not fit a point are said so; a rerun
/// skips the points unless a kernel's source changed.
#[test]
fn kernels_run_on_every_point() {
    let dir = tempfile::tempdir().unwrap();
    let kir = dir.path().join("tiny.kir");
    // Written for blocks of 512 threads only, so a smaller SM cannot run it with halved blocks.
    let tiny = ".kernel tiny\n.grid 1 512\n.min_threads 512\n  mov r0, 1\n  add r1, r0, r0\n  add r2, r1, r0\n  exit\n";
    std::fs::write(&kir, tiny).unwrap();
    let out = dir.path().join("k");
    let args = [
        "--preset",
        "isca11-rfc",
        "--param",
        "rfc.entries=1,6",
        "--param",
        "sm.warps=8,32",
        "--kernel",
        "matmul",
        "--kernel",
        kir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let o = sweep(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let points = results(&out);
    let ok: Vec<&Value> = points.iter().filter(|p| p["status"] == "ok").collect();
    assert_eq!(ok.len(), 4, "{points:#?}");
    for p in &ok {
        let sims = p["sim"].as_array().unwrap();
        assert_eq!(sims.len(), 2);
        assert_eq!(sims[1]["kernel"], "tiny");
        assert!(figure(&sims[0], &["rfc", "read_reduction"]) > 0.1, "{p}");
        if p["params"]["sm.warps"] == 8 {
            // 512 threads (the fewest the kernel allows) need 16 warp slots.
            assert!(sims[1]["error"].as_str().unwrap().starts_with("does not fit"), "{p}");
            assert!(p["message"].as_str().unwrap().contains("kernel tiny: does not fit"), "{p}");
        } else {
            assert!(sims[1]["error"].is_null() && figure(&sims[1], &["cycles"]) > 0.0, "{p}");
        }
    }
    let at = |entries: u64| {
        ok.iter().find(|p| p["params"]["rfc.entries"] == entries && p["params"]["sm.warps"] == 32).unwrap()
    };
    let reads = |p: &Value| figure(&p["sim"][0], &["mrf_reads"]);
    assert!(reads(at(6)) < reads(at(1)), "more entries, fewer MRF reads");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for col in
        ["matmul.cycles", "matmul.mrf_read_reduction", "tiny.energy_nj", "all.energy_nj", "all.mrf_write_reduction"]
    {
        assert!(header.contains(col), "{col} in {header}");
    }
    assert!(stdout(&o).contains("RF energy nJ, all kernels"), "{}", stdout(&o));
    assert!(std::fs::read_to_string(out.join("rfc.entries.svg")).unwrap().contains("kernels vs rfc.entries"));

    let o = sweep(&args);
    assert!(stderr(&o).contains("0 to measure, 4 done earlier"), "{}", stderr(&o));
    std::fs::write(&kir, ".kernel tiny\n.grid 1 512\n  mov r0, 2\n  add r1, r0, r0\n  exit\n").unwrap();
    let o = sweep(&args);
    assert!(stderr(&o).contains("4 to measure, 0 done earlier"), "an edited kernel is run again: {}", stderr(&o));
}

/// `--kernel synthetic:KNOBS`: generated kernels, each named by its knobs, on every point.
#[test]
fn synthetic_kernels_get_their_own_columns() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let o = sweep(&[
        "--param",
        "warpboard.policy=none,release_on_commit",
        "--kernel",
        "synthetic:seed=1,length=40",
        "--kernel",
        "synthetic:seed=2,length=40",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for col in ["synthetic(seed=1;length=40).cycles", "synthetic(seed=2;length=40).cycles"] {
        assert!(header.contains(col), "{col} in {header}");
    }
    for p in results(&out) {
        assert_eq!(p["status"], "ok", "{p}");
        assert!(figure(&p["sim"][1], &["cycles"]) > 0.0, "{p}");
    }
    let o = sweep(&["--param", "mrf.banks=32", "--kernel", "synthetic:speed=3", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--kernel synthetic:speed=3: unknown knob `speed`"), "{}", stderr(&o));
}

/// `--synth --target ecp5 --pnr --kernel`, over a pipeline-stage option: every point's top is
/// placed and routed, its Fmax recorded beside the kernel's cycles and their quotient, the
/// kernel's time at that clock, and plotted; --pnr without an FPGA synthesis is refused.
#[test]
fn sweep_records_fmax_per_point() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let out = dir.path().join("fmax");
    let o = sweep(&[
        "--config",
        &cfg,
        "--param",
        "timing.mrf_registered_grant=false,true",
        "--synth",
        "--target",
        "ecp5",
        "--pnr",
        "--kernel",
        "vecadd",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let points = results(&out);
    assert_eq!(points.len(), 2);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    let column = |name: &str| lines[0].split(',').position(|c| c == name).unwrap_or_else(|| panic!("{name}: {csv}"));
    let (cycles, fmax, time) = (column("vecadd.cycles"), column("fmax_mhz"), column("vecadd.time_us"));
    for (p, line) in points.iter().zip(&lines[1..]) {
        assert!(figure(p, &["pnr", "fmax_mhz"]) > 10.0, "{p:#}");
        assert_eq!(p["pnr"]["router"], "router1", "{p:#}");
        let cell = |i: usize| line.split(',').nth(i).unwrap().parse::<f64>().unwrap();
        let expected = cell(cycles) / cell(fmax);
        assert!((cell(time) - expected).abs() <= 0.05 + expected * 0.001, "{line}");
    }
    // The registered grant costs cycles.
    assert!(figure(&points[1]["sim"][0], &["cycles"]) > figure(&points[0]["sim"][0], &["cycles"]), "{csv}");
    assert!(stdout(&o).contains("Fmax MHz"), "{}", stdout(&o));
    assert!(out.join("timing.mrf_registered_grant.svg").exists());
    let o = sweep(&[
        "--config",
        &cfg,
        "--param",
        "mrf.collectors=1,2",
        "--pnr",
        "--out",
        dir.path().join("x").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--pnr needs --synth with --target ecp5 or ice40"), "{}", stderr(&o));
}
