//! WAR-hazard protection at issue (SPEC §1, seed 002 §4): which instructions a warp may not
//! issue while older ones of the same warp still wait in an operand collector to read.
//!
//! Per warp, by `warpboard.policy`:
//! - `none`: nothing (GPGPU-Sim 3.2.2); the SM detects and counts the corrupted operands.
//! - `release_on_commit`: one bit, set when an instruction goes to a collector, cleared when it
//!   commits (its write-back, or its dispatch when it writes nothing); the warp issues nothing
//!   while set.
//! - `release_on_read`: one bit, set likewise, cleared when the instruction leaves its
//!   collector (its reads are done): one instruction per warp collects operands at a time.
//! - `bloom1`, `bloom2`, `bloom_unbounded` (bloomN): one bin per bank group, the bin of a
//!   register being its bank group under the register-to-bank mapping (SPEC §0). A bin counts
//!   the source reads of the warp's instructions in collectors (each source operand once). A
//!   1-bit bin is a mark: an instruction touching (reading or writing) a marked bin stalls. A
//!   counter stalls a write to a non-zero bin, and a read only when its bin would pass the
//!   counter's maximum (2 bits: 3). bloomN's counters count to `3 × collectors`, the most
//!   reads that can wait at once, so they never saturate.
//!
//! Timing, as hardware: what an instruction's issue, leave and commit change is seen by issue
//! from the next cycle (the SM applies leaves and commits at the end of the cycle).

use rfgen_gen::Geometry;
use rfgen_gen::config::WarPolicy;

/// Source-read counts per bin of one instruction, and its written register's bin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Touch {
    /// Reads per bin (at most 3 in all).
    pub reads: [u8; MAX_BINS],
    pub write: Option<u8>,
}

/// Bank groups at most (`mrf.banks / sm.clusters` ≤ 32).
pub const MAX_BINS: usize = 32;

pub struct Warpboard {
    policy: WarPolicy,
    /// Release-on-commit and release-on-read: warps with an instruction outstanding.
    busy: u64,
    /// Bloomboards: per warp, per bin.
    bins: Vec<[u8; MAX_BINS]>,
    /// A bin's largest value (1 for a mark).
    max: u8,
    groups: u32,
}

impl Warpboard {
    pub fn new(policy: WarPolicy, g: &Geometry) -> Self {
        let max = match policy {
            WarPolicy::Bloom1 => 1,
            WarPolicy::Bloom2 => 3,
            _ => Self::unbounded_max(g.collectors),
        };
        Warpboard { policy, busy: 0, bins: vec![[0; MAX_BINS]; g.warps as usize], max, groups: g.groups }
    }

    /// bloomN's counter maximum: every collector's three sources in one bin.
    pub fn unbounded_max(collectors: u32) -> u8 {
        (3 * collectors).min(u8::MAX as u32) as u8
    }

    pub fn policy(&self) -> WarPolicy {
        self.policy
    }

    /// The bins an instruction of warp `w` reads and writes.
    pub fn touch(&self, g: &Geometry, w: u32, srcs: impl Iterator<Item = u32>, dst: Option<u32>) -> Touch {
        let mut t = Touch::default();
        if self.is_bloom() {
            srcs.for_each(|r| t.reads[g.map(w, r).group as usize] += 1);
            t.write = dst.map(|r| g.map(w, r).group as u8);
        }
        t
    }

    fn is_bloom(&self) -> bool {
        matches!(self.policy, WarPolicy::Bloom1 | WarPolicy::Bloom2 | WarPolicy::BloomUnbounded)
    }

    /// Warp `w` may not issue an instruction touching `t`.
    pub fn stalls(&self, w: usize, t: &Touch) -> bool {
        match self.policy {
            WarPolicy::None => false,
            WarPolicy::ReleaseOnCommit | WarPolicy::ReleaseOnRead => self.busy >> w & 1 == 1,
            WarPolicy::Bloom1 => {
                let bins = &self.bins[w];
                let touched = |b: usize| t.reads[b] > 0 || t.write == Some(b as u8);
                (0..self.groups as usize).any(|b| bins[b] > 0 && touched(b))
            }
            WarPolicy::Bloom2 | WarPolicy::BloomUnbounded => {
                let bins = &self.bins[w];
                t.write.is_some_and(|b| bins[b as usize] > 0)
                    || (0..self.groups as usize).any(|b| bins[b] + t.reads[b] > self.max)
            }
        }
    }

