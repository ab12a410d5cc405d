//! Warp scheduler (SPEC §1): the order in which warps are offered the issue slot each cycle.
//!
//! - **LRR**: round-robin over warp slots, starting after the warp that issued last.
//! - **GTO**: the warp that issued last, then every warp oldest first (launch order).
//! - **Two-level**: only the active set (at most `active_warps`) is scheduled: the warp that
//!   issued last first, then the other active warps round-robin from it. The SM deschedules an
//!   active warp that waits for a long-latency result or at a barrier; free active places are
//!   refilled from the ready pending warps, round-robin over warp slots.
//!
//! The SM decides eligibility; the scheduler only keeps membership and order.

use rfgen_gen::config::SchedulerPolicy;

pub struct Scheduler {
    policy: SchedulerPolicy,
    slots: usize,
    capacity: usize,
    /// Resident warps that may still issue, oldest first.
    by_age: Vec<usize>,
    /// Two-level active set, in activation order.
    active: Vec<usize>,
    last_issued: Option<usize>,
    /// Two-level: next slot considered for activation.
    refill_from: usize,
}

impl Scheduler {
    pub fn new(policy: SchedulerPolicy, slots: usize, active_warps: usize) -> Self {
        let capacity = if policy == SchedulerPolicy::TwoLevel { active_warps } else { slots };
        Scheduler { policy, slots, capacity, by_age: Vec::new(), active: Vec::new(), last_issued: None, refill_from: 0 }
    }

    pub fn is_two_level(&self) -> bool {
        self.policy == SchedulerPolicy::TwoLevel
    }

    /// A warp was launched into slot `w`.
    pub fn add(&mut self, w: usize) {
        self.by_age.push(w);
    }

    /// Warp `w` will never issue again.
    pub fn remove(&mut self, w: usize) {
        self.by_age.retain(|&x| x != w);
        self.active.retain(|&x| x != w);
        if self.last_issued == Some(w) {
            self.last_issued = None;
        }
    }

    pub fn issued(&mut self, w: usize) {
        self.last_issued = Some(w);
    }

    /// Warps the scheduler considers this cycle: the active set (two-level) or every resident warp.
    pub fn candidates(&self, resident: u64) -> u64 {
        match self.policy {
            SchedulerPolicy::TwoLevel => self.active.iter().fold(0, |m, &w| m | 1 << w),
            _ => resident,
        }
    }

    /// The warp that gets the issue slot among `eligible` (bit per slot), by policy order.
    pub fn pick(&self, eligible: u64) -> Option<usize> {
        if eligible == 0 {
            return None;
        }
        let is = |w: usize| eligible >> w & 1 == 1;
        match self.policy {
            SchedulerPolicy::Lrr => {
                let start = self.last_issued.map(|w| (w + 1) % self.slots).unwrap_or(0);
                let from_start = eligible & !((1u64 << start) - 1);
                Some(if from_start != 0 { from_start } else { eligible }.trailing_zeros() as usize)
            }
            SchedulerPolicy::Gto => {
                self.last_issued.filter(|&w| is(w)).or_else(|| self.by_age.iter().copied().find(|&w| is(w)))
            }
            SchedulerPolicy::TwoLevel => {
                let n = self.active.len();
                let start = self.last_issued.and_then(|w| self.active.iter().position(|&a| a == w)).unwrap_or(0);
                (0..n).map(|i| self.active[(start + i) % n]).find(|&w| is(w))
            }
        }
    }

    /// Two-level: moves an active warp to the pending set.
    pub fn deschedule(&mut self, w: usize) {
        self.active.retain(|&x| x != w);
    }

    /// Two-level: the active set.
    pub fn active(&self) -> &[usize] {
        &self.active
    }

    /// Two-level: fills free active places with ready pending warps, round-robin over slots.
    pub fn refill(&mut self, mut ready: impl FnMut(usize) -> bool) {
        if self.active.len() >= self.capacity {
            return;
        }
        let start = self.refill_from;
        for i in 0..self.slots {
            let w = (start + i) % self.slots;
            if self.by_age.contains(&w) && !self.active.contains(&w) && ready(w) {
                self.active.push(w);
                self.refill_from = (w + 1) % self.slots;
                if self.active.len() >= self.capacity {
                    return;
                }
            }
        }
    }

    /// Resident warps not in the active set (two-level).
    pub fn pending_count(&self) -> usize {
        self.by_age.len() - self.active.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gto_prefers_the_last_warp_then_the_oldest() {
        let mut s = Scheduler::new(SchedulerPolicy::Gto, 8, 8);
        for w in [5, 2, 7] {
            s.add(w);
        }
        assert_eq!(s.pick(1 << 2 | 1 << 5 | 1 << 7), Some(5));
        s.issued(7);
        assert_eq!(s.pick(1 << 2 | 1 << 5 | 1 << 7), Some(7));
        assert_eq!(s.pick(1 << 2 | 1 << 5), Some(5), "then the oldest");
        assert_eq!(s.pick(0), None);
    }

    #[test]
    fn lrr_rotates_from_the_last_issuer() {
        let mut s = Scheduler::new(SchedulerPolicy::Lrr, 4, 4);
        s.issued(1);
        assert_eq!(s.pick(0b1101), Some(2));
        assert_eq!(s.pick(0b1001), Some(3));
        assert_eq!(s.pick(0b0011), Some(0), "wraps around");
        assert_eq!(s.pick(0b0010), Some(1), "the last issuer comes last");
    }

    #[test]
    fn two_level_refills_round_robin_up_to_capacity() {
        let mut s = Scheduler::new(SchedulerPolicy::TwoLevel, 6, 2);
        for w in 0..6 {
            s.add(w);
        }
        s.refill(|w| w != 0);
        assert_eq!(s.active(), [1, 2]);
        s.deschedule(1);
        s.refill(|_| true);
        assert_eq!(s.active(), [2, 3], "refill continues after the last activated slot");
        s.deschedule(2);
        s.deschedule(3);
        s.refill(|_| true);
        assert_eq!(s.active(), [4, 5]);
    }
}
