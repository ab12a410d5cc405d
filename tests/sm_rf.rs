//! The composed register-file top (`rfgen gen --block sm`): the issue stage and the MRF with
//! the wires between them, cosimulated whole against the SM model under library kernels and
//! random programs; a bug in one of the wires is caught and reduced to a short program.

mod common;

use common::{rfgen, stderr, stdout};
use std::path::{Path, PathBuf};

/// The `small` preset as a config file (the cut-wire tests pass `--config`).
fn config(dir: &Path) -> String {
    let path = dir.join("small.toml");
    std::fs::write(&path, std::fs::read_to_string("configs/small.toml").unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn the_composed_top_agrees_with_the_sm_model_on_kernels_and_random_programs() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    for run in [&["--kernel", "saxpy"][..], &["--kernel", "reduction"], &["--seed", "3"], &["--seed", "8"]] {
        let mut args = vec!["cosim", "--block", "sm", "--config", &cfg];
        args.extend(run);
        let out = rfgen(&args);
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{run:?}: {text}{}", stderr(&out));
        assert!(text.contains("top                        small_sm_rf") && text.contains("PASS"), "{text}");
        // Kernel runs also check every operand against the functional values (random programs
        // fail the run on the first that differs).
        assert!(run[0] == "--seed" || text.contains("operand mismatches         0"), "{text}");
    }
}

/// 50 random programs (barriers, predicated writes, divergence, loads) on the `small` preset,
/// the size meant for quick tries and FPGA checks.
#[test]
fn fifty_random_programs_agree_on_the_small_top() {
    for seed in 1..=50 {
        let seed = seed.to_string();
        let out = rfgen(&["cosim", "--block", "sm", "--preset", "small", "--seed", &seed]);
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "seed {seed}: {text}{}", stderr(&out));
        assert!(text.contains("top                        small_sm_rf") && text.contains("PASS"), "{text}");
    }
}

/// A random run of the composed top (what `rfgen mutate --block sm` runs for each seed) spends
/// its whole cycle budget: one random program ends after 10,000 to 20,000 cycles of the `small`
/// SM, and the programs that follow it, each from reset, use the rest.
#[test]
fn a_random_run_of_the_composed_top_fills_its_cycles_with_programs() {
    let checked = rfgen_gen::config::preset("small").unwrap();
    let first = rfgen_cosim::blocks::sm::random_program(&checked, 1);
    let alone = rfgen_model::sim::run(&checked, &first, 1_000_000, &mut |_| {}).unwrap().0.cycles;
    let cycles = 4 * alone;
    let opts = rfgen_cosim::session::CosimOptions { cycles, seed: 1, ..common::kernel_options(rfgen_gen::Block::Sm) };
    let report = rfgen_cosim::session::cosim(&checked, &opts, &mut |_| {}).unwrap();
    assert!(report.mismatch.is_none(), "{:?}", report.mismatch);
    assert_eq!(report.cycles, cycles, "the first program alone runs {alone} cycles");
}

/// Every library kernel on the `small` composed top, its blocks scaled to the SM (64 threads),
/// every operand checked against the functional values.
#[test]
fn every_library_kernel_agrees_on_the_small_top() {
    for lib in rfgen_model::kernel::library::KERNELS {
        let out = rfgen(&["cosim", "--block", "sm", "--preset", "small", "--kernel", lib.name]);
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{}: {text}{}", lib.name, stderr(&out));
        assert!(text.contains("PASS") && text.contains("operand mismatches         0"), "{}: {text}", lib.name);
    }
}

/// The `small` SM renamed, with few CMOS rows (most destinations go to TFET registers, whose
/// writes release the scoreboard a cycle late) and TRWS.
const SMALL_RENAMED: &str = "name = \"small_renamed\"\n[sm]\nwarps = 8\nlanes = 8\nclusters = 2\n[mrf]\nbanks = 8\nentries = 64\ncollectors = 2\n[rename]\nenabled = true\ncmos_rows = 12\ntrws = true\n";

