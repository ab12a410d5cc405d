//! The issue stage of one SM scheduler (generated `<prefix>_issue`): the scoreboard, the
//! warpboard of `warpboard.policy` and the warp scheduler, with the check that decides which
//! warps may issue. Each warp's next instruction comes in as a descriptor ([`Next`]).
//!
//! In a cycle, for each warp with a next instruction:
//! - it **conflicts** when a register it reads or writes, or a predicate it reads or writes,
//!   has a write pending (scoreboard);
//! - it **waits long** when it is marked as consuming a long-latency result and one of its
//!   registers awaits one;
//! - it is **WAR-blocked** when the warpboard stalls it (release-on-commit/read: the warp is
//!   busy; bloomboards: its bins, see `Warpboard`);
//! - it is **eligible** when it is not at a barrier, does not conflict, is not WAR-blocked, and
//!   a collector is free or it needs none (branch, exit, barrier complete at issue).
//!
//! Two-level: active warps at a barrier or waiting long leave the active set; warps with a next
//! instruction, not at a barrier, not waiting long and not held by a register-file-cache flush
//! may join it. The scheduler grants one eligible warp ([`Scheduler`]).
//!
//! At the edge the granted instruction, unless it completes at issue, reserves its destinations
//! in the scoreboard and its sources in the warpboard; the releases (`clr_*`, `lv_*`,
//! `commit`) apply as in those blocks.

use crate::block::Block;
use crate::blocks::scheduler::{Decision, Scheduler, SchedulerBlock, SchedulerIn, SchedulerOut};
use crate::blocks::scoreboard::{Scoreboard, ScoreboardBlock, ScoreboardIn, ScoreboardOut};
use crate::blocks::warpboard::{Warpboard, WarpboardBlock, WarpboardIn, WarpboardOut, touch};
use crate::regset::RegSet;
use rfgen_gen::Geometry;
use rfgen_gen::blocks::issue::Shape;
use rfgen_gen::config::SchedulerPolicy;
use std::cell::Cell;

/// A warp's next instruction, as the issue stage sees it: the ports' fields, and the registers
/// it touches (derived once, by [`Next::new`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Next {
    pub valid: bool,
    pub src_valid: [bool; 3],
    pub src_reg: [u32; 3],
    pub dst_valid: bool,
    pub dst: u32,
    /// Predicates read or written (bit per predicate).
    pub preds: u8,
    pub pdst_valid: bool,
    pub pdst: u32,
    /// Completes at issue (branch, exit, barrier): needs no collector, reserves nothing.
    pub control: bool,
    /// Writes a long-latency result (global load, texture).
    pub long: bool,
    /// Marked by the compiler as consuming a long-latency result.
    pub long_consumer: bool,
    regs: RegSet,
}

/// The fields of a next instruction (see [`Next`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct NextFields {
    pub src: [Option<u32>; 3],
    pub dst: Option<u32>,
    pub preds: u8,
    pub pdst: Option<u32>,
    pub control: bool,
    pub long: bool,
    pub long_consumer: bool,
}

impl Next {
    pub fn new(f: &NextFields) -> Next {
        let mut regs = RegSet::default();
        f.src.iter().flatten().chain(&f.dst).for_each(|&r| regs.insert(r));
        Next {
            valid: true,
            src_valid: f.src.map(|s| s.is_some()),
            src_reg: f.src.map(|s| s.unwrap_or(0)),
            dst_valid: f.dst.is_some(),
            dst: f.dst.unwrap_or(0),
            preds: f.preds,
            pdst_valid: f.pdst.is_some(),
            pdst: f.pdst.unwrap_or(0),
            control: f.control,
            long: f.long,
            long_consumer: f.long_consumer,
            regs,
        }
    }
}