    /// An instruction of warp `w` touching `t` went to an operand collector.
    pub fn issue(&mut self, w: usize, t: &Touch) {
        match self.policy {
            WarPolicy::None => {}
            WarPolicy::ReleaseOnCommit | WarPolicy::ReleaseOnRead => self.busy |= 1 << w,
            _ => {
                for b in 0..self.groups as usize {
                    // A 1-bit bin is only marked: no second reader is let in while it is.
                    self.bins[w][b] = (self.bins[w][b] + t.reads[b]).min(self.max);
                }
            }
        }
    }

    /// It left its collector: its reads are done.
    pub fn leave(&mut self, w: usize, t: &Touch) {
        match self.policy {
            WarPolicy::ReleaseOnRead => self.busy &= !(1 << w),
            WarPolicy::None | WarPolicy::ReleaseOnCommit => {}
            _ => {
                for b in 0..self.groups as usize {
                    self.bins[w][b] = self.bins[w][b].saturating_sub(t.reads[b]);
                }
            }
        }
    }

    /// It committed.
    pub fn commit(&mut self, w: usize) {
        if self.policy == WarPolicy::ReleaseOnCommit {
            self.busy &= !(1 << w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry() -> Geometry {
        rfgen_gen::config::parse("[mrf]\ncollectors = 2").unwrap().geometry
    }

    fn reads(bins: &[(usize, u8)]) -> Touch {
        let mut t = Touch::default();
        bins.iter().for_each(|&(b, n)| t.reads[b] = n);
        t
    }

    #[test]
    fn release_on_read_holds_the_warp_until_its_instruction_leaves() {
        let mut wb = Warpboard::new(WarPolicy::ReleaseOnRead, &geometry());
        let t = reads(&[(0, 1)]);
        assert!(!wb.stalls(3, &t));
        wb.issue(3, &t);
        assert!(wb.stalls(3, &Touch::default()), "anything of the warp stalls");
        assert!(!wb.stalls(2, &t), "other warps do not");
        wb.commit(3);
        assert!(wb.stalls(3, &t), "commit does not release it");
        wb.leave(3, &t);
        assert!(!wb.stalls(3, &t));
    }

    #[test]
    fn release_on_commit_waits_for_the_commit() {
        let mut wb = Warpboard::new(WarPolicy::ReleaseOnCommit, &geometry());
        wb.issue(0, &Touch::default());
        wb.leave(0, &Touch::default());
        assert!(wb.stalls(0, &Touch::default()));
        wb.commit(0);
        assert!(!wb.stalls(0, &Touch::default()));
    }

    #[test]
    fn bloom_bins_follow_the_register_to_bank_mapping() {
        let g = geometry();
        let wb = Warpboard::new(WarPolicy::Bloom2, &g);
        // Warp 1: register r in bank group (r + 1) mod 4.
        let t = wb.touch(&g, 1, [0, 3, 7].into_iter(), Some(2));
        assert_eq!(&t.reads[..4], &[2, 1, 0, 0]);
        assert_eq!(t.write, Some(3));
    }

    #[test]
    fn one_bit_bins_stall_every_access_and_counters_only_writes_or_overflow() {
        let g = geometry();
        let write_bin0 = Touch { write: Some(0), ..Touch::default() };
        let mut one = Warpboard::new(WarPolicy::Bloom1, &g);
        one.issue(0, &reads(&[(0, 1)]));
        assert!(one.stalls(0, &reads(&[(0, 1)])), "a second read of a marked bin stalls");
        assert!(one.stalls(0, &write_bin0));
        assert!(!one.stalls(0, &reads(&[(1, 3)])));
        one.leave(0, &reads(&[(0, 1)]));
        assert!(!one.stalls(0, &write_bin0));

        let mut two = Warpboard::new(WarPolicy::Bloom2, &g);
        two.issue(0, &reads(&[(0, 2)]));
        assert!(!two.stalls(0, &reads(&[(0, 1)])), "3 pending reads fit 2 bits");
        assert!(two.stalls(0, &reads(&[(0, 2)])), "4 would saturate");
        assert!(two.stalls(0, &write_bin0));
        let mut n = Warpboard::new(WarPolicy::BloomUnbounded, &g);
        assert_eq!(Warpboard::unbounded_max(2), 6);
        n.issue(0, &reads(&[(0, 3)]));
        assert!(!n.stalls(0, &reads(&[(0, 3)])), "two collectors' reads never saturate bloomN");
        n.issue(0, &reads(&[(0, 3)]));
        n.leave(0, &reads(&[(0, 3)]));
        n.leave(0, &reads(&[(0, 3)]));
        assert!(!n.stalls(0, &write_bin0), "every read left: the bin is empty");
    }
}
