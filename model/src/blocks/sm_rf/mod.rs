//! The SM's register-file pipeline as one block (generated `<prefix>_sm_rf`): the issue stage,
//! the rename stage when renaming, and the MRF (operand collectors, banks and whatever the
//! config puts in front of them), with the connections between them:
//! - the issue stage's grant offers the granted warp's next instruction to the MRF, its sources
//!   and operand fields taken from that warp's descriptor (`next_*`), unless it completes at
//!   issue (branch, exit, barrier);
//! - with renaming, that instruction is renamed in the same cycle (the warp, its sources and its
//!   destination from the descriptor) and the MRF reads the sources' physical registers; while
//!   no physical register is free, warps whose next instruction writes one are stalled; with
//!   TRWS, the stage's `tfet_hint` is the scheduler's `first`;
//! - the instruction gets the lowest free collector tag ([`SmRfOut::grant_tag`]), returned at
//!   dispatch, when the tag is free again;
//! - the MRF's `issue_ready` is the issue stage's `collector_ready`; its `fill_busy` joins the
//!   `stall` the front end gives;
//! - an instruction leaving its collector (dispatch taken) is the warpboard's leave event, with
//!   its sources (kept per tag for bloomboards);
//! - a register result is released in the scoreboard (`clr_*`, and its warp's `commit`) when
//!   its write-back is taken or, compressed or to a TFET register, when the MRF stores it
//!   ([`Release`]);
//! - warps coming and going ([`warp_control`]): the register file cache's activations, flushes
//!   and releases from launches, the two-level scheduler's active set and finished warps
//!   (`exit`), its flushing warps held out of the active set; a compressed MRF's invalidation of
//!   finished warps' registers, one per edge (`freeing` until then);
//! - with an ORF/LRF beside the two-level scheduler, the warps outside this cycle's active set
//!   (the scheduler's `active` output) lose their ORF/LRF slots (`rel_mask`); a warp takes one
//!   as its first instruction after joining the set enters the MRF.
//!
//! Everything else passes through: the front end's descriptors, barriers, launches, predicate
//! releases and other commits into the issue stage, dispatch and write-back between the MRF and
//! the units, the rename stage's releases and memory events.

pub mod warp_control;

use crate::block::Block;
use crate::blocks::issue::{IssueBlock, IssueDecision, IssueIn, IssueOut};
use crate::blocks::mrf::{MrfBlock, MrfIn, MrfOut, MrfStats, SLOTS};
use crate::blocks::rename::{Lookup, Rename, RenameBlock, RenameIn, RenameOut};
use rfgen_gen::blocks::sm_rf::Release;
use rfgen_gen::config::SchedulerPolicy;
use rfgen_gen::{Checked, Geometry};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use warp_control::{FreeControl, RfcControl, WarpEvents};

/// A warp's next instruction as the MRF and the rename stage read it (beside the issue stage's
/// [`Next`] descriptor): which sources are read for the last time; with an ORF/LRF, where each
/// source is read from and whether it starts a strand; with renaming, whether its destination
/// starts a value and whether it is a load.
///
/// [`Next`]: crate::blocks::issue::Next
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NextRead {
    pub src_last: [bool; SLOTS],
    pub src_level: [u8; SLOTS],
    pub src_entry: [u32; SLOTS],
    pub src_fill: [u8; SLOTS],
    pub strand: bool,
    pub dst_new: bool,
    pub dst_load: bool,
}

/// Inputs of one cycle: the parts' input ports (those driven inside the top are overwritten:
/// the issue stage's `collector_ready`, `lv_*`, `clr_*`, the released warp's `commit` bit and,
/// renaming, `first` with TRWS; the MRF's `issue_*`, the cache's `act_*`, `flush_*` and
/// `rel_mask`, and the compressed MRF's `free_*`; the rename stage's `ren_*`), each warp's
/// [`NextRead`], the warps finished at this edge, and with renaming the write-back's
/// architectural register.
#[derive(Clone, Debug)]
pub struct SmRfIn {
    pub issue: IssueIn,
    pub mrf: MrfIn,
    pub rename: RenameIn,
    pub next_read: Vec<NextRead>,
    /// With renaming, the write-back's architectural register (the scoreboard's); `mrf.wb_reg`
    /// is its physical register.
    pub wb_arch_reg: u32,
    /// Warps that finished at this edge: every instruction issued and completed (with a
    /// register file cache or a compressed MRF).
    pub exit: u64,
}