/// Inputs of one cycle: one field per input port (those of other policies are ignored).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IssueIn {
    /// Per warp its next instruction (invalid: none).
    pub next: Vec<Next>,
    /// Warps waiting at a barrier.
    pub barrier: u64,
    /// Two-level: warps that may not join the active set (register file cache flush).
    pub hold: u64,
    /// Beside an ORF/LRF or a rename stage: warps that issue nothing this cycle (a fill of
    /// theirs is on its way, or no physical register is free for their destination).
    pub stall: u64,
    /// TRWS: warps the scheduler takes first.
    pub first: u64,
    /// An operand collector is free.
    pub collector_ready: bool,
    /// GTO: warps launched at this edge.
    pub launch: u64,
    /// The granted instruction is its warp's last.
    pub grant_last: bool,
    pub clr_valid: bool,
    pub clr_warp: u32,
    pub clr_reg: u32,
    pub clr_preds: Vec<u8>,
    pub lv_valid: bool,
    pub lv_warp: u32,
    pub lv_src_valid: [bool; 3],
    pub lv_src_reg: [u32; 3],
    pub commit: u64,
    /// Not a port: the warps whose descriptor or barrier bit changed since the last edge (all
    /// of them after [`IssueIn::new`]). The model checks again only these and the warps the
    /// last edge changed; a driver that does not track changes leaves every bit set.
    pub changed: u64,
    /// Not a port: the warps whose `clr_preds` may be nonzero (all of them after
    /// [`IssueIn::new`]). The model looks at the predicate releases only when some bit is set;
    /// a driver that does not track them leaves every bit set.
    pub clr_pred_warps: u64,
}

impl IssueIn {
    pub fn new(g: &Geometry) -> Self {
        let n = g.warps as usize;
        IssueIn {
            next: vec![Next::default(); n],
            clr_preds: vec![0; n],
            changed: u64::MAX,
            clr_pred_warps: u64::MAX,
            ..IssueIn::default()
        }
    }

    /// Makes `self` equal to `src` where `self` was last made equal to the same driver's inputs
    /// at or after the last edge: the descriptors of warps `src.changed` does not name are still
    /// equal, so only the others are copied (copying every warp's twice a cycle was an eighth of
    /// the SM model's time).
    // Inlined, as the other per-cycle steps of the pipeline: a call each cycle cost more.
    #[inline(always)]
    pub fn sync_from(&mut self, src: &IssueIn) {
        let IssueIn {
            next,
            barrier,
            hold,
            stall,
            first,
            collector_ready,
            launch,
            grant_last,
            clr_valid,
            clr_warp,
            clr_reg,
            clr_preds,
            lv_valid,
            lv_warp,
            lv_src_valid,
            lv_src_reg,
            commit,
            changed,
            clr_pred_warps,
        } = src;
        if self.next.len() != next.len() || next.len() > 64 {
            self.next.clone_from(next);
        } else {
            // `changed` may name warps past the last (every bit set: all of them).
            let mut c = if next.len() == 64 { *changed } else { changed & ((1 << next.len()) - 1) };
            while c != 0 {
                let w = c.trailing_zeros() as usize;
                self.next[w] = next[w];
                c &= c - 1;
            }
        }
        sync_preds(self, clr_preds, *clr_pred_warps);
        (self.barrier, self.hold, self.stall, self.first, self.launch) = (*barrier, *hold, *stall, *first, *launch);
        (self.collector_ready, self.grant_last, self.clr_valid, self.lv_valid) =
            (*collector_ready, *grant_last, *clr_valid, *lv_valid);
        (self.clr_warp, self.clr_reg, self.lv_warp) = (*clr_warp, *clr_reg, *lv_warp);
        (self.lv_src_valid, self.lv_src_reg, self.commit, self.changed) =
            (*lv_src_valid, *lv_src_reg, *commit, *changed);
    }

    /// Makes the events of a cycle (those [`IssueIn::clear_events`] clears) equal to `src`'s.
    // Inlined into the pipeline's edge (the copy of the predicate releases is out of line).
    #[inline(always)]
    pub fn sync_events(&mut self, src: &IssueIn) {
        (self.launch, self.grant_last, self.commit) = (src.launch, src.grant_last, src.commit);
        sync_preds(self, &src.clr_preds, src.clr_pred_warps);
    }

    /// The events of a cycle back to none; descriptors, barriers and holds stay.
    pub fn clear_events(&mut self) {
        (self.launch, self.grant_last, self.clr_valid, self.lv_valid, self.commit) = (0, false, false, false, 0);
        self.clr_preds.fill(0);
    }
}

/// Makes the predicate releases of `to` equal to `preds`, nonzero only for `warps`: copied only
/// when either side may have any (rarely: twice a cycle, the copy cost more than the looks).
#[inline(always)]
fn sync_preds(to: &mut IssueIn, preds: &[u8], warps: u64) {
    if to.clr_preds.len() != preds.len() || (to.clr_pred_warps | warps) != 0 {
        copy_preds(to, preds);
    }
    to.clr_pred_warps = warps;
}

