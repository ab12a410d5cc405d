//! Harness of the scoreboard: one free (warp, register) and one free (warp, predicate) followed
//! through free reservations, write-backs and resets, reset at step 0. What each pending bit
//! did from one cycle to the next is checked against what the inputs asked for in that cycle.

use super::{Harness, Proof, SCOREBOARD_RESERVED, free_running, module_head};
use crate::blocks::scoreboard::interface::ScoreboardPorts;
use crate::blocks::scoreboard::{PREDICATES, scoreboard};
use crate::layout::geometry::Geometry;
use crate::layout::geometry::index_bits;
use crate::verilog::{Sig, Submodule, lit};

pub fn harnesses(prefix: &str, g: &Geometry, depth: u32) -> Vec<Harness> {
    let ports = ScoreboardPorts::new(g);
    let dut = Submodule { module: scoreboard(prefix, g), ports: ports.clone() };
    let top = format!("{prefix}_prove_scoreboard_reserved");
    let mut b = module_head(&top, SCOREBOARD_RESERVED.statement);
    b += &free_running(&dut, &ports.map(|p| Sig::new(p.name.clone(), p.width)));

    let (wb, rb) = (g.warp_bits(), g.reg_bits());
    let (bits, pred_bits) = (g.warps * g.registers, g.warps * PREDICATES);
    b += &format!("\n  (* anyconst *) reg [{}:0] w;\n  (* anyconst *) reg [{}:0] r;\n", wb - 1, rb - 1);
    b += "  (* anyconst *) reg [2:0] p;\n";
    b += &format!(
        "  always @* assume({{1'b0, w}} < {} && {{1'b0, r}} < {});\n",
        lit(wb + 1, g.warps as u64),
        lit(rb + 1, g.registers as u64)
    );
    // Bit positions of the watched register and predicate (widened so products cannot wrap).
    let ib = index_bits(bits) + 1;
    let pb = index_bits(pred_bits) + 1;
    b += &format!(
        "  wire [{h}:0] at = {{{pw}'d0, w}} * {r_count} + {{{pr}'d0, r}};\n",
        h = ib - 1,
        pw = ib - wb,
        pr = ib - rb,
        r_count = lit(ib, g.registers as u64)
    );
    b += &format!(
        "  wire [{h}:0] at_pred = {{{pw}'d0, w}} * {p_count} + {{{pp}'d0, p}};\n",
        h = pb - 1,
        pw = pb - wb,
        pp = pb - 3,
        p_count = lit(pb, PREDICATES as u64)
    );
    b += "  wire reg_now = pending[at];\n  wire long_now = long_pending[at];\n  wire pred_now = pending_preds[at_pred];\n";
    b += "  wire reserves = set_valid && set_reg_valid && set_warp == w && set_reg == r;\n";
    b += "  wire commits = clr_valid && clr_warp == w && clr_reg == r;\n";
    b += "  wire reserves_pred = set_valid && set_pred_valid && set_warp == w && set_pred == p;\n";
    b += "  wire commits_pred = clr_preds[at_pred];\n";
    b += "\n  // Last cycle's inputs and bits.\n";
    b += "  reg was_rst, was_reg, was_long, was_pred, did_reserve, did_commit, did_long, did_reserve_pred, did_commit_pred;\n";
    b += "  always @(posedge clk) begin\n    was_rst <= rst;\n    was_reg <= reg_now;\n    was_long <= long_now;\n    \
          was_pred <= pred_now;\n    did_reserve <= reserves;\n    did_commit <= commits;\n    did_long <= set_long;\n    \
          did_reserve_pred <= reserves_pred;\n    did_commit_pred <= commits_pred;\n  end\n";
    b += "\n  always @* if (!init) begin\n";
    b += "    // A bit rises only when reserved, falls only at its write-back or a reset.\n";
    b += "    if (!was_reg && reg_now) assert(!was_rst && did_reserve);\n";
    b += "    if (was_reg && !reg_now) assert(was_rst || (did_commit && !did_reserve));\n";
    b += "    if (!was_long && long_now) assert(!was_rst && did_reserve && did_long);\n";
    b += "    if (!was_pred && pred_now) assert(!was_rst && did_reserve_pred);\n";
    b += "    if (was_pred && !pred_now) assert(was_rst || (did_commit_pred && !did_reserve_pred));\n";
    b += "    // A register awaits a long-latency result only while it is pending.\n";
    b += &format!("    assert((long_pending & ~pending) == {});\n", lit(bits, 0));
    b += "  end\nendmodule\n";
    vec![Harness {
        property: SCOREBOARD_RESERVED,
        part: String::new(),
        top,
        text: b,
        sources: vec![format!("{}.v", dut.module.name)],
        // Each assertion is about one edge and the invariant is closed under one, so a short
        // induction proves them; the bounded check from reset still needs a few cycles to reach
        // a reservation and its write-back, and more only costs time on large scoreboards.
        proof: Proof::Induction { depth: depth.min(4) },
        probes: Vec::new(),
    }]
}
