//! The ports of the register file cache (`<prefix>_rfc`), declared once for its generator and
//! the MRF top's instance of it.

use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::layout::rfc::RfcLayout;
use crate::schema::Replacement;
use crate::verilog::{Port, Ports, packing};

/// Every port of the register file cache, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachePorts<P> {
    pub clk: P,
    pub rst: P,
    /// Only when an issue changes the cache (LRU order, liveness).
    pub rd_fire: Option<P>,
    pub rd_warp: P,
    pub rd_src_valid: P,
    pub rd_src_reg: P,
    /// Liveness.
    pub rd_src_last: Option<P>,
    pub rd_hit: P,
    pub rd_data: P,
    pub wb_fire: P,
    pub wb_warp: P,
    pub wb_reg: P,
    pub wb_mask: P,
    pub wb_data: P,
    pub wb_long: P,
    pub wb_ready: P,
    pub bank_wr_en: P,
    pub bank_wr_warp: P,
    pub bank_wr_reg: P,
    pub bank_wr_mask: P,
    pub bank_wr_data: P,
    /// When the banks may refuse a write (a compressed MRF's write port): their readiness.
    pub bank_wr_ready: Option<P>,
    /// When the banks may refuse a write: the eviction buffer's state.
    pub evicting: Option<P>,
    pub act_valid: P,
    pub act_warp: P,
    pub act_ready: P,
    pub flush_valid: P,
    pub flush_warp: P,
    pub flush_ready: P,
    pub rel_mask: P,
}

impl CachePorts<Port> {
    /// With `banks_may_refuse`, the banks take the cache's write only with `bank_wr_ready`.
    pub fn new(g: &Geometry, r: &RfcLayout, banks_may_refuse: bool) -> Self {
        let (k, wb, rb, lanes, w) = (SLOTS_PER_COLLECTOR, g.warp_bits(), g.reg_bits(), g.lanes, g.warp_reg_bits());
        CachePorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high: every slot free, nothing cached"),
            rd_fire: (r.liveness || r.replacement == Replacement::Lru)
                .then(|| Port::input("rd_fire", 1, "an instruction is issued this cycle (its reads take effect)")),
            rd_warp: Port::input("rd_warp", wb, "its warp"),
            rd_src_valid: Port::input("rd_src_valid", k, &format!("which sources exist, {}", packing("source", 1)))
                .vector(),
            rd_src_reg: Port::input("rd_src_reg", k * rb, &format!("their registers, {}", packing("source", rb))),
            rd_src_last: r.liveness.then(|| {
                Port::input("rd_src_last", k, &format!("read for the last time, {}", packing("source", 1))).vector()
            }),
            rd_hit: Port::output("rd_hit", k, &format!("the source is cached, {}", packing("source", 1))).vector(),
            rd_data: Port::output("rd_data", k * w, &format!("its value, {}", packing("source", w))),
            wb_fire: Port::input("wb_fire", 1, "a write-back is taken this cycle (wb_ready was high)"),
            wb_warp: Port::input("wb_warp", wb, "its warp"),
            wb_reg: Port::input("wb_reg", rb, "its register"),
            wb_mask: Port::input("wb_mask", lanes, "its active lanes, lane i at bit i").vector(),
            wb_data: Port::input("wb_data", w, &format!("its value, {}", packing("lane", 32))),
            wb_long: Port::input("wb_long", 1, "a long-latency result: not allocated"),
            wb_ready: Port::output("wb_ready", 1, "no eviction waits and no flush is under way"),
            bank_wr_en: Port::output("bank_wr_en", 1, "write a warp register to the banks this cycle"),
            bank_wr_warp: Port::output("bank_wr_warp", wb, "its warp"),
            bank_wr_reg: Port::output("bank_wr_reg", rb, "its register"),
            bank_wr_mask: Port::output("bank_wr_mask", lanes, "its lanes, lane i at bit i").vector(),
            bank_wr_data: Port::output("bank_wr_data", w, &format!("its value, {}", packing("lane", 32))),
            bank_wr_ready: banks_may_refuse
                .then(|| Port::input("bank_wr_ready", 1, "the banks take bank_wr_* this cycle")),
            evicting: banks_may_refuse.then(|| {
                Port::output("evicting", 1, "an evicted register waits in the eviction buffer (it is bank_wr_*)")
            }),
            act_valid: Port::input("act_valid", 1, "warp act_warp becomes active"),
            act_warp: Port::input("act_warp", wb, "warp id"),
            act_ready: Port::output("act_ready", 1, "a slot is free: an activation is taken"),
            flush_valid: Port::input("flush_valid", 1, "flush the slot of warp flush_warp"),
            flush_warp: Port::input("flush_warp", wb, "warp id"),
            flush_ready: Port::output(
                "flush_ready",
                1,
                "no flush is under way and the last one's registers reach the banks by this edge: a flush request is taken",
            ),
            rel_mask: Port::input("rel_mask", g.warps, &format!("finished warps, {}", packing("warp", 1))).vector(),
        }
    }
}

