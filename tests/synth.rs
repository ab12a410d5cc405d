//! `rfgen synth` as a user runs it, with real Yosys runs on small configurations: the cell
//! classes of known modules, every module in every format, Liberty µm², and clear errors.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// 2 warps of 4 lanes in 2 clusters, 4 banks of 8 x 64 bit, 2 collectors (6 operand slots).
const CONFIG: &str = "name = \"syn\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 2\nregisters_per_thread = 8\n\
                      [mrf]\nbanks = 4\nentries = 8\ncollectors = 2\ntag_bits = 2\n";

fn config(dir: &Path) -> String {
    let path = dir.join("syn.toml");
    std::fs::write(&path, CONFIG).unwrap();
    path.to_str().unwrap().to_string()
}

/// `rfgen synth ... --format json`, which must succeed.
fn synth_json(args: &[&str]) -> Value {
    let mut all = vec!["synth", "--format", "json"];
    all.extend(args);
    let out = rfgen(&all);
    assert!(out.status.success(), "rfgen {all:?}: {}", stderr(&out));
    // Piped, progress comes as one line per synthesized module with its time.
    let log = stderr(&out);
    assert!(log.contains("synthesizing ") && log.contains(": done in "), "no progress lines: {log}");
    serde_json::from_str(&stdout(&out)).expect("JSON output")
}

fn module<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["modules"].as_array().unwrap().iter().find(|m| m["module"] == name).unwrap_or_else(|| panic!("{name}"))
}

fn cell_types(m: &Value) -> Vec<String> {
    m["cells_by_type"].as_object().unwrap().keys().cloned().collect()
}

#[test]
fn known_modules_map_to_the_expected_cell_classes() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    // A round-robin arbiter over N requesters keeps a ceil(log2 N)-bit pointer with a
    // synchronous reset, and nothing else; the SRAM leaf is 8 x 64 bit.
    for (arbiter, pointer_bits) in [("syn_rr_arbiter_6", 3), ("syn_rr_arbiter_2", 1)] {
        let generic = synth_json(&["--config", &cfg, "--module", arbiter]);
        let m = module(&generic, arbiter);
        assert_eq!(m["flip_flops"], pointer_bits, "{m}");
        let types = cell_types(m);
        assert!(types.iter().all(|t| t.starts_with("$_")), "generic gates only: {types:?}");
        // Flip-flops are legalized to plain D flip-flops (16 transistors each in Yosys' CMOS
        // estimate) so that the estimate counts every one of them.
        assert_eq!(m["cells_by_type"]["$_DFF_P_"], pointer_bits, "{m}");
        assert!(m["transistors"].as_u64().unwrap() > 16 * pointer_bits, "{m}");
        assert_eq!(m["sram"]["macros"], 0);

        let ice40 = synth_json(&["--config", &cfg, "--module", arbiter, "--target", "ice40"]);
        let m = module(&ice40, arbiter);
        assert_eq!(m["flip_flops"], pointer_bits, "{m}");
        assert!(m["luts"].as_u64().unwrap() > 0 && m["block_ram"] == 0 && m["dsp"] == 0, "{m}");
        assert!(cell_types(m).iter().all(|t| t.starts_with("SB_")), "iCE40 primitives only: {m}");
        assert!(m.get("transistors").is_none() && m.get("sram").is_none(), "no ASIC figures on an FPGA: {m}");
    }

    let leaf = "syn_sram_1r1w_8x64";
    let generic = synth_json(&["--config", &cfg, "--module", leaf]);
    let m = module(&generic, leaf);
    assert_eq!(
        (m["cells"].as_u64(), m["sram"]["macros"].as_u64(), m["sram"]["bits"].as_u64()),
        (Some(0), Some(1), Some(512))
    );
    let um2 = m["sram"]["um2"].as_f64().unwrap();
    assert!((um2 - 512.0 * 0.5007).abs() < 1e-6, "default per-bit model: {um2}");
    // The FPGA flow infers block RAM from the behavioural leaf.
    let ice40 = synth_json(&["--config", &cfg, "--module", leaf, "--target", "ice40"]);
    assert!(module(&ice40, leaf)["block_ram"].as_u64().unwrap() >= 1, "{ice40}");
}

