//! Harness of the register file cache (`<prefix>_rfc`, inside the MRF when `rfc.enabled`): every
//! input free in every cycle within the cache's interface contract, reset at step 0 and whenever
//! the free `rst_any` says, and one free (warp, register) watched. The harness keeps, from the
//! ports alone, the lane's latest value of the register and whether the banks lack it (the cache
//! owes it); a write to the banks of that register must carry its latest value, and the end of
//! the warp's flush must leave nothing owed. Through probes it asserts what closes the induction:
//! an owed value is held, with its latest value, by a live dirty entry of the warp's slot or by
//! the eviction buffer, and the invariants of the cache's bookkeeping that this rests on.
//!
//! The property is checked in parts. The bookkeeping's invariants read no values: one harness
//! proves them. Each lane's values are its own (the cache treats its lanes alike), so a harness
//! per lane checks them, reading that lane's bits alone, with the bookkeeping assumed: proved for
//! every reachable state, the assumption only rules out states no run reaches, and the property
//! is proved only when every part is. The prover then keeps one lane of the value array, and the
//! full-size cache's model shrinks from 55 to 8.7 MB; with all lanes it was more than the solver
//! read in 15 minutes.

use super::{Harness, PROBES_DEFINE, Probe, Proof, RFC_WRITEBACK, free_running, module_head};
use crate::blocks::mrf::rfc::interface::CachePorts;
use crate::blocks::mrf::rfc::invariants::invariants;
use crate::blocks::mrf::rfc::{
    DATA, DEAD, DIRTY, EVICT_DATA, EVICT_REG, EVICT_VALID, EVICT_WARP, FLUSH_BUSY, FLUSH_SLOT, OWNER, OWNER_VALID,
    RANK, SLOT_OF, SLOT_OF_VALID, TAG, VALID, rfc,
};
use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR, index_bits};
use crate::layout::rfc::RfcLayout;
use crate::verilog::{Sig, lit, slice};

pub fn harnesses(prefix: &str, g: &Geometry, r: &RfcLayout, banks_may_refuse: bool, depth: u32) -> Vec<Harness> {
    let parts = std::iter::once(Part::Bookkeeping).chain((0..g.lanes).map(Part::Lane));
    parts.map(|part| harness(prefix, g, r, banks_may_refuse, depth, part)).collect()
}

/// The property's parts: the bookkeeping invariants, proved once, then each lane's values with
/// them assumed (proved for every reachable state, they only rule out unreachable ones).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Bookkeeping,
    Lane(u32),
}

