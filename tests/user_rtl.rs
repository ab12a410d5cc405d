//! A user's copy of a block's RTL (`rfgen cosim --rtl DIR`): an equivalent re-coding passes
//! lockstep, a hand-made bug is caught, and a copy whose top module's ports differ from the
//! block's interface, or that has no sources, is refused with every difference named.

mod common;

use common::*;
use rfgen_cosim::session::{CosimOptions, CosimReport, cosim_design, cosim_kernel};
use rfgen_cosim::user_rtl::{self, UserRtlError};
use rfgen_gen::{Checked, Design, SramKind};
use std::fs;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// For the `small` config: 2 clusters of 4 lanes, banks of 16 rows of 128 bits.
const TOP: &str = "small_mrf";
const TOP_FILE: &str = "small_mrf.v";
const LEAF_FILE: &str = "small_sram_1r1w_16x128.v";

/// The SRAM leaf written another way: one 32-bit array per lane, each behind its own write
/// enable, and a read register per lane. Same ports, same read-first rule (the read samples the
/// array before the nonblocking write lands), so lockstep must not see a difference.
const RECODED_LEAF: &str = "\
`default_nettype none

module small_sram_1r1w_16x128 (
  input  wire         clk,
  input  wire         rd_en,
  input  wire   [3:0] rd_addr,
  output wire [127:0] rd_data,
  input  wire         wr_en,
  input  wire   [3:0] wr_addr,
  input  wire   [3:0] wr_mask,
  input  wire [127:0] wr_data
);
  genvar lane;
  generate
    for (lane = 0; lane < 4; lane = lane + 1) begin : g_lane
      reg [31:0] mem [0:15];
      reg [31:0] q;
      always @(posedge clk) begin
        if (wr_en && wr_mask[lane]) mem[wr_addr] <= wr_data[32*lane +: 32];
        if (rd_en) q <= mem[rd_addr];
      end
      assign rd_data[32*lane +: 32] = q;
    end
  endgenerate
endmodule

