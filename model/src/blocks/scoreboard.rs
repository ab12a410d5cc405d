//! The scoreboard (generated `<prefix>_scoreboard`; SPEC §1): per warp, the registers and
//! predicates with a write pending and the registers awaiting a long-latency result.
//!
//! At each edge, from the inputs of the cycle: a register write-back that commits (`clr_*`)
//! and the predicate results completing (`clr_preds`) are released; then the destinations of
//! the instruction going to a collector (`set_*`) become pending, its register also
//! long-pending with `set_long`. A release and a reservation of the same register never meet
//! under the issue protocol (a writer of a pending register stalls); should they, the
//! reservation wins. The issue stage's check ([`ScoreboardOut::conflicts`]): an instruction
//! stalls while a register or predicate it reads or writes is pending.

use crate::block::Block;
pub use crate::regset::RegSet;
use rfgen_gen::Geometry;

/// Inputs of one cycle: one field per input port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScoreboardIn {
    pub set_valid: bool,
    pub set_warp: u32,
    pub set_reg_valid: bool,
    pub set_reg: u32,
    pub set_long: bool,
    pub set_pred_valid: bool,
    pub set_pred: u32,
    pub clr_valid: bool,
    pub clr_warp: u32,
    pub clr_reg: u32,
    /// Per warp, the predicates completing (bit per predicate).
    pub clr_preds: Vec<u8>,
    /// Not a port: the warps whose `clr_preds` may be nonzero (all of them after
    /// [`ScoreboardIn::new`]); a driver that does not track them leaves every bit set.
    pub clr_pred_warps: u64,
}

impl ScoreboardIn {
    pub fn new(g: &Geometry) -> Self {
        ScoreboardIn { clr_preds: vec![0; g.warps as usize], clr_pred_warps: u64::MAX, ..ScoreboardIn::default() }
    }

    /// Back to an idle cycle (register ids are left as they are: they count only with their
    /// valid bits).
    pub fn clear(&mut self) {
        (self.set_valid, self.set_reg_valid, self.set_long, self.set_pred_valid) = (false, false, false, false);
        self.clr_valid = false;
        self.clr_preds.fill(0);
    }
}

/// Outputs of one cycle: the state, per warp.
#[derive(Clone, Copy, Debug)]
pub struct ScoreboardOut<'a> {
    pub pending: &'a [RegSet],
    pub long_pending: &'a [RegSet],
    pub pending_preds: &'a [u8],
}

impl ScoreboardOut<'_> {
    /// The issue stage's check: an instruction of warp `w` touching `regs` and `preds` stalls.
    pub fn conflicts(&self, w: usize, regs: &RegSet, preds: u8) -> bool {
        regs.meets(&self.pending[w]) || preds & self.pending_preds[w] != 0
    }
}

pub struct Scoreboard {
    g: Geometry,
    pending: Vec<RegSet>,
    long_pending: Vec<RegSet>,
    pending_preds: Vec<u8>,
}

impl Scoreboard {
    pub fn new(g: &Geometry) -> Self {
        let n = g.warps as usize;
        let none = vec![RegSet::default(); n];
        Scoreboard { g: g.clone(), pending: none.clone(), long_pending: none, pending_preds: vec![0; n] }
    }

    /// The geometry its ports follow.
    pub fn geometry(&self) -> &Geometry {
        &self.g
    }
}

/// What the SM needs of its scoreboard: its ports. Implemented by the model and by anything
/// standing in for it (the cosim's lockstep adapter).
pub trait ScoreboardBlock: 'static + Block<In = ScoreboardIn> + for<'a> Block<Out<'a> = ScoreboardOut<'a>> {}

impl ScoreboardBlock for Scoreboard {}

impl Block for Scoreboard {
    type In = ScoreboardIn;
    type Out<'a> = ScoreboardOut<'a>;

    fn reset(&mut self) {
        self.pending.fill(RegSet::default());
        self.long_pending.fill(RegSet::default());
        self.pending_preds.fill(0);
    }

    fn outputs(&self) -> ScoreboardOut<'_> {
        ScoreboardOut { pending: &self.pending, long_pending: &self.long_pending, pending_preds: &self.pending_preds }
    }

    #[inline(always)]
    fn tick(&mut self, i: &ScoreboardIn) {
        let warps = self.pending.len();
        if i.clr_valid && (i.clr_warp as usize) < warps {
            self.pending[i.clr_warp as usize].remove(i.clr_reg);
            self.long_pending[i.clr_warp as usize].remove(i.clr_reg);
        }
        // Only the warps that may release a predicate (most edges none).
        let mut released = i.clr_pred_warps;
        while released != 0 {
            let w = released.trailing_zeros() as usize;
            released &= released - 1;
            if let (Some(p), Some(&c)) = (self.pending_preds.get_mut(w), i.clr_preds.get(w)) {
                *p &= !c;
            }
        }
        let w = i.set_warp as usize;
        if i.set_valid && w < warps {
            if i.set_reg_valid {
                self.pending[w].insert(i.set_reg);
                if i.set_long {
                    self.long_pending[w].insert(i.set_reg);
                }
            }
            if i.set_pred_valid {
                self.pending_preds[w] |= 1 << i.set_pred;
            }
        }
    }

    fn at_rest(&self, i: &ScoreboardIn) -> bool {
        !i.set_valid && !i.clr_valid && i.clr_preds.iter().all(|&p| p == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_wait_for_their_release_and_win_a_tie() {
        let g = rfgen_gen::config::parse("").unwrap().geometry;
        let mut sb = Scoreboard::new(&g);
        let mut i = ScoreboardIn::new(&g);
        (i.set_valid, i.set_warp, i.set_reg_valid, i.set_reg, i.set_long) = (true, 3, true, 7, true);
        (i.set_pred_valid, i.set_pred) = (true, 2);
        sb.tick(&i);
        let mut r7 = RegSet::default();
        r7.insert(7);
        let out = sb.outputs();
        assert!(out.conflicts(3, &r7, 0) && out.conflicts(3, &RegSet::default(), 1 << 2));
        assert!(!out.conflicts(2, &r7, 1 << 2), "other warps are free");
        assert!(out.long_pending[3].contains(7));
        i.clear();
        (i.clr_valid, i.clr_warp, i.clr_reg) = (true, 3, 7);
        i.clr_preds[3] = 1 << 2;
        (i.set_valid, i.set_warp, i.set_reg_valid, i.set_reg) = (true, 3, true, 7);
        sb.tick(&i);
        let out = sb.outputs();
        assert!(out.pending[3].contains(7) && !out.long_pending[3].contains(7), "the new reservation wins");
        assert_eq!(out.pending_preds[3], 0);
    }
}
