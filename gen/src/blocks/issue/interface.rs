//! The ports of the issue stage (`<prefix>_issue`), declared once for the generator, the golden
//! model's `IssueIn`/`IssueDecision` and the cosim glue. Which ports exist depends on the
//! scheduler policy (two-level: long-latency consumers, holds, the active set; GTO: launches)
//! and the warpboard policy (its release events).

use super::Shape;
use crate::blocks::scoreboard::PREDICATES;
use crate::config::SchedulerPolicy;
use crate::layout::geometry::SLOTS_PER_COLLECTOR;
use crate::verilog::{Port, Ports, packing};

/// Every port of the issue stage, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssuePorts<P> {
    pub clk: P,
    pub rst: P,
    pub next_valid: P,
    pub next_src_valid: P,
    pub next_src_reg: P,
    pub next_dst_valid: P,
    pub next_dst: P,
    pub next_preds: P,
    pub next_pdst_valid: P,
    pub next_pdst: P,
    pub next_control: P,
    pub next_long: P,
    /// Two-level.
    pub next_long_consumer: Option<P>,
    pub barrier: P,
    /// Two-level.
    pub hold: Option<P>,
    /// Beside an ORF/LRF or a rename stage.
    pub stall: Option<P>,
    /// TRWS.
    pub first: Option<P>,
    pub collector_ready: P,
    /// GTO.
    pub launch: Option<P>,
    pub grant_last: P,
    pub clr_valid: P,
    pub clr_warp: P,
    pub clr_reg: P,
    pub clr_preds: P,
    /// Release-on-read and bloomboards.
    pub lv_valid: Option<P>,
    pub lv_warp: Option<P>,
    /// Bloomboards.
    pub lv_src_valid: Option<P>,
    pub lv_src_reg: Option<[P; SLOTS_PER_COLLECTOR as usize]>,
    /// Release-on-commit.
    pub commit: Option<P>,
    pub grant_valid: P,
    pub grant_warp: P,
    /// The granted instruction enters an operand collector, and its warp (the granted warp
    /// then): picked as if a collector were free, so neither waits on `collector_ready` through
    /// the scheduler's choice.
    pub to_collector: P,
    pub to_collector_warp: P,
    /// Two-level.
    pub active: Option<P>,
    pub eligible: P,
}

impl IssuePorts<Port> {
    pub fn new(s: &Shape) -> Self {
        let (w, wb, rb, k, pr) = (s.warps, s.warp_bits, s.reg_bits, SLOTS_PER_COLLECTOR, PREDICATES);
        let per_warp = |what: &str| format!("{what}, {}", packing("warp", 1));
        let mask = |name: &str, what: &str| Port::input(name, w, &per_warp(what)).vector();
        let two_level = s.scheduler.policy == SchedulerPolicy::TwoLevel;
        let wbd = s.warpboard;
        let on_leave = wbd.is_some_and(|b| b.bloom.is_some() || b.releases_on_read);
        let bloom = wbd.is_some_and(|b| b.bloom.is_some());
        IssuePorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high: nothing pending, no warp issued yet"),
            next_valid: mask("next_valid", "the warp has a next instruction (descriptor below)"),
            next_src_valid: Port::input(
                "next_src_valid",
                w * k,
                &format!("it reads a register in source slot s, warp w slot s at bit {k}w+s"),
            )
            .vector(),
            next_src_reg: Port::input(
                "next_src_reg",
                w * k * rb,
                &format!("the register, warp w slot s at [{rb}({k}w+s)+{}:{rb}({k}w+s)]", rb - 1),
            ),
            next_dst_valid: mask("next_dst_valid", "it writes a register"),
            next_dst: Port::input("next_dst", w * rb, &format!("the register, {}", packing("warp", rb))),
            next_preds: Port::input(
                "next_preds",
                w * pr,
                &format!("predicates it reads or writes, warp w predicate p at bit {pr}w+p"),
            )
            .vector(),
            next_pdst_valid: mask("next_pdst_valid", "it writes a predicate"),
            next_pdst: Port::input("next_pdst", w * 3, &format!("the predicate, {}", packing("warp", 3))),
            next_control: mask(
                "next_control",
                "it completes at issue (branch, exit, barrier): no collector, no reservation",
            ),
            next_long: mask("next_long", "it writes a long-latency result (global load, texture)"),
            next_long_consumer: two_level
                .then(|| mask("next_long_consumer", "the compiler marks it as consuming a long-latency result")),
            barrier: mask("barrier", "the warp waits at a barrier"),
            hold: two_level
                .then(|| mask("hold", "the warp may not join the active set (its cache entries are flushing)")),
            stall: s
                .stall
                .then(|| mask("stall", "the warp issues nothing this cycle (an ORF/LRF fill of it is on its way, or no physical register is free for its destination)")),
            first: s.scheduler.first.then(|| {
                mask("trws_first", "TRWS: warps the scheduler takes first (MEM_RA predicts a memory stall for them)")
            }),
            collector_ready: Port::input("collector_ready", 1, "an operand collector is free"),
            launch: (s.scheduler.policy == SchedulerPolicy::Gto)
                .then(|| mask("launch", "warps launched at this edge: the youngest from now on, lower slot older")),
            grant_last: Port::input(
                "grant_last",
                1,
                "the granted instruction is its warp's last: the warp leaves the scheduler at this edge",
            ),
            clr_valid: Port::input("clr_valid", 1, "a register result commits"),
            clr_warp: Port::input("clr_warp", wb, "its warp"),
            clr_reg: Port::input("clr_reg", rb, "the register"),
            clr_preds: Port::input(
                "clr_preds",
                w * pr,
                &format!("predicate results completing, warp w predicate p at bit {pr}w+p"),
            )
            .vector(),
            lv_valid: on_leave.then(|| {
                Port::input("lv_valid", 1, "an instruction leaves its operand collector (its reads are done)")
            }),
            lv_warp: on_leave.then(|| Port::input("lv_warp", wb, "its warp")),
            lv_src_valid: bloom
                .then(|| Port::input("lv_src_valid", k, &format!("its sources, {}", packing("source", 1))).vector()),
            lv_src_reg: bloom.then(|| {
                std::array::from_fn(|i| Port::input(&format!("lv_src{i}_reg"), rb, &format!("register of source {i}")))
            }),
            commit: wbd.is_some_and(|b| b.releases_on_commit).then(|| {
                mask("commit", "warps whose instruction commits (write-back, or dispatch without a register result)")
            }),
            grant_valid: Port::output("grant_valid", 1, "a warp is granted the issue slot this cycle"),
            grant_warp: Port::output("grant_warp", wb, "the granted warp"),
            to_collector: Port::output(
                "to_collector",
                1,
                "the granted instruction enters an operand collector: one is free and it does not complete at issue",
            ),
            to_collector_warp: Port::output(
                "to_collector_warp",
                wb,
                "its warp (grant_warp then), chosen among the warps eligible if a collector is free",
            ),
            active: two_level.then(|| {
                Port::output("active", w, &per_warp("the active set this cycle, after deschedules and refill")).vector()
            }),
            eligible: Port::output(
                "eligible",
                w,
                &per_warp("warps whose next instruction may issue this cycle (before the scheduler's choice)"),
            )
            .vector(),
        }
    }
}