/// The harness of `part`: the interface contract, what the driver knows of the watched warp and
/// the cache's bookkeeping; for a lane, also the register's values in that lane alone.
fn harness(prefix: &str, g: &Geometry, r: &RfcLayout, banks_may_refuse: bool, depth: u32, part: Part) -> Harness {
    let dut = rfc(prefix, g, r, banks_may_refuse);
    let ports = CachePorts::new(g, r, banks_may_refuse);
    let (a, e) = (r.slots, r.entries);
    let n = a * e;
    let (wb, rb, sb, rk) = (g.warp_bits(), g.reg_bits(), r.slot_bits(), index_bits(e));
    let (part_name, ln) = match part {
        Part::Bookkeeping => ("bookkeeping".to_string(), None),
        Part::Lane(ln) => (format!("lane {ln}"), Some(ln)),
    };
    let top = format!("{prefix}_prove_rfc_writeback");

    let mut b = module_head(&top, &format!("{}; {part_name}", RFC_WRITEBACK.statement));
    b += &free_running(&dut, &ports.map(|p| Sig::new(p.name.clone(), p.width)));

    b += &format!("\n  (* anyconst *) reg [{}:0] w;\n  (* anyconst *) reg [{}:0] r;\n", wb - 1, rb - 1);
    b += &format!(
        "  always @* assume({{1'b0, w}} < {} && {{1'b0, r}} < {});\n",
        lit(wb + 1, g.warps as u64),
        lit(rb + 1, g.registers as u64)
    );
    b += "\n  // The interface contract (docs/rfc.md, docs/prove.md): warp ids in range; a write-back is\n";
    b += "  // taken only when offered (wb_ready";
    b += if banks_may_refuse { ", and the banks take a write: bank_wr_ready" } else { "" };
    b += "); the watched warp is activated\n  // only when it owns no slot and no flush of it is under way.\n";
    if g.warps < (1 << wb) {
        for x in ["rd_warp", "wb_warp", "act_warp", "flush_warp"] {
            b += &format!("  always @* assume({{1'b0, {x}}} < {});\n", lit(wb + 1, g.warps as u64));
        }
    }
    let wb_ok = if banks_may_refuse { "wb_ready && bank_wr_ready" } else { "wb_ready" };
    b += &format!("  always @* if (wb_fire) assume({wb_ok});\n");
    b += "  always @* if (act_valid && act_warp == w) assume(!active_w && !flushing_w);\n";

    b += "\n  // What the driver knows of the watched warp: it owns a slot (activated, not released, no\n";
    b += "  // flush taken since), a flush of it was taken and flush_ready has not been seen since.\n";
    b += "  reg active_w, flushing_w;\n  always @(posedge clk)\n    if (rst) begin\n      active_w <= 1'b0;\n      flushing_w <= 1'b0;\n    end else begin\n";
    b += "      if (flushing_w && flush_ready) flushing_w <= 1'b0;\n";
    b += "      if (flush_valid && flush_ready && flush_warp == w) begin\n        flushing_w <= 1'b1;\n        active_w <= 1'b0;\n      end\n";
    b += "      if (rel_mask[w]) active_w <= 1'b0;\n";
    b += "      if (act_valid && act_ready && act_warp == w) active_w <= 1'b1;\n    end\n";

    if let Some(ln) = ln {
        lane_values(&mut b, g, r, banks_may_refuse, ln);
    }

    // The probed part: the cache's state, and the invariants that make the above inductive.
    let mut probes = Vec::new();
    let mut probe = |wire: String, width: u32, path: String, bits: Option<(u32, u32)>, b: &mut String| {
        let range = if width > 1 { format!(" [{}:0]", width - 1) } else { String::new() };
        *b += &format!("  (* keep *) wire{range} {wire};\n");
        probes.push(Probe { wire, path: format!("dut.{path}"), bits });
    };
    b += &format!("\n`ifdef {PROBES_DEFINE}\n");
    let words = 1u32 << wb;
    probe("p_slot_of_valid".into(), words, SLOT_OF_VALID.into(), None, &mut b);
    for k in 0..g.warps {
        probe(format!("p_slot_of_{k}"), sb, format!("{SLOT_OF}[{k}]"), None, &mut b);
    }
    probe("p_owner_valid".into(), a, OWNER_VALID.into(), None, &mut b);
    for s in 0..a {
        probe(format!("p_owner_{s}"), wb, format!("{OWNER}{s}"), None, &mut b);
    }
    for (wire, name) in [("p_valid", VALID), ("p_dirty", DIRTY), ("p_dead", DEAD)] {
        probe(wire.into(), n, name.into(), None, &mut b);
    }
    for i in 0..n {
        probe(format!("p_tag_{i}"), rb, format!("{TAG}{i}"), None, &mut b);
        probe(format!("p_rank_{i}"), rk, format!("{RANK}{i}"), None, &mut b);
    }
    probe("p_evict_valid".into(), 1, EVICT_VALID.into(), None, &mut b);
    probe("p_evict_warp".into(), wb, EVICT_WARP.into(), None, &mut b);
    probe("p_evict_reg".into(), rb, EVICT_REG.into(), None, &mut b);
    probe("p_flush_busy".into(), 1, FLUSH_BUSY.into(), None, &mut b);
    probe("p_flush_slot".into(), sb, FLUSH_SLOT.into(), None, &mut b);
    if let Some(ln) = ln {
        // The lane's 32 bits of every value the cache holds.
        let lane_bits = Some((32 * ln + 31, 32 * ln));
        for i in 0..n {
            probe(format!("p_data_{i}"), 32, format!("{DATA}[{i}]"), lane_bits, &mut b);
        }
        probe("p_evict_data".into(), 32, EVICT_DATA.into(), lane_bits, &mut b);
    }

    // The watched warp's slot.
    let slots_of: Vec<String> = (0..g.warps).rev().map(|k| format!("p_slot_of_{k}")).collect();
    b += &format!("  wire [{}:0] slot_of_all = {{{}}};\n", sb * g.warps - 1, slots_of.join(", "));
    b += &format!("  wire [{}:0] w_slot = slot_of_all[w * {sb} +: {sb}];\n", sb - 1);
    b += "  wire w_has = p_slot_of_valid[w];\n";
    b += "  wire evict_this = p_evict_valid && p_evict_warp == w && p_evict_reg == r;\n";
    let sl = |s: u32| lit(sb, s as u64);

    b += "\n  always @* if (!init) begin\n";
    // Proved by the bookkeeping part; a lane's part assumes them.
    let check = if ln.is_some() { "assume" } else { "assert" };
    b += "    // Bookkeeping: every valid entry is dirty; a free slot holds nothing; within a slot the\n";
    b += "    // valid tags differ; and the entry order (`rfc::invariants`): outside a flush a slot's\n";
    b += "    // valid entries come first, an invalid entry's rank is its index, the ranks a permutation.\n";
    b += &format!("    {check}((p_valid & ~p_dirty) == {});\n", lit(n, 0));
    for s in 0..a {
        b += &format!("    if (!p_owner_valid[{s}]) {check}({} == {});\n", slice("p_valid", s, e), lit(e, 0));
        for x in 0..e {
            for y in x + 1..e {
                let (i, j) = (s * e + x, s * e + y);
                b += &format!("    if (p_valid[{i}] && p_valid[{j}]) {check}(p_tag_{i} != p_tag_{j});\n");
            }
        }
    }
    let probed = |state: &str| match state.strip_prefix(RANK) {
        Some(i) if !i.is_empty() => format!("p_rank_{i}"),
        _ => format!("p_{state}"),
    };
    for invariant in invariants(a, e, rk, sb, &probed) {
        b += &format!("    {check}({invariant});\n");
    }
    b += "    // A warp's slot is owned by it; the watched warp owns no other.\n";
    for k in 0..g.warps {
        let owns: Vec<String> = (0..a)
            .map(|s| {
                format!("(p_slot_of_{k} == {} && p_owner_valid[{s}] && p_owner_{s} == {})", sl(s), lit(wb, k as u64))
            })
            .collect();
        b += &format!("    if (p_slot_of_valid[{k}]) {check}({});\n", owns.join(" || "));
    }
    for s in 0..a {
        b += &format!("    if (p_owner_valid[{s}] && p_owner_{s} == w) {check}(w_has && w_slot == {});\n", sl(s));
    }
    let owner_of_flush: Vec<String> =
        (0..a).map(|s| format!("(p_flush_slot == {} && p_owner_{s} == w)", sl(s))).collect();
    b += "    // What the driver knows agrees with the cache: a warp with a slot is active or being\n";
    b += "    // flushed; the slot of one being flushed is the flush engine's; only its flush runs on a\n";
    b += "    // slot it owned.\n";
    b += &format!("    if (w_has) {check}(active_w || flushing_w);\n");
    b += &format!("    if (w_has && flushing_w && !active_w) {check}(p_flush_busy && p_flush_slot == w_slot);\n");
    b += &format!("    if (p_flush_busy && ({})) {check}(flushing_w && !active_w);\n", owner_of_flush.join(" || "));
    if ln.is_some() {
        lane_invariants(&mut b, n, e, &sl);
    }
    b += "  end\n`endif\nendmodule\n";

    Harness {
        property: RFC_WRITEBACK,
        part: part_name,
        top,
        text: b,
        sources: vec![format!("{}.v", dut.module.name)],
        proof: Proof::Induction { depth: depth.min(WRITEBACK_DEPTH) },
        probes,
    }
}

