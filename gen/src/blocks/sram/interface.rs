//! The ports of the memory leaf (`<prefix>_sram_1r1w_<depth>x<width>`), declared once for its
//! generator and every instance of it.

use super::SramKind;
use crate::layout::geometry::{LANE_BITS, index_bits};
use crate::verilog::{Port, Ports};

/// Every port of the memory leaf, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SramPorts<P> {
    pub clk: P,
    pub rd_en: P,
    pub rd_addr: P,
    pub rd_data: P,
    pub wr_en: P,
    pub wr_addr: P,
    pub wr_mask: P,
    pub wr_data: P,
}

impl SramPorts<Port> {
    pub fn new(depth: u32, width: u32, kind: SramKind, read_cycles: u32) -> Self {
        let a = index_bits(depth);
        let when = if read_cycles == 2 { "two cycles before" } else { "in the previous cycle" };
        let rd_data = Port::output("rd_data", width, &format!("word read {when} (held until the next read)"));
        SramPorts {
            clk: Port::input("clk", 1, "clock"),
            rd_en: Port::input("rd_en", 1, "read enable"),
            rd_addr: Port::input("rd_addr", a, "read address"),
            // The behavioural array drives its read data from an `always` block.
            rd_data: if kind == SramKind::Behavioural { rd_data.reg() } else { rd_data },
            wr_en: Port::input("wr_en", 1, "write enable"),
            wr_addr: Port::input("wr_addr", a, "write address"),
            wr_mask: Port::input(
                "wr_mask",
                width / LANE_BITS,
                "per-lane write enable, lane i (data bits [32i+31:32i]) at bit i",
            )
            .vector(),
            wr_data: Port::input("wr_data", width, "write data"),
        }
    }
}

impl<P> Ports<P> for SramPorts<P> {
    type Of<Q> = SramPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let SramPorts { clk, rd_en, rd_addr, rd_data, wr_en, wr_addr, wr_mask, wr_data } = self;
        [clk, rd_en, rd_addr, rd_data, wr_en, wr_addr, wr_mask, wr_data].map(Some).into()
    }
}
