//! Shrinking a failing kernel (`rfgen_cosim::shrink`): with a bug seeded in the generated MRF,
//! a library kernel fails kernel-driven lockstep and shrinks to a handful of instructions that
//! still fail, whose run can be recorded as a waveform; a kernel that passes is left alone. And
//! through the CLI, a bug seeded in each other block the SM drives (issue stage, scheduler,
//! scoreboard, warpboard, rename stage) is reduced the same way.

mod common;

use common::*;
use rfgen_cosim::kernel::{KernelOptions, KernelOutcome, run_block};
use rfgen_cosim::lockstep::Waveform;
use rfgen_cosim::session::load;
use rfgen_cosim::shrink::{instruction_count, shrink};
use rfgen_cosim::verilator::TraceKind;
use rfgen_gen::{Block, Checked, Design, SramKind};
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::kernel::library::find;
use rfgen_model::kernel::parse;
use rfgen_model::sm::fits;
use std::time::Instant;

/// Small enough to build and run fast, large enough for the library kernels: 8 warps of 32 lanes
/// hold a block of 256 threads, 32 registers per thread, 2 clusters of 4 banks of 64 rows.
const CONFIG: &str = "name = \"shrinkcfg\"\n[sm]\nwarps = 8\nlanes = 32\nclusters = 2\nregisters_per_thread = 32\n[mrf]\nbanks = 8\nentries = 64\ncollectors = 2\n";

/// The seeded bug: every bank of a group reads the row after the one asked for.
const BANK_GROUP: &str = "shrinkcfg_mrf_bank_group.v";
const READ_ROW: &str = "(rd_row)";
const WRONG_ROW: &str = "(rd_row + 6'd1)";

fn checked() -> Checked {
    rfgen_gen::config::parse(CONFIG).expect("the shrink test config is valid")
}

fn off_by_one_read_row(design: &Design) -> Design {
    let mut d = design.clone();
    let (_, text) = d.files.iter_mut().find(|(n, _)| n == BANK_GROUP).expect("the design has a bank group");
    assert!(text.contains(READ_ROW), "`{READ_ROW}` not found in {BANK_GROUP}");
    *text = text.replace(READ_ROW, WRONG_ROW);
    d
}

fn opts(waveform: Option<Waveform>) -> KernelOptions {
    KernelOptions { x_seed: 1, max_cycles: 1_000_000, waveform }
}

/// What the CLI shrinks for: the RTL disagreed with the model.
fn rtl_mismatch(o: &KernelOutcome) -> bool {
    o.mismatch.is_some()
}