impl SmRfIn {
    pub fn new(g: &Geometry) -> Self {
        SmRfIn {
            issue: IssueIn::new(g),
            mrf: MrfIn::new(g),
            rename: RenameIn::default(),
            next_read: vec![NextRead::default(); g.warps as usize],
            wb_arch_reg: 0,
            exit: 0,
        }
    }
}

/// Outputs of one cycle: the parts' outputs (the MRF's `issue_ready` is internal) and the tag
/// an instruction granted this cycle gets.
pub struct SmRfOut<'a> {
    pub mrf: MrfOut<'a>,
    pub issue: IssueOut<'a>,
    pub rename: Option<RenameOut>,
    /// The lowest free collector tag (0 when none is free: no collector is free then either).
    pub grant_tag: u32,
    /// Compressed MRF: finished warps whose registers are still to be invalidated.
    pub freeing: u64,
}

/// The outputs the SM reads first in a cycle, for its write-back and dispatch: the MRF's
/// write-back handshake, whether it offers an instruction, and the tag a grant gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handshake {
    pub wb_commit: bool,
    pub wb_ready: bool,
    pub disp_valid: bool,
    pub grant_tag: u32,
}

/// What the SM needs of its register-file pipeline: the block, its decision within the cycle,
/// and the MRF's statistics.
pub trait SmRfBlock: 'static + Block<In = SmRfIn> + for<'a> Block<Out<'a> = SmRfOut<'a>> {
    /// These outputs alone (read every cycle: the model's need not build every port).
    fn handshake(&self) -> Handshake {
        let out = self.outputs();
        let m = &out.mrf;
        Handshake { wb_commit: m.wb_commit, wb_ready: m.wb_ready, disp_valid: m.disp_valid, grant_tag: out.grant_tag }
    }

    /// The tag and source operands of the instruction the MRF offers (dispatch reads these
    /// alone).
    fn offered_operands(&self) -> (u32, [&[u32]; SLOTS]) {
        let m = self.outputs().mrf;
        (m.disp_tag, m.disp_src_data)
    }

    /// The issue stage's decision on this cycle's inputs, as connected inside the top.
    fn decide(&self, i: &SmRfIn) -> IssueDecision;
    fn mrf_stats(&self) -> &MrfStats;
    /// With renaming, the rename stage's decision for warp `w`'s next instruction if it is
    /// granted on this cycle's inputs.
    fn renamed(&self, i: &SmRfIn, w: u32) -> Option<Lookup>;
    /// The rename stage's model, with renaming.
    fn rename_model(&self) -> Option<&Rename>;
}

/// The register-file pipeline: the parts (each the model, or a lockstep adapter checking that
/// part's RTL) and the glue between them.
pub struct SmRf<M: MrfBlock, I: IssueBlock, R: RenameBlock = Rename> {
    pub mrf: M,
    pub issue: I,
    /// With renaming: between the grant and the MRF's issue port.
    pub rename: Option<R>,
    /// TRWS: the rename stage's `tfet_hint` is the scheduler's `first`.
    trws: bool,
    /// Bit per collector tag: free.
    tag_free: u64,
    tags: u32,
    /// Per tag: the sources of the instruction holding it (the warpboard's leave event).
    sources: Vec<([bool; SLOTS], [u32; SLOTS])>,
    /// How register results are released.
    release: Release,
    /// Write-backs taken and not stored yet (warp, register), oldest first.
    held: VecDeque<(u32, u32)>,
    /// With a register file cache, its protocol; with a compressed MRF, finished warps' frees.
    rfc: Option<RfcControl>,
    free: Option<FreeControl>,
    /// With an ORF/LRF beside the two-level scheduler: every warp's bit, for its releases.
    orf_warps: Option<u64>,
    /// The parts' inputs as connected this cycle (kept to reuse their buffers).
    wired: RefCell<(IssueIn, MrfIn)>,
    /// What the edge needs of the issue decision `decide` made this cycle, the grant and the
    /// active set: the edge takes them rather than deciding again (the SM changes nothing the
    /// decision depends on between the two).
    decided: Cell<Option<(Option<u32>, u64)>>,
}

impl<M: MrfBlock, I: IssueBlock> SmRf<M, I> {
    /// The pipeline a config describes around these parts, with the rename stage's model when
    /// renaming.
    pub fn new(c: &Checked, mrf: M, issue: I) -> Self {
        SmRf::with_rename(c, mrf, issue, c.config.rename.enabled.then(|| Rename::for_config(c)))
    }
}

