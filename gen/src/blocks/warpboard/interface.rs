//! The ports of the warpboard (`<prefix>_warpboard`), declared once for the generator, the
//! golden model's `WarpboardIn`/`WarpboardOut` and the cosim glue. Which ports exist depends on
//! the policy: the flag policies keep one bit per warp, the bloomboards a counter per bin.

use super::Shape;
use crate::layout::geometry::SLOTS_PER_COLLECTOR;
use crate::verilog::{Port, Ports, packing};

/// Every port of the warpboard, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpboardPorts<P> {
    pub clk: P,
    pub rst: P,
    pub iss_valid: P,
    pub iss_warp: P,
    /// Release-on-read and bloomboards: an instruction leaves its operand collector.
    pub lv_valid: Option<P>,
    pub lv_warp: Option<P>,
    /// Release-on-commit: warps whose instruction commits.
    pub commit: Option<P>,
    /// Bloomboards: the source registers of both events, and the bins.
    pub bloom: Option<BloomPorts<P>>,
    /// Release-on-commit and release-on-read: warps with an instruction outstanding.
    pub busy: Option<P>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BloomPorts<P> {
    pub iss_src_valid: P,
    pub iss_src_reg: [P; SLOTS_PER_COLLECTOR as usize],
    pub lv_src_valid: P,
    pub lv_src_reg: [P; SLOTS_PER_COLLECTOR as usize],
    pub bins: P,
}

impl WarpboardPorts<Port> {
    pub fn new(s: &Shape) -> Self {
        let (wb, rb, k) = (s.warp_bits, s.reg_bits, SLOTS_PER_COLLECTOR);
        let per_warp = packing("warp", 1);
        let srcs = |event: &str, what: &str| {
            (
                Port::input(
                    &format!("{event}_src_valid"),
                    k,
                    &format!("{what}: its sources, {}", packing("source", 1)),
                )
                .vector(),
                std::array::from_fn(|i| {
                    Port::input(&format!("{event}_src{i}_reg"), rb, &format!("register id of source {i}"))
                }),
            )
        };
        let releases_on_leave = s.bloom.is_some() || s.releases_on_read;
        WarpboardPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high: nothing outstanding"),
            iss_valid: Port::input("iss_valid", 1, "an instruction goes to an operand collector this cycle"),
            iss_warp: Port::input("iss_warp", wb, "its warp"),
            lv_valid: releases_on_leave.then(|| {
                Port::input("lv_valid", 1, "an instruction leaves its operand collector (its reads are done)")
            }),
            lv_warp: releases_on_leave.then(|| Port::input("lv_warp", wb, "its warp")),
            commit: s.releases_on_commit.then(|| {
                Port::input("commit", s.warps, &format!("warps whose instruction commits this cycle, {per_warp}"))
                    .vector()
            }),
            bloom: s.bloom.map(|b| {
                let (iss_src_valid, iss_src_reg) = srcs("iss", "the issued instruction");
                let (lv_src_valid, lv_src_reg) = srcs("lv", "the leaving instruction");
                BloomPorts {
                    iss_src_valid,
                    iss_src_reg,
                    lv_src_valid,
                    lv_src_reg,
                    bins: Port::output(
                        "bin_count",
                        s.warps * s.groups * b.counter_bits,
                        &format!(
                            "pending reads per bin (bank group) of each warp, warp w bin b at [{c}({g}w+b)+{m}:{c}({g}w+b)]",
                            c = b.counter_bits,
                            g = s.groups,
                            m = b.counter_bits - 1
                        ),
                    ),
                }
            }),
            busy: (s.releases_on_commit || s.releases_on_read).then(|| {
                Port::output("busy", s.warps, &format!("the warp has an instruction outstanding, {per_warp}")).vector()
            }),
        }
    }
}

impl<P> WarpboardPorts<P> {
    /// The same ports, each turned into something else by `f` (in declaration order).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> WarpboardPorts<Q> {
        let WarpboardPorts { clk, rst, iss_valid, iss_warp, lv_valid, lv_warp, commit, bloom, busy } = self;
        let (clk, rst, iss_valid, iss_warp) = (f(clk), f(rst), f(iss_valid), f(iss_warp));
        let (lv_valid, lv_warp, commit) =
            (lv_valid.as_ref().map(&mut f), lv_warp.as_ref().map(&mut f), commit.as_ref().map(&mut f));
        let bloom = bloom.as_ref().map(|b| {
            let BloomPorts { iss_src_valid, iss_src_reg, lv_src_valid, lv_src_reg, bins } = b;
            let iss_src_valid = f(iss_src_valid);
            let iss_src_reg = [f(&iss_src_reg[0]), f(&iss_src_reg[1]), f(&iss_src_reg[2])];
            let lv_src_valid = f(lv_src_valid);
            let lv_src_reg = [f(&lv_src_reg[0]), f(&lv_src_reg[1]), f(&lv_src_reg[2])];
            BloomPorts { iss_src_valid, iss_src_reg, lv_src_valid, lv_src_reg, bins: f(bins) }
        });
        let busy = busy.as_ref().map(&mut f);
        WarpboardPorts { clk, rst, iss_valid, iss_warp, lv_valid, lv_warp, commit, bloom, busy }
    }

    /// Every port in declaration order.
    pub fn list(&self) -> Vec<&P> {
        let mut v = vec![&self.clk, &self.rst, &self.iss_valid, &self.iss_warp];
        if let Some(b) = &self.bloom {
            v.push(&b.iss_src_valid);
            v.extend(&b.iss_src_reg);
        }
        v.extend(&self.lv_valid);
        v.extend(&self.lv_warp);
        if let Some(b) = &self.bloom {
            v.push(&b.lv_src_valid);
            v.extend(&b.lv_src_reg);
        }
        v.extend(&self.commit);
        v.extend(&self.busy);
        if let Some(b) = &self.bloom {
            v.push(&b.bins);
        }
        v
    }
}

impl<P> Ports<P> for WarpboardPorts<P> {
    type Of<Q> = WarpboardPorts<Q>;

    /// In field order, the sources of both events after the leave ports (the declaration, see
    /// [`WarpboardPorts::list`], puts each event's sources beside it).
    fn slots(&self) -> Vec<Option<&P>> {
        let WarpboardPorts { clk, rst, iss_valid, iss_warp, lv_valid, lv_warp, commit, bloom, busy } = self;
        let mut v = [clk, rst, iss_valid, iss_warp].map(Some).to_vec();
        v.extend([lv_valid, lv_warp, commit].map(Option::as_ref));
        let bloom = bloom.as_ref();
        v.push(bloom.map(|b| &b.iss_src_valid));
        v.extend((0..SLOTS_PER_COLLECTOR as usize).map(|i| bloom.map(|b| &b.iss_src_reg[i])));
        v.push(bloom.map(|b| &b.lv_src_valid));
        v.extend((0..SLOTS_PER_COLLECTOR as usize).map(|i| bloom.map(|b| &b.lv_src_reg[i])));
        v.extend([bloom.map(|b| &b.bins), busy.as_ref()]);
        v
    }
}
