//! `rfgen prove`: the properties prove on a small design point, a seeded bug in the RTL makes
//! its property fail with a counterexample written, bad input is refused, and docs/prove.md
//! names every property the code declares. Needs yosys, yosys-smtbmc and z3.

mod common;

use common::*;
use rfgen_gen::formal::PROPERTIES;
use std::path::Path;

/// 4 lanes in 2 clusters, modes <4,0> <4,1>, the default latencies, and one 3-requester bank
/// arbiter: each check takes about a second. (Configs with 8-byte modes take minutes per lane.)
const CONFIG: &str = "name = \"p1\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 2\nregisters_per_thread = 4\n[mrf]\nbanks = 4\nentries = 4\ncollectors = 1\ntag_bits = 1\n[compression]\nenabled = true\nmodes = [\"4,0\", \"4,1\"]\nwakeup_cycles = 0\n";

fn write_config(dir: &Path) -> String {
    let path = dir.join("p1.toml");
    std::fs::write(&path, CONFIG).unwrap();
    path.to_str().unwrap().to_string()
}

/// `property` and its result from `rfgen prove`'s output.
fn result<'a>(out: &'a str, property: &str) -> &'a str {
    let line = out.lines().find(|l| l.starts_with(&format!("{property} "))).unwrap_or_else(|| panic!("{out}"));
    line[property.len()..].trim_start()
}

#[test]
fn docs_name_every_property() {
    let doc = std::fs::read_to_string(root().join("docs/prove.md")).unwrap();
    for p in PROPERTIES {
        assert!(doc.contains(&format!("`{}`", p.name)), "docs/prove.md does not name `{}`", p.name);
        assert!(doc.contains(p.statement), "docs/prove.md does not state `{}` as the code does", p.name);
    }
}

#[test]
fn bdi_round_trip_proves() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let o = rfgen(&["prove", "--config", &config, "--block", "bdi"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(result(&out, "bdi.round_trip").starts_with("proved "), "{out}");
}

#[test]
fn mrf_properties_prove_or_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let o = rfgen(&["prove", "--config", &config, "--block", "mrf", "--depth", "8"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(result(&out, "arbiter.grant").starts_with("proved "), "{out}");
    assert!(result(&out, "reg_map.bijection").starts_with("proved "), "{out}");
    assert!(result(&out, "arbiter.fair").starts_with("bounded to 8 "), "{out}");
}

/// Writes `block`'s RTL into `dir/rtl`, with `from` replaced by `to` in `file`.
fn mutant(dir: &Path, config: &str, block: &str, file: &str, from: &str, to: &str) -> String {
    let rtl = dir.join("rtl");
    let o = rfgen(&["gen", "--config", config, "--block", block, "--out", rtl.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let path = rtl.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "the mutation does not apply to {file}:\n{text}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
    rtl.to_str().unwrap().to_string()
}

#[test]
fn a_decompressor_that_subtracts_a_delta_fails_the_round_trip_with_a_counterexample() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let from = "assign value4[63:32] = in_chunks[31:0] + delta4[63:32];";
    let rtl = mutant(dir.path(), &config, "bdi", "p1_decompressor.v", from, &from.replace('+', "-"));
    let out_dir = dir.path().join("proofs");
    let o = rfgen(&["prove", "--config", &config, "--block", "bdi", "--rtl", &rtl, "--out", out_dir.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(result(&out, "bdi.round_trip").starts_with("FAILED "), "{out}");
    // value4[63:32] is lane 2's; the other lanes still prove.
    assert!(out.contains("  failed (lane 2): "), "{out}");
    let vcd = out_dir.join("bdi/bdi.round_trip-lane-2/counterexample.vcd");
    assert!(std::fs::read_to_string(&vcd).unwrap().contains("$enddefinitions"), "{out}");
    assert!(out.contains(&format!("counterexample: {}", vcd.display())), "{out}");
    assert!(out.contains(&format!("re-check in lockstep: rfgen cosim --config {config} --block bdi --rtl {rtl}")));
    assert!(!out_dir.join("bdi/bdi.round_trip-lane-0/counterexample.vcd").exists());
}

#[test]
fn a_map_with_too_few_rows_per_warp_fails_the_bijection() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let rtl = mutant(dir.path(), &config, "mrf", "p1_reg_map.v", "warp} * 2'd2 +", "warp} * 2'd1 +");
    let o = rfgen(&["prove", "--config", &config, "--block", "mrf", "--rtl", &rtl, "--depth", "4"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(result(&out, "reg_map.bijection").starts_with("FAILED "), "{out}");
    assert!(result(&out, "arbiter.grant").starts_with("proved "), "{out}");
    // Without --out the counterexample is kept in the temporary folder the output names.
    let vcd = out.lines().find_map(|l| l.strip_prefix("  counterexample: ")).expect("a counterexample line");
    assert!(Path::new(vcd).is_file(), "{out}");
    std::fs::remove_dir_all(Path::new(vcd).ancestors().nth(3).unwrap()).unwrap();
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let o = rfgen(&["prove", "--block", "alu"]);
    assert_eq!(o.status.code(), Some(2));
    let o = rfgen(&["prove", "--block", "scheduler"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("block `scheduler` has no properties yet (blocks with properties: bdi, mrf)"));
    let o = rfgen(&["prove", "--preset", "nonesuch"]);
    assert_eq!(o.status.code(), Some(2));
    let o = rfgen(&["prove", "--depth", "0"]);
    assert_eq!(o.status.code(), Some(2));
}
