//! What an adversarial user found, through the CLI: each reproducer ends in a correct result or
//! one clear error line with exit status 2 (bad input) — never a panic, never an endless read.

mod common;

use common::*;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// Exit 2 and exactly one line, an `error:` naming `what`.
fn refused(args: &[&str], what: &str) {
    let out = rfgen(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines[0].starts_with("error: ") && lines[0].contains(what), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn a_bloom_warpboard_beside_renaming_generates_its_issue_stage_and_warpboard() {
    let dir = tempfile::tempdir().unwrap();
    for policy in ["bloom1", "bloom2"] {
        let config = write(
            dir.path(),
            &format!("{policy}.toml"),
            &format!("name = \"r{policy}\"\n[warpboard]\npolicy = \"{policy}\"\n[rename]\nenabled = true\n"),
        );
        for block in ["issue", "warpboard"] {
            let out_dir = dir.path().join(format!("{policy}-{block}"));
            let out = rfgen(&["gen", "--config", &config, "--block", block, "--out", out_dir.to_str().unwrap()]);
            assert!(out.status.success(), "{policy} {block}: {}", stderr(&out));
            // The bins map architectural registers: the warpboard's map is not the renamed one.
            let map = std::fs::read_to_string(out_dir.join(format!("r{policy}_reg_map.v"))).unwrap();
            assert!(map.contains("architectural register id"), "{map}");
        }
    }
}

#[test]
fn synthetic_kernels_take_every_register_count_they_allow() {
    let dir = tempfile::tempdir().unwrap();
    let wide = write(dir.path(), "wide.toml", "[sm]\nregisters_per_thread = 256\n[mrf]\nentries = 2048\n");
    let knobs = "registers=252,length=40,iterations=1,blocks=1,threads=32";
    let out = rfgen(&["sim", "--config", &wide, "--synthetic", knobs, "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["stats"]["operand_mismatches"], 0);
    // On the default SM (32 registers per thread) the kernel does not fit: said, not panicked.
    refused(&["sim", "--synthetic", knobs], "uses 252 registers but sm.registers_per_thread = 32");
    refused(&["sim", "--synthetic", "registers=257"], "registers = 257: allowed 8 to 256");
}

#[test]
fn endless_files_are_refused_at_their_cap() {
    refused(&["config", "--check", "/dev/zero"], "/dev/zero: larger than 1 MiB, the most rfgen reads of a config");
    refused(&["sim", "--kernel", "/dev/zero"], "/dev/zero: larger than 64 MiB, the most rfgen reads of a kernel file");
}

#[test]
fn guarded_branches_are_analysed_in_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let body = "@p0 bra LOOP\n".repeat(200_000);
    let kernel =
        write(dir.path(), "g.kir", &format!(".kernel g\n.grid 1 32\n  setp.lt p0, %tid, 0\nLOOP:\n{body}  exit\n"));
    let out = rfgen(&["sim", "--kernel", &kernel, "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["stats"]["warp_instructions"], 200_002);
}

#[test]
fn initialized_words_stay_under_their_cap_and_addresses_do_not_wrap() {
    let dir = tempfile::tempdir().unwrap();
    let full = ".kernel k\n.grid 1 32\n.fill 0x0 4194304 7\n";
    for extra in [".fill 0x10000000 1 1\n", ".fill 0x10000000 2 1\n", ".data 0x10000000 5\n"] {
        let kernel = write(dir.path(), "k.kir", &format!("{full}{extra}  exit\n"));
        refused(&["sim", "--kernel", &kernel], "more than 4194304 initialized words");
    }
    let wraps =
        write(dir.path(), "w.kir", ".kernel w\n.grid 1 32\n  mov r1, 0xfffffffc\n  ld.global r2, [r1 + 4]\n  exit\n");
    let out = rfgen(&["sim", "--kernel", &wraps]);
    assert_eq!(out.status.code(), Some(1), "a fault while running: {}", stderr(&out));
    assert!(
        stderr(&out).contains("global address 0xfffffffc + 4 in lane 0 is outside the 4 GiB address space"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_folders_flags_and_missing_subcommands_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "afile", "");
    let sub = format!("{file}/sub");
    let out = rfgen(&["gen", "--out", &sub]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out).matches("os error").count(), 1, "the OS error once: {}", stderr(&out));
    refused(&["synth", "--work-dir", &file], "--work-dir");
    refused(&["report", "--out", &file], "is not a folder");
    refused(&["sim", "--kernel", "vecadd", "--max-cycles", "0"], "allowed 1 to 10000000000");
    refused(&["cosim", "--cycles", "0"], "allowed 1 to 10000000000");
    refused(&["bench", "cosim", "--cycles", "0"], "allowed 1 to 10000000000");
    refused(&[], "requires a subcommand");
    refused(&["bench"], "requires a subcommand");
}
