//! The ports of an MRF bank group (`<prefix>_mrf_bank_group`, direct write path), declared once
//! for its generator and the MRF top's instances of it.

use crate::layout::geometry::Geometry;
use crate::verilog::{Port, Ports, packing};

/// Every port of the bank group, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankGroupPorts<P> {
    pub clk: P,
    pub rst: P,
    pub slot_req: P,
    pub slot_row: P,
    pub slot_grant: P,
    /// A read taking more than a cycle (TFET rows, a registered address or read data): which
    /// slot's register is on `rd_data` now (`deliver`), or with registered read data next cycle
    /// (`arrive`, which the MRF registers as the collectors' capture enable).
    pub deliver: Option<P>,
    pub rd_data: P,
    pub wr_en: P,
    pub wr_row: P,
    pub wr_mask: P,
    pub wr_data: P,
}

impl BankGroupPorts<Port> {
    pub fn new(g: &Geometry) -> Self {
        let (s, ab, wr, ew) = (g.slots(), g.row_bits(), g.warp_reg_bits(), g.entry_bits());
        let rd_data = if g.registered_read {
            format!("warp register on the banks' read data in the previous cycle, {}", packing("cluster", ew))
        } else if g.has_tfet() {
            format!("warp register of the latest grant (held until the next), {}", packing("cluster", ew))
        } else {
            format!("warp register read in the previous cycle, {}", packing("cluster", ew))
        };
        BankGroupPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high"),
            slot_req: Port::input("slot_req", s, "operand slots requesting a read of this group").vector(),
            slot_row: Port::input("slot_row", s * ab, &format!("row wanted by each slot, {}", packing("slot", ab))),
            slot_grant: {
                let grant = Port::output("slot_grant", s, "one-hot: slot whose read is issued this cycle").vector();
                if g.registered_grant { grant.reg() } else { grant }
            },
            deliver: g.delivers().then(|| {
                let when = if g.registered_read { "next cycle" } else { "this cycle (captured now)" };
                Port::output(delivery(g), s, &format!("one-hot: slot whose register is on rd_data {when}"))
                    .vector()
                    .reg()
            }),
            rd_data: Port::output("rd_data", wr, &rd_data),
            wr_en: Port::input("wr_en", 1, "write a warp register"),
            wr_row: Port::input("wr_row", ab, "row to write"),
            wr_mask: Port::input("wr_mask", g.lanes, "per-lane write enable").vector(),
            wr_data: Port::input("wr_data", wr, "warp register to write, lane i at [32i+31:32i]"),
        }
    }
}

/// The name of the group's delivery port: `arrive`, a cycle ahead, with registered read data
/// (the MRF registers it as the collectors' capture enable); otherwise `deliver`.
pub fn delivery(g: &Geometry) -> &'static str {
    if g.registered_read { "arrive" } else { "deliver" }
}

impl<P> Ports<P> for BankGroupPorts<P> {
    type Of<Q> = BankGroupPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let BankGroupPorts {
            clk,
            rst,
            slot_req,
            slot_row,
            slot_grant,
            deliver,
            rd_data,
            wr_en,
            wr_row,
            wr_mask,
            wr_data,
        } = self;
        let mut v = [clk, rst, slot_req, slot_row, slot_grant].map(Some).to_vec();
        v.push(deliver.as_ref());
        v.extend([rd_data, wr_en, wr_row, wr_mask, wr_data].map(Some));
        v
    }
}