/// The renamed top agrees on a kernel; with the MRF reading source 1 from the rename stage's
/// source-0 port, a random program fails at the MRF's dispatch and shrinks to a few
/// instructions.
#[test]
fn a_physical_id_from_the_wrong_rename_port_is_caught_and_reduced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small_renamed.toml");
    std::fs::write(&path, SMALL_RENAMED).unwrap();
    let cfg = path.to_str().unwrap().to_string();
    let out = rfgen(&["cosim", "--block", "sm", "--config", &cfg, "--kernel", "reduction"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.contains("top                        small_renamed_sm_rf") && text.contains("PASS"), "{text}");
    assert!(text.contains("operand mismatches         0"), "{text}");
    let wire = (".issue_src1_reg  (ren_src1_phys)", ".issue_src1_reg  (ren_src0_phys)");
    cut(dir.path(), &cfg, "small_renamed", wire, &["--seed", "3"], "disp");
}

/// 32 warps of 8 lanes with a compressed MRF (released when stored) and a release-on-commit
/// warpboard.
const NARROW_BDI: &str = "name = \"narrow_bdi\"\n[sm]\nwarps = 32\nlanes = 8\nclusters = 2\n[mrf]\nbanks = 8\nentries = 256\ncollectors = 2\n[compression]\nenabled = true\nmodes = [\"4,0\", \"4,1\"]\n[warpboard]\npolicy = \"release_on_commit\"\n";

/// A wire of the top cut: a collector tag is never given back at dispatch, so the pool runs dry
/// and the MRF gets a tag still in use. The lockstep of a random program sees the tag output
/// differ and shrinks the program to a few instructions.
#[test]
fn a_cut_tag_wire_is_caught_and_reduced_to_a_short_program() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let wire = ("(tag_free & ~tag_take) | tag_give", "(tag_free & ~tag_take)");
    cut(dir.path(), &cfg, "small", wire, &["--seed", "3"], "grant_tag");
}

/// The compressed MRF's store (`wb_commit`) no longer releases the register in the scoreboard:
/// its readers wait forever, and the issue stage's grant differs from the model's. The same
/// config uncut agrees on a kernel.
#[test]
fn a_store_that_does_not_release_the_scoreboard_is_caught_and_reduced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("narrow_bdi.toml");
    std::fs::write(&path, NARROW_BDI).unwrap();
    let cfg = path.to_str().unwrap().to_string();
    let out = rfgen(&["cosim", "--block", "sm", "--config", &cfg, "--kernel", "reduction"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.contains("PASS") && text.contains("operand mismatches         0"), "{text}");
    let wire = ("assign release_valid = wb_commit;", "assign release_valid = 1'b0;");
    cut(dir.path(), &cfg, "narrow_bdi", wire, &["--kernel", "saxpy"], "grant");
}

/// The `small` SM with a register file cache beside the two-level scheduler (4 active warps).
const SMALL_RFC: &str = "name = \"small_rfc\"\n[sm]\nwarps = 8\nlanes = 8\nclusters = 2\n[mrf]\nbanks = 8\nentries = 64\ncollectors = 2\n[scheduler]\npolicy = \"two_level\"\nactive_warps = 4\n[rfc]\nenabled = true\nentries = 4\n";

/// The register file cache's protocol inside the top: a descheduled warp is never flushed, so
/// the cache's write port never pauses for the flush (`wb_ready`) and the slot is never freed
/// for the next warp. Caught under a kernel with long-latency loads and reduced.
#[test]
fn a_descheduled_warp_never_flushed_is_caught_and_reduced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small_rfc.toml");
    std::fs::write(&path, SMALL_RFC).unwrap();
    let cfg = path.to_str().unwrap().to_string();
    let out = rfgen(&["cosim", "--block", "sm", "--config", &cfg, "--kernel", "saxpy"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.contains("PASS") && text.contains("operand mismatches         0"), "{text}");
    let wire = ("assign rfc_flushed = rfc_left & rfc_owned;", "assign rfc_flushed = 8'd0;");
    cut(dir.path(), &cfg, "small_rfc", wire, &["--kernel", "saxpy"], "wb_ready");
}

/// A finished warp's compressed registers are never invalidated (the top never offers the
/// free): the banks holding only them stay powered.
#[test]
fn a_finished_warp_never_freed_is_caught_and_reduced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("narrow_bdi.toml");
    std::fs::write(&path, NARROW_BDI).unwrap();
    let cfg = path.to_str().unwrap().to_string();
    let wire = ("assign free_valid = |free_pending;", "assign free_valid = 1'b0;");
    cut(dir.path(), &cfg, "narrow_bdi", wire, &["--kernel", "reduction"], "bank_gated");
}

