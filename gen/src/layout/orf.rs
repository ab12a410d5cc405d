//! The operand register file and last result file's shape (seed 001 ch. 6, SPEC §3): per warp
//! slot, `entries` ORF entries and 0, 1 (unified) or 3 (split, one per operand slot) LRF entries,
//! each one warp register. There is a slot per warp the scheduler can have active, as for the
//! register file cache ([`warp_slots`]): under the two-level scheduler a warp takes a slot when
//! it issues without one and loses it when it leaves the active set; under LRR and GTO slot `w`
//! is warp `w`'s. The compiler's allocation names an entry per operand; the generator and the
//! golden model both read this.

use crate::layout::geometry::{Geometry, index_bits};
use crate::layout::rfc::warp_slots;
use crate::schema::{LrfKind, Orf, Scheduler, SchedulerPolicy};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrfLayout {
    /// ORF entries per slot.
    pub entries: u32,
    pub lrf: LrfKind,
    /// Warp slots holding entries.
    pub slots: u32,
    /// Warps take and release slots (the two-level scheduler); otherwise slot `w` is warp `w`.
    pub mapped: bool,
}

/// How an operand's level is encoded on the ports (2 bits): the MRF, the ORF or the LRF.
pub const LEVEL_MRF: u64 = 0;
pub const LEVEL_ORF: u64 = 1;
pub const LEVEL_LRF: u64 = 2;

impl OrfLayout {
    pub fn new(g: &Geometry, orf: &Orf, scheduler: &Scheduler) -> Self {
        let mapped = scheduler.policy == SchedulerPolicy::TwoLevel;
        OrfLayout { entries: orf.entries, lrf: orf.lrf, slots: warp_slots(g, scheduler), mapped }
    }

    /// LRF entries per slot.
    pub fn lrf_entries(&self) -> u32 {
        match self.lrf {
            LrfKind::None => 0,
            LrfKind::Unified => 1,
            LrfKind::Split => 3,
        }
    }

    /// Width of an entry index: the larger of the ORF's and the LRF's.
    pub fn entry_bits(&self) -> u32 {
        index_bits(self.entries.max(self.lrf_entries()))
    }

    /// Width of a slot index.
    pub fn slot_bits(&self) -> u32 {
        index_bits(self.slots)
    }
}
