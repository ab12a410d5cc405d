//! The warp scheduler (generated `<prefix>_scheduler`; SPEC §1): each cycle, which eligible warp
//! gets the issue slot.
//!
//! - **LRR**: the first eligible warp after the last issuer in slot order, wrapping around
//!   (from slot 0 when no warp issued yet or the last issuer finished).
//! - **GTO**: the last issuer while it is eligible, else the oldest eligible warp. Age is launch
//!   order: at reset slot order (the first launch fills slots in order), and warps launched at
//!   an edge (`launch`) become the youngest, lower slot older.
//! - **Two-level**: an active set of at most `active_warps`, in activation order. In a cycle,
//!   first the `desched` warps leave it (the rest keep their order), then free places are
//!   filled with `ready` warps outside it, round-robin over slots from the slot after the last
//!   one activated. The grant goes to the first eligible member from the last issuer's place
//!   in the set (from the first place if it is not in it), wrapping around.
//!
//! With TRWS (`rename.trws`, seed 003 §4.3) the policy chooses among the eligible warps that
//! are also `first` whenever there is one, else among all eligible warps.
//!
//! The grant and the active set of a cycle follow from the state and that cycle's inputs
//! ([`Scheduler::decide`]): the generated scheduler is combinational from eligibility to grant,
//! as the issue stage needs. At the edge the decision is kept; a warp whose granted
//! instruction is its last (`grant_last`) leaves the active set and is no longer the last
//! issuer.

use crate::block::Block;
use rfgen_gen::Geometry;
use rfgen_gen::blocks::scheduler::Shape;
use rfgen_gen::config::{Config, SchedulerPolicy};
use std::cell::{Cell, RefCell};

/// Inputs of one cycle: one field per input port (a bit per warp slot in each mask).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedulerIn {
    /// Warps whose next instruction may issue now.
    pub eligible: u64,
    /// Warps that may issue if an operand collector is free (`eligible` when one is): the
    /// scheduler makes the same choice among them beside the grant, without effect on its state.
    pub eligible_if_free: u64,
    /// Two-level: active warps that leave the active set now.
    pub desched: u64,
    /// Two-level: warps that may join the active set now.
    pub ready: u64,
    /// GTO: warps launched at this edge.
    pub launch: u64,
    /// TRWS: warps scheduled before the others.
    pub first: u64,
    /// The granted instruction is its warp's last.
    pub grant_last: bool,
}

/// What the scheduler decides in a cycle: the grant and the active set that cycle (two-level;
/// in activation order), and where the next refill starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    pub grant: Option<u32>,
    /// The grant had the eligible warps been `eligible_if_free`.
    pub if_free: Option<u32>,
    pub active: Vec<u32>,
    refill_from: u32,
}

impl Decision {
    /// The active set as a bit per warp.
    pub fn active_mask(&self) -> u64 {
        mask_of(&self.active)
    }
}

/// A bit for each of `n` warps.
fn all(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

/// A bit per warp listed.
fn mask_of(warps: &[u32]) -> u64 {
    warps.iter().fold(0, |m, &w| m | 1 << w)
}

/// Outputs from the state alone: the last issuer and the active set at the start of the cycle.
#[derive(Clone, Copy, Debug)]
pub struct SchedulerOut<'a> {
    pub last: Option<u32>,
    pub active: &'a [u32],
}

impl SchedulerOut<'_> {
    /// The active set as a bit per warp.
    pub fn active_mask(&self) -> u64 {
        mask_of(self.active)
    }
}

pub struct Scheduler {
    shape: Shape,
    /// Two-level: the decision [`Scheduler::decide`] made in this cycle and its inputs: the edge
    /// reuses it when its inputs are the same (the issue stage decides, then ticks).
    decided: RefCell<Option<(SchedulerIn, Decision)>>,
    /// The other policies: the grant `decide` found in this cycle among its eligible and first
    /// warps, reused by the edge when those are the same (three words cost less than the pick).
    picked: Cell<Option<(u64, u64, Option<u32>)>>,
    /// GTO's age order: the warps launched together, a bit per warp, oldest launch first; within
    /// one, the lower slot is older. Finding the oldest eligible warp then takes a mask per
    /// launch instead of a look at every warp.
    by_age: Vec<u64>,
    active: Vec<u32>,
    last: Option<u32>,
    refill_from: u32,
}

