//! The compression range indicators of one bank group, kept beside its arbiter and read in
//! parallel with arbitration (seed 004 §4), with the valid bit of each register and, per bank,
//! the count of valid entries that drives power gating (§5.3).

use crate::bdi::Layout;
use crate::geometry::{Geometry, index_bits};
use crate::verilog::{Module, Port, lit, reg, vector_wire};

/// Banks a register with range indicator `ri` occupies, as a thermometer: bank `c` unless its
/// mode needs `c` banks or fewer (codes of no mode mean uncompressed: every bank).
pub fn occupancy(l: &Layout, ri: &str, c: u32) -> String {
    let fewer: Vec<String> = l
        .modes
        .iter()
        .filter(|m| m.banks <= c)
        .map(|m| format!("({ri} == {})", lit(l.ri_bits(), m.ri as u64)))
        .collect();
    if fewer.is_empty() { "1'b1".into() } else { format!("~({})", fewer.join(" | ")) }
}

pub fn range_table(prefix: &str, g: &Geometry, l: &Layout) -> Module {
    let (e, ab, rb, c) = (g.entries, g.row_bits(), l.ri_bits(), l.clusters);
    let cb = index_bits(e + 1);
    let mut b = String::new();
    b += &format!("  reg  [{}:0] ri [0:{}];\n", rb - 1, e - 1);
    b += &reg("valid", e);
    for k in 0..c {
        b += &reg(&format!("count{k}"), cb);
    }
    b += &vector_wire("old_occ", c);
    b += &vector_wire("rd_code", rb);
    b += &vector_wire("wr_code", rb);

    b += "\n  // Lookups: the register read this cycle and the register the write port holds.\n";
    b += "  assign rd_code = ri[rd_row];\n  assign wr_code = ri[wr_row];\n  assign rd_ri = rd_code;\n";
    b += "  assign wr_compressed = valid[wr_row] & (wr_code != ";
    b += &format!("{});\n", lit(rb, 0));
    for k in 0..c {
        b += &format!("  assign rd_occ[{k}] = valid[rd_row] & {};\n", occupancy(l, "rd_code", k));
        b += &format!("  assign old_occ[{k}] = valid[wr_row] & {};\n", occupancy(l, "wr_code", k));
        b += &format!("  assign wr_occ[{k}] = {};\n", occupancy(l, "wr_ri", k));
    }

    b += "\n  // A write stores the range indicator and marks the register valid (reset: none is).\n";
    b += &format!(
        "  always @(posedge clk) begin\n    if (rst) valid <= {};\n    else if (wr_en) valid[wr_row] <= 1'b1;\n  end\n",
        lit(e, 0)
    );
    b += "  always @(posedge clk) begin\n    if (wr_en) ri[wr_row] <= wr_ri;\n  end\n";

    b += "\n  // Valid entries per bank: a write moves the register from its old banks to its new ones.\n";
    b += "  always @(posedge clk) begin\n    if (rst) begin\n";
    for k in 0..c {
        b += &format!("      count{k} <= {};\n", lit(cb, 0));
    }
    b += "    end else if (wr_en) begin\n";
    for k in 0..c {
        b += &format!(
            "      if (wr_occ[{k}] & ~old_occ[{k}]) count{k} <= count{k} + {one};\n      else if (~wr_occ[{k}] & old_occ[{k}]) count{k} <= count{k} - {one};\n",
            one = lit(cb, 1)
        );
    }
    b += "    end\n  end\n";
    for k in 0..c {
        b += &format!("  assign empty[{k}] = (count{k} == {});\n", lit(cb, 0));
    }
    Module {
        name: format!("{prefix}_range_table"),
        doc: vec![
            format!("Range indicators ({rb} bit) and valid bits of the {e} registers of one bank group, and the"),
            format!("count of valid entries in each of its {c} banks. See docs/bdi.md."),
        ],
        ports: vec![
            Port::input("clk", 1, "clock"),
            Port::input("rst", 1, "synchronous reset, active high: no register is valid"),
            Port::input("rd_row", ab, "row read this cycle"),
            Port::output("rd_ri", rb, "its range indicator"),
            Port::output("rd_occ", c, "banks holding its chunks (none when it holds no value)").vector(),
            Port::input("wr_row", ab, "row of the write port's register"),
            Port::output("wr_compressed", 1, "that register holds a compressed value"),
            Port::input("wr_en", 1, "write the register at wr_row"),
            Port::input("wr_ri", rb, "its new range indicator"),
            Port::output("wr_occ", c, "banks it occupies with that range indicator").vector(),
            Port::output("empty", c, "bank c holds no valid entry").vector(),
        ],
        body: b,
        memory: None,
    }
}