`default_nettype wire
";

/// A folder holding the generated RTL of `small` with its SRAM leaf re-coded, and the
/// generated design it must match.
fn user_copy() -> (TempDir, PathBuf, Checked, Design) {
    let checked = small("small");
    let reference = rfgen_gen::generate(&checked, SramKind::Behavioural);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("rtl");
    reference.write(&dir, false).unwrap();
    assert!(dir.join(LEAF_FILE).is_file(), "the leaf is generated as {LEAF_FILE}");
    fs::write(dir.join(LEAF_FILE), RECODED_LEAF).unwrap();
    (tmp, dir, checked, reference)
}

/// Replaces every `from` in one file of the folder (which must contain it).
fn edit(dir: &Path, file: &str, from: &str, to: &str) {
    let path = dir.join(file);
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "`{from}` not found in {file}");
    fs::write(&path, text.replace(from, to)).unwrap();
}

fn options(cycles: u64) -> CosimOptions {
    CosimOptions {
        block: rfgen_gen::Block::Mrf,
        cycles,
        seed: 5,
        x_seed: 1,
        trace: None,
        fail_wave_dir: None,
        cache: cache_dir(),
    }
}

fn random_cosim(checked: &Checked, design: &Design, cycles: u64) -> CosimReport {
    cosim_design(checked, design, &options(cycles), &mut |_| {}).unwrap()
}

/// The refusal of a folder, as the user reads it.
fn refusal(dir: &Path, reference: &Design) -> (String, UserRtlError) {
    let err = user_rtl::load(dir, reference).expect_err("the folder is refused");
    assert!(err.is_input_error(), "{err}");
    (err.to_string(), err)
}

#[test]
fn an_equivalent_recoding_of_the_sram_leaf_passes_lockstep() {
    let (_tmp, dir, checked, reference) = user_copy();
    let design = user_rtl::load(&dir, &reference).unwrap();
    assert_eq!(design.manifest, reference.manifest);
    // The filelist's order and names, the user's text.
    let names: Vec<&str> = design.files.iter().map(|(n, _)| n.as_str()).collect();
    let generated: Vec<&str> = reference.sources().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, generated);
    let leaf = design.files.iter().find(|(n, _)| n == LEAF_FILE).unwrap();
    assert_eq!(leaf.1, RECODED_LEAF);

    let report = random_cosim(&checked, &design, 20_000);
    assert!(report.passed(), "{:?}", report.mismatch);
    assert_eq!(report.cycles, 20_000);
    // And under a real kernel's traffic on the SM model.
    let kernel = rfgen_model::kernel::parse(include_str!("data/operand_stress.kir")).unwrap();
    let report = cosim_kernel(&checked, &design, &kernel, &options(1_000_000), &mut |_| {}).unwrap();
    assert!(report.passed(), "{:?} {:?}", report.mismatch, report.kernel_error);
}

#[test]
fn a_hand_made_off_by_one_loads_and_is_caught() {
    let (_tmp, dir, checked, reference) = user_copy();
    edit(&dir, "small_mrf_bank_group.v", "(rd_row)", "(rd_row + 4'd1)");
    let design = user_rtl::load(&dir, &reference).expect("the interface is unchanged");
    let report = random_cosim(&checked, &design, 20_000);
    let m = report.mismatch.expect("the off-by-one read row is caught");
    assert_eq!(
        report.cycles,
        rfgen_cosim::lockstep::stops_after(m.cycle),
        "the run stops where the lockstep learns of it"
    );
}

/// The ports come from the Verilog, not from the `manifest.json` left beside it.
#[test]
fn a_wider_port_is_refused_with_its_widths() {
    let (_tmp, dir, _, reference) = user_copy();
    edit(&dir, TOP_FILE, "input  wire   [1:0] issue_warp,", "input  wire   [2:0] issue_warp,");
    let (message, err) = refusal(&dir, &reference);
    assert_eq!(
        message,
        format!(
            "{} does not match the interface of {TOP}: port `issue_warp` is 3 bits, the interface needs 2",
            dir.display()
        )
    );
    assert!(matches!(err, UserRtlError::Mismatch { ref differences, .. } if differences.len() == 1));
}

#[test]
fn every_difference_is_listed_in_one_message() {
    let (_tmp, dir, _, reference) = user_copy();
    // `disp_tag` becomes an internal wire, `dbg_enable` is new, `disp_ready` changes direction.
    edit(&dir, TOP_FILE, "  output wire   [3:0] disp_tag,", "");
    edit(&dir, TOP_FILE, "  wire [1:0] cu_busy;", "  wire [3:0] disp_tag;\n  wire [1:0] cu_busy;");
    edit(&dir, TOP_FILE, "  input  wire         clk,", "  input  wire         clk,\n  input  wire         dbg_enable,");
    edit(&dir, TOP_FILE, "  input  wire         disp_ready,", "  output wire         disp_ready,");
    let (message, _) = refusal(&dir, &reference);
    assert_eq!(
        message,
        format!(
            "{} does not match the interface of {TOP}: \
             port `disp_ready` is an output, the interface needs an input; \
             port `disp_tag` is missing (the interface needs an output of 4 bits); \
             port `dbg_enable` is not in the interface",
            dir.display()
        )
    );
}

#[test]
fn a_folder_without_verilog_is_refused() {
    let reference = rfgen_gen::generate(&small("small"), SramKind::Behavioural);
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("README.txt"), "not RTL").unwrap();
    let (message, err) = refusal(tmp.path(), &reference);
    assert_eq!(
        message,
        format!("no Verilog sources in {}: no filelist {TOP}.f and no *.v or *.sv file", tmp.path().display())
    );
    assert!(matches!(err, UserRtlError::NoSources { .. }));
}

/// Without a filelist: every `*.v` and `*.sv` file by name; a `.sv` file is built as `.sv.v`.
#[test]
fn without_a_filelist_every_verilog_file_is_taken_by_name() {
    let (_tmp, dir, checked, reference) = user_copy();
    fs::remove_file(dir.join(format!("{TOP}.f"))).unwrap();
    fs::rename(dir.join(LEAF_FILE), dir.join("small_sram_1r1w_16x128.sv")).unwrap();
    let design = user_rtl::load(&dir, &reference).unwrap();
    let names: Vec<&str> = design.files.iter().map(|(n, _)| n.as_str()).collect();
    let mut want: Vec<String> = reference.sources().map(|(n, _)| n.clone()).filter(|n| n != LEAF_FILE).collect();
    want.sort();
    want.push("small_sram_1r1w_16x128.sv.v".into());
    assert_eq!(names, want);
    assert_eq!(design.sources().count(), names.len(), "every source is built");
    let report = random_cosim(&checked, &design, 2_000);
    assert!(report.passed(), "{:?}", report.mismatch);
}

#[test]
fn verilator_errors_are_quoted() {
    let (_tmp, dir, _, reference) = user_copy();
    edit(&dir, TOP_FILE, "  wire [1:0] cu_busy;", "  wire [1:0] cu_busy");
    let (message, err) = refusal(&dir, &reference);
    assert!(matches!(err, UserRtlError::Rejected { .. }), "{message}");
    let head = format!("Verilator rejects the RTL in {}:\n%Error: ", dir.display());
    assert!(message.starts_with(&head), "{message}");
    assert!(message.contains("small_mrf.v:") && message.contains("syntax error"), "{message}");
    assert!(!message.contains("Exiting due to"), "{message}");
}

#[test]
fn a_missing_top_module_or_file_is_named() {
    let (_tmp, dir, _, reference) = user_copy();
    fs::remove_file(dir.join(TOP_FILE)).unwrap();
    let (message, _) = refusal(&dir, &reference);
    assert_eq!(
        message,
        format!("cannot read RTL file {}: No such file or directory (os error 2)", dir.join(TOP_FILE).display())
    );

    fs::remove_file(dir.join(format!("{TOP}.f"))).unwrap();
    let (message, err) = refusal(&dir, &reference);
    assert!(matches!(err, UserRtlError::TopMissing { .. }), "{message}");
    assert_eq!(
        message,
        format!(
            "the top module `{TOP}` is not in the sources of {} (small_mrf_bank_group.v, small_operand_collector.v, \
             small_reg_map.v, small_rr_arbiter_2.v, small_rr_arbiter_6.v, small_sram_1r1w_16x128.v)",
            dir.display()
        )
    );
}
