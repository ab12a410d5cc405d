//! Sequential equivalence of a user's copy of a block with the generated block (`rfgen prove
//! --rtl`, docs/prove.md). Both are flattened by Yosys (memories mapped to flip-flops) and
//! compared in two steps:
//!
//! 1. **Proof**: `equiv_make` pairs the outputs and the signals of the same name, `equiv_struct
//!    -icells` pairs signals and state that are renamed but computed by the same cells, and
//!    `equiv_simple` / `equiv_induct` prove every pair by induction: from any power-up state in
//!    which the paired registers agree, every output agrees for every input sequence. Unproven
//!    pairs are tried again with unused internal names dropped, then with only ports and
//!    registers paired (an internal wire whose difference the logic after it masks).
//! 2. **After reset**: when the induction fails and the top has a reset, the copy may differ
//!    only in what reset loads (a register's reset value, or a reset dropped from a register
//!    whose power-up value nothing reads). Then the same induction with reset held low proves
//!    that equal states stay equal, and a SAT check from every power-up state (loaded in a
//!    first cycle, the same on both sides) with reset in the next cycle shows that the outputs
//!    agree and that every register is equal [`SETTLE`] cycles after reset: equal from there
//!    on, for every input sequence that holds reset in its first cycle only.
//! 3. **Search**: when a pair is left unproven (state of the copy without a counterpart, or a
//!    real difference), a miter of the two is checked by SAT from reset for `depth` cycles: a
//!    trace on which an output differs is a counterexample (written as a VCD); none means the
//!    copy is equivalent for that many cycles, not proved. A pairing that is wrong only fails to
//!    prove; it never proves a difference away.

use crate::synth::yosys;
use anyhow::{Context, Result};
use rfgen_gen::blocks::sram::observed::SEEN;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A kept one-bit wire of this name on both sides, paired like the others but never hidden: an
/// invariant of the generated side, which the copy ties to 1 (`rfgen mutate`, docs/mutate.md).
pub const INVARIANT: &str = "rfgen_invariant";

/// Cycles after reset within which a copy that differs only in what reset loads must reach
/// the generated side's state: a reset value's effect passes through a few registers (a bank
/// group's `arrive`, then the MRF's capture enable, which a slot not in flight stops). The
/// check of 4 cycles (power-up, reset, 2 more) takes the solver some 3 minutes on the `small`
/// MRF without its banks; 6 cycles did not finish in 4 minutes.
pub const SETTLE: u32 = 2;

/// The verdict on a copy.
#[derive(Debug, PartialEq, Eq)]
pub enum Equivalence {
    Proved,
    /// Proved for every input sequence that holds reset in its first cycle only: the copy
    /// differs only in what reset loads, and every register is equal on both sides `cycles`
    /// cycles after reset, the outputs equal meanwhile.
    ProvedAfterReset {
        cycles: u32,
    },
    /// No output differs within `cycles` cycles from reset; the proof did not close (`why`).
    Bounded {
        cycles: u32,
        why: String,
    },
    /// Neither a proof nor a difference within the time limit (`why`).
    Unknown {
        why: String,
    },
    /// An output differs on the trace in `vcd`, first in `cycle` (reset is held in cycle 1).
    Differs {
        output: String,
        cycle: u32,
        generated: String,
        copy: String,
        vcd: PathBuf,
    },
}

/// How one side's design is read: Verilog files (name, text), written into the side's folder,
/// or Yosys commands run in the check's folder that leave the side's top module in the design.
pub enum Source<'a> {
    Files(&'a [(String, String)]),
    Commands(String),
}

/// The generated design and the copy, under the name of their top module.
pub struct Sides<'a> {
    pub top: &'a str,
    /// Whether the top has the synchronous reset `rst`, held in the search's first cycle (a
    /// memory leaf has none).
    pub reset: bool,
    /// Whether to try, when the induction fails, whether the copy differs only in what reset
    /// loads (with `reset`).
    pub after_reset: bool,
    /// Whether the generated side holds an invariant ([`INVARIANT`]): then the proof pairs only
    /// ports and registers, as the cell pairs `equiv_struct` presumes would be assumed beside it
    /// and may contradict it (two of a cache's ranks presumed equal, which it says differ).
    pub invariant: bool,
    /// Registers left unpaired (a Yosys selection of their wires, or empty): read only where an
    /// observer of theirs says (`rfgen_gen::blocks::sram::observed`), whose outputs ([`SEEN`])
    /// are paired in their stead.
    pub unpaired: &'a str,
    pub generated: Source<'a>,
    pub copy: Source<'a>,
}