/// The copy [`sync_preds`] makes, rarely: kept out of the per-cycle code.
#[cold]
fn copy_preds(to: &mut IssueIn, preds: &[u8]) {
    if to.clr_preds.len() != preds.len() {
        to.clr_preds = preds.to_vec();
    } else {
        to.clr_preds.copy_from_slice(preds);
    }
}

/// What the issue stage decides in a cycle: the scheduler's decision on the eligible warps,
/// and the check's parts (bit per warp).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IssueDecision {
    pub sched: Decision,
    pub eligible: u64,
    /// A next instruction, no barrier, no conflict, no WAR block (a collector aside).
    pub can_issue: u64,
    pub war_blocked: u64,
    pub desched: u64,
    pub ready: u64,
}

/// Outputs from the state alone: the parts' outputs.
pub struct IssueOut<'a> {
    pub scoreboard: ScoreboardOut<'a>,
    pub warpboard: Option<WarpboardOut<'a>>,
    pub scheduler: SchedulerOut<'a>,
}

/// The issue stage with its parts; each part is a block of its own (the model, or a lockstep
/// adapter checking that part's RTL).
pub struct Issue<S: ScoreboardBlock = Scoreboard, W: WarpboardBlock = Warpboard, X: SchedulerBlock = Scheduler> {
    pub scoreboard: S,
    pub warpboard: Option<W>,
    pub scheduler: X,
    g: Geometry,
    shape: Shape,
    two_level: bool,
    sb_in: ScoreboardIn,
    /// The check's findings per warp, kept between cycles: a warp is checked again only when
    /// its descriptor changed or an edge changed its part of the scoreboard or warpboard (the
    /// check over every warp each cycle was most of the SM model's time).
    memo: Cell<Memo>,
    /// Edges so far, and the check's result and grant [`IssueBlock::decide`] found in this
    /// cycle: the edge reuses them (the check's inputs do not change within a cycle).
    edges: u64,
    decided: Cell<Option<(u64, SchedulerIn, Option<u32>)>>,
    /// `timing.issue_registered_eligibility`: last cycle's `can_issue` (a register; zero when
    /// the option is off).
    can_issue_q: u64,
    /// The warps granted one and two cycles ago (registers, as many as `Shape::sit_out`).
    granted_q: [u64; 2],
    /// `timing.issue_registered_reservation`: last cycle's granted instruction that goes to a
    /// collector, its reservations made at this edge.
    reservation_q: Option<(u32, Next)>,
}

/// What the check found, a bit per warp.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Found {
    valid: u64,
    control: u64,
    /// No barrier, no conflict, no WAR block.
    can_issue: u64,
    war_blocked: u64,
    waits_long: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Memo {
    /// Warps whose findings are up to date.
    fresh: u64,
    found: Found,
}

impl Issue {
    /// The issue stage of a config, every part its model.
    pub fn for_config(c: &rfgen_gen::Checked) -> Issue {
        let g = &c.geometry;
        let warpboard = Warpboard::new(g, c.config.warpboard.policy);
        Issue::new(c, Scoreboard::new(g), warpboard, Scheduler::new(g, &c.config))
    }
}