impl<M: MrfBlock, I: IssueBlock, R: RenameBlock> SmRf<M, I, R> {
    /// The pipeline a config describes around these parts; `rename` with `rename.enabled`.
    pub fn with_rename(c: &Checked, mrf: M, issue: I, rename: Option<R>) -> Self {
        let g = &c.geometry;
        let tags = g.collectors;
        assert!(tags <= 64, "validation keeps operand collectors to at most 64");
        assert_eq!(rename.is_some(), c.config.rename.enabled, "a rename stage exactly when renaming");
        SmRf {
            mrf,
            issue,
            rename,
            trws: c.config.rename.trws,
            tag_free: all(tags),
            tags,
            sources: vec![Default::default(); tags as usize],
            release: Release::of(c),
            held: VecDeque::new(),
            rfc: c.rfc.is_some().then(|| RfcControl::new(c.config.scheduler.policy == SchedulerPolicy::TwoLevel)),
            free: c.compression.is_some().then(FreeControl::default),
            orf_warps: c.orf.as_ref().filter(|o| o.mapped).map(|_| all(g.warps)),
            wired: RefCell::new((IssueIn::new(g), MrfIn::new(g))),
            decided: Cell::new(None),
        }
    }

    /// The issue stage's inputs as connected inside the top this cycle.
    pub fn issue_inputs(&self, i: &SmRfIn) -> IssueIn {
        let mut wired = IssueIn::default();
        self.wire_issue(i, &mut wired, &self.mrf.outputs());
        wired
    }

    /// The rename stage's inputs as connected inside the top this cycle.
    pub fn rename_inputs(&self, i: &SmRfIn) -> RenameIn {
        wire_rename(i, self.issue.decide(&self.issue_inputs(i)).sched.grant)
    }

    fn grant_tag(&self) -> u32 {
        if self.tag_free == 0 { 0 } else { self.tag_free.trailing_zeros() }
    }

    /// The issue stage's inputs with what the MRF and the rename stage drive inside the top.
    // Inlined, as `wire_release`: the caller builds `mrf` and only the ports read are kept.
    #[inline(always)]
    fn wire_issue(&self, i: &SmRfIn, into: &mut IssueIn, mrf: &MrfOut) {
        into.sync_from(&i.issue);
        into.collector_ready = mrf.issue_ready;
        into.stall |= mrf.fill_busy;
        into.hold |= self.rfc.as_ref().map_or(0, RfcControl::flushing);
        if let Some(r) = &self.rename {
            let out = r.outputs();
            if !out.ren_ready {
                into.stall |= writers(&i.issue);
            }
            if self.trws {
                into.first = out.tfet_hint;
            }
        }
        let take = mrf.disp_valid && i.mrf.disp_ready;
        (into.lv_valid, into.lv_warp) = (take, mrf.disp_warp);
        (into.lv_src_valid, into.lv_src_reg) =
            if take { self.sources[mrf.disp_tag as usize] } else { Default::default() };
        self.wire_release(i, into, mrf);
    }

    /// The scoreboard's release of a register result (`clr_*` and its warp's `commit`).
    #[inline(always)]
    fn wire_release(&self, i: &SmRfIn, into: &mut IssueIn, mrf: &MrfOut) {
        let taken = i.mrf.wb_valid && mrf.wb_ready;
        let wb = (i.mrf.wb_warp, self.scoreboard_reg(i));
        let released = match self.release {
            Release::Taken => taken.then_some(wb),
            Release::Stored { .. } => mrf.wb_commit.then(|| self.held[0]),
            Release::Tfet { .. } if mrf.wb_commit => Some(self.held[0]),
            Release::Tfet { tfet_from } => (taken && i.mrf.wb_reg < tfet_from).then_some(wb),
        };
        into.clr_valid = released.is_some();
        (into.clr_warp, into.clr_reg) = released.unwrap_or_default();
        if let Some((w, _)) = released {
            into.commit |= 1 << w;
        }
    }