/// Compares the two sides in the folder `dir` (created), each Yosys step given `limit`; with
/// `depth` 0 there is no search, and a proof that does not close is `Unknown`.
pub fn check(sides: &Sides, depth: u32, limit: Duration, dir: &Path) -> Result<Equivalence> {
    let mut reads = String::new();
    for (side, source) in [("generated", &sides.generated), ("copy", &sides.copy)] {
        let load = match source {
            Source::Files(files) => {
                let folder = dir.join(side);
                std::fs::create_dir_all(&folder).with_context(|| format!("cannot create {}", folder.display()))?;
                let mut names = Vec::new();
                for (name, text) in *files {
                    std::fs::write(folder.join(name), text)
                        .with_context(|| format!("cannot write {}", folder.display()))?;
                    names.push(format!("{side}/{name}"));
                }
                format!("read_verilog -sv {}\n", names.join(" "))
            }
            Source::Commands(commands) => {
                std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
                commands.clone()
            }
        };
        // Memories become flip-flops: Yosys' SAT and equivalence passes have no memory cells.
        // Optimized before they are mapped, so write ports' constant enables fold away first.
        // `memory` without `memory_share`: merging the write ports of one address would put
        // every lane's data through one multiplexer, so that a data bit no lane's enable writes
        // reaches a register's input and the induction cannot pair it.
        let _ = write!(
            reads,
            "{load}hierarchy -top {top}\nproc\nflatten\n\
             opt_mem\nopt_mem_priority\nopt_mem_feedback\nmemory_dff\nopt_clean\nmemory_collect\n\
             opt -full\nmemory_map\nopt -full\nopt_clean\n\
             rename {top} {side}\ndesign -stash {side}\n",
            top = sides.top
        );
    }
    reads += "design -copy-from generated -as generated generated\ndesign -copy-from copy -as copy copy\n";

    // Pairs by every name first, and cells computing the same from paired inputs (what lets a
    // copy with renamed state prove); if pairs are left unproven, once more with the internal
    // names that drive nothing dropped (`-purge`): a pair of them that differs where no output
    // sees it (a mutant's dead wire) stops the first. Last, only the ports and the registers
    // paired: a wire that differs where the logic after it masks it (or a cell pair merged
    // because of it) stops the others.
    const STRUCT: &str = "equiv_struct -icells\n";
    let unpaired = if sides.unpaired.is_empty() { String::new() } else { format!("rename -hide {}\n", sides.unpaired) };
    let hide = format!(
        "rename -hide w:* i:* o:* %u %d t:$*dff* %x:+[Q] w:* %i %d w:*{INVARIANT} %d w:*{SEEN}* %d\n{unpaired}opt_clean -purge\n"
    );
    let mut why = String::new();
    let passes =
        [("proof", "", STRUCT), ("proof_purged", "opt_clean -purge\n", STRUCT), ("proof_registers", hide.as_str(), "")];
    for (script, before, pairing) in passes.into_iter().skip(if sides.invariant { 2 } else { 0 }) {
        // An invariant's pair is left to `equiv_induct`, which assumes what is not proved yet:
        // proved first on its own, it would no longer be assumed.
        let proof = induction(&format!("{reads}{before}"), pairing, sides.invariant, !sides.unpaired.is_empty());
        std::fs::write(dir.join(format!("{script}.ys")), proof)?;
        let log = format!("{script}.log");
        why = match yosys::run_for(dir, &format!("{script}.ys"), &log, Some(limit))? {
            None => {
                why = format!("the induction did not finish in {} s", limit.as_secs());
                break;
            }
            Some(Ok(())) => return Ok(Equivalence::Proved),
            Some(Err(e)) => match unproven(&std::fs::read_to_string(dir.join(&log)).unwrap_or_default()) {
                Some(n) => format!("{n} output or state bits not proved by induction ({log} lists them)"),
                None => return Err(e),
            },
        };
    }

    if sides.after_reset
        && sides.reset
        && !sides.invariant
        && let Some(cycles) = after_reset(&reads, limit, dir)?
    {
        return Ok(Equivalence::ProvedAfterReset { cycles });
    }
    if depth == 0 {
        return Ok(Equivalence::Unknown { why });
    }
    // Reset is held in the first cycle, as every lockstep run starts; unreset state starts at
    // zero on both sides.
    let reset = if sides.reset { "-set-at 1 in_rst 1 " } else { "" };
    let search = format!(
        "{reads}miter -equiv -flatten -make_assert -make_outputs generated copy miter\nhierarchy -top miter\n\
         sat -verify -prove-asserts -set-init-zero -seq {depth} {reset}-show-outputs \
         -dump_vcd counterexample.vcd -timeout {} miter\n",
        limit.as_secs()
    );
    std::fs::write(dir.join("search.ys"), search)?;
    match yosys::run_for(dir, "search.ys", "search.log", Some(limit + Duration::from_secs(60)))? {
        Some(Ok(())) => Ok(Equivalence::Bounded { cycles: depth, why }),
        None => Ok(Equivalence::Unknown { why: format!("{why}; the search for a difference did not finish either") }),
        Some(Err(e)) => {
            let log = std::fs::read_to_string(dir.join("search.log")).unwrap_or_default();
            if log.contains("TIMEOUT") {
                return Ok(Equivalence::Unknown { why: format!("{why}; the search for a difference timed out") });
            }
            if !log.contains("model found: FAIL") {
                return Err(e);
            }
            let (output, cycle, generated, copy) =
                first_difference(&log).context("the solver found a difference but its trace shows no output")?;
            Ok(Equivalence::Differs { output, cycle, generated, copy, vcd: dir.join("counterexample.vcd") })
        }
    }
}