impl Scheduler {
    pub fn new(g: &Geometry, c: &Config) -> Self {
        let shape = Shape::new(g, c);
        let by_age = vec![all(shape.warps)];
        Scheduler {
            by_age,
            shape,
            decided: RefCell::new(None),
            picked: Cell::new(None),
            active: Vec::new(),
            last: None,
            refill_from: 0,
        }
    }

    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// This cycle's grant and active set, from the state and the inputs.
    #[inline(always)]
    pub fn decide(&self, i: &SchedulerIn) -> Decision {
        let d = self.decision(i);
        // The edge decides again unless the decision was kept: the two-level one whole (its
        // active set), the other policies' grant alone (their whole decision cost more to copy
        // than to make again).
        if self.shape.policy == SchedulerPolicy::TwoLevel {
            *self.decided.borrow_mut() = Some((*i, d.clone()));
        } else {
            self.picked.set(Some((i.eligible, i.first, d.grant)));
        }
        d
    }

    #[inline(always)]
    fn decision(&self, i: &SchedulerIn) -> Decision {
        let n = self.shape.warps;
        let (active, refill_from) = match self.shape.policy {
            SchedulerPolicy::TwoLevel => {
                let capacity = self.shape.active as usize;
                let mut active = Vec::with_capacity(capacity);
                active.extend(self.active.iter().copied().filter(|&w| i.desched >> w & 1 == 0));
                // Ready warps not active, from `refill_from` up, then from 0.
                let joining = i.ready & !mask_of(&active) & if n >= 64 { u64::MAX } else { (1 << n) - 1 };
                let from = self.refill_from;
                let mut refill_from = from;
                for mut ready in [joining & !((1u64 << from) - 1), joining & ((1u64 << from) - 1)] {
                    while ready != 0 && active.len() < capacity {
                        let w = ready.trailing_zeros();
                        active.push(w);
                        refill_from = (w + 1) % n;
                        ready &= ready - 1;
                    }
                }
                (active, refill_from)
            }
            _ => (Vec::new(), 0),
        };
        let grant = self.pick(i.eligible, i.first, &active);
        // With a collector free the two choices are among the same warps.
        let if_free =
            if i.eligible_if_free == i.eligible { grant } else { self.pick(i.eligible_if_free, i.first, &active) };
        Decision { grant, if_free, active, refill_from }
    }

    /// The policy's choice among `eligible` (two-level: within `active`, this cycle's set).
    fn pick(&self, eligible: u64, first: u64, active: &[u32]) -> Option<u32> {
        if eligible == 0 {
            return None;
        }
        let first = if self.shape.first { eligible & first } else { 0 };
        let eligible = if first != 0 { first } else { eligible };
        let is = |w: u32| eligible >> w & 1 == 1;
        let n = self.shape.warps;
        match self.shape.policy {
            SchedulerPolicy::Lrr => {
                let start = self.last.map(|w| (w + 1) % n).unwrap_or(0);
                let from_start = eligible & !((1u64 << start) - 1);
                let pick = if from_start != 0 { from_start } else { eligible };
                (pick != 0).then(|| pick.trailing_zeros())
            }
            SchedulerPolicy::Gto => {
                let oldest = || self.by_age.iter().find(|&&launch| launch & eligible != 0);
                self.last.filter(|&w| is(w)).or_else(|| oldest().map(|&launch| (launch & eligible).trailing_zeros()))
            }
            SchedulerPolicy::TwoLevel => {
                let len = active.len();
                let start = self.last.and_then(|w| active.iter().position(|&a| a == w)).unwrap_or(0);
                (0..len).map(|k| active[(start + k) % len]).find(|&w| is(w))
            }
        }
    }
}

