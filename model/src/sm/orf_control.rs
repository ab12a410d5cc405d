//! What the SM tells the ORF/LRF (seed 001): the compiler's placement of every instruction's
//! operands, put on the MRF's issue and write-back ports, and the strands: a warp whose strand
//! started at a control instruction marks the next instruction it sends to the MRF as a strand
//! start, so the ORF/LRF forgets what it held for the warp.

use super::stats::OrfTraffic;
use crate::blocks::mrf::{MrfIn, OrfStats};
use crate::blocks::sm_rf::NextRead;
use crate::kernel::Kernel;
use crate::kernel::alloc::{self, Costs, Level, Placement};
use rfgen_gen::Checked;
use rfgen_gen::layout::orf::{LEVEL_LRF, LEVEL_MRF, LEVEL_ORF};

#[derive(Clone, Debug)]
pub struct OrfControl {
    /// Per instruction, where its sources are read from, filled into and its result written.
    place: Vec<Placement>,
    /// ORF entries per thread.
    entries: u32,
    /// Warps whose next instruction to the MRF starts a strand.
    strand_due: u64,
}

impl OrfControl {
    /// The compiler's allocation of `k` for the ORF/LRF of `c`; `None` without one.
    pub fn new(c: &Checked, k: &Kernel) -> Option<OrfControl> {
        let o = c.orf.as_ref()?;
        let costs = Costs::new(&c.config.energy, o.entries);
        Some(OrfControl { place: alloc::allocate(k, o.entries, o.lrf, &costs), entries: o.entries, strand_due: 0 })
    }

    /// Warp `w` issued a control instruction that ends its strand when `strand_start`.
    pub fn control(&mut self, w: usize, strand_start: bool) {
        self.strand_due |= (strand_start as u64) << w;
    }

    /// How instruction `pc` of warp `w` reads its sources: each source's level and entry (or
    /// the entry an MRF read fills), and whether it starts a strand.
    pub fn next_read(&self, w: usize, pc: usize, strand_start: bool, read: &mut NextRead) {
        let p = &self.place[pc];
        for k in 0..3 {
            let (level, entry) = encode(p.src[k]);
            let (fill, fill_entry) = encode(p.fill[k].unwrap_or_default());
            read.src_level[k] = level;
            read.src_fill[k] = fill;
            read.src_entry[k] = if level != 0 { entry } else { fill_entry };
        }
        read.strand = self.strand_due >> w & 1 == 1 || strand_start;
    }

    /// Warp `w` issued an instruction that needs a collector: a strand it was due to start has
    /// started.
    pub fn issued(&mut self, w: usize) {
        self.strand_due &= !(1 << w);
    }

    /// The write-back ports for the result of instruction `pc`: whether it reaches the MRF, and
    /// the upper level and entry it is written to.
    pub fn drive_write_back(&self, pc: usize, inp: &mut MrfIn) {
        let p = &self.place[pc];
        inp.wb_mrf = p.dst_mrf;
        (inp.wb_upper, inp.wb_entry) = encode(p.dst_upper.unwrap_or_default());
    }

    /// The traffic of the upper levels, for the energy model.
    pub fn traffic(&self, lanes: u32, o: &OrfStats) -> OrfTraffic {
        OrfTraffic {
            entries: self.entries,
            lanes,
            orf_reads: o.orf_reads,
            lrf_reads: o.lrf_reads,
            orf_writes: o.orf_writes,
            lrf_writes: o.lrf_writes,
            fills: o.fills,
            mrf_writes_skipped: o.mrf_writes_skipped,
            fill_waits: o.fill_waits,
        }
    }
}

/// A level as the MRF's ports encode it: (level, entry).
fn encode(l: Level) -> (u8, u32) {
    match l {
        Level::Mrf => (LEVEL_MRF as u8, 0),
        Level::Orf(e) => (LEVEL_ORF as u8, e.into()),
        Level::Lrf(e) => (LEVEL_LRF as u8, e.into()),
    }
}
