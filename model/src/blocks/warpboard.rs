//! The warpboard (generated `<prefix>_warpboard`; seed 002 §4): what each warp's instructions
//! waiting in operand collectors hold, so that the issue stage can stall a write-after-read
//! hazard. The shape (which state, counter widths) is `rfgen_gen::blocks::warpboard::Shape`.
//!
//! State and outputs, per warp, by `warpboard.policy`:
//! - `release_on_commit`, `release_on_read`: `busy`, one bit. At each edge the issuing warp's
//!   bit is set (`iss_valid`), then the released warps' bits are cleared: release-on-commit
//!   clears the warps in `commit` (their instruction committed: its write-back, or its dispatch
//!   when it writes no register), release-on-read the leaving warp (`lv_valid`: the instruction
//!   left its collector, its reads done). Both in one edge: cleared.
//! - `bloom1`, `bloom2`, `bloom_unbounded` (bloomN): `bins`, one counter per bank group, a
//!   register's bin being its bank group under the register-to-bank mapping (SPEC §0) of
//!   architectural registers, renamed or not (the physical register is unknown at issue). At each
//!   edge a bin adds the issued instruction's valid sources that fall in it, capped at the
//!   maximum (1: a 1-bit mark; 2 bits: 3; bloomN: `3 × mrf.collectors`, never reached), then
//!   takes off the leaving instruction's, floored at 0.
//!
//! The issue stage's check ([`Warpboard::stalls`]): release-on-commit/read stall every
//! instruction of a busy warp; bloom1 stalls an instruction that reads or writes a register of a
//! marked bin; the counters stall a write to a non-zero bin, and reads that would take a bin past
//! its maximum. `none` has no warpboard.

use crate::block::Block;
use rfgen_gen::Geometry;
use rfgen_gen::blocks::warpboard::Shape;
use rfgen_gen::config::WarPolicy;

/// Bank groups at most (`mrf.banks / sm.clusters` ≤ 32).
pub const MAX_BINS: usize = 32;

/// Source reads per bin of one instruction, and its written register's bin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Touch {
    pub reads: [u8; MAX_BINS],
    pub write: Option<u8>,
}

/// Inputs of one cycle: one field per input port (those of other policies are ignored).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarpboardIn {
    pub iss_valid: bool,
    pub iss_warp: u32,
    pub iss_src_valid: [bool; 3],
    pub iss_src_reg: [u32; 3],
    pub lv_valid: bool,
    pub lv_warp: u32,
    pub lv_src_valid: [bool; 3],
    pub lv_src_reg: [u32; 3],
    /// Bit per warp.
    pub commit: u64,
}

/// Outputs of one cycle: the state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpboardOut<'a> {
    /// Bit per warp (release-on-commit/read).
    pub busy: u64,
    /// Warp `w` bin `b` at `groups * w + b` (bloomboards).
    pub bins: &'a [u8],
}

/// The bins an instruction of warp `w` reading `srcs` and writing `dst` touches.
pub fn touch(g: &Geometry, w: u32, srcs: impl Iterator<Item = u32>, dst: Option<u32>) -> Touch {
    let mut t = Touch::default();
    srcs.for_each(|r| t.reads[g.architectural_group(w, r) as usize] += 1);
    t.write = dst.map(|r| g.architectural_group(w, r) as u8);
    t
}

impl WarpboardOut<'_> {
    /// The issue stage's check on these outputs: warp `w` may not issue an instruction
    /// touching `t`.
    pub fn stalls(&self, shape: &Shape, w: usize, t: &Touch) -> bool {
        let Some(b) = &shape.bloom else { return self.busy >> w & 1 == 1 };
        let groups = shape.groups as usize;
        let bins = &self.bins[w * groups..][..groups];
        if b.max == 1 {
            (0..groups).any(|i| bins[i] > 0 && (t.reads[i] > 0 || t.write == Some(i as u8)))
        } else {
            t.write.is_some_and(|i| bins[i as usize] > 0)
                || (0..groups).any(|i| u32::from(bins[i]) + u32::from(t.reads[i]) > b.max)
        }
    }
}