    /// The MRF's inputs with the granted instruction offered.
    #[inline(always)]
    fn wire_mrf(&self, i: &SmRfIn, into: &mut MrfIn, grant: Option<u32>) {
        into.sync_from(&i.mrf);
        let w = grant.unwrap_or(0) as usize;
        let (next, read) = (&i.issue.next[w], &i.next_read[w]);
        into.issue_valid = grant.is_some() && !next.control;
        into.issue_warp = w as u32;
        into.issue_tag = self.grant_tag();
        into.issue_src_valid = next.src_valid;
        into.issue_src_reg = next.src_reg;
        into.issue_src_last = read.src_last;
        into.issue_src_level = read.src_level;
        into.issue_src_entry = read.src_entry;
        into.issue_src_fill = read.src_fill;
        into.issue_strand = read.strand;
        if let Some(c) = &self.rfc {
            let offer = c.offer();
            (into.act_valid, into.act_warp) = (offer.act.is_some(), offer.act.unwrap_or(0));
            (into.flush_valid, into.flush_warp) = (offer.flush.is_some(), offer.flush.unwrap_or(0));
            into.rel_mask = offer.rel_mask;
        }
        if let Some(f) = &self.free {
            (into.free_valid, into.free_warp) = (f.offer().is_some(), f.offer().unwrap_or(0));
        }
    }

    /// The write-back's register as the scoreboard numbers it: the architectural one.
    fn scoreboard_reg(&self, i: &SmRfIn) -> u32 {
        if self.rename.is_some() { i.wb_arch_reg } else { i.mrf.wb_reg }
    }
}

/// The rename stage's inputs with the granted instruction offered.
fn wire_rename(i: &SmRfIn, grant: Option<u32>) -> RenameIn {
    let w = grant.unwrap_or(0);
    let (next, read) = (&i.issue.next[w as usize], &i.next_read[w as usize]);
    RenameIn {
        ren_valid: grant.is_some() && !next.control,
        ren_warp: w,
        ren_src_reg: next.src_reg,
        ren_dst_new: read.dst_new,
        ren_dst_reg: next.dst,
        ren_dst_load: read.dst_load,
        ..i.rename.clone()
    }
}

/// Warps whose next instruction writes a register.
fn writers(i: &IssueIn) -> u64 {
    i.next.iter().enumerate().fold(0, |m, (w, n)| m | u64::from(n.dst_valid) << w)
}

