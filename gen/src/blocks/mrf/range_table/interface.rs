//! The ports of a bank group's range table (`<prefix>_range_table`), declared once for its
//! generator and the compressed bank group's instance of it.

use crate::layout::bdi::Layout;
use crate::layout::geometry::Geometry;
use crate::verilog::{Port, Ports};

/// Every port of the range table, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeTablePorts<P> {
    pub clk: P,
    pub rst: P,
    pub rd_row: P,
    pub rd_ri: P,
    pub rd_occ: P,
    pub wr_row: P,
    pub wr_compressed: P,
    pub wr_en: P,
    pub wr_ri: P,
    pub wr_occ: P,
    pub free_rows: P,
    pub empty: P,
}

impl RangeTablePorts<Port> {
    pub fn new(g: &Geometry, l: &Layout) -> Self {
        let (ab, rb, c) = (g.row_bits(), l.ri_bits(), l.clusters);
        RangeTablePorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high: no register is valid"),
            rd_row: Port::input("rd_row", ab, "row read this cycle"),
            rd_ri: Port::output("rd_ri", rb, "its range indicator"),
            rd_occ: Port::output("rd_occ", c, "banks holding its chunks (none when it holds no value)").vector(),
            wr_row: Port::input("wr_row", ab, "row of the write port's register"),
            wr_compressed: Port::output("wr_compressed", 1, "that register holds a compressed value"),
            wr_en: Port::input("wr_en", 1, "write the register at wr_row"),
            wr_ri: Port::input("wr_ri", rb, "its new range indicator"),
            wr_occ: Port::output("wr_occ", c, "banks it occupies with that range indicator").vector(),
            free_rows: Port::input(
                "free_rows",
                g.entries,
                "rows whose register becomes invalid at this edge (a finished warp's), row r at bit r",
            )
            .vector(),
            empty: Port::output("empty", c, "bank c holds no valid entry").vector(),
        }
    }
}

impl<P> Ports<P> for RangeTablePorts<P> {
    type Of<Q> = RangeTablePorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let RangeTablePorts {
            clk,
            rst,
            rd_row,
            rd_ri,
            rd_occ,
            wr_row,
            wr_compressed,
            wr_en,
            wr_ri,
            wr_occ,
            free_rows,
            empty,
        } = self;
        [clk, rst, rd_row, rd_ri, rd_occ, wr_row, wr_compressed, wr_en, wr_ri, wr_occ, free_rows, empty]
            .map(Some)
            .into()
    }
}