impl<P> IssuePorts<P> {
    /// The same ports, each turned into something else by `f` (in declaration order).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> IssuePorts<Q> {
        IssuePorts {
            clk: f(&self.clk),
            rst: f(&self.rst),
            next_valid: f(&self.next_valid),
            next_src_valid: f(&self.next_src_valid),
            next_src_reg: f(&self.next_src_reg),
            next_dst_valid: f(&self.next_dst_valid),
            next_dst: f(&self.next_dst),
            next_preds: f(&self.next_preds),
            next_pdst_valid: f(&self.next_pdst_valid),
            next_pdst: f(&self.next_pdst),
            next_control: f(&self.next_control),
            next_long: f(&self.next_long),
            next_long_consumer: self.next_long_consumer.as_ref().map(&mut f),
            barrier: f(&self.barrier),
            hold: self.hold.as_ref().map(&mut f),
            stall: self.stall.as_ref().map(&mut f),
            first: self.first.as_ref().map(&mut f),
            collector_ready: f(&self.collector_ready),
            launch: self.launch.as_ref().map(&mut f),
            grant_last: f(&self.grant_last),
            clr_valid: f(&self.clr_valid),
            clr_warp: f(&self.clr_warp),
            clr_reg: f(&self.clr_reg),
            clr_preds: f(&self.clr_preds),
            lv_valid: self.lv_valid.as_ref().map(&mut f),
            lv_warp: self.lv_warp.as_ref().map(&mut f),
            lv_src_valid: self.lv_src_valid.as_ref().map(&mut f),
            lv_src_reg: self.lv_src_reg.as_ref().map(|r| [f(&r[0]), f(&r[1]), f(&r[2])]),
            commit: self.commit.as_ref().map(&mut f),
            grant_valid: f(&self.grant_valid),
            grant_warp: f(&self.grant_warp),
            to_collector: f(&self.to_collector),
            to_collector_warp: f(&self.to_collector_warp),
            active: self.active.as_ref().map(&mut f),
            eligible: f(&self.eligible),
        }
    }

    /// Every port in declaration order.
    pub fn list(&self) -> Vec<&P> {
        self.slots().into_iter().flatten().collect()
    }
}

impl<P> Ports<P> for IssuePorts<P> {
    type Of<Q> = IssuePorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let IssuePorts {
            clk,
            rst,
            next_valid,
            next_src_valid,
            next_src_reg,
            next_dst_valid,
            next_dst,
            next_preds,
            next_pdst_valid,
            next_pdst,
            next_control,
            next_long,
            next_long_consumer,
            barrier,
            hold,
            stall,
            first,
            collector_ready,
            launch,
            grant_last,
            clr_valid,
            clr_warp,
            clr_reg,
            clr_preds,
            lv_valid,
            lv_warp,
            lv_src_valid,
            lv_src_reg,
            commit,
            grant_valid,
            grant_warp,
            to_collector,
            to_collector_warp,
            active,
            eligible,
        } = self;
        let mut v: Vec<Option<&P>> = [
            clk,
            rst,
            next_valid,
            next_src_valid,
            next_src_reg,
            next_dst_valid,
            next_dst,
            next_preds,
            next_pdst_valid,
            next_pdst,
            next_control,
            next_long,
        ]
        .map(Some)
        .into();
        v.push(next_long_consumer.as_ref());
        v.push(Some(barrier));
        v.extend([hold, stall, first].map(Option::as_ref));
        v.push(Some(collector_ready));
        v.push(launch.as_ref());
        v.extend([grant_last, clr_valid, clr_warp, clr_reg, clr_preds].map(Some));
        v.extend([lv_valid, lv_warp, lv_src_valid].map(Option::as_ref));
        match lv_src_reg {
            Some(regs) => v.extend(regs.each_ref().map(Some)),
            None => v.extend([None; SLOTS_PER_COLLECTOR as usize]),
        }
        v.push(commit.as_ref());
        v.extend([grant_valid, grant_warp, to_collector, to_collector_warp].map(Some));
        v.push(active.as_ref());
        v.push(Some(eligible));
        v
    }
}
