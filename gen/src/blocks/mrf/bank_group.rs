//! One bank group: the bank at the same position in every cluster, sharing one row address,
//! with the round-robin arbiter that picks which operand slot reads it this cycle.

use crate::geometry::Geometry;
use crate::verilog::{Module, Port, Sig, onehot_mux, packing, slice, wire};

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
        let mask = Sig::new("wr_mask", g.lanes).slice(c, lpc);
        let any = if lpc == 1 { format!("wr_en & {mask}") } else { format!("wr_en & (|{mask})") };
        body += &format!("  // Cluster {c}: lanes {}..{}.\n", c * lpc, (c + 1) * lpc - 1);
        body += &sram.instance(
            &format!("u_bank_c{c}"),
            &[
                ("clk", Sig::new("clk", 1)),
                ("rd_en", Sig::new("grant_valid", 1)),
                ("rd_addr", Sig::new("rd_row", ab)),
                ("rd_data", Sig::new("rd_data", wr).slice(c, ew)),
                ("wr_en", Sig::new(any, 1)),
                ("wr_addr", Sig::new("wr_row", ab)),
                ("wr_mask", mask),
                ("wr_data", Sig::new("wr_data", wr).slice(c, ew)),
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
            Port::input("slot_row", s * ab, &format!("row wanted by each slot, {}", packing("slot", ab))),
            Port::output("slot_grant", s, "one-hot: slot whose read is issued this cycle").vector(),
            Port::output(
                "rd_data",
                wr,
                &format!("warp register read in the previous cycle, {}", packing("cluster", ew)),
            ),
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
            ("clk", Sig::new("clk", 1)),
            ("rst", Sig::new("rst", 1)),
            ("req", Sig::new(req, slots)),
            ("advance", Sig::new("1'b1", 1)),
            ("grant", Sig::new("slot_grant", slots)),
            ("grant_valid", Sig::new("grant_valid", 1)),
        ],
    );
    let terms: Vec<(String, String)> =
        (0..slots).map(|i| (format!("slot_grant[{i}]"), slice("slot_row", i, row_bits))).collect();
    (instance, onehot_mux(&terms, row_bits))
}