#[test]
fn a_failing_library_kernel_shrinks_to_a_few_instructions() {
    let checked = checked();
    let design = off_by_one_read_row(&rfgen_gen::generate(&checked, SramKind::Behavioural));
    // One build serves the shrinking (it runs without tracing) and the waveform.
    let lib = load(&design, TraceKind::Vcd, &cache_dir(), &mut |_| {}).expect("the Verilator build succeeds");
    let source = find("reduction").expect("reduction is in the library").source;
    let original = parse(source).unwrap();
    assert!(fits(&checked, &original).is_ok(), "reduction fits the test config");
    let whole = run_block::<Mrf>(&checked, &lib, &original, &opts(None), &mut |_| {}).unwrap();
    let m = whole.mismatch.as_ref().expect("the whole kernel catches the bug");

    let start = Instant::now();
    let mut lines = Vec::new();
    let shrunk =
        shrink(Block::Mrf, &checked, &lib, source, &opts(None), &rtl_mismatch, &mut |l| lines.push(l.to_owned()))
            .unwrap()
            .expect("the failing kernel shrinks");
    eprintln!(
        "reduction: {} instructions, grid {}x{}, mismatch at cycle {} -> {} instructions, grid {}x{}, after {} cycles; {} tries in {:.2?}\n{}\n{}",
        instruction_count(&original),
        original.blocks,
        original.threads,
        m.cycle,
        instruction_count(&shrunk.kernel),
        shrunk.kernel.blocks,
        shrunk.kernel.threads,
        shrunk.outcome.cycles,
        shrunk.tries,
        start.elapsed(),
        lines.join("\n"),
        shrunk.text
    );
    assert!(shrunk.outcome.mismatch.is_some(), "the reduced kernel still fails");
    assert!(shrunk.tries > 0);
    assert!(!lines.is_empty(), "every accepted reduction is reported");
    assert!(instruction_count(&shrunk.kernel) <= 10, "{} instructions left", instruction_count(&shrunk.kernel));
    assert!(instruction_count(&shrunk.kernel) < instruction_count(&original));
    assert_eq!((shrunk.kernel.blocks, shrunk.kernel.threads), (1, checked.geometry.lanes), "one block of one warp");

    // The text is the kernel: it parses to the same code and fails again when run afresh.
    let reparsed = parse(&shrunk.text).expect("the reduced text parses");
    assert_eq!(reparsed.code, shrunk.kernel.code);
    let again = run_block::<Mrf>(&checked, &lib, &reparsed, &opts(None), &mut |_| {}).unwrap();
    assert!(rtl_mismatch(&again) && again.error.is_none(), "the reduced kernel fails when rerun");
    assert_eq!(again.cycles, shrunk.outcome.cycles);
    // And it fails because of the bug: the unmutated RTL runs it without a mismatch.
    let clean = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
    let fixed = run_block::<Mrf>(&checked, &clean, &reparsed, &opts(None), &mut |_| {}).unwrap();
    assert!(fixed.passed(), "the reduced kernel passes on the correct RTL");

    // The engineer's next step: a waveform of the reduced run, expected outputs beside the RTL's.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrunk.vcd");
    let wave = Waveform { path: path.clone(), from: 0, expected: true };
    let traced = run_block::<Mrf>(&checked, &lib, &reparsed, &opts(Some(wave)), &mut |_| {}).unwrap();
    assert!(traced.mismatch.is_some());
    let vcd = std::fs::read_to_string(&path).expect("the waveform is written");
    assert!(vcd.contains("$scope module rfgen_model $end"), "the model's scope is in the waveform");
    assert!(vcd.contains(" disp_src0_data_expected"), "and its expected dispatch data");
}

#[test]
fn a_passing_kernel_is_not_shrunk() {
    let checked = checked();
    let lib = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
    let source = find("scan").expect("scan is in the library").source;
    let mut tried = 0;
    let result = shrink(Block::Mrf, &checked, &lib, source, &opts(None), &rtl_mismatch, &mut |_| tried += 1).unwrap();
    assert!(result.is_none(), "the unmutated design runs scan without a mismatch");
    assert_eq!(tried, 0, "nothing was reduced");

    // Bad input is an error, not a panic.
    let err =
        shrink(Block::Mrf, &checked, &lib, ".kernel broken\n    add r0\n", &opts(None), &rtl_mismatch, &mut |_| {});
    assert!(err.is_err(), "a kernel that does not parse is refused");
}

/// A bug seeded into a copy of a block's generated RTL, and the kernel that finds it.
struct SeededBug {
    block: &'static str,
    preset: &'static str,
    kernel: &'static str,
    file: &'static str,
    from: &'static str,
    to: &'static str,
}