fn all(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

impl<M: MrfBlock, I: IssueBlock, R: RenameBlock> SmRfBlock for SmRf<M, I, R> {
    fn handshake(&self) -> Handshake {
        let m = self.mrf.outputs();
        Handshake {
            wb_commit: m.wb_commit,
            wb_ready: m.wb_ready,
            disp_valid: m.disp_valid,
            grant_tag: self.grant_tag(),
        }
    }

    #[inline(always)]
    fn offered_operands(&self) -> (u32, [&[u32]; SLOTS]) {
        self.mrf.offered_operands()
    }

    // Inlined, as the SM's other steps once a cycle: the glue's calls cost more than their work.
    #[inline(always)]
    fn decide(&self, i: &SmRfIn) -> IssueDecision {
        let mut wired = self.wired.borrow_mut();
        self.wire_issue(i, &mut wired.0, &self.mrf.outputs());
        let d = self.issue.decide(&wired.0);
        self.decided.set(Some((d.sched.grant, d.sched.active_mask())));
        d
    }

    fn mrf_stats(&self) -> &MrfStats {
        self.mrf.stats()
    }

    fn renamed(&self, i: &SmRfIn, w: u32) -> Option<Lookup> {
        self.rename.as_ref().map(|r| r.golden().lookup(&wire_rename(i, Some(w))))
    }

    fn rename_model(&self) -> Option<&Rename> {
        self.rename.as_ref().map(RenameBlock::golden)
    }
}

impl<M: MrfBlock, I: IssueBlock, R: RenameBlock> Block for SmRf<M, I, R> {
    type In = SmRfIn;
    type Out<'a> = SmRfOut<'a>;

    fn reset(&mut self) {
        self.decided.set(None);
        self.mrf.reset();
        self.issue.reset();
        if let Some(r) = &mut self.rename {
            r.reset();
        }
        self.tag_free = all(self.tags);
        self.held.clear();
        self.rfc = self.rfc.as_ref().map(|c| RfcControl::new(c.two_level()));
        self.free = self.free.as_ref().map(|_| FreeControl::default());
    }

    fn outputs(&self) -> SmRfOut<'_> {
        SmRfOut {
            mrf: self.mrf.outputs(),
            issue: self.issue.outputs(),
            rename: self.rename.as_ref().map(Block::outputs),
            grant_tag: self.grant_tag(),
            freeing: self.free.as_ref().map_or(0, FreeControl::freeing),
        }
    }

    #[inline(always)]
    fn tick(&mut self, i: &SmRfIn) {
        let mut wired = self.wired.borrow_mut();
        let (issue_in, mrf_in) = &mut *wired;
        let out = self.mrf.outputs();
        let freed = (out.disp_valid && i.mrf.disp_ready).then_some(out.disp_tag);
        let (stored, taken) = (out.wb_commit, i.mrf.wb_valid && out.wb_ready);
        let (grant, active) = match self.decided.take() {
            Some(d) => {
                // `decide` wired this cycle's inputs; since then the SM has only added events
                // (issue, completions, launches), so only those are wired again.
                issue_in.sync_events(&i.issue);
                self.wire_release(i, issue_in, &out);
                debug_assert_eq!(*issue_in, self.issue_inputs(i), "the issue stage's inputs changed after `decide`");
                debug_assert!(
                    {
                        let again = self.issue.decide(issue_in).sched;
                        d == (again.grant, again.active_mask())
                    },
                    "the issue stage's inputs changed after `decide`"
                );
                d
            }
            None => {
                self.wire_issue(i, issue_in, &out);
                let d = self.issue.decide(issue_in).sched;
                (d.grant, d.active_mask())
            }
        };
        self.wire_mrf(i, mrf_in, grant);
        if let Some(warps) = self.orf_warps {
            mrf_in.rel_mask = warps & !active;
        }
        if let Some(c) = &mut self.rfc {
            let ev = WarpEvents {
                active,
                ended: grant.filter(|_| i.issue.grant_last).map_or(0, |w| 1 << w),
                launch: i.issue.launch,
                exit: i.exit,
            };
            c.tick(out.act_ready, out.flush_ready, &ev);
        }
        if let Some(f) = &mut self.free {
            f.tick(i.exit);
        }
        if let Some(r) = &mut self.rename {
            let ren_in = wire_rename(i, grant);
            let look = r.golden().lookup(&ren_in);
            mrf_in.issue_src_reg = look.src_phys.map(|p| p.unwrap_or(0));
            r.tick(&ren_in);
        }
        self.mrf.tick(mrf_in);
        self.issue.tick(issue_in);
        if let Some(t) = freed {
            self.tag_free |= 1 << t;
        }
        if stored && self.release != Release::Taken {
            self.held.pop_front();
        }
        match self.release {
            Release::Taken => {}
            Release::Stored { depth } => {
                if taken {
                    self.held.push_back((i.mrf.wb_warp, self.scoreboard_reg(i)));
                    debug_assert!(self.held.len() <= depth as usize, "more write-backs wait than compressor stages");
                }
            }
            Release::Tfet { tfet_from } => {
                if taken && i.mrf.wb_reg >= tfet_from {
                    debug_assert!(self.held.is_empty(), "a TFET write finishes before the next is taken");
                    self.held.push_back((i.mrf.wb_warp, self.scoreboard_reg(i)));
                }
            }
        }
        if mrf_in.issue_valid {
            let t = mrf_in.issue_tag;
            self.tag_free &= !(1 << t);
            self.sources[t as usize] = (mrf_in.issue_src_valid, i.issue.next[mrf_in.issue_warp as usize].src_reg);
        }
    }

    /// The parts at rest with the inputs as connected (the rename stage's memory events and
    /// releases are the SM's to hold back), nothing held for release, and neither the cache's
    /// protocol nor the invalidation of finished warps under way.
    fn at_rest(&self, i: &SmRfIn) -> bool {
        if !self.held.is_empty() || i.exit != 0 || self.free.as_ref().is_some_and(|f| f.freeing() != 0) {
            return false;
        }
        let mut wired = self.wired.borrow_mut();
        let (issue_in, mrf_in) = &mut *wired;
        self.wire_issue(i, issue_in, &self.mrf.outputs());
        if !self.issue.at_rest(issue_in) {
            return false;
        }
        // At rest the scheduler's active set is the decision's.
        let active = self.issue.outputs().scheduler.active_mask();
        if self.rfc.as_ref().is_some_and(|c| !c.at_rest(active)) {
            return false;
        }
        self.wire_mrf(i, mrf_in, None);
        if let Some(warps) = self.orf_warps {
            mrf_in.rel_mask = warps & !active;
        }
        self.mrf.at_rest(mrf_in) && self.rename.as_ref().is_none_or(|r| r.at_rest(&wire_rename(i, None)))
    }

    fn rest(&mut self, edges: u64) {
        self.mrf.rest(edges);
        self.issue.rest(edges);
        if let Some(r) = &mut self.rename {
            r.rest(edges);
        }
    }
}