impl<S: ScoreboardBlock, W: WarpboardBlock, X: SchedulerBlock> Issue<S, W, X> {
    pub fn new(c: &rfgen_gen::Checked, scoreboard: S, warpboard: Option<W>, scheduler: X) -> Self {
        Issue {
            scoreboard,
            warpboard,
            scheduler,
            g: c.geometry.clone(),
            shape: Shape::new(&c.geometry, &c.config),
            two_level: c.config.scheduler.policy == SchedulerPolicy::TwoLevel,
            sb_in: ScoreboardIn::new(&c.geometry),
            memo: Cell::new(Memo::default()),
            edges: 0,
            decided: Cell::new(None),
            can_issue_q: 0,
            granted_q: [0; 2],
            reservation_q: None,
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.g
    }

    /// Which parts and ports the stage has.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The check of the warps in `warps`, into `f`.
    #[inline(always)]
    fn find(&self, warps: u64, i: &IssueIn, f: &mut Found) {
        let sb = self.scoreboard.outputs();
        let wb = self.warpboard.as_ref().map(|b| (b.shape(), b.outputs()));
        let mut left = warps;
        while left != 0 {
            let w = left.trailing_zeros() as usize;
            let bit = 1u64 << w;
            left &= !bit;
            for m in [&mut f.valid, &mut f.control, &mut f.can_issue, &mut f.war_blocked, &mut f.waits_long] {
                *m &= !bit;
            }
            let n = &i.next[w];
            if !n.valid {
                continue;
            }
            let on = |m: &mut u64, yes: bool| *m |= if yes { bit } else { 0 };
            on(&mut f.valid, true);
            on(&mut f.control, n.control);
            on(&mut f.waits_long, n.long_consumer && n.regs.meets(&sb.long_pending[w]));
            if i.barrier & bit != 0 || n.regs.meets(&sb.pending[w]) || n.preds & sb.pending_preds[w] != 0 {
                continue;
            }
            let war = wb.as_ref().is_some_and(|(shape, out)| {
                let srcs = (0..3).filter(|&k| n.src_valid[k]).map(|k| n.src_reg[k]);
                out.stalls(shape, w, &touch(&self.g, w as u32, srcs, n.dst_valid.then_some(n.dst)))
            });
            on(&mut f.war_blocked, war);
            on(&mut f.can_issue, !war);
        }
    }

    /// The scheduler's inputs of this cycle and the check's parts.
    // Inlined into `decide`: the decision is built in place rather than copied out.
    #[inline(always)]
    fn check(&self, i: &IssueIn) -> (SchedulerIn, IssueDecision) {
        let all = if i.next.len() >= 64 { u64::MAX } else { (1u64 << i.next.len()) - 1 };
        let mut memo = self.memo.get();
        self.find((!memo.fresh | i.changed) & all, i, &mut memo.found);
        memo.fresh = all;
        self.memo.set(memo);
        let f = memo.found;
        debug_assert!(
            {
                let mut full = Found::default();
                self.find(all, i, &mut full);
                full == f
            },
            "a descriptor changed without its bit in IssueIn::changed"
        );
        // With the check a cycle ahead, the scheduler picks from last cycle's result. A warp
        // granted within `sit_out` cycles has a next instruction not yet checked against the
        // reservations of its grant: it sits out.
        let sitting_out = self.granted_q[..self.shape.sit_out() as usize].iter().fold(0, |m, g| m | g);
        let checked = match self.shape.registered {
            true => self.can_issue_q & f.valid & !i.barrier,
            false => f.can_issue,
        } & !sitting_out;
        let can_issue = if self.shape.stall { checked & !i.stall } else { checked };
        let mut d = IssueDecision {
            can_issue,
            war_blocked: f.war_blocked,
            eligible: can_issue & if i.collector_ready { all } else { f.control },
            ..IssueDecision::default()
        };
        if self.two_level {
            d.desched = i.barrier | f.waits_long;
            d.ready = f.valid & !i.barrier & !f.waits_long & !i.hold;
        }
        let s = SchedulerIn {
            eligible: d.eligible,
            eligible_if_free: d.can_issue,
            desched: d.desched,
            ready: d.ready,
            launch: i.launch,
            first: i.first,
            grant_last: i.grant_last,
        };
        (s, d)
    }
}

/// What the SM needs of its issue stage: its ports and its decision within the cycle.
/// Implemented by the model and by anything standing in for it (the cosim's lockstep adapter).
pub trait IssueBlock: 'static + Block<In = IssueIn> + for<'a> Block<Out<'a> = IssueOut<'a>> {
    /// This cycle's grant and check given its inputs.
    fn decide(&self, i: &IssueIn) -> IssueDecision;
}

impl<S: ScoreboardBlock, W: WarpboardBlock, X: SchedulerBlock> IssueBlock for Issue<S, W, X> {
    #[inline(always)]
    fn decide(&self, i: &IssueIn) -> IssueDecision {
        let (s, mut d) = self.check(i);
        d.sched = self.scheduler.decide(&s);
        self.decided.set(Some((self.edges, s, d.sched.grant)));
        d
    }
}

impl<S: ScoreboardBlock, W: WarpboardBlock, X: SchedulerBlock> Block for Issue<S, W, X> {
    type In = IssueIn;
    type Out<'a> = IssueOut<'a>;

