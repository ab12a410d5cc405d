//! The top's glue for warps coming and going (the model's `sm_rf::warp_control`): the register
//! file cache's slot protocol — activations from launches or the two-level scheduler's active
//! set, flushes of descheduled warps, releases of finished ones, flushing warps held — and the
//! compressed MRF's invalidation of finished warps' registers. Each is a set of waiting warps
//! served lowest-numbered first from registers.

use super::interface::SmRfPorts;
use crate::layout::geometry::index_bits;
use crate::verilog::{Sig, lit, lowest_set, onehot_index, reg, resize, vector_reg, vector_wire, wire};

/// The cache's protocol: drives `rfc_act_*`, `rfc_flush_*`, `rfc_rel_mask` and reads
/// `rfc_act_ready`, `rfc_flush_ready`; `rfc_flushing` is held out of the active set.
pub fn rfc(p: &SmRfPorts<Sig>, warps: u32, wb: u32) -> String {
    let w = warps;
    let exit = p.exit.as_ref().expect("a register file cache has exit");
    let one = lit(w, 1);
    let first = |name: &str, of: &str| format!("  assign {name} = {};  // lowest, one-hot\n", lowest_set(of, w));
    let index = |v: &str| resize(&onehot_index(v, w), index_bits(w), wb);
    let mut b =
        String::from("\n  // Register file cache slots: a warp is activated when it joins the active set (launched,\n");
    b += "  // beside a scheduler without one), flushed when it leaves it without finishing, and its slot\n";
    b += "  // released when it finishes; lowest-numbered first. A flushing warp is not activated and\n";
    b += "  // is held out of the active set until the cache is ready again.\n";
    for name in ["rfc_activating", "rfc_owns", "rfc_flush_queue", "rfc_flushing", "rfc_releasing"] {
        b += &vector_reg(name, w);
    }
    b += &reg("rfc_sent_valid", 1);
    b += &reg("rfc_sent_warp", wb);
    for name in ["rfc_act_wait", "rfc_act_first", "rfc_flush_first", "rfc_act_take", "rfc_flush_take", "rfc_done"] {
        b += &vector_wire(name, w);
    }
    for name in ["rfc_joined", "rfc_left", "rfc_owned", "rfc_flushed"] {
        b += &vector_wire(name, w);
    }
    for name in ["rfc_act_valid", "rfc_act_ready", "rfc_flush_valid", "rfc_flush_ready"] {
        b += &wire(name, 1);
    }
    b += &wire("rfc_act_warp", wb);
    b += &wire("rfc_flush_warp", wb);
    b += &vector_wire("rfc_rel_mask", w);
    b += "  assign rfc_act_wait = rfc_activating & ~rfc_flushing;\n";
    b += &first("rfc_act_first", "rfc_act_wait");
    b += &first("rfc_flush_first", "rfc_flush_queue");
    b += "  assign rfc_act_valid = |rfc_act_wait;\n";
    b += &format!("  assign rfc_act_warp = {};\n", index("rfc_act_first"));
    b += "  assign rfc_flush_valid = |rfc_flush_queue;\n";
    b += &format!("  assign rfc_flush_warp = {};\n", index("rfc_flush_first"));
    b += "  assign rfc_rel_mask = rfc_releasing;\n";
    b += &format!("  assign rfc_act_take = {{{w}{{rfc_act_ready}}}} & rfc_act_first;\n");
    b += &format!("  assign rfc_flush_take = {{{w}{{rfc_flush_ready}}}} & rfc_flush_first;\n");
    b += "  // The cache is ready again: the flush it took is done.\n";
    b += &format!("  assign rfc_done = (rfc_sent_valid & rfc_flush_ready) ? {one} << rfc_sent_warp : {};\n", lit(w, 0));
    b += "  assign rfc_owned = (rfc_owns & ~rfc_done) | rfc_act_take;\n";
    match (&p.active, &p.launch) {
        (Some(active), _) => {
            b += "  // The scheduler's active set a cycle ago, and the warp whose last instruction was granted\n";
            b += "  // then: a warp that left the set otherwise was descheduled.\n";
            b += &vector_reg("rfc_active_was", w);
            b += &vector_reg("rfc_ended_was", w);
            b += &format!("  assign rfc_joined = {active} & ~rfc_active_was;\n");
            b += &format!("  assign rfc_left = rfc_active_was & ~{active} & ~rfc_ended_was;\n");
            b += "  always @(posedge clk) begin\n";
            b += &format!("    rfc_active_was <= rst ? {} : {active};\n", lit(w, 0));
            b += &format!(
                "    rfc_ended_was <= (~rst & {} & {}) ? {one} << {} : {};\n",
                p.grant_valid,
                p.grant_last,
                p.grant_warp,
                lit(w, 0)
            );
            b += "  end\n";
        }
        (None, Some(launch)) => {
            b += &format!("  assign rfc_joined = {launch};\n");
            b += &format!("  assign rfc_left = {};\n", lit(w, 0));
        }
        (None, None) => unreachable!("a register file cache beside a scheduler without an active set has launch"),
    }
    b += "  assign rfc_flushed = rfc_left & rfc_owned;\n";
    b += "  always @(posedge clk) begin\n";
    b += "    if (rst) begin\n";
    for name in ["rfc_activating", "rfc_owns", "rfc_flush_queue", "rfc_flushing", "rfc_releasing"] {
        b += &format!("      {name} <= {};\n", lit(w, 0));
    }
    b += "      rfc_sent_valid <= 1'b0;\n";
    b += "    end else begin\n";
    b += "      // A slot's warp may finish and a new one launch into it at the same edge.\n";
    b += &format!("      rfc_activating <= (rfc_activating & ~rfc_act_take & ~rfc_left & ~{exit}) | rfc_joined;\n");
    b += &format!("      rfc_owns <= rfc_owned & ~{exit};\n");
    b += "      rfc_flush_queue <= (rfc_flush_queue & ~rfc_flush_take) | rfc_flushed;\n";
    b += "      rfc_flushing <= (rfc_flushing & ~rfc_done) | rfc_flushed;\n";
    b += &format!("      rfc_releasing <= {exit} & rfc_owned;\n");
    b += "      rfc_sent_valid <= (rfc_flush_valid & rfc_flush_ready) | (rfc_sent_valid & ~rfc_flush_ready);\n";
    b += "    end\n";
    b += "    if (rfc_flush_valid & rfc_flush_ready) rfc_sent_warp <= rfc_flush_warp;\n";
    b += "  end\n";
    b
}

/// The compressed MRF's frees: drives `free_valid`, `free_warp` and the top's `freeing`.
pub fn free(p: &SmRfPorts<Sig>, warps: u32, wb: u32) -> String {
    let w = warps;
    let exit = p.exit.as_ref().expect("a compressed MRF has exit");
    let freeing = &p.compressed.as_ref().expect("a compressed MRF").freeing;
    let mut b =
        String::from("\n  // Finished warps' compressed registers are invalidated one per cycle, lowest first.\n");
    b += &vector_reg("free_pending", w);
    b += &vector_wire("free_first", w);
    b += &wire("free_valid", 1);
    b += &wire("free_warp", wb);
    b += &format!("  assign free_first = {};\n", lowest_set("free_pending", w));
    b += "  assign free_valid = |free_pending;\n";
    b += &format!("  assign free_warp = {};\n", resize(&onehot_index("free_first", w), index_bits(w), wb));
    b += &format!("  assign {freeing} = free_pending;\n");
    b += "  always @(posedge clk) begin\n";
    b += &format!("    free_pending <= rst ? {} : (free_pending & ~free_first) | {exit};\n", lit(w, 0));
    b += "  end\n";
    b
}
