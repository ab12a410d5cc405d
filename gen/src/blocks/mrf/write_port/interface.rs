//! The ports of the compressed MRF's write port (`<prefix>_mrf_write_port`), declared once for
//! its generator and the MRF top's instance of it.

use crate::layout::bdi::Layout;
use crate::layout::geometry::Geometry;
use crate::verilog::{Port, Ports, packing};

/// Every port of the write port, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WritePortPorts<P> {
    pub clk: P,
    pub rst: P,
    pub wb_valid: P,
    pub wb_ready: P,
    pub wb_warp: P,
    pub wb_reg: P,
    pub wb_mask: P,
    pub wb_data: P,
    pub head_group: P,
    pub head_row: P,
    pub head_commit: P,
    pub group_compressed: P,
    pub group_usable: P,
    pub group_mov_done: P,
    pub group_rd_data: P,
    pub wake_req: P,
    pub mov_rd: P,
    pub wr_en: P,
    pub wr_ri: P,
    pub wr_mask: P,
    pub wr_data: P,
    /// Register-limited occupancy: its map's rows per warp.
    pub rows_per_warp: Option<P>,
    /// Behind a register file cache: the registers in the port, stage 0 (just taken) to the head.
    pub pending: Option<PendingPorts<P>>,
}

/// Where each register the port holds goes; a register file cache in front of the port does
/// not read those from the banks yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingPorts<P> {
    pub pend_valid: P,
    pub pend_group: P,
    pub pend_row: P,
}

impl WritePortPorts<Port> {
    /// With `report_pending`, the port drives out where every register it holds goes.
    pub fn new(g: &Geometry, l: &Layout, report_pending: bool) -> Self {
        let (gb, ab, c, n) = (g.group_bits(), g.row_bits(), l.clusters, l.compress_latency);
        let (lanes, w, groups) = (g.lanes, g.warp_reg_bits(), g.groups);
        WritePortPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high"),
            wb_valid: Port::input("wb_valid", 1, "a write-back is offered (held until wb_ready)"),
            wb_ready: Port::output("wb_ready", 1, "the offer is taken this cycle"),
            wb_warp: Port::input("wb_warp", g.warp_bits(), "warp id"),
            wb_reg: Port::input("wb_reg", g.reg_bits(), "register id"),
            wb_mask: Port::input("wb_mask", lanes, "per-lane write enable; not all lanes: a partial write").vector(),
            wb_data: Port::input("wb_data", w, "value, lane i at [32i+31:32i]"),
            head_group: Port::output("head_group", gb, "bank group of the register waiting to commit"),
            head_row: Port::output("head_row", ab, "its row"),
            head_commit: Port::output("head_commit", 1, "the head is stored at this edge"),
            group_compressed: Port::input(
                "group_compressed",
                groups,
                "per group (group j at bit j): the register at head_row is compressed",
            )
            .vector(),
            group_usable: Port::input(
                "group_usable",
                groups * c,
                &format!("per group: its banks that are awake, {}", packing("group", c)),
            ),
            group_mov_done: Port::input(
                "group_mov_done",
                groups,
                "per group: the dummy MOV's read leaves the decompressor",
            )
            .vector(),
            group_rd_data: Port::input(
                "group_rd_data",
                groups * w,
                &format!("per group: decompressed read data, {}", packing("group", w)),
            ),
            wake_req: Port::output("wake_req", c, "banks of head_group the head needs awake").vector(),
            mov_rd: Port::output("mov_rd", 1, "dummy MOV: read head_row in head_group this cycle"),
            wr_en: Port::output("wr_en", 1, "write head_row in head_group this cycle"),
            wr_ri: Port::output("wr_ri", l.ri_bits(), "its range indicator"),
            wr_mask: Port::output("wr_mask", lanes, "per-lane write enable").vector(),
            wr_data: Port::output("wr_data", w, "chunks (uncompressed: lanes) to write"),
            rows_per_warp: g.register_limited.then(|| {
                Port::input("rows_per_warp", g.stride_bits(), &crate::blocks::mrf::reg_map::rows_per_warp_doc(g))
            }),
            pending: report_pending.then(|| PendingPorts {
                pend_valid: Port::output(
                    "pend_valid",
                    n,
                    &format!("the stage holds a register (0: just taken), {}", packing("stage", 1)),
                )
                .vector(),
                pend_group: Port::output("pend_group", n * gb, &format!("its bank group, {}", packing("stage", gb))),
                pend_row: Port::output("pend_row", n * ab, &format!("its row, {}", packing("stage", ab))),
            }),
        }
    }
}

impl<P> Ports<P> for WritePortPorts<P> {
    type Of<Q> = WritePortPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let WritePortPorts {
            clk,
            rst,
            wb_valid,
            wb_ready,
            wb_warp,
            wb_reg,
            wb_mask,
            wb_data,
            head_group,
            head_row,
            head_commit,
            group_compressed,
            group_usable,
            group_mov_done,
            group_rd_data,
            wake_req,
            mov_rd,
            wr_en,
            wr_ri,
            wr_mask,
            wr_data,
            rows_per_warp,
            pending,
        } = self;
        let mut v = [
            clk,
            rst,
            wb_valid,
            wb_ready,
            wb_warp,
            wb_reg,
            wb_mask,
            wb_data,
            head_group,
            head_row,
            head_commit,
            group_compressed,
            group_usable,
            group_mov_done,
            group_rd_data,
            wake_req,
            mov_rd,
            wr_en,
            wr_ri,
            wr_mask,
            wr_data,
        ]
        .map(Some)
        .to_vec();
        v.push(rows_per_warp.as_ref());
        let pending = pending.as_ref();
        v.extend([pending.map(|p| &p.pend_valid), pending.map(|p| &p.pend_group), pending.map(|p| &p.pend_row)]);
        v
    }
}
