//! The ports of an operand collector unit (`<prefix>_operand_collector`), declared once for its
//! generator and the MRF top's instances of it.

use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::verilog::{Port, Ports, packing};

const SLOTS: usize = SLOTS_PER_COLLECTOR as usize;

/// Every port of the collector, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectorPorts<P> {
    pub clk: P,
    pub rst: P,
    pub alloc: P,
    pub alloc_warp: P,
    pub alloc_tag: P,
    pub alloc_src_valid: P,
    pub alloc_group: P,
    pub alloc_row: P,
    pub slot_grant: P,
    /// Prefilled sources (register file cache, ORF/LRF): they arrive with the instruction.
    pub alloc_hit: Option<P>,
    pub alloc_hit_data: Option<P>,
    /// ORF/LRF fills: a bank read may also fill an upper-level entry.
    pub alloc_fill: Option<P>,
    pub alloc_fill_level: Option<P>,
    pub alloc_fill_entry: Option<P>,
    pub fill_grant: Option<P>,
    /// Delivered reads (compressed MRF, TFET rows): the bank group says when the data is there.
    pub slot_deliver: Option<P>,
    pub group_rd_data: P,
    pub dispatch: P,
    pub busy: P,
    pub ready: P,
    pub warp: P,
    pub tag: P,
    pub src_valid: P,
    pub slot_req: P,
    /// Delivered reads: the slots a delivery is for, which alone may take one.
    pub slot_inflight: Option<P>,
    pub slot_group: P,
    pub slot_row: P,
    /// ORF/LRF fills.
    pub fill_req: Option<P>,
    pub fill_pending: Option<P>,
    pub fill_level: Option<P>,
    pub fill_entry: Option<P>,
    pub src_data: [P; SLOTS],
}

impl CollectorPorts<Port> {
    /// With `delivered`, read data takes several cycles and the bank group says when it is
    /// there; with `prefilled`, sources may arrive with the instruction; with `fill_entry_bits`
    /// (an ORF/LRF), a bank read may fill an entry.
    pub fn new(g: &Geometry, delivered: bool, prefilled: bool, fill_entry_bits: Option<u32>) -> Self {
        let (wb, tb, gb, ab, wr) = (g.warp_bits(), g.tag_bits, g.group_bits(), g.row_bits(), g.warp_reg_bits());
        let n = SLOTS_PER_COLLECTOR;
        let fills = fill_entry_bits;
        CollectorPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high"),
            alloc: Port::input("alloc", 1, "take the instruction on alloc_* this cycle (only while not busy)"),
            alloc_warp: Port::input("alloc_warp", wb, "warp id"),
            alloc_tag: Port::input("alloc_tag", tb, "opaque instruction tag"),
            alloc_src_valid: Port::input("alloc_src_valid", n, "which source operands exist").vector(),
            alloc_group: Port::input(
                "alloc_group",
                n * gb,
                &format!("bank group of each source, {}", packing("slot", gb)),
            ),
            alloc_row: Port::input("alloc_row", n * ab, &format!("bank row of each source, {}", packing("slot", ab))),
            slot_grant: Port::input("slot_grant", n, "bank read granted to the slot this cycle").vector(),
            alloc_hit: prefilled.then(|| {
                Port::input(
                    "alloc_hit",
                    n,
                    &format!("sources found in the register file cache, {}", packing("slot", 1)),
                )
                .vector()
            }),
            alloc_hit_data: prefilled
                .then(|| Port::input("alloc_hit_data", n * wr, &format!("their values, {}", packing("slot", wr)))),
            alloc_fill: fills.map(|_| {
                Port::input(
                    "alloc_fill",
                    n,
                    &format!("sources whose bank read also fills an entry, {}", packing("slot", 1)),
                )
                .vector()
            }),
            alloc_fill_level: fills.map(|_| {
                Port::input("alloc_fill_level", 2 * n, &format!("level filled (1 ORF, 2 LRF), {}", packing("slot", 2)))
            }),
            alloc_fill_entry: fills
                .map(|eb| Port::input("alloc_fill_entry", eb * n, &format!("entry filled, {}", packing("slot", eb)))),
            fill_grant: fills.map(|_| {
                Port::input("fill_grant", n, "the ORF/LRF write port takes the slot's fill this cycle").vector()
            }),
            slot_deliver: delivered
                .then(|| Port::input("slot_deliver", n, "the slot's register is on its group's read data").vector()),
            group_rd_data: Port::input(
                "group_rd_data",
                g.groups * wr,
                &format!("read data of every bank group, {}", packing("group", wr)),
            ),
            dispatch: Port::input("dispatch", 1, "the collected instruction leaves this cycle"),
            busy: Port::output("busy", 1, "holds an instruction").reg(),
            ready: Port::output("ready", 1, "busy and every operand collected"),
            warp: Port::output("warp", wb, "warp id of the held instruction").reg(),
            tag: Port::output("tag", tb, "tag of the held instruction").reg(),
            src_valid: Port::output("src_valid", n, "which source operands exist").vector().reg(),
            slot_req: Port::output("slot_req", n, "slot requests a bank read").vector(),
            slot_inflight: delivered.then(|| {
                Port::output("slot_inflight", n, "slot's bank read is granted and its data not delivered yet").vector()
            }),
            slot_group: Port::output("slot_group", n * gb, "bank group each slot reads").reg(),
            slot_row: Port::output("slot_row", n * ab, "bank row each slot reads").reg(),
            fill_req: fills.map(|_| {
                Port::output("fill_req", n, "slot's data has arrived and its fill is not written yet").vector()
            }),
            fill_pending: fills
                .map(|_| Port::output("fill_pending", 1, "holds an instruction with a fill not written yet")),
            fill_level: fills.map(|_| Port::output("fill_level", 2 * n, "level each slot fills").reg()),
            fill_entry: fills.map(|eb| Port::output("fill_entry", eb * n, "entry each slot fills").reg()),
            src_data: std::array::from_fn(|s| {
                Port::output(&format!("src{s}_data"), wr, &format!("collected source operand {s}")).reg()
            }),
        }
    }
}

