//! Harness of the register file cache (`<prefix>_rfc`, inside the MRF when `rfc.enabled`): every
//! input free in every cycle within the cache's interface contract, reset at step 0 and whenever
//! the free `rst_any` says, and one free (warp, register) watched. The harness keeps, from the
//! ports alone, the register's latest value and the lanes of it the banks do not hold yet (the
//! cache owes them); a write to the banks of that register must carry its latest value, and the
//! end of the warp's flush must leave nothing owed. Through probes it asserts what closes the
//! induction: every owed lane is held, with its latest value, by a live dirty entry of the warp's
//! slot or by the eviction buffer, and the invariants of the cache's bookkeeping that this rests
//! on.

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
    let dut = rfc(prefix, g, r, banks_may_refuse);
    let ports = CachePorts::new(g, r, banks_may_refuse);
    let top = format!("{prefix}_prove_rfc_writeback");
    let (a, e, lanes) = (r.slots, r.entries, g.lanes);
    let n = a * e;
    let (wb, rb, sb, rk, w) = (g.warp_bits(), g.reg_bits(), r.slot_bits(), index_bits(e), g.warp_reg_bits());
    let lane = |x: &str, l: u32| slice(x, l, 32);

    let mut b = module_head(&top, RFC_WRITEBACK.statement);
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

    b += "\n  // The watched register: its latest value (`val`), the lanes of it still needed (`live`:\n";
    b += "  // written since reset, not read for the last time since, warp not released) and those the\n";
    b += "  // banks do not hold (`owed`). Events in the cycle's order: reads, the write-back, the bank\n";
    b += "  // write, the release.\n";
    b += &format!("  reg [{}:0] live, owed;\n  reg [{}:0] val;\n", lanes - 1, w - 1);
    let last_read = if r.liveness {
        let terms: Vec<String> = (0..SLOTS_PER_COLLECTOR)
            .map(|s| format!("(rd_src_valid[{s}] && rd_src_last[{s}] && {} == r)", slice("rd_src_reg", s, rb)))
            .collect();
        format!("rd_fire && rd_warp == w && ({})", terms.join(" || "))
    } else {
        "1'b0".into()
    };
    b += &format!("  wire last_read = {last_read};\n");
    b += "  wire wb_this = wb_fire && wb_warp == w && wb_reg == r;\n";
    let taken = if banks_may_refuse { " && bank_wr_ready" } else { "" };
    b += &format!("  wire bw_this = bank_wr_en{taken} && bank_wr_warp == w && bank_wr_reg == r;\n");
    b += &format!("  wire [{h}:0] live_rd = last_read ? {z} : live;\n", h = lanes - 1, z = lit(lanes, 0));
    b += &format!("  wire [{h}:0] owed_rd = last_read ? {z} : owed;\n", h = lanes - 1, z = lit(lanes, 0));
    b += &format!("  wire [{h}:0] wb_lanes = wb_this ? wb_mask : {z};\n", h = lanes - 1, z = lit(lanes, 0));
    b += &format!("  wire [{h}:0] bw_lanes = bw_this ? bank_wr_mask : {z};\n", h = lanes - 1, z = lit(lanes, 0));
    b += &format!("  wire [{}:0] live_wb = live_rd | wb_lanes;\n", lanes - 1);
    b += &format!("  wire [{}:0] owed_wb = owed_rd | wb_lanes;\n", lanes - 1);
    b += &format!("  wire [{}:0] val_wb;\n", w - 1);
    for l in 0..lanes {
        b +=
            &format!("  assign {} = wb_lanes[{l}] ? {} : {};\n", lane("val_wb", l), lane("wb_data", l), lane("val", l));
    }
    b += "  always @(posedge clk) begin\n    val <= val_wb;\n";
    b += &format!(
        "    if (rst || rel_mask[w]) begin\n      live <= {z};\n      owed <= {z};\n    end else begin\n",
        z = lit(lanes, 0)
    );
    b += "      live <= live_wb;\n      owed <= owed_wb & ~bw_lanes;\n    end\n  end\n";

    b += "\n  always @* if (!init) begin\n";
    b += "    // A write of the register to the banks carries its latest value in every lane still needed.\n";
    for l in 0..lanes {
        b += &format!(
            "    if (bw_lanes[{l}] && live_wb[{l}]) assert({} == {});\n",
            lane("bank_wr_data", l),
            lane("val_wb", l)
        );
    }
    b += "    // When the warp's flush is over, the cache owes nothing of it.\n";
    b += &format!("    if (flushing_w && flush_ready) assert(owed == {});\n", lit(lanes, 0));
    b += "  end\n";

    // The probed part: the cache's state, and the invariants that make the above inductive.
    let mut probes = Vec::new();
    let mut probe = |wire: String, width: u32, path: String, b: &mut String| {
        let range = if width > 1 { format!(" [{}:0]", width - 1) } else { String::new() };
        *b += &format!("  (* keep *) wire{range} {wire};\n");
        probes.push(Probe { wire, path: format!("dut.{path}") });
    };
    b += &format!("\n`ifdef {PROBES_DEFINE}\n");
    let words = 1u32 << wb;
    probe("p_slot_of_valid".into(), words, SLOT_OF_VALID.into(), &mut b);
    for k in 0..g.warps {
        probe(format!("p_slot_of_{k}"), sb, format!("{SLOT_OF}[{k}]"), &mut b);
    }
    probe("p_owner_valid".into(), a, OWNER_VALID.into(), &mut b);
    for s in 0..a {
        probe(format!("p_owner_{s}"), wb, format!("{OWNER}{s}"), &mut b);
    }
    for (wire, name) in [("p_valid", VALID), ("p_dirty", DIRTY), ("p_dead", DEAD)] {
        probe(wire.into(), n, name.into(), &mut b);
    }
    for i in 0..n {
        probe(format!("p_tag_{i}"), rb, format!("{TAG}{i}"), &mut b);
        probe(format!("p_rank_{i}"), rk, format!("{RANK}{i}"), &mut b);
        probe(format!("p_data_{i}"), w, format!("{DATA}[{i}]"), &mut b);
    }
    probe("p_evict_valid".into(), 1, EVICT_VALID.into(), &mut b);
    probe("p_evict_warp".into(), wb, EVICT_WARP.into(), &mut b);
    probe("p_evict_reg".into(), rb, EVICT_REG.into(), &mut b);
    probe("p_evict_data".into(), w, EVICT_DATA.into(), &mut b);
    probe("p_flush_busy".into(), 1, FLUSH_BUSY.into(), &mut b);
    probe("p_flush_slot".into(), sb, FLUSH_SLOT.into(), &mut b);

    // The watched warp's slot.
    let slots_of: Vec<String> = (0..g.warps).rev().map(|k| format!("p_slot_of_{k}")).collect();
    b += &format!("  wire [{}:0] slot_of_all = {{{}}};\n", sb * g.warps - 1, slots_of.join(", "));
    b += &format!("  wire [{}:0] w_slot = slot_of_all[w * {sb} +: {sb}];\n", sb - 1);
    b += "  wire w_has = p_slot_of_valid[w];\n";
    let sl = |s: u32| lit(sb, s as u64);
    let owner_of_flush: Vec<String> =
        (0..a).map(|s| format!("(p_flush_slot == {} && p_owner_{s} == w)", sl(s))).collect();
    b += &format!("  wire flushing_owner_w = p_flush_busy && ({});\n", owner_of_flush.join(" || "));
    // Lane by lane: held with its latest value by a live dirty entry of the warp's slot or by the
    // eviction buffer.
    b += &format!("  wire [{}:0] held;\n", lanes - 1);
    b += "  wire evict_this = p_evict_valid && p_evict_warp == w && p_evict_reg == r;\n";
    for l in 0..lanes {
        let mut terms = vec![format!("(evict_this && {} == {})", lane("p_evict_data", l), lane("val", l))];
        for i in 0..n {
            terms.push(format!(
                "(w_has && w_slot == {} && p_valid[{i}] && p_dirty[{i}] && !p_dead[{i}] && p_tag_{i} == r && {} == {})",
                sl(i / e),
                lane(&format!("p_data_{i}"), l),
                lane("val", l)
            ));
        }
        b += &format!("  assign held[{l}] = {};\n", terms.join("\n      || "));
    }

    b += "\n  always @* if (!init) begin\n";
    b += "    // Never lost: every lane the banks lack is in the cache, on its way to them.\n";
    b += &format!("    assert((owed & ~held) == {});\n", lit(lanes, 0));
    b += &format!("    assert((owed & ~live) == {});\n", lit(lanes, 0));
    b += "    // The register's copies agree with its latest value; a dead one is no longer needed.\n";
    for i in 0..n {
        b += &format!(
            "    if (w_has && w_slot == {} && p_valid[{i}] && p_tag_{i} == r) begin\n      if (p_dead[{i}]) assert(live == {});\n      else begin\n",
            sl(i / e),
            lit(lanes, 0)
        );
        for l in 0..lanes {
            b +=
                &format!("        if (live[{l}]) assert({} == {});\n", lane(&format!("p_data_{i}"), l), lane("val", l));
        }
        b += "      end\n    end\n";
    }
    for l in 0..lanes {
        b += &format!("    if (evict_this && live[{l}]) assert({} == {});\n", lane("p_evict_data", l), lane("val", l));
    }
    b += "    // Bookkeeping: every valid entry is dirty; a free slot holds nothing; within a slot the\n";
    b += "    // valid tags differ; and the entry order (`rfc::invariants`): outside a flush a slot's\n";
    b += "    // valid entries come first, an invalid entry's rank is its index, the ranks a permutation.\n";
    b += &format!("    assert((p_valid & ~p_dirty) == {});\n", lit(n, 0));
    for s in 0..a {
        b += &format!("    if (!p_owner_valid[{s}]) assert({} == {});\n", slice("p_valid", s, e), lit(e, 0));
        for x in 0..e {
            for y in x + 1..e {
                let (i, j) = (s * e + x, s * e + y);
                b += &format!("    if (p_valid[{i}] && p_valid[{j}]) assert(p_tag_{i} != p_tag_{j});\n");
            }
        }
    }
    let probed = |state: &str| match state.strip_prefix(RANK) {
        Some(i) if !i.is_empty() => format!("p_rank_{i}"),
        _ => format!("p_{state}"),
    };
    for invariant in invariants(a, e, rk, sb, &probed) {
        b += &format!("    assert({invariant});\n");
    }
    b += "    // A warp's slot is owned by it; the watched warp owns no other.\n";
    for k in 0..g.warps {
        let owns: Vec<String> = (0..a)
            .map(|s| {
                format!("(p_slot_of_{k} == {} && p_owner_valid[{s}] && p_owner_{s} == {})", sl(s), lit(wb, k as u64))
            })
            .collect();
        b += &format!("    if (p_slot_of_valid[{k}]) assert({});\n", owns.join(" || "));
    }
    for s in 0..a {
        b += &format!("    if (p_owner_valid[{s}] && p_owner_{s} == w) assert(w_has && w_slot == {});\n", sl(s));
    }
    b += "    // What the driver knows agrees with the cache: a warp with a slot is active or being\n";
    b += "    // flushed; the slot of one being flushed is the flush engine's; only its flush runs on a\n";
    b += "    // slot it owned.\n";
    b += "    if (w_has) assert(active_w || flushing_w);\n";
    b += "    if (w_has && flushing_w && !active_w) assert(p_flush_busy && p_flush_slot == w_slot);\n";
    b += "    if (flushing_owner_w) assert(flushing_w && !active_w);\n";
    b += "    // Without a slot nothing is owed (an eviction is written the cycle after it, and a warp\n";
    b += "    // loses its slot only at a release or at the end of a flush, which takes no write-back).\n";
    b += "    // A flush taken as the warp, without a slot, is activated ends at the next edge: nothing\n";
    b += "    // is owed meanwhile.\n";
    b += &format!("    if (!w_has || (flushing_w && active_w)) assert(owed == {});\n", lit(lanes, 0));
    b += "  end\n`endif\nendmodule\n";

    vec![Harness {
        property: RFC_WRITEBACK,
        part: String::new(),
        top,
        text: b,
        sources: vec![format!("{}.v", dut.module.name)],
        proof: Proof::Induction { depth: depth.min(WRITEBACK_DEPTH) },
        probes,
    }]
}

/// The invariants close in one or two steps; the bounded check from reset reaches in five an
/// activation, an allocation and its eviction by the next (one entry per slot) and the step
/// after it. Each further step costs more than the one before.
const WRITEBACK_DEPTH: u32 = 5;