/// What a user does with a failing block: generate it, edit a copy, run `rfgen cosim --block B
/// --kernel K --rtl DIR`. The mismatch is reported and the kernel reduced to at most 10
/// instructions, written beside its waveform; the reduced kernel fails again on the edited copy
/// and passes on the generated RTL, so it shows the bug and nothing else.
fn reduces_through_the_cli(bug: &SeededBug) {
    let dir = tempfile::tempdir().unwrap();
    let (rtl, waves) = (dir.path().join("rtl"), dir.path().join("waves"));
    std::fs::create_dir(&waves).unwrap();
    let (rtl_s, waves_s) = (rtl.to_str().unwrap(), waves.to_str().unwrap());
    let out = rfgen(&["gen", "--block", bug.block, "--preset", bug.preset, "--out", rtl_s]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = rtl.join(bug.file);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(bug.from), "`{}` not found in {}", bug.from, bug.file);
    std::fs::write(&file, text.replace(bug.from, bug.to)).unwrap();

    let cosim = |kernel: &str, rtl: Option<&str>, extra: &[&str]| {
        let mut args = vec!["cosim", "--block", bug.block, "--preset", bug.preset, "--kernel", kernel];
        args.extend(rtl.map(|r| ["--rtl", r]).into_iter().flatten());
        args.extend(["--wave-dir", waves_s]);
        args.extend(extra);
        rfgen(&args)
    };
    let out = cosim(bug.kernel, Some(rtl_s), &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains("MISMATCH at cycle"), "{text}");
    let reduced_to: usize = text
        .split("reduced to ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no reduction reported:\n{text}{}", stderr(&out)));
    assert!(reduced_to <= 10, "{} instructions left:\n{text}", reduced_to);

    let stem = waves.join(format!("cosim-{}-{}-reduced", bug.block, bug.kernel));
    let kir = stem.with_extension("kir");
    let reduced = parse(&std::fs::read_to_string(&kir).expect("the reduced kernel is written")).unwrap();
    assert_eq!(instruction_count(&reduced), reduced_to);
    let vcd = std::fs::read_to_string(stem.with_extension("vcd")).expect("its waveform is written");
    assert!(vcd.contains("$scope module rfgen_model $end"), "the model's expected outputs are in the waveform");

    let kir = kir.to_str().unwrap();
    let again = cosim(kir, Some(rtl_s), &["--no-shrink"]);
    assert_eq!(again.status.code(), Some(1), "the reduced kernel fails again on the edited copy");
    assert!(stdout(&again).contains("MISMATCH at cycle"), "{}", stdout(&again));
    let clean = cosim(kir, None, &[]);
    assert_eq!(clean.status.code(), Some(0), "the reduced kernel passes on the generated RTL: {}", stdout(&clean));
}

#[test]
fn an_issue_stage_bug_reduces_to_a_small_kernel() {
    reduces_through_the_cli(&SeededBug {
        block: "issue",
        preset: "war-warpboard",
        kernel: "heartwall",
        file: "war_warpboard_scheduler.v",
        from: "assign keep = last_valid & eligible[last_warp];",
        to: "assign keep = 1'b0;",
    });
}

#[test]
fn a_scheduler_bug_reduces_to_a_small_kernel() {
    reduces_through_the_cli(&SeededBug {
        block: "scheduler",
        preset: "war-warpboard",
        kernel: "heartwall",
        file: "war_warpboard_scheduler.v",
        from: "else first[b*(b-1)/2+a] <= launch[b] | (first[b*(b-1)/2+a] & ~launch[a]);",
        to: "else first[b*(b-1)/2+a] <= first[b*(b-1)/2+a];",
    });
}

#[test]
fn a_scoreboard_bug_reduces_to_a_small_kernel() {
    reduces_through_the_cli(&SeededBug {
        block: "scoreboard",
        preset: "war-warpboard",
        kernel: "heartwall",
        file: "war_warpboard_scoreboard.v",
        from: "clr_warp} * ",
        to: "set_warp} * ",
    });
}

#[test]
fn a_warpboard_bug_reduces_to_a_small_kernel() {
    reduces_through_the_cli(&SeededBug {
        block: "warpboard",
        preset: "war-warpboard",
        kernel: "heartwall",
        file: "war_warpboard_warpboard.v",
        from: "(iss_valid & iss_src_valid[2]",
        to: "(1'b0 & iss_src_valid[2]",
    });
}

#[test]
fn a_rename_stage_bug_reduces_to_a_small_kernel() {
    reduces_through_the_cli(&SeededBug {
        block: "rename",
        preset: "tfet-hybrid",
        kernel: "bfs",
        file: "tfet_hybrid_rename.v",
        from: "take_tfet = req_tfet ? tfet_valid : ~cmos_valid;",
        to: "take_tfet = req_tfet ? ~cmos_valid : tfet_valid;",
    });
}
