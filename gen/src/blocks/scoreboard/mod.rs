//! The scoreboard (SPEC §1): per warp, the registers and predicates with a write pending, and
//! the registers awaiting a long-latency result (two-level scheduling deschedules a warp whose
//! next instruction consumes one). Cycle behaviour: `model::blocks::scoreboard::Scoreboard`;
//! the issue stage's check reads these outputs with each warp's next instruction.

pub mod interface;

use crate::layout::geometry::Geometry;
use crate::verilog::{Module, Port, lit, vector_wire};
use interface::ScoreboardPorts;

/// Predicate registers per thread (p0..p7 in the kernel IR).
pub const PREDICATES: u32 = 8;

pub fn scoreboard(prefix: &str, g: &Geometry) -> Module {
    let ports = ScoreboardPorts::new(g);
    let p = ports.map(Port::sig);
    let (w, r, pr) = (g.warps, g.registers, PREDICATES);
    let (wr, wp) = (w * r, w * pr);
    let mut b = String::new();
    for (name, width) in [("set_regs", wr), ("set_longs", wr), ("clr_regs", wr), ("set_preds", wp)] {
        b += &vector_wire(name, width);
    }
    b += "\n  // The events as one-hot vectors (bit R*warp + register).\n";
    b += &format!(
        "  assign set_regs = {};\n",
        one_hot(
            &format!("{} & {}", p.set_valid, p.set_reg_valid),
            &p.set_warp.expr,
            g.warp_bits(),
            &p.set_reg.expr,
            g.reg_bits(),
            r,
            wr
        )
    );
    b += &format!("  assign set_longs = set_regs & {{{wr}{{{}}}}};\n", p.set_long);
    b += &format!(
        "  assign clr_regs = {};\n",
        one_hot(&p.clr_valid.expr, &p.clr_warp.expr, g.warp_bits(), &p.clr_reg.expr, g.reg_bits(), r, wr)
    );
    b += &format!(
        "  assign set_preds = {};\n",
        one_hot(
            &format!("{} & {}", p.set_valid, p.set_pred_valid),
            &p.set_warp.expr,
            g.warp_bits(),
            &p.set_pred.expr,
            3,
            pr,
            wp
        )
    );
    b += "\n  // A release and a new reservation of the same register never meet (the issue stage\n";
    b += "  // stalls a writer of a pending register); should they, the reservation wins.\n";
    b += &format!(
        "  always @(posedge clk) begin\n    if (rst) begin\n      {pe} <= {z};\n      {lp} <= {z};\n      {pp} <= {zp};\n    end else begin\n      {pe} <= ({pe} & ~clr_regs) | set_regs;\n      {lp} <= ({lp} & ~clr_regs) | set_longs;\n      {pp} <= ({pp} & ~{cp}) | set_preds;\n    end\n  end\n",
        pe = p.pending,
        lp = p.long_pending,
        pp = p.pending_preds,
        cp = p.clr_preds,
        z = lit(wr, 0),
        zp = lit(wp, 0)
    );
    Module {
        name: format!("{prefix}_scoreboard"),
        doc: vec![
            format!(
                "Scoreboard: {w} warps x {r} registers and {pr} predicates with a write pending, and the registers"
            ),
            "awaiting a long-latency result. Set when an instruction goes to a collector, cleared when its".into(),
            "result commits. See docs/sim.md (scoreboard) and docs/warpboard.md.".into(),
        ],
        // The state is the outputs.
        ports: ports
            .list()
            .into_iter()
            .cloned()
            .map(|port| {
                if matches!(port.name.as_str(), "pending" | "long_pending" | "pending_preds") {
                    port.reg()
                } else {
                    port
                }
            })
            .collect(),
        body: b,
        memory: None,
    }
}

/// `{valid} & (1 << (warp * per + index))` as a `width`-bit one-hot vector, the product and
/// sum computed in enough bits to index it.
fn one_hot(valid: &str, warp: &str, warp_bits: u32, index: &str, index_bits: u32, per: u32, width: u32) -> String {
    let ib = 32 - (width - 1).leading_zeros();
    let widen = |e: &str, from: u32| crate::verilog::resize(e, from, ib);
    format!(
        "{{{width}{{{valid}}}}} & ({} << ({} * {} + {}))",
        lit(width, 1),
        widen(warp, warp_bits),
        lit(ib, per as u64),
        widen(index, index_bits)
    )
}