/// What the SM needs of its warp scheduler: its ports and its decision within the cycle.
/// Implemented by the model and by anything standing in for it (the cosim's lockstep adapter).
pub trait SchedulerBlock: 'static + Block<In = SchedulerIn> + for<'a> Block<Out<'a> = SchedulerOut<'a>> {
    /// This cycle's grant and active set given its inputs (see [`Scheduler::decide`]).
    fn decide(&self, i: &SchedulerIn) -> Decision;
}

impl SchedulerBlock for Scheduler {
    #[inline(always)]
    fn decide(&self, i: &SchedulerIn) -> Decision {
        Scheduler::decide(self, i)
    }
}

impl Block for Scheduler {
    type In = SchedulerIn;
    type Out<'a> = SchedulerOut<'a>;

    fn reset(&mut self) {
        self.decided.take();
        self.picked.take();
        self.by_age = vec![all(self.shape.warps)];
        self.active.clear();
        self.last = None;
        self.refill_from = 0;
    }

    fn outputs(&self) -> SchedulerOut<'_> {
        SchedulerOut { last: self.last, active: &self.active }
    }

    #[inline(always)]
    fn tick(&mut self, i: &SchedulerIn) {
        // The decision depends on the eligible (both), first, descheduled and ready warps only.
        let same = |k: &SchedulerIn| {
            (k.eligible, k.eligible_if_free, k.first, k.desched, k.ready)
                == (i.eligible, i.eligible_if_free, i.first, i.desched, i.ready)
        };
        // The other policies keep no decision and need only the grant (not the choice beside it).
        let kept = if self.shape.policy == SchedulerPolicy::TwoLevel { self.decided.take() } else { None };
        let grant = match kept {
            Some((k, d)) if same(&k) => {
                (self.active, self.refill_from) = (d.active, d.refill_from);
                d.grant
            }
            _ if self.shape.policy != SchedulerPolicy::TwoLevel => match self.picked.take() {
                Some((eligible, first, grant)) if (eligible, first) == (i.eligible, i.first) => grant,
                _ => self.pick(i.eligible, i.first, &[]),
            },
            _ => {
                let d = self.decision(i);
                (self.active, self.refill_from) = (d.active, d.refill_from);
                d.grant
            }
        };
        if let Some(w) = grant {
            self.last = Some(w);
            if i.grant_last {
                self.last = None;
                self.active.retain(|&a| a != w);
            }
        }
        let launched = i.launch & all(self.shape.warps);
        if launched != 0 && self.shape.policy == SchedulerPolicy::Gto {
            self.by_age.iter_mut().for_each(|launch| *launch &= !launched);
            self.by_age.retain(|&launch| launch != 0);
            self.by_age.push(launched);
        }
    }

    /// No grant, no launch and (two-level) the active set as it is.
    fn at_rest(&self, i: &SchedulerIn) -> bool {
        if i.launch != 0 {
            return false;
        }
        let d = self.decision(i);
        d.grant.is_none()
            && (self.shape.policy != SchedulerPolicy::TwoLevel
                || d.active == self.active && d.refill_from == self.refill_from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scheduler(policy: SchedulerPolicy, warps: u32, active_warps: u32) -> Scheduler {
        let c = rfgen_gen::config::parse(&format!("[sm]\nwarps = {warps}\n")).unwrap();
        let mut config = c.config.clone();
        config.scheduler = rfgen_gen::config::Scheduler { policy, active_warps };
        Scheduler::new(&c.geometry, &config)
    }

    fn grant(s: &mut Scheduler, eligible: u64) -> Option<u32> {
        let i = SchedulerIn { eligible, ..SchedulerIn::default() };
        let g = s.decide(&i).grant;
        s.tick(&i);
        g
    }

    #[test]
    fn gto_prefers_the_last_warp_then_the_oldest() {
        let mut s = scheduler(SchedulerPolicy::Gto, 8, 8);
        s.tick(&SchedulerIn { launch: 1 << 2 | 1 << 1, ..SchedulerIn::default() });
        // Age now 0, 3..7, 1, 2.
        assert_eq!(grant(&mut s, 1 << 1 | 1 << 5 | 1 << 7), Some(5));
        assert_eq!(grant(&mut s, 1 << 1 | 1 << 5 | 1 << 7), Some(5), "greedy");
        assert_eq!(grant(&mut s, 1 << 1 | 1 << 2), Some(1), "then the oldest; launched together, lower slot older");
        assert_eq!(grant(&mut s, 0), None);
    }

    #[test]
    fn the_choice_if_a_collector_were_free_is_the_policys_among_those_warps() {
        let mut s = scheduler(SchedulerPolicy::Gto, 8, 8);
        assert_eq!(grant(&mut s, 1 << 6), Some(6));
        // No collector free: only warp 2 (completing at issue) is eligible; warp 6, the last
        // issuer, would keep the slot were one free. Neither choice moves the state.
        let i = SchedulerIn { eligible: 1 << 2, eligible_if_free: 1 << 2 | 1 << 6, ..SchedulerIn::default() };
        let d = s.decide(&i);
        assert_eq!((d.grant, d.if_free), (Some(2), Some(6)));
        s.tick(&i);
        assert_eq!(s.outputs().last, Some(2), "the grant, not the choice if free, is the last issuer");
        let i = SchedulerIn { eligible: 0b11, eligible_if_free: 0b11, ..SchedulerIn::default() };
        assert_eq!((s.decide(&i).grant, s.decide(&i).if_free), (Some(0), Some(0)));
    }

    #[test]
    fn lrr_rotates_from_the_last_issuer() {
        let mut s = scheduler(SchedulerPolicy::Lrr, 4, 4);
        assert_eq!(grant(&mut s, 0b0010), Some(1));
        assert_eq!(s.decide(&SchedulerIn { eligible: 0b1101, ..Default::default() }).grant, Some(2));
        assert_eq!(s.decide(&SchedulerIn { eligible: 0b1001, ..Default::default() }).grant, Some(3));
        assert_eq!(s.decide(&SchedulerIn { eligible: 0b0011, ..Default::default() }).grant, Some(0), "wraps");
        assert_eq!(s.decide(&SchedulerIn { eligible: 0b0010, ..Default::default() }).grant, Some(1));
    }

    #[test]
    fn two_level_refills_round_robin_up_to_capacity() {
        let mut s = scheduler(SchedulerPolicy::TwoLevel, 6, 2);
        let mut step = |desched: u64, ready: u64| {
            s.tick(&SchedulerIn { desched, ready, ..SchedulerIn::default() });
            s.outputs().active.to_vec()
        };
        assert_eq!(step(0, 0b111110), [1, 2]);
        assert_eq!(step(1 << 1, 0b111111), [2, 3], "refill continues after the last activated slot");
        assert_eq!(step(1 << 2 | 1 << 3, 0b111111), [4, 5]);
    }

    #[test]
    fn two_level_grants_from_the_last_issuers_place_and_drops_a_finished_warp() {
        let mut s = scheduler(SchedulerPolicy::TwoLevel, 6, 3);
        let ready = 0b111111;
        s.tick(&SchedulerIn { ready, eligible: 1 << 1, ..SchedulerIn::default() });
        assert_eq!(s.outputs().active, [0, 1, 2]);
        assert_eq!(s.outputs().last, Some(1));
        let d = s.decide(&SchedulerIn { ready, eligible: 1 << 0 | 1 << 2, ..SchedulerIn::default() });
        assert_eq!(d.grant, Some(2), "after the last issuer in activation order");
        s.tick(&SchedulerIn { ready: 0, eligible: 1 << 2, grant_last: true, ..SchedulerIn::default() });
        assert_eq!((s.outputs().active, s.outputs().last), (&[0u32, 1][..], None));
    }
}