    fn reset(&mut self) {
        self.memo.set(Memo::default());
        self.decided.set(None);
        (self.can_issue_q, self.granted_q, self.reservation_q) = (0, [0; 2], None);
        self.scoreboard.reset();
        if let Some(b) = &mut self.warpboard {
            b.reset();
        }
        self.scheduler.reset();
    }

    fn outputs(&self) -> IssueOut<'_> {
        IssueOut {
            scoreboard: self.scoreboard.outputs(),
            warpboard: self.warpboard.as_ref().map(Block::outputs),
            scheduler: self.scheduler.outputs(),
        }
    }

    fn tick(&mut self, i: &IssueIn) {
        let (s, grant) = match self.decided.take() {
            Some((at, s, grant)) if at == self.edges => {
                let s = SchedulerIn { launch: i.launch, grant_last: i.grant_last, ..s };
                debug_assert_eq!(s, self.check(i).0, "the check's inputs changed between decide and tick");
                (s, grant)
            }
            _ => {
                let (s, _) = self.check(i);
                (s, self.scheduler.decide(&s).grant)
            }
        };
        self.edges += 1;
        // The granted instruction goes to a collector unless it completes at issue; it
        // reserves at this edge, or at the next with the reservation registered.
        // The descriptor is borrowed, not copied, unless the reservation is registered.
        let to_collector = grant.filter(|&w| !i.next[w as usize].control);
        let queued;
        let reserving = match self.shape.registered_reservation {
            true => {
                queued = std::mem::replace(&mut self.reservation_q, to_collector.map(|w| (w, i.next[w as usize])));
                queued.as_ref().map(|(w, n)| (*w, n))
            }
            false => to_collector.map(|w| (w, &i.next[w as usize])),
        };
        let none = Next::default();
        let (w, n) = reserving.unwrap_or((0, &none));
        let sb = &mut self.sb_in;
        (sb.set_valid, sb.set_warp, sb.set_long) = (reserving.is_some(), w, n.long);
        (sb.set_reg_valid, sb.set_reg) = (n.dst_valid, n.dst);
        (sb.set_pred_valid, sb.set_pred) = (n.pdst_valid, n.pdst);
        (sb.clr_valid, sb.clr_warp, sb.clr_reg) = (i.clr_valid, i.clr_warp, i.clr_reg);
        // The scoreboard's predicate releases stay all zero between edges, copied only when
        // there are any (rarely).
        let released = if i.clr_pred_warps == 0 { 0 } else { nonzero(&i.clr_preds) };
        if released != 0 {
            sb.clr_preds.copy_from_slice(&i.clr_preds);
        }
        sb.clr_pred_warps = released;
        self.scoreboard.tick(&self.sb_in);
        if released != 0 {
            self.sb_in.clr_preds.fill(0);
        }
        if let Some(b) = &mut self.warpboard {
            b.tick(&WarpboardIn {
                iss_valid: reserving.is_some(),
                iss_warp: w,
                iss_src_valid: n.src_valid,
                iss_src_reg: n.src_reg,
                lv_valid: i.lv_valid,
                lv_warp: i.lv_warp,
                lv_src_valid: i.lv_src_valid,
                lv_src_reg: i.lv_src_reg,
                commit: i.commit,
            });
        }
        self.scheduler.tick(&s);
        if self.shape.registered {
            // `check` brought the findings of this cycle's inputs up to date.
            self.can_issue_q = self.memo.get().found.can_issue;
        }
        if self.shape.sit_out() > 0 {
            self.granted_q = [grant.map_or(0, |w| 1 << w), self.granted_q[0]];
        }
        // The warps whose scoreboard or warpboard state this edge may have changed.
        let bit = |valid: bool, w: u32| u64::from(valid && w < 64) << (w & 63);
        let mut touched = i.commit | bit(i.clr_valid, i.clr_warp) | bit(i.lv_valid, i.lv_warp);
        touched |= bit(reserving.is_some(), w) | released;
        let mut memo = self.memo.get();
        memo.fresh &= !touched;
        self.memo.set(memo);
    }