/// The induction over the two sides loaded by `reads`, their signals paired by `pairing`. With
/// an `invariant` ([`INVARIANT`]), that is proved first over its own fan-in, with
/// [`INVARIANT_SEQ`] steps: the control it reads, without the data paths beside it (an MRF's
/// operands, 1,536 pairs that follow once their capture enables are proved); then every pair
/// left. With `observed` registers as well (`Sides::unpaired`), in one induction of
/// [`OBSERVED_SEQ`] steps: a pair proved is no longer assumed, and the data their reader takes
/// is equal only where the invariant says whose read it is.
fn induction(reads: &str, pairing: &str, invariant: bool, observed: bool) -> String {
    let steps = match (invariant, observed) {
        (true, true) => format!("equiv_induct -seq {OBSERVED_SEQ}\n"),
        (true, false) => format!("equiv_induct -seq {INVARIANT_SEQ} w:*{INVARIANT} %ci*\nequiv_induct -seq 2\n"),
        (false, _) => "equiv_induct -seq 2\n".to_string(),
    };
    format!(
        "{reads}equiv_make generated copy equiv\nhierarchy -top equiv\n{pairing}\
         equiv_simple -seq 2 * w:*{INVARIANT} %ci1 %d\n{steps}equiv_status -assert\n"
    )
}

/// Steps of the induction over an invariant's fan-in: a bank group's pipeline from grant to
/// delivery, whose read stage no invariant names, is constrained through the step before it.
const INVARIANT_SEQ: u32 = 3;

/// Steps of the induction with observed registers: a slot's delivery, then its group's read
/// data two steps after the read an observer saw (the `small` MRF's bank leaves).
const OBSERVED_SEQ: u32 = 3;

/// Whether the sides loaded by `reads` differ only in what reset loads (module docs, step 2):
/// the cycles after reset in which their states become equal, or `None`.
fn after_reset(reads: &str, limit: Duration, dir: &Path) -> Result<Option<u32>> {
    // Equal states stay equal while reset is low: the induction with `rst` tied to 0.
    let low = "delete -input generated/rst copy/rst\ncd generated\nconnect -set rst 1'b0\ncd copy\n\
               connect -set rst 1'b0\ncd\n";
    std::fs::write(
        dir.join("reset_low.ys"),
        induction(&format!("{reads}{low}"), "equiv_struct -icells\n", false, false),
    )?;
    if !matches!(yosys::run_for(dir, "reset_low.ys", "reset_low.log", Some(limit))?, Some(Ok(()))) {
        return Ok(None);
    }
    settles(reads, limit, dir)
}

