//! `rfgen prove`: the properties prove on a small design point, a seeded bug in the RTL makes
//! its property fail with a counterexample written, bad input is refused, and docs/prove.md
//! names every property the code declares. Needs yosys, yosys-smtbmc, Yices (the default solver)
//! and z3 (the other).

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
    assert!(result(&out, "bdi.smallest").starts_with("proved "), "{out}");
}

#[test]
fn a_compressor_that_never_uses_a_mode_keeps_the_round_trip_but_fails_smallest() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    // <4,1> is never chosen: a register it fits (and <4,0> does not) is stored uncompressed,
    // in two banks instead of one. Every register still comes back whole.
    let from = "assign sel[1] = ~s1_bypass & s1_fit[1] & ~s1_fit[0];";
    let rtl = mutant(dir.path(), &config, "bdi", "p1_compressor.v", from, "assign sel[1] = 1'b0;");
    let o = rfgen(&["prove", "--config", &config, "--block", "bdi", "--rtl", &rtl, "--time-limit", "5"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(result(&out, "bdi.round_trip").starts_with("proved "), "{out}");
    assert!(result(&out, "bdi.smallest").starts_with("FAILED "), "{out}");
    // The check of <4,1> fails; those of <4,0> and of the bypass still prove.
    assert!(out.contains("failed (mode <4,1>)"), "{out}");
    assert!(!out.contains("failed (mode <4,0>)") && !out.contains("failed (bypass)"), "{out}");
    assert!(out.contains("bdi.smallest-mode-4-1/counterexample.vcd"), "{out}");
}

#[test]
fn a_check_past_its_limit_is_stopped_and_reported_bounded_or_not_finished() {
    let o = rfgen(&["prove", "--preset", "small", "--block", "scoreboard", "--check-limit", "1"]);
    let out = stdout(&o);
    // Not a failure: nothing was found against the property. `scoreboard.reserved` takes about
    // ten seconds on `small` (8 warps × 32 registers), so the limit stops it on any machine:
    // in its bounded check (bounded to the steps it passed, fewer than the check's) or before.
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    let r = result(&out, "scoreboard.reserved");
    let steps =
        r.strip_prefix("bounded to ").and_then(|s| s.split_whitespace().next()).map(|n| n.parse::<u32>().unwrap());
    assert!(r.starts_with("not finished ") || steps.is_some_and(|n| (1..20).contains(&n)), "{out}");
}

/// Ended from outside (SIGTERM, as a CI job's time limit does), `rfgen prove` stops the tools it
/// runs, with the solver `yosys-smtbmc` started, instead of leaving them running.
#[test]
fn a_terminated_prove_leaves_no_tool_running() {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_rfgen"))
        .args(["prove", "--preset", "baseline", "--block", "scoreboard", "--jobs", "1"])
        .env("TMPDIR", scratch_dir())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Its processes, once the solver runs (half a minute on `baseline`'s scoreboard).
    let mut tools = Vec::new();
    for _ in 0..1200 {
        tools = descendants(child.id());
        if tools.iter().any(|&p| name(p).starts_with("yices")) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(tools.iter().any(|&p| name(p).starts_with("yices")), "no solver ran: {tools:?}");
    // SAFETY: kill(2) with the process id of the child this test started.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted; the tools it was running are stopped"), "{}", stderr(&out));
    // Stopped with SIGKILL before rfgen exits; gone as soon as the system has torn them down, long
    // before the check could end on its own.
    for _ in 0..20 {
        if tools.iter().all(|&p| gone(p)) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let left: Vec<String> = tools.iter().filter(|&&p| !gone(p)).map(|&p| format!("{p} {}", name(p))).collect();
    assert!(left.is_empty(), "still running: {left:?}");
}

/// The processes `pid` started from any of its threads, and theirs.
fn descendants(pid: u32) -> Vec<u32> {
    let threads = std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten();
    let listed: String = threads
        .map(|t| std::fs::read_to_string(t.path().join("children")).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(" ");
    let children: Vec<u32> = listed.split_whitespace().filter_map(|c| c.parse().ok()).collect();
    children.iter().flat_map(|&c| std::iter::once(c).chain(descendants(c))).collect()
}

fn name(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default().trim().to_string()
}

/// Exited: no such process, or one only waiting to be reaped.
fn gone(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit(") ").next().is_none_or(|rest| rest.is_empty() || rest.starts_with('Z'))
}

#[test]
fn mrf_properties_prove_with_either_solver() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    for solver in ["yices", "z3"] {
        let o = rfgen(&["prove", "--config", &config, "--block", "mrf", "--depth", "8", "--solver", solver]);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
        assert!(stderr(&o).contains(&format!("with yosys-smtbmc and {solver} in")), "{}", stderr(&o));
        assert!(result(&out, "arbiter.grant").starts_with("proved "), "{out}");
        assert!(result(&out, "reg_map.bijection").starts_with("proved "), "{out}");
        assert!(result(&out, "arbiter.fair").starts_with("proved "), "{out}");
    }
}

#[test]
fn the_scoreboard_proves_and_a_long_mark_never_cleared_fails() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let o = rfgen(&["prove", "--config", &config, "--block", "scoreboard"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(result(&out, "scoreboard.reserved").starts_with("proved "), "{out}");

    // The long-latency mark is never cleared: it outlives the register's pending bit.
    let from = "long_pending <= (long_pending & ~clr_regs) | set_longs;";
    let rtl =
        mutant(dir.path(), &config, "scoreboard", "p1_scoreboard.v", from, "long_pending <= long_pending | set_longs;");
    let o = rfgen(&["prove", "--config", &config, "--block", "scoreboard", "--rtl", &rtl, "--time-limit", "30"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(result(&out, "scoreboard.reserved").starts_with("FAILED "), "{out}");
    assert!(result(&out, "rtl.equivalence").starts_with("FAILED "), "{out}");
    assert!(out.contains("first difference: output `long_pending`"), "{out}");
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
    // The equivalence check is not what this test is about: a short limit keeps it quick.
    let o = rfgen(&[
        "prove",
        "--config",
        &config,
        "--block",
        "bdi",
        "--rtl",
        &rtl,
        "--out",
        out_dir.to_str().unwrap(),
        "--time-limit",
        "5",
    ]);
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
    let o =
        rfgen(&["prove", "--config", &config, "--block", "mrf", "--rtl", &rtl, "--depth", "4", "--time-limit", "5"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(result(&out, "reg_map.bijection").starts_with("FAILED "), "{out}");
    assert!(result(&out, "arbiter.grant").starts_with("proved "), "{out}");
    assert!(!result(&out, "rtl.equivalence").starts_with("proved "), "{out}");
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
    assert!(
        stderr(&o)
            .contains("block `scheduler` has no properties yet (blocks with properties: bdi, mrf, scoreboard, rename)")
    );
    let o = rfgen(&["prove", "--preset", "nonesuch"]);
    assert_eq!(o.status.code(), Some(2));
    let o = rfgen(&["prove", "--depth", "0"]);
    assert_eq!(o.status.code(), Some(2));
    // A copy is of one block.
    let o = rfgen(&["prove", "--rtl", "."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--block"), "{}", stderr(&o));
    let o = rfgen(&["prove", "--block", "mrf", "--time-limit", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--rtl"), "{}", stderr(&o));
    // A copy whose top does not have the block's ports.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.v"), "module small_scoreboard(input wire clk);\nendmodule\n").unwrap();
    let o = rfgen(&["prove", "--preset", "small", "--block", "scoreboard", "--rtl", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("does not match the interface of small_scoreboard"), "{}", stderr(&o));
}

/// The test config without compression: an MRF of banks, collectors and arbiters only.
const PLAIN: &str = "name = \"p1\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 2\nregisters_per_thread = 4\n[mrf]\nbanks = 4\nentries = 4\ncollectors = 1\ntag_bits = 1\n";

/// The SRAM leaf of `PLAIN`'s MRF written another way: one process, the lanes written in a loop,
/// no comments.
const RECODED_SRAM: &str = "module p1_sram_1r1w_4x64(input wire clk, input wire rd_en, input wire [1:0] rd_addr,
  output reg [63:0] rd_data, input wire wr_en, input wire [1:0] wr_addr, input wire [1:0] wr_mask,
  input wire [63:0] wr_data);
  reg [63:0] mem [0:3];
  integer l;
  always @(posedge clk) begin
    if (rd_en) rd_data <= mem[rd_addr];
    for (l = 0; l < 2; l = l + 1)
      if (wr_en && wr_mask[l]) mem[wr_addr][32*l +: 32] <= wr_data[32*l +: 32];
  end
endmodule
";

#[test]
fn a_copy_with_a_recoded_sram_leaf_and_renamed_registers_proves_equivalent() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("p1.toml");
    std::fs::write(&config, PLAIN).unwrap();
    let config = config.to_str().unwrap();
    let rtl = mutant(dir.path(), config, "mrf", "p1_rr_arbiter_3.v", "ptr", "rr_next");
    let rtl_dir = Path::new(&rtl);
    std::fs::write(rtl_dir.join("p1_sram_1r1w_4x64.v"), RECODED_SRAM).unwrap();
    let collector = rtl_dir.join("p1_operand_collector.v");
    let text = std::fs::read_to_string(&collector).unwrap();
    assert!(text.contains("reg  [2:0] pending;"), "{text}");
    std::fs::write(&collector, text.replace("pending", "waiting_q")).unwrap();

    let o = rfgen(&["prove", "--config", config, "--block", "mrf", "--rtl", &rtl, "--depth", "4"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(result(&out, "rtl.equivalence").starts_with("proved "), "{out}");
    let by_module = out.lines().find(|l| l.starts_with("  module by module: ")).expect(&out);
    for changed in ["p1_sram_1r1w_4x64", "p1_rr_arbiter_3", "p1_operand_collector"] {
        assert!(by_module.contains(changed), "{out}");
    }
    assert!(by_module.contains("differ, each proved equivalent on its own"), "{out}");
    assert!(result(&out, "arbiter.grant").starts_with("proved "), "{out}");
    // The fairness induction reads the arbiter's pointer by name; without it only the bounded
    // check from reset runs.
    assert!(result(&out, "arbiter.fair").starts_with("bounded to "), "{out}");
}

/// A copy is compared module by module first: an unchanged copy of a full-size block needs no
/// proof (the `small` MRF's 16 banks of 64 × 128 bits took the whole-block induction past 15
/// minutes), and one with a changed module is proved by that module's check alone, in the MRF and
/// in the composed top that holds it.
#[test]
fn an_unchanged_copy_and_one_with_a_renamed_memory_prove_module_by_module() {
    let dir = tempfile::tempdir().unwrap();
    for block in ["mrf", "sm"] {
        let rtl = dir.path().join(block);
        let o = rfgen(&["gen", "--preset", "small", "--block", block, "--out", rtl.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let prove = || {
            let o = rfgen(&["prove", "--preset", "small", "--block", block, "--rtl", rtl.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
            stdout(&o)
        };
        let out = prove();
        assert!(result(&out, "rtl.equivalence").starts_with("proved "), "{out}");
        assert!(out.contains("  every module is the generated one, comments and spacing aside"), "{out}");

        let leaf = rtl.join("small_sram_1r1w_64x128_r2.v");
        let text = std::fs::read_to_string(&leaf).unwrap();
        assert!(text.contains("reg [127:0] mem [0:63];"), "{text}");
        std::fs::write(&leaf, text.replace("mem[", "words[").replace(" mem ", " words ")).unwrap();
        let out = prove();
        assert!(result(&out, "rtl.equivalence").starts_with("proved "), "{out}");
        assert!(out.contains("module by module: small_sram_1r1w_64x128_r2 differs and is proved equivalent"), "{out}");
    }
}

#[test]
fn an_arbiter_whose_winner_keeps_priority_fails_fairness() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    // A taken grant leaves the pointer on its winner, which then wins again while it requests.
    let from = "ptr <= advance ? next_idx : grant_idx;";
    let rtl = mutant(dir.path(), &config, "mrf", "p1_rr_arbiter_3.v", from, "ptr <= grant_idx;");
    let o = rfgen(&["prove", "--config", &config, "--block", "mrf", "--rtl", &rtl, "--time-limit", "5"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(result(&out, "arbiter.fair").starts_with("FAILED "), "{out}");
    assert!(result(&out, "arbiter.grant").starts_with("proved "), "{out}");
    // Not equivalent on its own: the whole MRF is compared.
    assert!(out.contains("  compared as a whole: p1_rr_arbiter_3 alone is not proved equivalent"), "{out}");
}

#[test]
fn an_off_by_one_copy_is_refuted_with_its_first_differing_output() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("p1.toml");
    std::fs::write(&config, PLAIN).unwrap();
    let config = config.to_str().unwrap();
    // A write-back clears the register after the one it names.
    let rtl =
        mutant(dir.path(), config, "scoreboard", "p1_scoreboard.v", "clr_warp} * 3'd4 +", "clr_warp} * 3'd4 + 1'b1 +");
    let out_dir = dir.path().join("proofs");
    let o = rfgen(&[
        "prove",
        "--config",
        config,
        "--block",
        "scoreboard",
        "--rtl",
        &rtl,
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(result(&out, "rtl.equivalence").starts_with("FAILED "), "{out}");
    // A clear of a pending register shows on `pending` first: a reservation (cycle 2 at the
    // earliest, after reset), then the wrong clear.
    let first = out.lines().find_map(|l| l.strip_prefix("  first difference: output `pending` in cycle ")).expect(&out);
    let cycle: u32 = first.split_whitespace().next().unwrap().parse().unwrap();
    assert!((3..=20).contains(&cycle), "{out}");
    let vcd = out_dir.join("scoreboard/equivalence/counterexample.vcd");
    assert!(std::fs::read_to_string(&vcd).unwrap().contains("$enddefinitions"), "{out}");
    assert!(
        out.contains(&format!("re-check in lockstep: rfgen cosim --config {config} --block scoreboard --rtl {rtl}"))
    );

    // The unedited copy is proved.
    let same = dir.path().join("same");
    let o = rfgen(&["gen", "--config", config, "--block", "scoreboard", "--out", same.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = rfgen(&["prove", "--config", config, "--block", "scoreboard", "--rtl", same.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(result(&stdout(&o), "rtl.equivalence").starts_with("proved "), "{}", stdout(&o));
}

/// A rename stage of 2 warps × 4 registers over 8 physical registers, 4 CMOS and 4 TFET: the
/// uniqueness induction takes seconds.
const RENAME: &str = "name = \"r1\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 1\nregisters_per_thread = 4\n[mrf]\nbanks = 2\nentries = 4\ncollectors = 1\n[rename]\nenabled = true\ncmos_rows = 2\n";

#[test]
fn the_rename_stage_proves_unique_and_free_lists_that_lose_or_repeat_a_register_fail() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("r1.toml");
    std::fs::write(&config, RENAME).unwrap();
    let config = config.to_str().unwrap();
    let o = rfgen(&["prove", "--config", config, "--block", "rename"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(result(&out, "rename.unique").starts_with("proved "), "{out}");

    // Two releases at one edge go to the same bank's place: the first is lost (and the place
    // after them is handed out with whatever it holds). And a bank whose head word never moves
    // hands its first released register out again.
    let lose = (
        "assign slot1_bank = ({{1{1'b0}}, push_valid[0]} == 2'd1) ? {tail_at[1], tail_at[0], tail_at[2]} : tail_at;",
        "assign slot1_bank = tail_at;",
    );
    let repeat = ("if (pop_fifo & head_at[0]) head_word0 <=", "if (1'b0) head_word0 <=");
    for (i, (from, to)) in [lose, repeat].into_iter().enumerate() {
        let sub = dir.path().join(format!("m{i}"));
        std::fs::create_dir(&sub).unwrap();
        let rtl = mutant(&sub, config, "rename", "r1_free_list_cmos.v", from, to);
        let proofs = sub.join("proofs");
        let o = rfgen(&[
            "prove",
            "--config",
            config,
            "--block",
            "rename",
            "--rtl",
            &rtl,
            "--out",
            proofs.to_str().unwrap(),
            "--time-limit",
            "30",
        ]);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{from}: {out}{}", stderr(&o));
        assert!(result(&out, "rename.unique").starts_with("FAILED "), "{from}: {out}");
    }
}

/// A register file cache of one entry per slot for two warps, 2 lanes, liveness: the MRF's
/// properties with `rfc.writeback`, one harness per lane.
const CACHED: &str = "name = \"c1\"\n[sm]\nwarps = 2\nlanes = 2\nclusters = 1\nregisters_per_thread = 4\n[mrf]\nbanks = 4\nentries = 4\ncollectors = 1\ntag_bits = 1\n[scheduler]\npolicy = \"two_level\"\nactive_warps = 2\n[rfc]\nenabled = true\nentries = 1\nreplacement = \"fifo\"\nliveness = true\n";

/// `CACHED` renamed `name`, with `edits` (from, to) applied, written as `name.toml` in `dir`.
fn write_cached(dir: &Path, name: &str, edits: &[(&str, &str)]) -> String {
    let text = edits.iter().fold(CACHED.replace("c1", name), |t, (from, to)| t.replace(from, to));
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// `rfgen prove --config CONFIG --block mrf` with `extra` flags: the exit code, and stdout then
/// stderr.
fn prove_mrf(config: &str, extra: &[&str]) -> (Option<i32>, String) {
    let o = rfgen(&[&["prove", "--config", config, "--block", "mrf"], extra].concat());
    (o.status.code(), stdout(&o) + &stderr(&o))
}

#[test]
fn the_cache_keeps_every_latest_value_and_an_eviction_without_write_back_fails() {
    let dir = tempfile::tempdir().unwrap();
    let config = &write_cached(dir.path(), "c1", &[]);
    let (code, out) = prove_mrf(config, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(result(&out, "rfc.writeback").starts_with("proved "), "{out}");

    // An allocation that pushes out a dirty live entry never fills the eviction buffer.
    let from = "evict_valid <= 1'b1;";
    let rtl = mutant(dir.path(), config, "mrf", "c1_rfc.v", from, "evict_valid <= 1'b0;");
    let (code, out) = prove_mrf(config, &["--rtl", &rtl, "--time-limit", "5"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(result(&out, "rfc.writeback").starts_with("FAILED "), "{out}");
    assert!(result(&out, "arbiter.grant").starts_with("proved "), "{out}");
}

/// One harness per lane: a cache that stores lane 0's value as lane 1's fails in lane 1's
/// harness, and only there (each reads its own lane's bits of the cache's values).
#[test]
fn a_cache_that_stores_another_lanes_value_fails_in_that_lanes_harness() {
    let dir = tempfile::tempdir().unwrap();
    let config = &write_cached(dir.path(), "c1", &[]);
    let from = "data[w_idx][63:32] <= wb_data[63:32];";
    let rtl = mutant(dir.path(), config, "mrf", "c1_rfc.v", from, "data[w_idx][63:32] <= wb_data[31:0];");
    let (code, out) = prove_mrf(config, &["--rtl", &rtl, "--time-limit", "5"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(result(&out, "rfc.writeback").starts_with("FAILED "), "{out}");
    assert!(out.contains("  failed (lane 1): "), "{out}");
    assert!(!out.contains("  failed (lane 0): "), "{out}");
}

/// In front of a compressed MRF the banks may refuse a write, and the eviction buffer may hold a
/// register of a warp whose flush has written its entries: `flush_ready` waits for the buffer,
/// and the property is proved. A cache whose `flush_ready` does not wait ends the flush with the
/// register still owed (a counterexample from reset needs more steps than the bounded check's 5),
/// and the proof no longer closes.
#[test]
fn in_front_of_a_compressed_mrf_a_flush_is_over_only_once_the_eviction_buffer_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let compressed = "liveness = true\n[compression]\nenabled = true\nmodes = [\"4,0\", \"4,1\"]\nwakeup_cycles = 0";
    let edits = [("lanes = 2\nclusters = 1", "lanes = 4\nclusters = 2"), ("liveness = true", compressed)];
    let config = &write_cached(dir.path(), "c1z", &edits);
    let (code, out) = prove_mrf(config, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(result(&out, "rfc.writeback").starts_with("proved "), "{out}");

    let from = "assign flush_ready = ~flush_busy & ~evict_valid;";
    let rtl = mutant(dir.path(), config, "mrf", "c1z_rfc.v", from, "assign flush_ready = ~flush_busy;");
    let (_, out) = prove_mrf(config, &["--rtl", &rtl, "--time-limit", "5"]);
    assert!(result(&out, "rfc.writeback").starts_with("bounded to 5 "), "{out}");
}

/// Two entries per slot with LRU: the proof's induction holds that a slot's valid entries come
/// first outside a flush, which the cache's victim choice rests on. A cache that fills a slot
/// from its last entry keeps every value, but breaks that order, and the proof no longer closes.
#[test]
fn a_slots_valid_entries_come_first_and_a_cache_filling_from_the_last_is_not_proved() {
    let dir = tempfile::tempdir().unwrap();
    let lru = [("entries = 1\nreplacement = \"fifo\"", "entries = 2\nreplacement = \"lru\"")];
    let config = &write_cached(dir.path(), "c2", &lru);
    let (code, out) = prove_mrf(config, &["--depth", "2"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(result(&out, "rfc.writeback").starts_with("proved "), "{out}");

    let from = "  assign victim[0] = wb_sel[0] & (~valid[1] ? (~valid[0]) : (rank_r2_0 == 1'd1));\n  assign victim[1] = wb_sel[0] & (~valid[1] ? (~valid[1] & valid[0]) : (rank_r2_1 == 1'd1));";
    let to = "  assign victim[0] = wb_sel[0] & (~valid[0] ? (~valid[0] & valid[1]) : (rank_r2_0 == 1'd1));\n  assign victim[1] = wb_sel[0] & (~valid[0] ? (~valid[1]) : (rank_r2_1 == 1'd1));";
    let rtl = mutant(dir.path(), config, "mrf", "c2_rfc.v", from, to);
    let (_, out) = prove_mrf(config, &["--depth", "2", "--rtl", &rtl, "--time-limit", "5"]);
    assert!(result(&out, "rfc.writeback").starts_with("bounded to 2 "), "{out}");
}

/// A collector that comes out of reset with a source pending (requesting a read while free)
/// fails `collector.idle`; the generated one proves it.
#[test]
fn a_collector_pending_after_reset_fails_idle() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let o = rfgen(&["prove", "--config", &config, "--block", "mrf", "--check-limit", "60"]);
    assert!(result(&stdout(&o), "collector.idle").starts_with("proved "), "{}", stdout(&o));
    let rtl = mutant(dir.path(), &config, "mrf", "p1_operand_collector.v", "pending <= 3'b0;", "pending <= 3'b1;");
    let limits = ["--check-limit", "60", "--time-limit", "20"];
    let o = rfgen(&[&["prove", "--config", &config, "--block", "mrf", "--rtl", &rtl][..], &limits].concat());
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(result(&out, "collector.idle").starts_with("FAILED "), "{out}");
    assert!(result(&out, "arbiter.grant").starts_with("proved "), "{out}");
}