impl<P> CachePorts<P> {
    /// The same ports, each turned into something else by `f` (in declaration order).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> CachePorts<Q> {
        CachePorts {
            clk: f(&self.clk),
            rst: f(&self.rst),
            rd_fire: self.rd_fire.as_ref().map(&mut f),
            rd_warp: f(&self.rd_warp),
            rd_src_valid: f(&self.rd_src_valid),
            rd_src_reg: f(&self.rd_src_reg),
            rd_src_last: self.rd_src_last.as_ref().map(&mut f),
            rd_hit: f(&self.rd_hit),
            rd_data: f(&self.rd_data),
            wb_fire: f(&self.wb_fire),
            wb_warp: f(&self.wb_warp),
            wb_reg: f(&self.wb_reg),
            wb_mask: f(&self.wb_mask),
            wb_data: f(&self.wb_data),
            wb_long: f(&self.wb_long),
            wb_ready: f(&self.wb_ready),
            bank_wr_en: f(&self.bank_wr_en),
            bank_wr_warp: f(&self.bank_wr_warp),
            bank_wr_reg: f(&self.bank_wr_reg),
            bank_wr_mask: f(&self.bank_wr_mask),
            bank_wr_data: f(&self.bank_wr_data),
            bank_wr_ready: self.bank_wr_ready.as_ref().map(&mut f),
            evicting: self.evicting.as_ref().map(&mut f),
            act_valid: f(&self.act_valid),
            act_warp: f(&self.act_warp),
            act_ready: f(&self.act_ready),
            flush_valid: f(&self.flush_valid),
            flush_warp: f(&self.flush_warp),
            flush_ready: f(&self.flush_ready),
            rel_mask: f(&self.rel_mask),
        }
    }
}

impl<P> Ports<P> for CachePorts<P> {
    type Of<Q> = CachePorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let CachePorts {
            clk,
            rst,
            rd_fire,
            rd_warp,
            rd_src_valid,
            rd_src_reg,
            rd_src_last,
            rd_hit,
            rd_data,
            wb_fire,
            wb_warp,
            wb_reg,
            wb_mask,
            wb_data,
            wb_long,
            wb_ready,
            bank_wr_en,
            bank_wr_warp,
            bank_wr_reg,
            bank_wr_mask,
            bank_wr_data,
            bank_wr_ready,
            evicting,
            act_valid,
            act_warp,
            act_ready,
            flush_valid,
            flush_warp,
            flush_ready,
            rel_mask,
        } = self;
        let mut v = vec![Some(clk), Some(rst), rd_fire.as_ref()];
        v.extend([rd_warp, rd_src_valid, rd_src_reg].map(Some));
        v.push(rd_src_last.as_ref());
        v.extend([rd_hit, rd_data, wb_fire, wb_warp, wb_reg, wb_mask, wb_data, wb_long, wb_ready].map(Some));
        v.extend([bank_wr_en, bank_wr_warp, bank_wr_reg, bank_wr_mask, bank_wr_data].map(Some));
        v.extend([bank_wr_ready.as_ref(), evicting.as_ref()]);
        v.extend([act_valid, act_warp, act_ready, flush_valid, flush_warp, flush_ready, rel_mask].map(Some));
        v
    }
}
