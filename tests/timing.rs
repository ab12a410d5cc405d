//! Pipeline-stage options (`[timing]`, docs/config.md): off, a config is today's hardware byte
//! for byte; on, the MRF's RTL agrees with its model under random stimulus on every variant the
//! options compose with (the composed top under kernels and random programs is `small`'s, which
//! turns them on: tests/sm_rf.rs); a pipeline stage the RTL gets wrong is caught.

mod common;

use common::*;
use rfgen_cosim::blocks::mrf::{Knobs, RandomStimulus};
use rfgen_gen::{Checked, SramKind};
use rfgen_model::blocks::mrf::Mrf;

const GRANT: &str = "mrf_registered_grant = true\n";
const READ: &str = "mrf_registered_read = true\n";

/// `text` (a config without a `[timing]` section) with `options` in one.
fn timed(text: &str, options: &[&str]) -> Checked {
    let text = format!("{text}\n[timing]\n{}", options.concat());
    rfgen_gen::config::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Every preset with every option off, written out or left out: the same config hash and the
/// same files (the committed `rtl-out/` of the presets without options is checked against the
/// generator elsewhere).
#[test]
fn options_off_are_todays_hardware_byte_for_byte() {
    for name in rfgen_gen::config::preset_names() {
        let mut config = rfgen_gen::config::preset(name).unwrap().config;
        config.timing = Default::default();
        let plain = rfgen_gen::config::check(config).unwrap();
        assert!(!plain.to_toml().contains("[timing]"), "{name}: options off are left out of the config");
        let explicit = timed(&plain.to_toml(), &["mrf_registered_grant = false\n", "mrf_registered_read = false\n"]);
        assert_eq!(plain.hash(), explicit.hash(), "{name}: options off leave the config hash");
        let files = |c: &Checked| rfgen_gen::emit::generate_sm_rf(c, SramKind::Behavioural).files;
        assert_eq!(files(&plain), files(&explicit), "{name}: options off leave every file");
    }
}

/// Random lockstep of the MRF with the options on: plain (each option alone and both), with
/// TFET rows, a register file cache and an ORF/LRF (both). Each run must also dispatch and
/// conflict, so the stages are exercised.
#[test]
fn every_setting_agrees_with_the_model_in_random_lockstep() {
    let runs: [(&str, &str, &[&str]); 6] = [
        ("small", SMALL.iter().find(|(n, _)| *n == "small").unwrap().1, &[GRANT]),
        ("small", SMALL.iter().find(|(n, _)| *n == "small").unwrap().1, &[READ]),
        ("odd", SMALL.iter().find(|(n, _)| *n == "odd").unwrap().1, &[GRANT, READ]),
        ("tmixed", RENAMED.iter().find(|(n, _)| *n == "tmixed").unwrap().1, &[GRANT, READ]),
        ("rsmall", CACHED.iter().find(|(n, _)| *n == "rsmall").unwrap().1, &[GRANT, READ]),
        ("osmall", UPPER.iter().find(|(n, _)| *n == "osmall").unwrap().1, &[GRANT, READ]),
    ];
    for (name, text, options) in runs {
        let checked = timed(text, options);
        let g = &checked.geometry;
        let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
        let group = &design.files.iter().find(|(f, _)| f.ends_with("_mrf_bank_group.v")).unwrap().1;
        assert_eq!(group.contains("slot_grant <= pick"), g.registered_grant, "{name} {options:?}");
        assert_eq!(group.contains("rd_data <= bank_rd_data"), g.registered_read, "{name} {options:?}");
        let lib = build(&design);
        let mut stimulus = RandomStimulus::new(g, 7, Knobs::for_config(&checked));
        let result = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, 20_000, 3);
        assert!(result.mismatch.is_none(), "{name} {options:?}: {}", result.mismatch.unwrap());
        let s = result.block.model().stats();
        assert!(s.dispatched > 2_000 && s.bank_conflicts > 500, "{name} {options:?}: {s:?}");
    }
}

/// Seeded bugs in the stages, each caught by a short random run: a grant the arbiter still
/// sees while its read is issued (the slot is granted twice), and read data taken from the
/// banks rather than from the register.
#[test]
fn a_wrong_pipeline_stage_is_caught() {
    let text = SMALL.iter().find(|(n, _)| *n == "small").unwrap().1;
    let checked = timed(text, &[GRANT, READ]);
    let g = &checked.geometry;
    let file = "small_mrf_bank_group.v";
    let bugs = [
        ("assign req = slot_req & ~slot_grant;", "assign req = slot_req;", "grant seen twice"),
        ("always @(posedge clk) rd_data <= bank_rd_data;", "always @(posedge clk) rd_data <= rd_data;", "stale read data"),
    ];
    for (from, to, name) in bugs {
        let design = mutated(rfgen_gen::generate(&checked, SramKind::Behavioural), file, from, to, name);
        let lib = build(&design);
        let mut stimulus = RandomStimulus::new(g, 7, Knobs::for_config(&checked));
        let result = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, 5_000, 3);
        assert!(result.mismatch.is_some(), "{name}: not caught");
    }
}

/// A stage the compressed MRF does not take is refused, naming both fields.
#[test]
fn options_with_compression_are_refused_naming_both_fields() {
    for option in ["mrf_registered_grant", "mrf_registered_read"] {
        let text = format!("[compression]\nenabled = true\n[timing]\n{option} = true\n");
        let e = rfgen_gen::config::parse(&text).unwrap_err().to_string();
        assert!(e.contains(&format!("timing.{option}")) && e.contains("compression.enabled"), "{e}");
    }
}

/// `rfgen sim` on the `small` preset (both stages on) says what they cost a kernel: its cycles
/// beside those of the same SM without them, which `rfgen sim` of that SM confirms.
#[test]
fn sim_reports_the_cycles_the_stages_cost() {
    let cycles = |text: &str| -> u64 {
        let line = text.lines().find(|l| l.trim_start().starts_with("cycles ")).unwrap_or_else(|| panic!("{text}"));
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let out = rfgen(&["sim", "--preset", "small", "--kernel", "matmul"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    let line = text.lines().find(|l| l.contains("pipeline stages")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("mrf_registered_grant, mrf_registered_read: +"), "{line}");
    let without: u64 = line.rsplit('(').next().unwrap().split_whitespace().next().unwrap().parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = rfgen_gen::config::preset("small").unwrap().config;
    config.timing = Default::default();
    let path = dir.path().join("small-untimed.toml");
    std::fs::write(&path, rfgen_gen::config::check(config).unwrap().to_toml()).unwrap();
    let plain = rfgen(&["sim", "--config", path.to_str().unwrap(), "--kernel", "matmul"]);
    let plain_text = stdout(&plain);
    assert!(!plain_text.contains("pipeline stages"), "{plain_text}");
    assert_eq!(cycles(&plain_text), without, "{plain_text}");
    assert!(cycles(&text) > without, "{text}");
}
