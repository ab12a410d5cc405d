//! The rename stage's shape (seed 003 §4.1, SPEC §5): physical warp registers are the MRF's
//! rows, `p` in bank group `p mod G` at row `p / G`; rows below `rename.cmos_rows` are CMOS, the
//! rest TFET, so the CMOS registers are `0 .. C` and the TFET ones `C .. P`. The generator and
//! the golden model both read it.

use crate::layout::geometry::{Geometry, index_bits};
use crate::schema::{Rename, Timing};

/// MEM_RA counters are 11 bits (seed 003 §4.1.2.3: memory accesses up to 2,048 cycles).
pub const COUNTER_BITS: u32 = 11;
pub const COUNTER_MAX: u32 = (1 << COUNTER_BITS) - 1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenameLayout {
    pub warps: u32,
    /// Architectural registers per thread.
    pub registers: u32,
    /// Physical warp registers (`G × rows`) and the CMOS ones among them.
    pub phys: u32,
    pub cmos: u32,
    pub thr_acc: u32,
    /// `ref_acc` = 2^`ref_shift`.
    pub ref_shift: u32,
    /// `timing.rename_registered_prediction`: Eq. (1)'s prediction is written two edges after
    /// the completion it follows.
    pub registered_prediction: bool,
}

impl RenameLayout {
    pub fn new(g: &Geometry, r: &Rename, t: &Timing) -> Self {
        RenameLayout {
            warps: g.warps,
            registers: g.registers,
            phys: g.physical_registers(),
            // Rows past the MRF's (allowed while renaming is off): every register is CMOS.
            cmos: g.groups * r.cmos_rows.min(g.entries),
            thr_acc: r.thr_acc,
            ref_shift: r.ref_acc.trailing_zeros(),
            registered_prediction: t.rename_registered_prediction,
        }
    }

    pub fn tfet(&self) -> u32 {
        self.phys - self.cmos
    }

    pub fn phys_bits(&self) -> u32 {
        index_bits(self.phys)
    }

    /// Width of a free-register count (0 ..= phys).
    pub fn count_bits(&self) -> u32 {
        index_bits(self.phys + 1)
    }

    /// With both kinds, the table keeps each entry's kind beside its id (written as it is
    /// handed out), so a kept destination's kind is read rather than compared.
    pub fn keeps_kind(&self) -> bool {
        self.cmos > 0 && self.tfet() > 0
    }

    /// Physical register `p` is a TFET one.
    pub fn is_tfet(&self, p: u32) -> bool {
        p >= self.cmos
    }

    /// Eq. (1): the stall predicted from the previous access's latency `prev` and the SM's
    /// sampled latency `sample`.
    pub fn predicted_stall(&self, prev: u32, sample: u32) -> u32 {
        if prev <= self.thr_acc {
            0
        } else if sample < 1 << self.ref_shift {
            (sample * (prev - self.thr_acc)) >> self.ref_shift
        } else {
            prev - self.thr_acc
        }
    }
}