/// Generates the composed top of `cfg` (named `name`), replaces `from` by `to` in it, and checks
/// that the lockstep under `stimulus` (a kernel, or a random program's seed) fails on a port
/// whose name contains `port`, reduced to at most ten instructions with the reduced program
/// written.
fn cut(dir: &Path, cfg: &str, name: &str, (from, to): (&str, &str), stimulus: &[&str], port: &str) -> PathBuf {
    let (rtl, waves) = (dir.join("rtl"), dir.join("waves"));
    std::fs::create_dir(&waves).unwrap();
    let (rtl_s, waves_s) = (rtl.to_str().unwrap(), waves.to_str().unwrap());
    let out = rfgen(&["gen", "--block", "sm", "--config", cfg, "--out", rtl_s]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = rtl.join(format!("{name}_sm_rf.v"));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(from), "`{from}` is not in the top:\n{text}");
    std::fs::write(&file, text.replace(from, to)).unwrap();
    let mut args = vec!["cosim", "--block", "sm", "--config", cfg, "--rtl", rtl_s, "--wave-dir", waves_s];
    args.extend(stimulus);
    let out = rfgen(&args);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    let at = text.find("MISMATCH at cycle").unwrap_or_else(|| panic!("no mismatch reported:\n{text}"));
    let first = text[at..].lines().take(4).collect::<Vec<_>>().join("\n");
    assert!(first.contains(port), "the first mismatch is not on {port}:\n{text}");
    let reduced_to: usize = text
        .split("reduced to ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no reduction reported:\n{text}{}", stderr(&out)));
    assert!(reduced_to <= 10, "{reduced_to} instructions left:\n{text}");
    let reduced = std::fs::read_dir(&waves)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("-reduced.kir"))
        .expect("the reduced program is written");
    assert!(text.contains("reproduce: rfgen cosim") && text.contains("-reduced.kir"), "{text}");
    reduced
}

/// The rename stage reading the table for the warp picked as if a collector were free instead
/// of the grant: its outputs differ when the grant is an instruction that completes at issue.
/// The reduced program still writes every register it reads, so it fails on that cut and
/// passes on the generated RTL (reduced without that rule, it read two registers never written
/// and failed on both).
#[test]
fn a_rename_lookup_of_the_wrong_warp_reduces_to_a_program_that_passes_uncut() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small_renamed.toml");
    std::fs::write(&path, SMALL_RENAMED).unwrap();
    let cfg = path.to_str().unwrap().to_string();
    let wire = (".ren_warp        (grant_warp)", ".ren_warp        (unused_to_collector_warp)");
    let reduced = cut(dir.path(), &cfg, "small_renamed", wire, &["--seed", "3"], "ren_src");
    let kernel = reduced.to_str().unwrap();
    let out = rfgen(&["cosim", "--block", "sm", "--config", &cfg, "--kernel", kernel, "--no-shrink"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let text = std::fs::read_to_string(&reduced).unwrap();
    assert!(text.lines().count() <= 12, "{text}");
}

/// Caught only because the random programs read three sources mostly (2.6 register reads per
/// instruction): a third source captured from bank group 2 with bit 13 inverted. Programs at
/// the synthetic kernels' default of 2.0 reads pass it (seeds 1 and 2).
#[test]
fn a_third_source_captured_wrong_from_one_group_is_caught_by_random_programs() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = dir.path().join("rtl");
    let rtl_s = rtl.to_str().unwrap();
    let out = rfgen(&["gen", "--block", "sm", "--preset", "small", "--out", rtl_s]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = rtl.join("small_operand_collector.v");
    let text = std::fs::read_to_string(&file).unwrap();
    let start = text.find("assign src2_from_groups2_3 =").expect("the third slot's capture from groups 2 and 3");
    let end = start + text[start..].find(';').unwrap();
    let edited = text[start..end].replace("group_rd_data[767:512])", "(group_rd_data[767:512] ^ 256'h2000))");
    assert_ne!(edited, text[start..end], "group 2's term is in the capture");
    std::fs::write(&file, format!("{}{edited}{}", &text[..start], &text[end..])).unwrap();
    let waves = dir.path().join("waves");
    std::fs::create_dir(&waves).unwrap();
    let args = ["cosim", "--block", "sm", "--preset", "small", "--rtl", rtl_s, "--seed", "1", "--wave-dir"];
    let out = rfgen(&[&args[..], &[waves.to_str().unwrap()]].concat());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains("FAIL: RTL and model differ") && text.contains("disp_src2_data"), "{text}");
}

