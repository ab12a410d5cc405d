//! The ports of the operand register file and last result file (`<prefix>_orf`), declared once
//! for their generator and the MRF top's instance of them.

use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::layout::orf::OrfLayout;
use crate::verilog::{Port, Ports, packing};

/// Every port of the ORF/LRF, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrfLrfPorts<P> {
    pub clk: P,
    pub rst: P,
    pub rd_warp: P,
    pub rd_level: P,
    pub rd_entry: P,
    pub rd_data: P,
    /// Slots per active warp: an instruction of `rd_warp` is accepted (it takes a slot).
    pub take_en: Option<P>,
    pub inv_en: P,
    pub inv_warp: P,
    pub wr_en: P,
    pub wr_level: P,
    pub wr_warp: P,
    pub wr_entry: P,
    pub wr_mask: P,
    pub wr_data: P,
    /// Slots per active warp: the warps losing theirs.
    pub rel_mask: Option<P>,
}

impl OrfLrfPorts<Port> {
    pub fn new(g: &Geometry, o: &OrfLayout) -> Self {
        let (wb, wr, eb, k) = (g.warp_bits(), g.warp_reg_bits(), o.entry_bits(), SLOTS_PER_COLLECTOR);
        OrfLrfPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high (invalidates every entry, frees every slot)"),
            rd_warp: Port::input("rd_warp", wb, "warp of the issued instruction"),
            rd_level: Port::input(
                "rd_level",
                2 * k,
                &format!("level of each source (1 ORF, 2 LRF), {}", packing("source", 2)),
            ),
            rd_entry: Port::input("rd_entry", eb * k, &format!("entry of each source, {}", packing("source", eb))),
            rd_data: Port::output("rd_data", k * wr, &format!("value of each source, {}", packing("source", wr))),
            take_en: o.mapped.then(|| {
                Port::input(
                    "take_en",
                    1,
                    "an instruction of rd_warp is accepted at this edge: without a slot, it takes one",
                )
            }),
            inv_en: Port::input("inv_en", 1, "warp inv_warp starts a strand"),
            inv_warp: Port::input("inv_warp", wb, "warp id"),
            wr_en: Port::input("wr_en", 1, "write an entry this cycle"),
            wr_level: Port::input("wr_level", 2, "1 ORF, 2 LRF"),
            wr_warp: Port::input("wr_warp", wb, "warp id"),
            wr_entry: Port::input("wr_entry", eb, "entry"),
            wr_mask: Port::input("wr_mask", g.lanes, &packing("lane", 1)).vector(),
            wr_data: Port::input("wr_data", wr, &packing("lane", 32)),
            rel_mask: o.mapped.then(|| {
                Port::input(
                    "rel_mask",
                    g.warps,
                    &format!("warps whose slots are freed at this edge, {}", packing("warp", 1)),
                )
                .vector()
            }),
        }
    }
}

impl<P> Ports<P> for OrfLrfPorts<P> {
    type Of<Q> = OrfLrfPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let OrfLrfPorts {
            clk,
            rst,
            rd_warp,
            rd_level,
            rd_entry,
            rd_data,
            take_en,
            inv_en,
            inv_warp,
            wr_en,
            wr_level,
            wr_warp,
            wr_entry,
            wr_mask,
            wr_data,
            rel_mask,
        } = self;
        let mut v: Vec<Option<&P>> = [clk, rst, rd_warp, rd_level, rd_entry, rd_data].map(Some).into();
        v.push(take_en.as_ref());
        v.extend([inv_en, inv_warp, wr_en, wr_level, wr_warp, wr_entry, wr_mask, wr_data].map(Some));
        v.push(rel_mask.as_ref());
        v
    }
}
