//! One bank group: the bank at the same position in every cluster, sharing one row address,
//! with the round-robin arbiter that picks which operand slot reads it this cycle.

use crate::geometry::Geometry;
use crate::verilog::{Module, Port, onehot_mux, slice, wire};

pub fn bank_group(prefix: &str, g: &Geometry, sram: &Module, arbiter: &Module) -> Module {
    let (s, ab, wr, ew, lpc) = (g.slots(), g.row_bits(), g.warp_reg_bits(), g.entry_bits(), g.lanes_per_cluster);
    let mut body = String::new();
    body += &wire("grant_valid", 1);
    body += &wire("rd_row", ab);
    body += "\n";
    let (instance, granted_row) = slot_arbiter(arbiter, "slot_req", s, ab);
    body += &instance;
    body += &format!("\n  // Row of the granted slot.\n  assign rd_row = {granted_row};\n\n");
    for c in 0..g.clusters {
        let mask = slice("wr_mask", c, lpc);
        body += &format!("  // Cluster {c}: lanes {}..{}.\n", c * lpc, (c + 1) * lpc - 1);
        body += &sram.instance(
            &format!("u_bank_c{c}"),
            &[
                ("clk", "clk".into()),
                ("rd_en", "grant_valid".into()),
                ("rd_addr", "rd_row".into()),
                ("rd_data", slice("rd_data", c, ew)),
                ("wr_en", if lpc == 1 { format!("wr_en & {mask}") } else { format!("wr_en & (|{mask})") }),
                ("wr_addr", "wr_row".into()),
                ("wr_mask", mask),
                ("wr_data", slice("wr_data", c, ew)),
            ],
        );
    }
    Module {
        name: format!("{prefix}_mrf_bank_group"),
        doc: vec![
            format!(
                "One MRF bank group: {} banks (one per cluster) of {} x {} bit sharing a row address,",
                g.clusters, g.entries, ew
            ),
            format!("and a round-robin arbiter granting one of {s} operand slots per cycle."),
        ],
        ports: vec![
            Port::input("clk", 1, "clock"),
            Port::input("rst", 1, "synchronous reset, active high"),
            Port::input("slot_req", s, "operand slots requesting a read of this group").vector(),
            Port::input("slot_row", s * ab, "row wanted by each slot, slot i at bits [i*W+W-1:i*W]"),
            Port::output("slot_grant", s, "one-hot: slot whose read is issued this cycle").vector(),
            Port::output("rd_data", wr, "warp register read in the previous cycle; cluster c at [c*E+E-1:c*E]"),
            Port::input("wr_en", 1, "write a warp register"),
            Port::input("wr_row", ab, "row to write"),
            Port::input("wr_mask", g.lanes, "per-lane write enable").vector(),
            Port::input("wr_data", wr, "warp register to write, lane i at [32i+31:32i]"),
        ],
        body,
        memory: None,
    }
}

/// The round-robin arbiter granting one of `slots` requests (`req`) to drive `slot_grant` and
/// `grant_valid`, and the expression of the granted slot's row (from `slot_row`).
pub(super) fn slot_arbiter(arbiter: &Module, req: &str, slots: u32, row_bits: u32) -> (String, String) {
    let instance = arbiter.instance(
        "u_arbiter",
        &[
            ("clk", "clk".into()),
            ("rst", "rst".into()),
            ("req", req.into()),
            ("advance", "1'b1".into()),
            ("grant", "slot_grant".into()),
            ("grant_valid", "grant_valid".into()),
        ],
    );
    let terms: Vec<(String, String)> =
        (0..slots).map(|i| (format!("slot_grant[{i}]"), slice("slot_row", i, row_bits))).collect();
    (instance, onehot_mux(&terms, row_bits))
}