/// A lane's part at the ports: the watched register's latest value in lane `ln`, whether it is
/// still needed and whether the banks lack it, and what the ports must show of them.
fn lane_values(b: &mut String, g: &Geometry, r: &RfcLayout, banks_may_refuse: bool, ln: u32) {
    let rb = g.reg_bits();
    *b += &format!("\n  // The watched register's lane {ln}: its latest value (`val`), whether it is still needed\n");
    *b += "  // (`live`: written since reset, not read for the last time since, warp not released) and\n";
    *b += "  // whether the banks lack it (`owed`). Events in the cycle's order: reads, the write-back,\n";
    *b += "  // the bank write, the release.\n";
    *b += "  reg live, owed;\n  reg [31:0] val;\n";
    let last_read = if r.liveness {
        let terms: Vec<String> = (0..SLOTS_PER_COLLECTOR)
            .map(|s| format!("(rd_src_valid[{s}] && rd_src_last[{s}] && {} == r)", slice("rd_src_reg", s, rb)))
            .collect();
        format!("rd_fire && rd_warp == w && ({})", terms.join(" || "))
    } else {
        "1'b0".into()
    };
    *b += &format!("  wire last_read = {last_read};\n");
    *b += "  wire wb_this = wb_fire && wb_warp == w && wb_reg == r;\n";
    let taken = if banks_may_refuse { " && bank_wr_ready" } else { "" };
    *b += &format!("  wire bw_this = bank_wr_en{taken} && bank_wr_warp == w && bank_wr_reg == r;\n");
    *b += &format!("  wire wb_lane = wb_this && wb_mask[{ln}];\n");
    *b += &format!("  wire bw_lane = bw_this && bank_wr_mask[{ln}];\n");
    *b += "  wire live_wb = (live && !last_read) || wb_lane;\n";
    *b += "  wire owed_wb = (owed && !last_read) || wb_lane;\n";
    *b += &format!("  wire [31:0] val_wb = wb_lane ? {} : val;\n", slice("wb_data", ln, 32));
    *b += "  always @(posedge clk) begin\n    val <= val_wb;\n";
    *b += "    if (rst || rel_mask[w]) begin\n      live <= 1'b0;\n      owed <= 1'b0;\n    end else begin\n";
    *b += "      live <= live_wb;\n      owed <= owed_wb && !bw_lane;\n    end\n  end\n";

    *b += "\n  always @* if (!init) begin\n";
    *b += "    // A write of the register to the banks carries its latest value when it is still needed.\n";
    *b += &format!("    if (bw_lane && live_wb) assert({} == val_wb);\n", slice("bank_wr_data", ln, 32));
    *b += "    // When the warp's flush is over, the cache owes nothing of it.\n";
    *b += "    if (flushing_w && flush_ready) assert(!owed);\n";
    *b += "  end\n";
}

