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

    /// Candidates for this cycle's issue slot, best first.
    pub fn order(&self, resident: u64, out: &mut Vec<usize>) {
        out.clear();
        match self.policy {
            SchedulerPolicy::Lrr => {
                let start = self.last_issued.map(|w| w + 1).unwrap_or(0);
                out.extend((0..self.slots).map(|i| (start + i) % self.slots).filter(|&w| resident >> w & 1 == 1));
            }
            SchedulerPolicy::Gto => {
                out.extend(self.last_issued);
                out.extend(self.by_age.iter().filter(|&&w| Some(w) != self.last_issued));
            }
            SchedulerPolicy::TwoLevel => {
                let n = self.active.len();
                let start = self.last_issued.and_then(|w| self.active.iter().position(|&a| a == w)).unwrap_or(0);
                out.extend((0..n).map(|i| self.active[(start + i) % n]));
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
        for i in 0..self.slots {
            let w = (self.refill_from + i) % self.slots;
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
        let mut order = Vec::new();
        s.order(u64::MAX, &mut order);
        assert_eq!(order, [5, 2, 7]);
        s.issued(7);
        s.order(u64::MAX, &mut order);
        assert_eq!(order, [7, 5, 2]);
    }

    #[test]
    fn lrr_rotates_from_the_last_issuer() {
        let mut s = Scheduler::new(SchedulerPolicy::Lrr, 4, 4);
        s.issued(1);
        let mut order = Vec::new();
        s.order(0b1101, &mut order);
        assert_eq!(order, [2, 3, 0]);
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
