//! The compression range indicators of one bank group, kept beside its arbiter and read in
//! parallel with arbitration (seed 004 §4), with the valid bit of each register and, per bank,
//! the count of valid entries that drives power gating (§5.3).

pub mod interface;

use crate::layout::bdi::Layout;
use crate::layout::geometry::Geometry;
use crate::verilog::{Module, Port, Ports, Submodule, lit, reg, vector_wire};
use interface::RangeTablePorts;

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

pub fn range_table(prefix: &str, g: &Geometry, l: &Layout) -> Submodule<RangeTablePorts<Port>> {
    let (e, rb, c) = (g.entries, l.ri_bits(), l.clusters);
    let mut b = String::new();
    b += &format!("  reg  [{}:0] ri [0:{}];\n", rb - 1, e - 1);
    b += &reg("valid", e);
    for k in 0..c {
        b += &vector_wire(&format!("holds{k}"), e);
    }
    b += &vector_wire("rd_code", rb);
    b += &vector_wire("wr_code", rb);

    b += "\n  // Lookups: the register read this cycle and the register the write port holds.\n";
    b += "  assign rd_code = ri[rd_row];\n  assign wr_code = ri[wr_row];\n  assign rd_ri = rd_code;\n";
    b += "  assign wr_compressed = valid[wr_row] & (wr_code != ";
    b += &format!("{});\n", lit(rb, 0));
    for k in 0..c {
        b += &format!("  assign rd_occ[{k}] = valid[rd_row] & {};\n", occupancy(l, "rd_code", k));
        b += &format!("  assign wr_occ[{k}] = {};\n", occupancy(l, "wr_ri", k));
    }

    b += "\n  // A write stores the range indicator and marks the register valid (reset: none is); a\n";
    b += "  // finished warp's rows become invalid (a write at the same edge still marks its row).\n";
    b += &format!(
        "  always @(posedge clk) begin\n    if (rst) valid <= {};\n    else begin\n      valid <= valid & ~free_rows;\n      if (wr_en) valid[wr_row] <= 1'b1;\n    end\n  end\n",
        lit(e, 0)
    );
    b += "  always @(posedge clk) begin\n    if (wr_en) ri[wr_row] <= wr_ri;\n  end\n";

    b += "\n  // Each bank's valid entries: the valid registers whose chunks it holds. A bank with none\n";
    b += "  // is empty (seed 004 5.3: gated when all its entries' valid bits are reset).\n";
    b += "  genvar r;\n  generate\n";
    b += &format!("    for (r = 0; r < {e}; r = r + 1) begin : g_row\n");
    for k in 0..c {
        b += &format!("      assign holds{k}[r] = valid[r] & {};\n", occupancy(l, "ri[r]", k));
    }
    b += "    end\n  endgenerate\n";
    for k in 0..c {
        b += &format!("  assign empty[{k}] = ~(|holds{k});\n");
    }
    let ports = RangeTablePorts::new(g, l);
    let module = Module {
        name: format!("{prefix}_range_table"),
        doc: vec![
            format!("Range indicators ({rb} bit) and valid bits of the {e} registers of one bank group, and"),
            format!("which of its {c} banks hold a valid entry. See docs/bdi.md."),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}