#[test]
fn every_module_is_reported_and_the_top_holds_every_bank() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let work = dir.path().join("work");
    let report = synth_json(&[
        "--config",
        &cfg,
        "--sram-um2-per-bit",
        "2",
        "--sram-um2-per-macro",
        "100",
        "--work-dir",
        work.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    let gen_dir = dir.path().join("rtl");
    assert!(rfgen(&["gen", "--block", "mrf", "--config", &cfg, "--out", gen_dir.to_str().unwrap()]).status.success());
    let manifest: Value = serde_json::from_slice(&std::fs::read(gen_dir.join("manifest.json")).unwrap()).unwrap();
    let names = |v: &Value, key: &str| -> Vec<String> {
        v.as_array().unwrap().iter().map(|m| m[key].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(names(&report["modules"], "module"), names(&manifest["modules"], "name"), "every module, in order");

    let top = module(&report, "syn_mrf");
    assert_eq!(top["sram"]["macros"], 4, "one macro per bank: {top}");
    assert_eq!(top["sram"]["bits"], 4 * 8 * 64);
    assert_eq!(top["sram"]["um2"].as_f64(), Some(4.0 * 100.0 + 2048.0 * 2.0), "the configured model");
    let top_t = top["transistors"].as_u64().unwrap();
    for m in report["modules"].as_array().unwrap() {
        let t = m["transistors"].as_u64().unwrap();
        assert!(t <= top_t, "the top contains {}", m["module"]);
        assert!(t >= 16 * m["flip_flops"].as_u64().unwrap(), "every flip-flop is counted: {m}");
    }
    assert!(work.join("rtl/syn_mrf.v").exists() && work.join("syn_mrf.generic.log").exists());

    // The same figures as CSV and as a text table.
    let out = rfgen(&["synth", "--config", &cfg, "--module", "syn_mrf", "--format", "csv"]);
    let csv = stdout(&out);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("module,cells,flip_flops,transistors,sram_macros,sram_bits,sram_um2"));
    assert_eq!(
        lines.next().map(|l| l.split(',').take(4).collect::<Vec<_>>().join(",")),
        Some(format!("syn_mrf,{},{},{top_t}", top["cells"], top["flip_flops"]))
    );
    let out = rfgen(&["synth", "--config", &cfg, "--module", "syn_mrf"]);
    let text = stdout(&out);
    assert!(text.contains("transistors") && text.contains("SRAM µm²") && text.contains("cells by type:"), "{text}");
}

/// rfgen's own test cell library (tests/data/cells.lib), and each cell's area.
const CELLS: &str = "tests/data/cells.lib";
const CELL_AREAS: &[(&str, f64)] = &[
    ("T_BUF", 1.0),
    ("T_INV", 1.0),
    ("T_NAND2", 2.0),
    ("T_NOR2", 2.0),
    ("T_AND2", 3.0),
    ("T_OR2", 3.0),
    ("T_XOR2", 5.0),
    ("T_MUX2", 6.0),
    ("T_DFF", 10.0),
];

#[test]
fn liberty_maps_to_library_cells_and_reports_um2() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let report = synth_json(&["--config", &cfg, "--module", "syn_mrf_bank_group", "--liberty", CELLS]);
    let m = module(&report, "syn_mrf_bank_group");
    let by_type = m["cells_by_type"].as_object().unwrap();
    let mut area = 0.0;
    for (cell, count) in by_type {
        let (_, a) =
            CELL_AREAS.iter().find(|(n, _)| n == cell).unwrap_or_else(|| panic!("{cell} is not a library cell: {m}"));
        area += a * count.as_f64().unwrap();
    }
    assert!(by_type["T_DFF"].as_u64().unwrap() > 0 && m["flip_flops"] == by_type["T_DFF"], "{m}");
    let logic = m["logic_um2"].as_f64().unwrap();
    assert_eq!(logic, area, "µm² is the sum of the mapped cells' areas: {m}");
    assert_eq!(m["sram"]["macros"], 2, "the bank group's two banks stay black boxes: {m}");
    // The gzipped .lib gives the same area.
    let gz = dir.path().join("cells.lib.gz");
    let zipped = Command::new("gzip").arg("-c").arg(CELLS).output().expect("gzip runs");
    assert!(zipped.status.success());
    std::fs::write(&gz, zipped.stdout).unwrap();
    let again = synth_json(&["--config", &cfg, "--module", "syn_mrf_bank_group", "--liberty", gz.to_str().unwrap()]);
    assert_eq!(module(&again, "syn_mrf_bank_group")["logic_um2"].as_f64(), Some(logic));
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let txt = dir.path().join("cells.txt");
    std::fs::write(&txt, "x").unwrap();
    let bad_gz = dir.path().join("broken.lib.gz");
    std::fs::write(&bad_gz, "not gzip").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["synth", "--target", "asic"], "invalid value 'asic' for '--target <TARGET>'"),
        (&["synth", "--liberty", "/no/such/cells.lib"], "cannot read Liberty file /no/such/cells.lib"),
        (&["synth", "--liberty", txt.to_str().unwrap()], "must end in .lib or .lib.gz"),
        (&["synth", "--liberty", bad_gz.to_str().unwrap()], "cannot decompress Liberty file"),
        (&["synth", "--target", "ice40", "--liberty", "x.lib"], "--liberty applies to --target generic"),
        (&["synth", "--config", &cfg, "--module", "nope"], "unknown module `nope` (allowed: syn_sram_1r1w_8x64,"),
        (&["synth", "--sram-um2-per-bit=-1"], "--sram-um2-per-bit -1: must be a finite number"),
        (&["synth", "--jobs", "0"], "--jobs must be at least 1"),
        (&["synth", "--format", "xml"], "invalid value 'xml' for '--format"),
    ];
    for (args, message) in cases {
        let out = rfgen(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: expected {message:?} in {}", stderr(&out));
    }
}

