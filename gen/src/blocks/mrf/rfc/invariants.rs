//! The entry order of the register file cache that holds in every state it reaches from reset,
//! stated once for every reader: `rfgen prove`'s `rfc.writeback` asserts it through probes, and
//! `rfgen mutate`'s equivalence check proves it along with a surviving mutant's edit, so that an
//! edit masked only in reachable states can be proved equivalent (docs/mutate.md).
//!
//! Outside a flush of its slot (whose steps empty entries lowest first and whose end frees the
//! slot), a slot fills in index order from ranks 0 to E-1 and only ever replaces its oldest
//! entry once full: its valid entries come first, an invalid entry's rank is its index, and the
//! ranks are a permutation of 0 to E-1. The victim choice rests on the first two (the first
//! invalid entry is the one after the last valid); the rank update, on all three (the touched
//! rank of an allocation into a filling slot is its number of valid entries).

use super::{FLUSH_BUSY, FLUSH_SLOT, RANK, VALID};
use crate::verilog::lit;

/// The invariants of a cache of `slots` slots of `entries` entries (ranks `rank_bits` wide,
/// slots `slot_bits`), each a Verilog boolean expression; `name` gives how the reader names a
/// state of the cache (`valid`, `rank<i>`, `flush_busy`, `flush_slot`).
pub fn invariants(
    slots: u32,
    entries: u32,
    rank_bits: u32,
    slot_bits: u32,
    name: &dyn Fn(&str) -> String,
) -> Vec<String> {
    let (valid, busy, slot) = (name(VALID), name(FLUSH_BUSY), name(FLUSH_SLOT));
    let rank = |i: u32| name(&format!("{RANK}{i}"));
    let mut all = Vec::new();
    for s in 0..slots {
        let flushing = format!("({busy} && {slot} == {})", lit(slot_bits, s as u64));
        let mut holds = |what: String| all.push(format!("({flushing} || {what})"));
        for x in 0..entries {
            let i = s * entries + x;
            if x > 0 {
                holds(format!("!{valid}[{i}] || {valid}[{}]", i - 1));
            }
            holds(format!("{valid}[{i}] || {} == {}", rank(i), lit(rank_bits, x as u64)));
            if (1u32 << rank_bits) > entries {
                holds(format!("{} < {}", rank(i), lit(rank_bits, entries as u64)));
            }
            for y in x + 1..entries {
                holds(format!("{} != {}", rank(i), rank(s * entries + y)));
            }
        }
    }
    all
}
