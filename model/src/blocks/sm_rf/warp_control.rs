//! What the composed top tells the MRF as warps come and go (generated inside `<prefix>_sm_rf`,
//! SPEC §2): the register file cache's slot protocol, and a compressed MRF's invalidation of a
//! finished warp's registers. Both are sets of waiting warps, served lowest-numbered first, one
//! per cycle, from the state the last edge left (the RTL's registers):
//! - **Activation**: a warp becomes active — launched (every warp may hold entries), or with the
//!   two-level scheduler, found in its active set but not in the cycle before. Offered on
//!   `act_*` while the warp has no flush waiting or under way; taken when `act_ready`.
//! - **Flush**: a warp owning a slot left the two-level active set without its last instruction
//!   issuing (descheduled). Offered on `flush_*`, one at a time; once the RFC is ready again
//!   the flush it took is done. A flushing warp is held out of the active set (`hold`).
//! - **Release**: a warp that finished (`exit`) and owns a slot: its slot is freed at the next
//!   edge without write-backs (`rel_mask`).
//! - **Free** (compressed MRF): a finished warp's registers are invalidated (`free_*`); until
//!   then its slot is `freeing` and nothing launches into it.
//!
//! The two-level scheduler's decisions are seen a cycle late, from its registered active set:
//! a warp issues a cycle or two before its slot is activated (its reads go to the MRF) and may
//! rejoin the active set before its flush is queued (activation waits for the flush).

/// The register file cache's protocol.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RfcControl {
    two_level: bool,
    /// The scheduler's active set and the warp whose last instruction was granted, a cycle ago.
    active_was: u64,
    ended_was: u64,
    /// Warps waiting for activation, owning a slot, with a flush waiting, with a flush waiting
    /// or under way, and finished at the last edge owning a slot.
    activating: u64,
    owns: u64,
    flush_queue: u64,
    flushing: u64,
    releasing: u64,
    /// The flush the RFC took and is still writing back.
    flush_sent: Option<u32>,
}

/// The events the protocol offers the MRF this cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RfcOffer {
    pub act: Option<u32>,
    pub flush: Option<u32>,
    pub rel_mask: u64,
}

/// What happened to the warps this cycle, as the protocol sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct WarpEvents {
    /// The two-level scheduler's active set this cycle (after this cycle's deschedules and
    /// refill: its `active` output).
    pub active: u64,
    /// The warp whose last instruction is granted this cycle.
    pub ended: u64,
    pub launch: u64,
    pub exit: u64,
}

impl RfcControl {
    pub fn new(two_level: bool) -> Self {
        RfcControl { two_level, ..Default::default() }
    }

    pub fn two_level(&self) -> bool {
        self.two_level
    }

    /// Warps held out of the two-level active set: their entries are being written back.
    pub fn flushing(&self) -> u64 {
        self.flushing
    }

    pub fn offer(&self) -> RfcOffer {
        RfcOffer {
            act: lowest(self.activating & !self.flushing),
            flush: lowest(self.flush_queue),
            rel_mask: self.releasing,
        }
    }

    /// Nothing offered or under way, and (two-level) the scheduler's active set `active` as at
    /// the last edge: an edge without warp events changes nothing.
    pub fn at_rest(&self, active: u64) -> bool {
        let pending = self.activating | self.flush_queue | self.flushing | self.releasing | self.ended_was;
        pending == 0 && self.flush_sent.is_none() && (!self.two_level || self.active_was == active)
    }

    /// The edge: the MRF takes what it is ready for, and this cycle's events join.
    pub fn tick(&mut self, act_ready: bool, flush_ready: bool, ev: &WarpEvents) {
        let offer = self.offer();
        // One flush at a time: once the RFC is ready again, the one it took is done.
        if let (Some(w), true) = (self.flush_sent, flush_ready) {
            self.flush_sent = None;
            self.owns &= !(1 << w);
            self.flushing &= !(1 << w);
        }
        if let (Some(w), true) = (offer.flush, flush_ready) {
            self.flush_sent = Some(w);
            self.flush_queue &= !(1 << w);
        }
        if let (Some(w), true) = (offer.act, act_ready) {
            self.owns |= 1 << w;
            self.activating &= !(1 << w);
        }
        let (joined, left) = if self.two_level {
            (ev.active & !self.active_was, self.active_was & !ev.active & !self.ended_was)
        } else {
            (ev.launch, 0)
        };
        (self.active_was, self.ended_was) = (ev.active, ev.ended);
        let flushed = left & self.owns;
        self.flush_queue |= flushed;
        self.flushing |= flushed;
        // A slot's warp may finish and a new one launch into it at the same edge.
        self.activating = (self.activating & !left & !ev.exit) | joined;
        self.releasing = ev.exit & self.owns;
        self.owns &= !ev.exit;
    }
}