#[test]
fn yosys_failures_name_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    // A Liberty file Yosys cannot parse: the run fails inside Yosys.
    let junk = dir.path().join("junk.lib");
    std::fs::write(&junk, "library (junk) { cell (x) { area : ; \n").unwrap();
    let work = dir.path().join("work");
    let out = rfgen(&[
        "synth",
        "--config",
        &cfg,
        "--module",
        "syn_rr_arbiter_2",
        "--liberty",
        junk.to_str().unwrap(),
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    let log = work.join("syn_rr_arbiter_2.liberty.log");
    assert!(err.contains("Yosys failed") && err.contains("ERROR"), "{err}");
    assert!(err.contains(&format!("log: {}", log.display())), "{err}");
    assert!(std::fs::read_to_string(&log).unwrap().contains("ERROR"), "the log is kept");

    // No Yosys at all.
    let out = Command::new(env!("CARGO_BIN_EXE_rfgen"))
        .args(["synth", "--config", &cfg, "--module", "syn_rr_arbiter_2"])
        .env("PATH", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("`yosys` is not on PATH"), "{}", stderr(&out));
}

/// `--pnr`: the tiny SM's MRF placed and routed on ECP5 inside its wrapper reports Fmax, the
/// resources used and the critical path, with the router asked for (the sweep test runs the
/// default one), keeping the fastest of two placements; --pnr on a target it cannot place and
/// `--seeds 0` are refused.
#[test]
fn place_and_route_reports_fmax_and_utilization() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tiny.toml");
    let tiny = "name = \"tiny\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 1\nregisters_per_thread = 4\n[mrf]\nbanks = 2\nentries = 4\ncollectors = 1\ntag_bits = 1\n";
    std::fs::write(&file, tiny).unwrap();
    let r = synth_json(&[
        "--config",
        file.to_str().unwrap(),
        "--target",
        "ecp5",
        "--pnr",
        "--freq",
        "50",
        "--router",
        "router2",
        "--seeds",
        "2",
    ]);
    let p = &r["pnr"];
    assert_eq!(p["router"], "router2", "{p}");
    assert!(p["fmax_mhz"].as_f64().unwrap() > 10.0, "{p}");
    let by_seed: Vec<f64> = p["fmax_by_seed"].as_array().unwrap().iter().map(|f| f.as_f64().unwrap()).collect();
    assert_eq!(by_seed.len(), 2, "{p}");
    let seed = p["seed"].as_u64().unwrap() as usize;
    assert!(by_seed.iter().all(|&f| f <= by_seed[seed - 1]), "the kept placement is the fastest: {p}");
    assert_eq!(p["fmax_mhz"].as_f64().unwrap(), by_seed[seed - 1], "{p}");
    assert_eq!(p["constraint_mhz"].as_f64().unwrap(), 50.0, "{p}");
    let used: Vec<&str> = p["utilization"].as_array().unwrap().iter().map(|u| u[0].as_str().unwrap()).collect();
    assert!(used.contains(&"TRELLIS_FF") && used.contains(&"TRELLIS_COMB"), "{used:?}");
    // The wrapper leaves three pins: clock, serial input, reduced output.
    let io = p["utilization"].as_array().unwrap().iter().find(|u| u[0] == "TRELLIS_IO").unwrap();
    assert_eq!(io[1].as_u64(), Some(3), "{io}");
    assert!(p["critical_from"].as_str().unwrap().starts_with("u_top."), "{p}");
    let out = rfgen(&["synth", "--config", file.to_str().unwrap(), "--pnr"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--pnr places on --target ecp5 or ice40, not generic"), "{}", stderr(&out));
    let out = rfgen(&["synth", "--config", file.to_str().unwrap(), "--target", "ecp5", "--pnr", "--seeds", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--seeds"), "{}", stderr(&out));
}