/// The `small` composed top with `from` replaced by `to` in its module `file`, in `dir/rtl`.
fn edited_top(dir: &Path, file: &str, (from, to): (&str, &str)) -> String {
    let rtl = dir.join("rtl");
    let rtl_s = rtl.to_str().unwrap();
    let out = rfgen(&["gen", "--block", "sm", "--preset", "small", "--out", rtl_s]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(rtl.join(file)).unwrap();
    assert!(text.contains(from), "`{from}` is not in {file}");
    std::fs::write(rtl.join(file), text.replace(from, to)).unwrap();
    rtl_s.to_string()
}

/// Whether the lockstep of the `small` composed top copy in `rtl` passes under `stimulus`.
fn passes(dir: &Path, rtl: &str, stimulus: &[&str]) -> bool {
    let waves = dir.join("waves");
    std::fs::create_dir_all(&waves).unwrap();
    let args = ["cosim", "--block", "sm", "--preset", "small", "--rtl", rtl, "--no-shrink", "--wave-dir"];
    let out = rfgen(&[&args[..], &[waves.to_str().unwrap()], stimulus].concat());
    let text = stdout(&out);
    match out.status.code() {
        Some(0) if text.contains("PASS") => true,
        Some(1) if text.contains("FAIL: RTL and model differ") => false,
        _ => panic!("{stimulus:?}: {text}{}", stderr(&out)),
    }
}

/// Caught only because the random programs' guards use every predicate: the scoreboard keeps
/// only predicates 0 to 2 pending, so a guard on a higher one is read before its `setp` has
/// written it. The same program with its guards on `p2` alone passes.
#[test]
fn a_high_predicate_never_held_pending_is_caught_by_random_programs() {
    let dir = tempfile::tempdir().unwrap();
    let edit = ("| set_preds;", "| (set_preds & 64'h0707070707070707);");
    let rtl = edited_top(dir.path(), "small_scoreboard.v", edit);
    let checked = rfgen_gen::config::preset("small").unwrap();
    let spec = rfgen_cosim::blocks::sm::random_program_spec(&checked, 1);
    assert!(spec.contains("predicates=6"), "{spec}");
    assert!(passes(dir.path(), &rtl, &["--kernel", &spec.replace("predicates=6", "predicates=1")]));
    assert!(!passes(dir.path(), &rtl, &["--seed", "1"]));
}

/// Caught only because a run's later programs launch blocks of one warp: warp 0 stays older
/// than warp 2 whatever is launched (a bit of the scheduler's age order stuck), which blocks of
/// four warps, launched together in slot order, never show.
#[test]
fn an_age_order_stuck_between_two_warps_is_caught_by_blocks_of_one_warp() {
    let dir = tempfile::tempdir().unwrap();
    let edit = ("<= launch[b] |", "<= (b == 2 && a == 0) | launch[b] |");
    let rtl = edited_top(dir.path(), "small_scheduler.v", edit);
    // Seed 2's first program (blocks of four warps), then its second (blocks of one).
    assert!(passes(dir.path(), &rtl, &["--seed", "2"]));
    assert!(!passes(dir.path(), &rtl, &["--seed", &(2 + (1u64 << 32)).to_string()]));
}

/// A kernel that reads registers it never wrote: warned about, and on a renamed top, where the
/// physical registers of those reads are whatever the table powered up with, a mismatch names
/// that as its likely cause.
#[test]
fn reads_of_registers_never_written_are_warned_about_and_explained_under_renaming() {
    let dir = tempfile::tempdir().unwrap();
    let (cfg, kir) = (dir.path().join("small_renamed.toml"), dir.path().join("unwritten.kir"));
    std::fs::write(&cfg, SMALL_RENAMED).unwrap();
    std::fs::write(&kir, ".kernel unwritten\n.grid 1 8\n    min r11, r11, r9\n    exit\n").unwrap();
    let (cfg, kir) = (cfg.to_str().unwrap(), kir.to_str().unwrap());
    let waves = dir.path().to_str().unwrap();
    let args = ["cosim", "--block", "sm", "--config", cfg, "--kernel", kir, "--no-shrink", "--wave-dir", waves];
    // Which power-up states mismatch depends on every register the RTL holds, so several run.
    let out = rfgen(&[&args[..], &["--x-seeds", "8"]].concat());
    let text = stdout(&out);
    assert!(text.contains("warning: the kernel read 16 lanes of registers it never wrote"), "{text}");
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains("note: a register never written has no physical register under renaming"), "{text}");
}