    /// No event in, no grant out, nothing on its way in the stage's registers, and the
    /// scheduler's active set as it is.
    fn at_rest(&self, i: &IssueIn) -> bool {
        let events = i.launch != 0 || i.clr_valid || i.lv_valid || i.commit != 0 || i.clr_preds.iter().any(|&p| p != 0);
        if events || self.reservation_q.is_some() || self.granted_q != [0; 2] {
            return false;
        }
        let (s, _) = self.check(i);
        let checked_again = self.shape.registered && self.can_issue_q != self.memo.get().found.can_issue;
        !checked_again
            && self.scheduler.at_rest(&s)
            && self.scoreboard.at_rest(&ScoreboardIn::default())
            && self.warpboard.as_ref().is_none_or(|b| b.at_rest(&WarpboardIn::default()))
    }

    fn rest(&mut self, edges: u64) {
        self.edges += edges;
    }
}

/// A bit per nonzero byte (at most 64: a bit per warp), eight bytes at a time: the predicate
/// releases are read every edge and are rarely any.
#[inline]
fn nonzero(bytes: &[u8]) -> u64 {
    let (words, rest) = bytes.as_chunks::<8>();
    // Most edges release none: one pass over the words answers them.
    if words.iter().fold(0, |m, w| m | u64::from_ne_bytes(*w)) == 0 && rest.iter().all(|&b| b == 0) {
        return 0;
    }
    let mut m = 0;
    let mut put =
        |at: usize, bytes: &[u8]| bytes.iter().enumerate().for_each(|(k, &b)| m |= u64::from(b != 0) << (at + k));
    for (k, word) in words.iter().enumerate() {
        if u64::from_ne_bytes(*word) != 0 {
            put(8 * k, word);
        }
    }
    put(8 * words.len(), rest);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzero_bytes_are_their_bits() {
        let mut bytes = vec![0u8; 45];
        assert_eq!(nonzero(&bytes), 0);
        for &k in &[0, 7, 8, 31, 40, 44] {
            bytes[k] = 1 << (k % 8);
        }
        assert_eq!(nonzero(&bytes), [0, 7, 8, 31, 40, 44].iter().fold(0, |m, k| m | 1 << k));
        assert_eq!(nonzero(&[0xff; 64]), u64::MAX);
    }

    /// The example of docs/issue.md ("Eligibility a cycle ahead"), cycle by cycle: under LRR,
    /// warp 0 runs `I0: r1 = ...` then `I1: ... = r1`, warp 1 three independent instructions,
    /// and `I0`'s result commits in cycle 3. The grants, per setting.
    #[test]
    fn documented_eligibility_timing() {
        let grants = |ahead: bool, reservation: bool| {
            let text = format!(
                "[scheduler]\npolicy = \"lrr\"\n[timing]\nissue_registered_eligibility = {ahead}\nissue_registered_reservation = {reservation}\n"
            );
            let checked = rfgen_gen::config::parse(&text).unwrap();
            let mut stage = Issue::for_config(&checked);
            let op = |src: Option<u32>, dst: u32| {
                Next::new(&NextFields { src: [src, None, None], dst: Some(dst), ..NextFields::default() })
            };
            let mut program = [vec![op(None, 1), op(Some(1), 2)], vec![op(None, 4), op(None, 5), op(None, 6)]];
            let mut i = IssueIn::new(stage.geometry());
            i.collector_ready = true;
            let mut seen = Vec::new();
            for cycle in 0..8 {
                for (w, left) in program.iter().enumerate() {
                    i.next[w] = left.first().copied().unwrap_or_default();
                }
                i.changed = u64::MAX;
                (i.clr_valid, i.clr_warp, i.clr_reg) = (cycle == 3, 0, 1);
                let grant = stage.decide(&i).sched.grant;
                stage.tick(&i);
                if let Some(w) = grant {
                    program[w as usize].remove(0);
                }
                seen.push(grant);
            }
            seen
        };
        let (w0, w1) = (Some(0), Some(1));
        assert_eq!(grants(false, false), [w0, w1, w1, w1, w0, None, None, None]);
        assert_eq!(grants(true, false), [None, w0, w1, None, w1, w0, w1, None]);
        assert_eq!(grants(false, true), [w0, w1, None, w1, w0, w1, None, None]);
        assert_eq!(grants(true, true), [None, w0, w1, None, None, w0, w1, None]);
    }
}