/// A lane's part inside the cache (probed, `n` entries of `e` per slot): where an owed value
/// is held, and that the register's copies agree with its latest value.
fn lane_invariants(b: &mut String, n: u32, e: u32, sl: &dyn Fn(u32) -> String) {
    // Held with its latest value by a live dirty entry of the warp's slot or by the eviction
    // buffer.
    let mut terms = vec!["(evict_this && p_evict_data == val)".to_string()];
    for i in 0..n {
        terms.push(format!(
            "(w_has && w_slot == {} && p_valid[{i}] && p_dirty[{i}] && !p_dead[{i}] && p_tag_{i} == r && p_data_{i} == val)",
            sl(i / e),
        ));
    }
    *b += "    // Never lost: what the banks lack is in the cache, on its way to them.\n";
    *b += &format!("    if (owed) assert(live && ({}));\n", terms.join("\n      || "));
    *b += "    // The register's copies agree with its latest value; a dead one is no longer needed.\n";
    for i in 0..n {
        *b += &format!(
            "    if (w_has && w_slot == {} && p_valid[{i}] && p_tag_{i} == r) begin\n      if (p_dead[{i}]) assert(!live);\n      else if (live) assert(p_data_{i} == val);\n    end\n",
            sl(i / e),
        );
    }
    *b += "    if (evict_this && live) assert(p_evict_data == val);\n";
    *b += "    // Without a slot nothing is owed but the eviction buffer's register, while the flush that\n";
    *b += "    // took the slot waits for the banks to take it (a warp loses its slot only at a release or\n";
    *b += "    // at the end of a flush, which takes no write-back). A flush taken as the warp, without a\n";
    *b += "    // slot, is activated takes no write-back until it is over: nothing is owed meanwhile.\n";
    *b += "    if ((!w_has && !evict_this) || (flushing_w && active_w)) assert(!owed);\n";
    *b += "    if (!w_has && owed) assert(flushing_w);\n";
}

/// The invariants close in one or two steps; the bounded check from reset reaches in five an
/// activation, an allocation and its eviction by the next (one entry per slot) and the step
/// after it. Each further step costs more than the one before.
const WRITEBACK_DEPTH: u32 = 5;
