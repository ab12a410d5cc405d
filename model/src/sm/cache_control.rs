//! What the SM tells the register file cache (SPEC §2): a warp becomes active (activation, one
//! per cycle, taken when a slot is free), a warp is descheduled (its slot is flushed, one flush
//! at a time), a warp has finished (its slot is released at once, without write-backs). Each
//! event waits in order for its port; a warp whose flush is queued or under way is not
//! activated again until the flush has written its entries back.

use crate::blocks::mrf::MrfIn;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct CacheControl {
    /// Warps owning an RFC slot, as far as the SM knows (activation taken, not yet freed).
    owns: u64,
    activating: VecDeque<usize>,
    /// Warps with a flush queued or under way.
    flushing: u64,
    flush_queue: VecDeque<usize>,
    /// The flush the RFC took and is still writing back.
    flush_sent: Option<usize>,
    /// Warps finished since the last cycle.
    releasing: u64,
}

impl CacheControl {
    /// Warp `w` has become active.
    pub fn activate(&mut self, w: usize) {
        self.activating.push_back(w);
    }

    /// Warp `w` was descheduled: its slot, if it has one, is flushed.
    pub fn deschedule(&mut self, w: usize) {
        self.activating.retain(|&x| x != w);
        if self.owns >> w & 1 == 1 {
            self.flush_queue.push_back(w);
            self.flushing |= 1 << w;
        }
    }

    /// Warp `w` has finished.
    pub fn release(&mut self, w: usize) {
        self.activating.retain(|&x| x != w);
        if self.owns >> w & 1 == 1 {
            self.releasing |= 1 << w;
            self.owns &= !(1 << w);
        }
    }

    /// Warps that may not be activated now: their entries are still being written back.
    pub fn flushing(&self) -> u64 {
        self.flushing
    }

    /// Offers this cycle's events on the RFC's ports, given whether it takes an activation and
    /// a flush request now (`act_ready`, `flush_ready`).
    pub fn drive(&mut self, act_ready: bool, flush_ready: bool, inp: &mut MrfIn) {
        // One flush at a time: once the RFC is ready again, the one it took is done.
        if let (Some(w), true) = (self.flush_sent, flush_ready) {
            self.flush_sent = None;
            self.owns &= !(1 << w);
            self.flushing &= !(1 << w);
        }
        inp.flush_valid = false;
        if let Some(&w) = self.flush_queue.front() {
            inp.flush_valid = true;
            inp.flush_warp = w as u32;
            if flush_ready {
                self.flush_sent = Some(w);
                self.flush_queue.pop_front();
            }
        }
        inp.act_valid = false;
        if let Some(&w) = self.activating.front() {
            inp.act_valid = true;
            inp.act_warp = w as u32;
            if act_ready {
                self.owns |= 1 << w;
                self.activating.pop_front();
            }
        }
        inp.rel_mask = std::mem::take(&mut self.releasing);
    }
}