pub struct Warpboard {
    shape: Shape,
    g: Geometry,
    busy: u64,
    bins: Vec<u8>,
}

impl Warpboard {
    /// None for `none`.
    pub fn new(g: &Geometry, policy: WarPolicy) -> Option<Self> {
        let shape = Shape::new(g, policy)?;
        let bins = vec![0; (g.warps * g.groups) as usize];
        Some(Warpboard { shape, g: g.clone(), busy: 0, bins })
    }

    /// The bins an instruction of warp `w` reads and writes.
    pub fn touch(&self, w: u32, srcs: impl Iterator<Item = u32>, dst: Option<u32>) -> Touch {
        touch(&self.g, w, srcs, dst)
    }

    /// The issue stage's check: warp `w` may not issue an instruction touching `t`.
    pub fn stalls(&self, w: usize, t: &Touch) -> bool {
        self.outputs().stalls(&self.shape, w, t)
    }

    /// Reads of an event's valid sources per bin.
    fn count(&self, warp: u32, valid: &[bool; 3], regs: &[u32; 3]) -> [u32; MAX_BINS] {
        let mut n = [0; MAX_BINS];
        (0..3).filter(|&i| valid[i]).for_each(|i| n[self.g.architectural_group(warp, regs[i]) as usize] += 1);
        n
    }
}

/// What the SM needs of its warpboard: the ports, and the shape its check reads them with.
/// Implemented by the model and by anything standing in for it (the cosim's lockstep adapter).
pub trait WarpboardBlock: 'static + Block<In = WarpboardIn> + for<'a> Block<Out<'a> = WarpboardOut<'a>> {
    fn shape(&self) -> &Shape;
}

impl WarpboardBlock for Warpboard {
    fn shape(&self) -> &Shape {
        &self.shape
    }
}

impl Block for Warpboard {
    type In = WarpboardIn;
    type Out<'a> = WarpboardOut<'a>;

    fn reset(&mut self) {
        self.busy = 0;
        self.bins.fill(0);
    }

    fn outputs(&self) -> WarpboardOut<'_> {
        WarpboardOut { busy: self.busy, bins: &self.bins }
    }

    fn tick(&mut self, i: &WarpboardIn) {
        let warps = self.g.warps;
        let bit = |valid: bool, w: u32| if valid && w < warps { 1u64 << w } else { 0 };
        match self.shape.bloom {
            None => {
                let released = if self.shape.releases_on_commit { i.commit } else { bit(i.lv_valid, i.lv_warp) };
                self.busy = (self.busy | bit(i.iss_valid, i.iss_warp)) & !released & low_bits(warps);
            }
            Some(b) => {
                let groups = self.g.groups as usize;
                let up = self.count(i.iss_warp, &i.iss_src_valid, &i.iss_src_reg);
                let down = self.count(i.lv_warp, &i.lv_src_valid, &i.lv_src_reg);
                for w in 0..warps {
                    let (issued, left) = (bit(i.iss_valid, i.iss_warp) != 0, bit(i.lv_valid, i.lv_warp) != 0);
                    for g in 0..groups {
                        let at = w as usize * groups + g;
                        let mut v = u32::from(self.bins[at]);
                        if issued && i.iss_warp == w {
                            v = (v + up[g]).min(b.max);
                        }
                        if left && i.lv_warp == w {
                            v = v.saturating_sub(down[g]);
                        }
                        self.bins[at] = v as u8;
                    }
                }
            }
        }
    }

    fn at_rest(&self, i: &WarpboardIn) -> bool {
        !i.iss_valid && !i.lv_valid && i.commit == 0
    }
}

