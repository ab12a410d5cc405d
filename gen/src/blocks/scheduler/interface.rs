//! The ports of the warp scheduler (`<prefix>_scheduler`), declared once for the generator, the
//! golden model's `SchedulerIn`/`Decision` and the cosim glue. Which ports exist depends on the
//! policy: GTO learns launches (its age order), two-level takes deschedules and refill
//! candidates and shows its active set.

use super::Shape;
use crate::config::SchedulerPolicy;
use crate::verilog::{Port, Ports, packing};

/// Every port of the scheduler, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchedulerPorts<P> {
    pub clk: P,
    pub rst: P,
    pub eligible: P,
    /// The warps eligible if an operand collector is free: picked from as well, with no effect
    /// on the state, so that what enters a collector does not wait on whether one is free.
    pub eligible_if_free: P,
    /// Two-level: active warps leaving the active set this cycle.
    pub desched: Option<P>,
    /// Two-level: warps that may join the active set.
    pub ready: Option<P>,
    /// GTO: warps launched at this edge.
    pub launch: Option<P>,
    /// TRWS: warps scheduled before the others.
    pub first: Option<P>,
    pub grant_last: P,
    pub grant_valid: P,
    pub grant_warp: P,
    /// The grant had `eligible` been `eligible_if_free`.
    pub if_free_valid: P,
    pub if_free_warp: P,
    /// Two-level: the active set this cycle.
    pub active: Option<P>,
}

impl SchedulerPorts<Port> {
    pub fn new(s: &Shape) -> Self {
        let w = s.warps;
        let per_warp = packing("warp", 1);
        let mask = |name: &str, dir: fn(&str, u32, &str) -> Port, what: &str| {
            dir(name, w, &format!("{what}, {per_warp}")).vector()
        };
        let two_level = s.policy == SchedulerPolicy::TwoLevel;
        SchedulerPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high: no warp issued yet, empty active set"),
            eligible: mask(
                "eligible",
                Port::input,
                "warps whose next instruction may issue now (no pending operand, no WAR stall, not at a barrier, a collector or no need of one)",
            ),
            eligible_if_free: mask(
                "eligible_if_free",
                Port::input,
                "warps that may issue now if an operand collector is free (eligible is these when one is); picked from too, without effect on the state",
            ),
            desched: two_level.then(|| {
                mask(
                    "desched",
                    Port::input,
                    "active warps that leave the active set now (at a barrier, or the next instruction consumes a pending long-latency result)",
                )
            }),
            ready: two_level.then(|| {
                mask(
                    "ready",
                    Port::input,
                    "warps that may join the active set now (resident, not at a barrier, no long-latency wait, no cache flush under way)",
                )
            }),
            launch: (s.policy == SchedulerPolicy::Gto).then(|| {
                mask("launch", Port::input, "warps launched at this edge: the youngest from now on, lower slot older")
            }),
            first: s.first.then(|| {
                mask(
                    "trws_first",
                    Port::input,
                    "TRWS: warps scheduled first (MEM_RA predicts a memory stall): when any of them is eligible, the others wait",
                )
            }),
            grant_last: Port::input(
                "grant_last",
                1,
                "the granted instruction is its warp's last: the warp leaves the scheduler at this edge",
            ),
            grant_valid: Port::output("grant_valid", 1, "a warp is granted the issue slot this cycle"),
            grant_warp: Port::output("grant_warp", s.warp_bits, "the granted warp"),
            if_free_valid: Port::output(
                "if_free_valid",
                1,
                "a warp would be granted were eligible_if_free the eligible warps (the grant when a collector is free)",
            ),
            if_free_warp: Port::output("if_free_warp", s.warp_bits, "the warp it would be"),
            active: two_level.then(|| {
                mask("active", Port::output, "the active set this cycle, after deschedules and refill")
            }),
        }
    }
}

impl<P> SchedulerPorts<P> {
    /// The same ports, each turned into something else by `f` (in declaration order).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> SchedulerPorts<Q> {
        let SchedulerPorts {
            clk,
            rst,
            eligible,
            eligible_if_free,
            desched,
            ready,
            launch,
            first,
            grant_last,
            grant_valid,
            grant_warp,
            if_free_valid,
            if_free_warp,
            active,
        } = self;
        SchedulerPorts {
            clk: f(clk),
            rst: f(rst),
            eligible: f(eligible),
            eligible_if_free: f(eligible_if_free),
            desched: desched.as_ref().map(&mut f),
            ready: ready.as_ref().map(&mut f),
            launch: launch.as_ref().map(&mut f),
            first: first.as_ref().map(&mut f),
            grant_last: f(grant_last),
            grant_valid: f(grant_valid),
            grant_warp: f(grant_warp),
            if_free_valid: f(if_free_valid),
            if_free_warp: f(if_free_warp),
            active: active.as_ref().map(&mut f),
        }
    }

    /// Every port in declaration order.
    pub fn list(&self) -> Vec<&P> {
        self.slots().into_iter().flatten().collect()
    }
}

impl<P> Ports<P> for SchedulerPorts<P> {
    type Of<Q> = SchedulerPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let SchedulerPorts {
            clk,
            rst,
            eligible,
            eligible_if_free,
            desched,
            ready,
            launch,
            first,
            grant_last,
            grant_valid,
            grant_warp,
            if_free_valid,
            if_free_warp,
            active,
        } = self;
        let mut v = vec![Some(clk), Some(rst), Some(eligible), Some(eligible_if_free)];
        v.extend([desched, ready, launch, first].map(Option::as_ref));
        v.extend([grant_last, grant_valid, grant_warp, if_free_valid, if_free_warp].map(Some));
        v.push(active.as_ref());
        v
    }
}
