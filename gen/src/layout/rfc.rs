//! The register file cache's shape (seed 000 §3, SPEC §2): one slot per warp the scheduler can
//! have active — the two-level scheduler's active set, or every warp slot under LRR and GTO —
//! of `entries` warp registers each. The generator and the golden model both read it.

use crate::layout::geometry::{Geometry, index_bits};
use crate::schema::{Replacement, Rfc, Scheduler, SchedulerPolicy};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RfcLayout {
    /// RFC slots: warps that can hold entries at once.
    pub slots: u32,
    /// Entries per slot (per warp).
    pub entries: u32,
    pub replacement: Replacement,
    /// Last-read bits mark entries dead, and dead entries are never written back.
    pub liveness: bool,
}

/// Warps that can hold per-warp storage at once: the two-level scheduler's active set, or every
/// warp slot under LRR and GTO. The register file cache's slots and the ORF/LRF's both.
pub fn warp_slots(g: &Geometry, scheduler: &Scheduler) -> u32 {
    if scheduler.policy == SchedulerPolicy::TwoLevel { scheduler.active_warps } else { g.warps }
}

impl RfcLayout {
    pub fn new(g: &Geometry, rfc: &Rfc, scheduler: &Scheduler) -> Self {
        let slots = warp_slots(g, scheduler);
        RfcLayout { slots, entries: rfc.entries, replacement: rfc.replacement, liveness: rfc.liveness }
    }

    pub fn slot_bits(&self) -> u32 {
        index_bits(self.slots)
    }

    pub fn entry_bits(&self) -> u32 {
        index_bits(self.entries)
    }
}
