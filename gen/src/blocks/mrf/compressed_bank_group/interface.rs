//! The ports of a compressed MRF bank group (`<prefix>_mrf_bank_group`, compressed write path),
//! declared once for its generator and the MRF top's instances of it.

use crate::layout::bdi::Layout;
use crate::layout::geometry::Geometry;
use crate::verilog::{Port, Ports, packing};

/// Every port of the compressed bank group, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompressedBankGroupPorts<P> {
    pub clk: P,
    pub rst: P,
    pub slot_req: P,
    pub slot_row: P,
    pub slot_grant: P,
    pub deliver: P,
    pub rd_data: P,
    pub mov_rd: P,
    pub mov_done: P,
    pub wr_row: P,
    pub wr_compressed: P,
    pub wr_en: P,
    pub wr_ri: P,
    pub wr_mask: P,
    pub wr_data: P,
    pub free_rows: P,
    pub wake_req: P,
    pub usable: P,
    pub gated: P,
    pub bank_rd_en: P,
    pub bank_wr_en: P,
}

impl CompressedBankGroupPorts<Port> {
    pub fn new(g: &Geometry, l: &Layout) -> Self {
        let (s, ab, w, c) = (g.slots(), g.row_bits(), g.warp_reg_bits(), l.clusters);
        CompressedBankGroupPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high"),
            slot_req: Port::input("slot_req", s, "operand slots requesting a read of this group").vector(),
            slot_row: Port::input("slot_row", s * ab, &format!("row wanted by each slot, {}", packing("slot", ab))),
            slot_grant: Port::output("slot_grant", s, "one-hot: slot whose read is issued this cycle").vector(),
            deliver: Port::output("deliver", s, "one-hot: slot whose decompressed register is on rd_data").vector(),
            rd_data: Port::output("rd_data", w, "decompressed register, lane i at [32i+31:32i]"),
            mov_rd: Port::input("mov_rd", 1, "dummy MOV: read wr_row this cycle instead of granting a slot"),
            mov_done: Port::output("mov_done", 1, "the dummy MOV's register is on rd_data"),
            wr_row: Port::input("wr_row", ab, "row of the write port's register"),
            wr_compressed: Port::output("wr_compressed", 1, "that register holds a compressed value"),
            wr_en: Port::input("wr_en", 1, "write wr_row"),
            wr_ri: Port::input("wr_ri", l.ri_bits(), "range indicator of the write"),
            wr_mask: Port::input("wr_mask", g.lanes, "per-lane write enable").vector(),
            wr_data: Port::input("wr_data", w, "chunks to write (uncompressed: lanes)"),
            free_rows: Port::input(
                "free_rows",
                g.entries,
                "rows whose register becomes invalid at this edge, row r at bit r",
            )
            .vector(),
            wake_req: Port::input("wake_req", c, "banks the write port's register needs awake").vector(),
            usable: Port::output("usable", c, "banks powered and awake").vector(),
            gated: Port::output("gated", c, "banks power-gated").vector(),
            bank_rd_en: Port::output("bank_rd_en", c, "banks read this cycle").vector(),
            bank_wr_en: Port::output("bank_wr_en", c, "banks written this cycle").vector(),
        }
    }
}

impl<P> Ports<P> for CompressedBankGroupPorts<P> {
    type Of<Q> = CompressedBankGroupPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let CompressedBankGroupPorts {
            clk,
            rst,
            slot_req,
            slot_row,
            slot_grant,
            deliver,
            rd_data,
            mov_rd,
            mov_done,
            wr_row,
            wr_compressed,
            wr_en,
            wr_ri,
            wr_mask,
            wr_data,
            free_rows,
            wake_req,
            usable,
            gated,
            bank_rd_en,
            bank_wr_en,
        } = self;
        [
            clk,
            rst,
            slot_req,
            slot_row,
            slot_grant,
            deliver,
            rd_data,
            mov_rd,
            mov_done,
            wr_row,
            wr_compressed,
            wr_en,
            wr_ri,
            wr_mask,
            wr_data,
            free_rows,
            wake_req,
            usable,
            gated,
            bank_rd_en,
            bank_wr_en,
        ]
        .map(Some)
        .into()
    }
}
