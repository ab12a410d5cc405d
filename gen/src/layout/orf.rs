//! The operand register file and last result file's shape (seed 001 ch. 6, SPEC §3): per warp,
//! `entries` ORF entries and 0, 1 (unified) or 3 (split, one per operand slot) LRF entries, each
//! one warp register. The compiler's allocation names an entry per operand; the generator and
//! the golden model both read this.

use crate::layout::geometry::index_bits;
use crate::schema::{LrfKind, Orf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrfLayout {
    /// ORF entries per warp.
    pub entries: u32,
    pub lrf: LrfKind,
}

/// How an operand's level is encoded on the ports (2 bits): the MRF, the ORF or the LRF.
pub const LEVEL_MRF: u64 = 0;
pub const LEVEL_ORF: u64 = 1;
pub const LEVEL_LRF: u64 = 2;

impl OrfLayout {
    pub fn new(orf: &Orf) -> Self {
        OrfLayout { entries: orf.entries, lrf: orf.lrf }
    }

    /// LRF entries per warp.
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
}