fn low_bits(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
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

    /// Warp `w` issues (or, with `leave`, takes off) reads of registers `regs`.
    fn event(w: u32, regs: &[u32], leave: bool) -> WarpboardIn {
        let (mut valid, mut reg) = ([false; 3], [0; 3]);
        regs.iter().enumerate().for_each(|(i, &r)| (valid[i], reg[i]) = (true, r));
        if leave {
            WarpboardIn { lv_valid: true, lv_warp: w, lv_src_valid: valid, lv_src_reg: reg, ..WarpboardIn::default() }
        } else {
            WarpboardIn {
                iss_valid: true,
                iss_warp: w,
                iss_src_valid: valid,
                iss_src_reg: reg,
                ..WarpboardIn::default()
            }
        }
    }

    #[test]
    fn release_on_read_holds_the_warp_until_its_instruction_leaves() {
        let mut wb = Warpboard::new(&geometry(), WarPolicy::ReleaseOnRead).unwrap();
        assert!(!wb.stalls(3, &reads(&[(0, 1)])));
        wb.tick(&event(3, &[0], false));
        assert!(wb.stalls(3, &Touch::default()), "anything of the warp stalls");
        assert!(!wb.stalls(2, &Touch::default()), "other warps do not");
        wb.tick(&WarpboardIn { commit: 1 << 3, ..WarpboardIn::default() });
        assert!(wb.stalls(3, &Touch::default()), "commit does not release it");
        wb.tick(&event(3, &[0], true));
        assert!(!wb.stalls(3, &Touch::default()));
    }

    #[test]
    fn release_on_commit_waits_for_the_commit() {
        let mut wb = Warpboard::new(&geometry(), WarPolicy::ReleaseOnCommit).unwrap();
        wb.tick(&event(0, &[], false));
        wb.tick(&event(0, &[], true));
        assert!(wb.stalls(0, &Touch::default()));
        wb.tick(&WarpboardIn { commit: 1, ..WarpboardIn::default() });
        assert!(!wb.stalls(0, &Touch::default()));
    }

    #[test]
    fn bins_follow_the_register_to_bank_mapping() {
        let g = geometry();
        let mut wb = Warpboard::new(&g, WarPolicy::Bloom2).unwrap();
        // Warp 1: register r in bank group (r + 1) mod 4.
        let t = wb.touch(1, [0, 3, 7].into_iter(), Some(2));
        assert_eq!(&t.reads[..4], &[2, 1, 0, 0]);
        assert_eq!(t.write, Some(3));
        wb.tick(&event(1, &[0, 3, 7], false));
        assert_eq!(&wb.outputs().bins[4..8], &[2, 1, 0, 0]);
    }

    #[test]
    fn one_bit_bins_stall_every_access_and_counters_only_writes_or_overflow() {
        let g = geometry();
        let write_bin0 = Touch { write: Some(0), ..Touch::default() };
        // Warp 0: register r in bank group r mod 4.
        let mut one = Warpboard::new(&g, WarPolicy::Bloom1).unwrap();
        one.tick(&event(0, &[0], false));
        assert!(one.stalls(0, &reads(&[(0, 1)])), "a second read of a marked bin stalls");
        assert!(one.stalls(0, &write_bin0));
        assert!(!one.stalls(0, &reads(&[(1, 3)])));
        one.tick(&event(0, &[0], true));
        assert!(!one.stalls(0, &write_bin0));

        let mut two = Warpboard::new(&g, WarPolicy::Bloom2).unwrap();
        two.tick(&event(0, &[0, 4], false));
        assert!(!two.stalls(0, &reads(&[(0, 1)])), "3 pending reads fit 2 bits");
        assert!(two.stalls(0, &reads(&[(0, 2)])), "4 would saturate");
        assert!(two.stalls(0, &write_bin0));
        let mut n = Warpboard::new(&g, WarPolicy::BloomUnbounded).unwrap();
        assert_eq!(n.shape().bloom.unwrap().max, 6, "two collectors' three sources");
        n.tick(&event(0, &[0, 4, 8], false));
        assert!(!n.stalls(0, &reads(&[(0, 3)])), "two collectors' reads never saturate bloomN");
        n.tick(&event(0, &[0, 4, 8], false));
        n.tick(&event(0, &[0, 4, 8], true));
        n.tick(&event(0, &[0, 4, 8], true));
        assert!(!n.stalls(0, &write_bin0), "every read left: the bin is empty");
    }
}
