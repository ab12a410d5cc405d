//! The MRF top's invariants over its slots: what ties the bank groups' read pipelines to the
//! collectors' pending and in-flight slots. A slot's read is a token: granted while the slot is
//! pending, then in one bank group's pipeline while the slot is in flight, until the delivery
//! that ends it. No delivery comes for a slot not in flight, so an edit of the gate that keeps
//! deliveries to slots in flight (`slot_deliver`) changes nothing; proving that takes these
//! facts, which no single module holds (`rfgen mutate` proves them along with the edit). They
//! also say whose read a slot's delivery is (its own bank group's), which is what an operand
//! takes when a leaf's read registers are compared only where read.

use crate::config::Checked;
use crate::layout::geometry::SLOTS_PER_COLLECTOR;
use crate::verilog::lit;

/// The invariants of the MRF top of `checked`, over the top's own net names; empty for the
/// variants they are not written for: only registered read data (a slot's data on its group's
/// read data the cycle after `arrive`, `slot_deliver` a register), without TFET rows or
/// compression, whose reads take other paths. A register file cache's hits, and an ORF/LRF's,
/// fill their slots at allocation, never pending: the slots' reads are the same.
pub fn invariants(checked: &Checked) -> Vec<String> {
    let g = &checked.geometry;
    if !written_for(checked) {
        return Vec::new();
    }
    let (s, k) = (g.slots(), SLOTS_PER_COLLECTOR);
    let none = lit(s, 0);
    let groups = |what: &str| (0..g.groups).map(|grp| format!("group{grp}_{what}")).collect::<Vec<_>>();
    let arrive = format!("({})", groups("arrive").join(" | "));
    let mut holds = vec![
        // A grant only to a pending slot, and a pending slot not in flight.
        format!("(slot_grant & ~slot_req) == {none}"),
        format!("(slot_req & slot_inflight) == {none}"),
        // Data arriving or delivered only for a slot in flight, and not both at once.
        format!("(({arrive} | slot_deliver) & ~slot_inflight) == {none}"),
        format!("({arrive} & slot_deliver) == {none}"),
    ];
    // A slot's read in one bank group only.
    for what in ["grant", "arrive"] {
        let each = groups(what);
        for (i, a) in each.iter().enumerate() {
            for b in &each[i + 1..] {
                holds.push(format!("({a} & {b}) == {none}"));
            }
        }
    }
    // A slot's grant and arrival come from the bank group it reads (its data is that group's).
    if g.groups > 1 {
        let gb = g.group_bits();
        for grp in 0..g.groups {
            for what in ["grant", "arrive"] {
                for slot in 0..s {
                    let group = format!("slot_group[{}:{}]", slot * gb + gb - 1, slot * gb);
                    holds.push(format!("(!group{grp}_{what}[{slot}] || {group} == {gb}'d{grp})"));
                }
            }
        }
    }
    // A free collector has no slot pending or in flight (so it is not allocated under a read).
    for c in 0..g.collectors {
        let slots = format!("[{}:{}]", c * k + k - 1, c * k);
        let zero = lit(k, 0);
        holds.push(format!("(cu_busy[{c}] || (slot_req{slots} == {zero} && slot_inflight{slots} == {zero}))"));
    }
    // The collector offered for dispatch a cycle ahead stays ready until it leaves.
    if g.registered_dispatch {
        holds.push(format!("(disp_grant & ~cu_ready) == {}", lit(g.collectors, 0)));
    }
    holds
}

/// The modules inside the MRF top of `checked` that no slot's read passes through, for the
/// variants [`invariants`] are written for: a register file cache and an ORF/LRF, whose hits
/// fill their slots at allocation (an ORF/LRF's fills take a collector's value once it holds
/// it). `rfgen mutate` cuts them out where it observes the leaves' reads (their outputs free,
/// the same on both sides; their inputs compared): the cache's 48 entries of 256 bits held the
/// induction past 16 minutes, without them it closes in minutes.
pub fn beside_reads(checked: &Checked) -> Vec<String> {
    if !written_for(checked) {
        return Vec::new();
    }
    let rfc = checked.rfc.as_ref().map(|_| format!("{}_rfc", checked.prefix()));
    let orf = checked.orf.as_ref().map(|_| format!("{}_orf", checked.prefix()));
    rfc.into_iter().chain(orf).collect()
}

/// Whether the MRF of `checked` is a variant [`invariants`] are written for.
fn written_for(checked: &Checked) -> bool {
    let g = &checked.geometry;
    g.registered_read && !g.has_tfet() && checked.compression.is_none()
}

/// The bank group's register of the reads its banks issue (`issued_read`), for the variants
/// [`invariants`] are written for: a slot takes a bank's read registers only in the cycles after
/// a read of this register, not after any read the banks' own enable makes.
pub fn issued_reads(checked: &Checked) -> Option<(String, String)> {
    written_for(checked).then(|| {
        let read = crate::blocks::mrf::bank_group::issued_read(&checked.geometry);
        (format!("{}_mrf_bank_group", checked.prefix()), read.to_string())
    })
}