/// Whether the states of the sides loaded by `reads` become equal within [`SETTLE`] cycles of
/// reset, from every power-up state, their outputs equal meanwhile.
fn settles(reads: &str, limit: Duration, dir: &Path) -> Result<Option<u32>> {
    // Both sides with a power-up cycle: in the first cycle every flip-flop loads a free input
    // shared by the sides (its power-up state), from the all-zero state.
    std::fs::write(dir.join("settle_sides.ys"), format!("{reads}dffunmap\nwrite_rtlil sides.il\n"))?;
    if !matches!(yosys::run_for(dir, "settle_sides.ys", "settle_sides.log", Some(limit))?, Some(Ok(()))) {
        return Ok(None);
    }
    let Some(loaded) = with_power_up(&std::fs::read_to_string(dir.join("sides.il"))?) else { return Ok(None) };
    std::fs::write(dir.join("sides_powered.il"), loaded)?;
    let miter = "read_rtlil sides_powered.il\nmiter -equiv -flatten -make_assert generated copy miter\n\
                 hierarchy -top miter\nwrite_rtlil miter.il\n";
    std::fs::write(dir.join("settle_miter.ys"), miter)?;
    if !matches!(yosys::run_for(dir, "settle_miter.ys", "settle_miter.log", Some(limit))?, Some(Ok(()))) {
        return Ok(None);
    }
    let Some(pairs) = register_pairs(&std::fs::read_to_string(dir.join("miter.il"))?) else { return Ok(None) };
    // Power-up in step 1, reset in step 2 only, then `SETTLE` cycles.
    let steps = SETTLE + 2;
    let mut setup = format!("-set-init-zero -set-at 1 in_{POWER_UP} 1 -set-at 1 in_rst 0");
    for step in 2..=steps {
        let _ = write!(setup, " -set-at {step} in_{POWER_UP} 0 -set-at {step} in_rst {}", u8::from(step == 2));
    }
    let equal: String = pairs.iter().map(|(gold, gate)| format!(" -prove {gold} {gate}")).collect();
    let t = limit.as_secs();
    let script = format!(
        "read_rtlil miter.il\nhierarchy -top miter\n\
         sat -verify -prove-asserts -seq {steps} {setup} -timeout {t} miter\n\
         sat -verify -seq {steps} -prove-skip {} {setup}{equal} -timeout {t} miter\n",
        steps - 1
    );
    std::fs::write(dir.join("settle.ys"), script)?;
    let settled = matches!(yosys::run_for(dir, "settle.ys", "settle.log", Some(limit * 2))?, Some(Ok(())));
    Ok(settled.then_some(SETTLE))
}

/// The signal that loads every flip-flop with its power-up input (`with_power_up`).
const POWER_UP: &str = "rfgen_power_up";

/// The sides `generated` and `copy` of an RTLIL design whose flip-flops are all `$dff`, each
/// flip-flop given a multiplexer that loads the input `rfgen_power_up_<its output>` while
/// the input [`POWER_UP`] is high; `None` where a flip-flop of another kind, or
/// one whose output has no name of its own (the sides would not share its input), is left.
fn with_power_up(rtlil: &str) -> Option<String> {
    let mut out = String::new();
    let mut module: Option<&str> = None;
    // A module's new wires go right after its header (RTLIL declares a wire before its use),
    // its new cells before its end.
    let (mut wires, mut cells, mut header_end, mut next_port, mut muxes) =
        (String::new(), String::new(), 0, 0u32, 0u32);
    let lines: Vec<&str> = rtlil.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(name) = line.strip_prefix("module ") {
            module = ["\\generated", "\\copy"].contains(&name).then_some(name);
            let ports = lines[i..].iter().take_while(|l| **l != "end").filter_map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                let at = w.iter().position(|x| *x == "input" || *x == "output")?;
                w.get(at + 1)?.parse::<u32>().ok()
            });
            next_port = ports.max().unwrap_or(0) + 1;
            wires = format!("  wire input {next_port} \\{POWER_UP}\n");
            cells.clear();
            next_port += 1;
            out += line;
            out += "\n";
            header_end = out.len();
            i += 1;
            continue;
        }
        let Some(_) = module else {
            out += line;
            out += "\n";
            i += 1;
            continue;
        };
        if line == "end" {
            out += &cells;
            out.insert_str(header_end, &wires);
            module = None;
        }
        match line.trim().strip_prefix("cell ").and_then(|c| c.split_whitespace().next()) {
            Some(kind) if kind.contains("dff") || kind.contains("dlatch") || kind == "$ff" => {
                if kind != "$dff" {
                    return None;
                }
                let end = i + lines[i..].iter().position(|l| l.trim() == "end")?;
                let body = &lines[i..=end];
                let find = |key: &str| body.iter().find_map(|l| l.trim().strip_prefix(key)).map(str::trim);
                let (width, d, q) = (find("parameter \\WIDTH ")?, find("connect \\D ")?, find("connect \\Q ")?);
                if q.contains('$') {
                    return None;
                }
                let name: String =
                    q.trim_start_matches('\\').chars().map(|c| if " []:{}\\".contains(c) { '_' } else { c }).collect();
                let (input, loaded) = (format!("\\{POWER_UP}_{name}"), format!("$rfgen_loaded${muxes}"));
                let _ =
                    writeln!(wires, "  wire width {width} input {next_port} {input}\n  wire width {width} {loaded}");
                let _ = write!(
                    cells,
                    "  cell $mux $rfgen_power_up${muxes}\n    parameter \\WIDTH {width}\n    connect \\A {d}\n    \
                     connect \\B {input}\n    connect \\S \\{POWER_UP}\n    connect \\Y {loaded}\n  end\n"
                );
                next_port += 1;
                muxes += 1;
                for l in body {
                    if l.trim().starts_with("connect \\D ") {
                        let _ = writeln!(out, "    connect \\D {loaded}");
                    } else {
                        out += l;
                        out += "\n";
                    }
                }
                i = end + 1;
                continue;
            }
            _ => {}
        }
        out += line;
        out += "\n";
        i += 1;
    }
    Some(out)
}