impl<P> Ports<P> for CollectorPorts<P> {
    type Of<Q> = CollectorPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let CollectorPorts {
            clk,
            rst,
            alloc,
            alloc_warp,
            alloc_tag,
            alloc_src_valid,
            alloc_group,
            alloc_row,
            slot_grant,
            alloc_hit,
            alloc_hit_data,
            alloc_fill,
            alloc_fill_level,
            alloc_fill_entry,
            fill_grant,
            slot_deliver,
            group_rd_data,
            dispatch,
            busy,
            ready,
            warp,
            tag,
            src_valid,
            slot_req,
            slot_inflight,
            slot_group,
            slot_row,
            fill_req,
            fill_pending,
            fill_level,
            fill_entry,
            src_data,
        } = self;
        let mut v = [clk, rst, alloc, alloc_warp, alloc_tag, alloc_src_valid, alloc_group, alloc_row, slot_grant]
            .map(Some)
            .to_vec();
        v.extend(
            [alloc_hit, alloc_hit_data, alloc_fill, alloc_fill_level, alloc_fill_entry, fill_grant, slot_deliver]
                .map(Option::as_ref),
        );
        v.extend([group_rd_data, dispatch, busy, ready, warp, tag, src_valid, slot_req].map(Some));
        v.push(slot_inflight.as_ref());
        v.extend([slot_group, slot_row].map(Some));
        v.extend([fill_req, fill_pending, fill_level, fill_entry].map(Option::as_ref));
        v.extend(src_data.iter().map(Some));
        v
    }
}

impl<P> CollectorPorts<P> {
    /// The same ports, each turned into something else by `f` (in declaration order).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> CollectorPorts<Q> {
        CollectorPorts {
            clk: f(&self.clk),
            rst: f(&self.rst),
            alloc: f(&self.alloc),
            alloc_warp: f(&self.alloc_warp),
            alloc_tag: f(&self.alloc_tag),
            alloc_src_valid: f(&self.alloc_src_valid),
            alloc_group: f(&self.alloc_group),
            alloc_row: f(&self.alloc_row),
            slot_grant: f(&self.slot_grant),
            alloc_hit: self.alloc_hit.as_ref().map(&mut f),
            alloc_hit_data: self.alloc_hit_data.as_ref().map(&mut f),
            alloc_fill: self.alloc_fill.as_ref().map(&mut f),
            alloc_fill_level: self.alloc_fill_level.as_ref().map(&mut f),
            alloc_fill_entry: self.alloc_fill_entry.as_ref().map(&mut f),
            fill_grant: self.fill_grant.as_ref().map(&mut f),
            slot_deliver: self.slot_deliver.as_ref().map(&mut f),
            group_rd_data: f(&self.group_rd_data),
            dispatch: f(&self.dispatch),
            busy: f(&self.busy),
            ready: f(&self.ready),
            warp: f(&self.warp),
            tag: f(&self.tag),
            src_valid: f(&self.src_valid),
            slot_req: f(&self.slot_req),
            slot_inflight: self.slot_inflight.as_ref().map(&mut f),
            slot_group: f(&self.slot_group),
            slot_row: f(&self.slot_row),
            fill_req: self.fill_req.as_ref().map(&mut f),
            fill_pending: self.fill_pending.as_ref().map(&mut f),
            fill_level: self.fill_level.as_ref().map(&mut f),
            fill_entry: self.fill_entry.as_ref().map(&mut f),
            src_data: [f(&self.src_data[0]), f(&self.src_data[1]), f(&self.src_data[2])],
        }
    }
}
