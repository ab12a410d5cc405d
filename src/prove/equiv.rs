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
//! 2. **Search**: when a pair is left unproven (state of the copy without a counterpart, or a
//!    real difference), a miter of the two is checked by SAT from reset for `depth` cycles: a
//!    trace on which an output differs is a counterexample (written as a VCD); none means the
//!    copy is equivalent for that many cycles, not proved. A pairing that is wrong only fails to
//!    prove; it never proves a difference away.

use crate::synth::yosys;
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A kept one-bit wire of this name on both sides, paired like the others but never hidden: an
/// invariant of the generated side, which the copy ties to 1 (`rfgen mutate`, docs/mutate.md).
pub const INVARIANT: &str = "rfgen_invariant";

/// The verdict on a copy.
#[derive(Debug, PartialEq, Eq)]
pub enum Equivalence {
    Proved,
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
    /// Whether the generated side holds an invariant ([`INVARIANT`]): then the proof pairs only
    /// ports and registers, as the cell pairs `equiv_struct` presumes would be assumed beside it
    /// and may contradict it (two of a cache's ranks presumed equal, which it says differ).
    pub invariant: bool,
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
    let hide =
        format!("rename -hide w:* i:* o:* %u %d t:$*dff* %x:+[Q] w:* %i %d w:*{INVARIANT} %d\nopt_clean -purge\n");
    let mut why = String::new();
    let passes =
        [("proof", "", STRUCT), ("proof_purged", "opt_clean -purge\n", STRUCT), ("proof_registers", hide.as_str(), "")];
    for (script, before, pairing) in passes.into_iter().skip(if sides.invariant { 2 } else { 0 }) {
        // An invariant's pair is left to `equiv_induct`, which assumes what is not proved yet:
        // proved first on its own, it would no longer be assumed.
        let proof = format!(
            "{reads}{before}equiv_make generated copy equiv\nhierarchy -top equiv\n{pairing}\
             equiv_simple -seq 2 * w:*{INVARIANT} %ci1 %d\nequiv_induct -seq 2\nequiv_status -assert\n"
        );
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

    #[test]
    fn hex_values() {
        assert_eq!(hex("000"), "0x0");
        assert_eq!(hex("10110"), "0x16");
        assert_eq!(hex("1x"), "'b1x");
    }
}