/// Every flip-flop output of the miter's generated side (`gold.`) with the copy's (`gate.`)
/// register of the same name, as `sat` names them; `None` if a register of either side has no
/// counterpart (then the states cannot be shown equal).
fn register_pairs(rtlil: &str) -> Option<Vec<(String, String)>> {
    let body = rtlil.split("\nmodule ").find(|m| m.starts_with("\\miter\n"))?;
    let wires: std::collections::HashSet<&str> =
        body.lines().filter_map(|l| l.trim().strip_prefix("wire ")?.split_whitespace().last()).collect();
    let mut pairs = std::collections::BTreeSet::new();
    let mut in_flip_flop = false;
    for line in body.lines().map(str::trim) {
        if let Some(kind) = line.strip_prefix("cell ") {
            in_flip_flop = kind.split_whitespace().next().is_some_and(|k| k.contains("dff"));
            continue;
        }
        let Some(q) = line.strip_prefix("connect \\Q ").filter(|_| in_flip_flop) else { continue };
        // `\gold.r`, `\gold.r [3:0]` or a concatenation of such parts.
        let mut words = q.trim_matches(['{', '}', ' ']).split_whitespace().peekable();
        while let Some(name) = words.next() {
            let range = words.next_if(|w| w.starts_with('[')).unwrap_or("");
            let other = if name.contains("gold.") {
                name.replacen("gold.", "gate.", 1)
            } else {
                name.replacen("gate.", "gold.", 1)
            };
            if other == name || !wires.contains(other.as_str()) {
                return None;
            }
            let (gold, gate) = if name.contains("gold.") { (name, other.as_str()) } else { (other.as_str(), name) };
            let arg = |n: &str| format!("{}{range}", n.strip_prefix('\\').unwrap_or(n));
            pairs.insert((arg(gold), arg(gate)));
        }
    }
    Some(pairs.into_iter().collect())
}

/// How many `$equiv` cells `equiv_status -assert` left unproven, from its log.
fn unproven(log: &str) -> Option<usize> {
    log.lines()
        .find_map(|l| l.split("Found ").nth(1)?.split(" unproven $equiv cells in 'equiv_status").next()?.parse().ok())
}

/// The first cycle and output at which the two sides differ in the trace `sat -show-outputs`
/// prints (rows `cycle \side_output dec hex bin`), with both values in hexadecimal.
fn first_difference(log: &str) -> Option<(String, u32, String, String)> {
    use std::collections::BTreeMap;
    // (cycle, output) -> (generated, copy)
    let mut values: BTreeMap<(u32, String), (Option<String>, Option<String>)> = BTreeMap::new();
    for line in log.lines() {
        let mut words = line.split_whitespace();
        let (Some(cycle), Some(signal), Some(bits)) = (words.next(), words.next(), words.last()) else { continue };
        let Ok(cycle) = cycle.parse::<u32>() else { continue };
        let entry = |name: &str| (cycle, name.to_string());
        // `miter -make_outputs` names the sides' outputs gold_* and gate_*.
        if let Some(name) = signal.strip_prefix("\\gold_") {
            values.entry(entry(name)).or_default().0 = Some(bits.to_string());
        } else if let Some(name) = signal.strip_prefix("\\gate_") {
            values.entry(entry(name)).or_default().1 = Some(bits.to_string());
        }
    }
    values.into_iter().find_map(|((cycle, output), pair)| match pair {
        (Some(g), Some(c)) if g != c => Some((output, cycle, hex(&g), hex(&c))),
        _ => None,
    })
}

