//! Shrinking a failing kernel (`rfgen_cosim::shrink`): with a bug seeded in the generated MRF,
//! a library kernel fails kernel-driven lockstep and shrinks to a handful of instructions that
//! still fail, whose run can be recorded as a waveform; a kernel that passes is left alone.

mod common;

use common::*;
use rfgen_cosim::kernel::{self, KernelOptions, KernelOutcome};
use rfgen_cosim::lockstep::Waveform;
use rfgen_cosim::session::load;
use rfgen_cosim::shrink::{instruction_count, shrink};
use rfgen_cosim::verilator::TraceKind;
use rfgen_gen::{Checked, Design, SramKind};
use rfgen_model::kernel::library::find;
use rfgen_model::kernel::parse;
use rfgen_model::sm::Sm;
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
    assert!(Sm::new(&checked, &original).is_ok(), "reduction fits the test config");
    let whole = kernel::run(&checked, &lib, &original, &opts(None), &mut |_| {}).unwrap();
    let m = whole.mismatch.as_ref().expect("the whole kernel catches the bug");

    let start = Instant::now();
    let mut lines = Vec::new();
    let shrunk = shrink(&checked, &lib, source, &opts(None), &rtl_mismatch, &mut |l| lines.push(l.to_owned()))
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
    let again = kernel::run(&checked, &lib, &reparsed, &opts(None), &mut |_| {}).unwrap();
    assert!(rtl_mismatch(&again) && again.error.is_none(), "the reduced kernel fails when rerun");
    assert_eq!(again.cycles, shrunk.outcome.cycles);
    // And it fails because of the bug: the unmutated RTL runs it without a mismatch.
    let clean = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
    let fixed = kernel::run(&checked, &clean, &reparsed, &opts(None), &mut |_| {}).unwrap();
    assert!(fixed.passed(), "the reduced kernel passes on the correct RTL");

    // The engineer's next step: a waveform of the reduced run, expected outputs beside the RTL's.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrunk.vcd");
    let wave = Waveform { path: path.clone(), from: 0, expected: true };
    let traced = kernel::run(&checked, &lib, &reparsed, &opts(Some(wave)), &mut |_| {}).unwrap();
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
    let result = shrink(&checked, &lib, source, &opts(None), &rtl_mismatch, &mut |_| tried += 1).unwrap();
    assert!(result.is_none(), "the unmutated design runs scan without a mismatch");
    assert_eq!(tried, 0, "nothing was reduced");

    // Bad input is an error, not a panic.
    let err = shrink(&checked, &lib, ".kernel broken\n    add r0\n", &opts(None), &rtl_mismatch, &mut |_| {});
    assert!(err.is_err(), "a kernel that does not parse is refused");
}