/// A compressed MRF's invalidation of finished warps' registers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FreeControl {
    freeing: u64,
}

impl FreeControl {
    /// Warps whose registers are still to be invalidated; nothing launches into them.
    pub fn freeing(&self) -> u64 {
        self.freeing
    }

    /// The warp whose registers are invalidated at this edge.
    pub fn offer(&self) -> Option<u32> {
        lowest(self.freeing)
    }

    pub fn tick(&mut self, exit: u64) {
        if let Some(w) = self.offer() {
            self.freeing &= !(1 << w);
        }
        self.freeing |= exit;
    }
}

fn lowest(m: u64) -> Option<u32> {
    (m != 0).then(|| m.trailing_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(active: u64, ended: u64, exit: u64) -> WarpEvents {
        WarpEvents { active, ended, launch: 0, exit }
    }

    #[test]
    fn a_joining_warp_is_activated_lowest_first_and_a_descheduled_one_flushed() {
        let mut c = RfcControl::new(true);
        c.tick(false, true, &ev(0b110, 0, 0));
        assert_eq!(c.offer().act, Some(1));
        c.tick(true, true, &ev(0b110, 0, 0));
        assert_eq!(c.offer().act, Some(2));
        c.tick(true, true, &ev(0b110, 0, 0));
        assert_eq!(c.offer(), RfcOffer::default());
        // Warp 1 leaves without finishing: flushed, and held until the RFC is ready again.
        c.tick(true, true, &ev(0b100, 0, 0));
        assert_eq!((c.offer().flush, c.flushing()), (Some(1), 0b10));
        c.tick(true, true, &ev(0b100, 0, 0));
        assert_eq!((c.offer().flush, c.flushing()), (None, 0b10));
        // It rejoins while its flush is under way: activated only once the flush is done.
        c.tick(true, false, &ev(0b110, 0, 0));
        assert_eq!((c.offer().act, c.flushing()), (None, 0b10));
        c.tick(true, true, &ev(0b110, 0, 0));
        assert_eq!((c.offer().act, c.flushing()), (Some(1), 0));
    }

    #[test]
    fn a_finished_warp_is_released_not_flushed() {
        let mut c = RfcControl::new(true);
        c.tick(true, true, &ev(0b1, 0, 0));
        c.tick(true, true, &ev(0b1, 0b1, 0));
        // It left the set with its last instruction: no flush; its exit releases the slot.
        c.tick(true, true, &ev(0, 0, 0));
        assert_eq!(c.offer(), RfcOffer::default());
        c.tick(true, true, &ev(0, 0, 0b1));
        assert_eq!(c.offer().rel_mask, 0b1);
        c.tick(true, true, &ev(0, 0, 0));
        assert_eq!(c.offer().rel_mask, 0);
    }

    #[test]
    fn without_the_two_level_scheduler_a_launch_activates() {
        let mut c = RfcControl::new(false);
        c.tick(true, true, &WarpEvents { launch: 0b1010, ..Default::default() });
        assert_eq!(c.offer().act, Some(1));
        // Warp 3 finishes before its activation: nothing to release.
        c.tick(true, true, &WarpEvents { exit: 0b1000, ..Default::default() });
        assert_eq!(c.offer(), RfcOffer::default());
        c.tick(true, true, &WarpEvents { exit: 0b10, ..Default::default() });
        assert_eq!(c.offer(), RfcOffer { rel_mask: 0b10, ..Default::default() });
    }

    #[test]
    fn a_warp_launched_into_a_slot_as_it_finishes_is_activated() {
        let mut c = RfcControl::new(false);
        c.tick(true, true, &WarpEvents { launch: 0b1, ..Default::default() });
        c.tick(true, true, &WarpEvents::default());
        c.tick(true, true, &WarpEvents { launch: 0b1, exit: 0b1, ..Default::default() });
        assert_eq!(c.offer(), RfcOffer { act: Some(0), flush: None, rel_mask: 0b1 });
    }

    #[test]
    fn finished_warps_are_freed_one_per_edge() {
        let mut f = FreeControl::default();
        f.tick(0b101);
        assert_eq!((f.offer(), f.freeing()), (Some(0), 0b101));
        f.tick(0);
        assert_eq!((f.offer(), f.freeing()), (Some(2), 0b100));
        f.tick(0);
        assert_eq!(f.offer(), None);
    }
}