/// A binary string (most significant bit first, `x` for undefined) in hexadecimal.
fn hex(bits: &str) -> String {
    if bits.chars().any(|c| c != '0' && c != '1') {
        return format!("'b{bits}");
    }
    let padded = format!("{}{bits}", "0".repeat((4 - bits.len() % 4) % 4));
    let digits: String = padded
        .as_bytes()
        .chunks(4)
        .map(|n| {
            let v = n.iter().fold(0u32, |a, b| a * 2 + u32::from(*b == b'1'));
            char::from_digit(v, 16).unwrap_or('?')
        })
        .collect();
    let trimmed = digits.trim_start_matches('0');
    format!("0x{}", if trimmed.is_empty() { "0" } else { trimmed })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_output_is_found_in_the_trace() {
        let log = "  Time Signal Name   Dec Hex Bin\n  ---- ----\n\
                   init \\gate.u.ptr 0 0 00\n\
                   1 \\gate_grant 0 0 000\n 1 \\gold_grant 0 0 000\n\
                   2 \\gate_grant 2 2 010\n 2 \\gold_grant 1 1 001\n\
                   2 \\gate_busy 1 1 1\n 2 \\gold_busy 0 0 0\n\
                   3 \\gate_grant 0 0 000\n 3 \\gold_grant 4 4 100\n";
        // Cycle 2 differs on two outputs; the names are compared in order.
        assert_eq!(first_difference(log), Some(("busy".into(), 2, "0x0".into(), "0x1".into())));
    }

    #[test]
    fn unproven_counts_are_read_from_the_status_line() {
        let log = "ERROR: Found 256 unproven $equiv cells in 'equiv_status -assert'.";
        assert_eq!(unproven(log), Some(256));
        assert_eq!(unproven("ERROR: Module `copy' not found"), None);
    }

    /// `r` is read only where `v` says so, and `v` is low after reset: a copy that resets `r`
    /// to 1, or leaves it unreset, is equal from the cycle after; one whose `v` resets to 1
    /// shows `r`'s reset value.
    #[test]
    fn a_copy_that_differs_only_in_what_reset_loads_is_proved_after_reset() {
        let module = |r_reset: &str, v_reset: &str| {
            format!(
                "module t (input wire clk, input wire rst, input wire d, input wire iv, output wire q);\n  \
                 reg r, v;\n  always @(posedge clk) {r_reset}r <= d;\n  \
                 always @(posedge clk) if (rst) v <= {v_reset}; else v <= iv;\n  assign q = v & r;\nendmodule\n"
            )
        };
        let generated = [("t.v".to_string(), module("if (rst) r <= 1'b0; else ", "1'b0"))];
        let check_copy = |text: String, folder: &str| {
            let dir = tempfile::tempdir().unwrap();
            let copy = [("t.v".to_string(), text)];
            let sides = Sides {
                top: "t",
                reset: true,
                after_reset: true,
                invariant: false,
                unpaired: "",
                generated: Source::Files(&generated),
                copy: Source::Files(&copy),
            };
            check(&sides, 4, Duration::from_secs(60), &dir.path().join(folder)).unwrap()
        };
        let settled = Equivalence::ProvedAfterReset { cycles: SETTLE };
        assert_eq!(check_copy(module("if (rst) r <= 1'b1; else ", "1'b0"), "reset_one"), settled);
        assert_eq!(check_copy(module("", "1'b0"), "unreset"), settled);
        let shown = check_copy(module("if (rst) r <= 1'b1; else ", "1'b1"), "shown");
        assert!(matches!(shown, Equivalence::Differs { ref output, cycle: 2, .. } if output == "q"), "{shown:?}");
    }

    #[test]
    fn hex_values() {
        assert_eq!(hex("000"), "0x0");
        assert_eq!(hex("10110"), "0x16");
        assert_eq!(hex("1x"), "'b1x");
    }
}
