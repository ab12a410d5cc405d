//! The SM's register-file pipeline as one block (generated `<prefix>_sm_rf`): the issue stage
//! and the MRF (operand collectors, banks and whatever the config puts in front of them), with
//! the connections between them:
//! - the issue stage's grant offers the granted warp's next instruction to the MRF, its sources
//!   and operand fields taken from that warp's descriptor (`next_*`), unless it completes at
//!   issue (branch, exit, barrier);
//! - the instruction gets the lowest free collector tag ([`SmRfOut::grant_tag`]), returned at
//!   dispatch, when the tag is free again;
//! - the MRF's `issue_ready` is the issue stage's `collector_ready`; its `fill_busy` joins the
//!   `stall` the front end gives;
//! - an instruction leaving its collector (dispatch taken) is the warpboard's leave event, with
//!   its sources (kept per tag for bloomboards);
//! - a register result is released in the scoreboard (`clr_*`, and its warp's `commit`) when
//!   its write-back is taken or, compressed, when the MRF stores it ([`Release`]).
//!
//! Everything else passes through: the front end's descriptors, barriers, launches, predicate
//! releases and other commits into the issue stage, dispatch and write-back between the MRF and
//! the units.

use crate::block::Block;
use crate::blocks::issue::{IssueBlock, IssueDecision, IssueIn, IssueOut};
use crate::blocks::mrf::{MrfBlock, MrfIn, MrfOut, MrfStats, SLOTS};
use rfgen_gen::blocks::sm_rf::Release;
use rfgen_gen::{Checked, Geometry};
use std::cell::RefCell;
use std::collections::VecDeque;

/// A warp's next instruction as the MRF reads it (beside the issue stage's [`Next`]
/// descriptor): which sources are read for the last time and, with an ORF/LRF, where each
/// source is read from and whether it starts a strand.
///
/// [`Next`]: crate::blocks::issue::Next
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NextRead {
    pub src_last: [bool; SLOTS],
    pub src_level: [u8; SLOTS],
    pub src_entry: [u32; SLOTS],
    pub src_fill: [u8; SLOTS],
    pub strand: bool,
}

/// Inputs of one cycle: the issue stage's and the MRF's input ports (those driven inside the
/// top are overwritten: `collector_ready`, `lv_*`, `clr_*` and the released warp's `commit`
/// bit, and the MRF's `issue_*`), and each warp's [`NextRead`].
#[derive(Clone, Debug)]
pub struct SmRfIn {
    pub issue: IssueIn,
    pub mrf: MrfIn,
    pub next_read: Vec<NextRead>,
    /// Not a port: with renaming (outside the top), the physical registers of the granted
    /// instruction's sources, which the MRF reads instead of the descriptor's.
    pub renamed: Option<[u32; SLOTS]>,
}

impl SmRfIn {
    pub fn new(g: &Geometry) -> Self {
        SmRfIn {
            issue: IssueIn::new(g),
            mrf: MrfIn::new(g),
            next_read: vec![NextRead::default(); g.warps as usize],
            renamed: None,
        }
    }
}

/// Outputs of one cycle: the parts' outputs (the MRF's `issue_ready` is internal) and the tag
/// an instruction granted this cycle gets.
pub struct SmRfOut<'a> {
    pub mrf: MrfOut<'a>,
    pub issue: IssueOut<'a>,
    /// The lowest free collector tag (0 when none is free: no collector is free then either).
    pub grant_tag: u32,
}

/// What the SM needs of its register-file pipeline: the block, its decision within the cycle,
/// and the MRF's statistics.
pub trait SmRfBlock: 'static + Block<In = SmRfIn> + for<'a> Block<Out<'a> = SmRfOut<'a>> {
    /// The issue stage's decision on this cycle's inputs, as connected inside the top.
    fn decide(&self, i: &SmRfIn) -> IssueDecision;
    fn mrf_stats(&self) -> &MrfStats;
    /// The pipeline releases its write-backs' registers in the scoreboard itself ([`Release`]);
    /// if not (renaming, outside the top), the SM does.
    fn releases_write_backs(&self) -> bool;
}

/// The register-file pipeline: the parts (each the model, or a lockstep adapter checking that
/// part's RTL) and the glue between them.
pub struct SmRf<M: MrfBlock, I: IssueBlock> {
    pub mrf: M,
    pub issue: I,
    /// Bit per collector tag: free.
    tag_free: u64,
    tags: u32,
    /// Per tag: the sources of the instruction holding it (the warpboard's leave event).
    sources: Vec<([bool; SLOTS], [u32; SLOTS])>,
    /// How register results are released; none with renaming (outside the top: the SM
    /// releases its architectural registers itself).
    release: Option<Release>,
    /// [`Release::Stored`]: write-backs taken and not stored yet (warp, register), oldest first.
    held: VecDeque<(u32, u32)>,
    /// The parts' inputs as connected this cycle (kept to reuse their buffers).
    wired: RefCell<(IssueIn, MrfIn)>,
}

impl<M: MrfBlock, I: IssueBlock> SmRf<M, I> {
    pub fn new(c: &Checked, mrf: M, issue: I) -> Self {
        let g = &c.geometry;
        let tags = g.collectors;
        assert!(tags <= 64, "validation keeps operand collectors to at most 64");
        SmRf {
            mrf,
            issue,
            tag_free: all(tags),
            tags,
            sources: vec![Default::default(); tags as usize],
            release: (!c.config.rename.enabled).then(|| Release::of(c)),
            held: VecDeque::new(),
            wired: RefCell::new((IssueIn::new(g), MrfIn::new(g))),
        }
    }

    /// The issue stage's inputs as connected inside the top this cycle.
    pub fn issue_inputs(&self, i: &SmRfIn) -> IssueIn {
        let mut wired = IssueIn::default();
        self.wire_issue(i, &mut wired, &self.mrf.outputs());
        wired
    }

    fn grant_tag(&self) -> u32 {
        if self.tag_free == 0 { 0 } else { self.tag_free.trailing_zeros() }
    }

    /// The issue stage's inputs with what the MRF drives inside the top.
    fn wire_issue(&self, i: &SmRfIn, into: &mut IssueIn, mrf: &MrfOut) {
        into.clone_from(&i.issue);
        into.collector_ready = mrf.issue_ready;
        into.stall |= mrf.fill_busy;
        let take = mrf.disp_valid && i.mrf.disp_ready;
        (into.lv_valid, into.lv_warp) = (take, mrf.disp_warp);
        (into.lv_src_valid, into.lv_src_reg) =
            if take { self.sources[mrf.disp_tag as usize] } else { Default::default() };
        let released = match self.release {
            None => return,
            Some(Release::Taken) => (i.mrf.wb_valid && mrf.wb_ready).then_some((i.mrf.wb_warp, i.mrf.wb_reg)),
            Some(Release::Stored { .. }) => mrf.wb_commit.then(|| self.held[0]),
        };
        into.clr_valid = released.is_some();
        (into.clr_warp, into.clr_reg) = released.unwrap_or_default();
        if let Some((w, _)) = released {
            into.commit |= 1 << w;
        }
    }

    /// The MRF's inputs with the granted instruction offered.
    fn wire_mrf(&self, i: &SmRfIn, into: &mut MrfIn, grant: Option<u32>) {
        into.clone_from(&i.mrf);
        let w = grant.unwrap_or(0) as usize;
        let (next, read) = (&i.issue.next[w], &i.next_read[w]);
        into.issue_valid = grant.is_some() && !next.control;
        into.issue_warp = w as u32;
        into.issue_tag = self.grant_tag();
        into.issue_src_valid = next.src_valid;
        into.issue_src_reg = i.renamed.unwrap_or(next.src_reg);
        into.issue_src_last = read.src_last;
        into.issue_src_level = read.src_level;
        into.issue_src_entry = read.src_entry;
        into.issue_src_fill = read.src_fill;
        into.issue_strand = read.strand;
    }
}

fn all(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

impl<M: MrfBlock, I: IssueBlock> SmRfBlock for SmRf<M, I> {
    fn decide(&self, i: &SmRfIn) -> IssueDecision {
        let mut wired = self.wired.borrow_mut();
        self.wire_issue(i, &mut wired.0, &self.mrf.outputs());
        self.issue.decide(&wired.0)
    }

    fn mrf_stats(&self) -> &MrfStats {
        self.mrf.stats()
    }

    fn releases_write_backs(&self) -> bool {
        self.release.is_some()
    }
}

impl<M: MrfBlock, I: IssueBlock> Block for SmRf<M, I> {
    type In = SmRfIn;
    type Out<'a> = SmRfOut<'a>;

    fn reset(&mut self) {
        self.mrf.reset();
        self.issue.reset();
        self.tag_free = all(self.tags);
        self.held.clear();
    }

    fn outputs(&self) -> SmRfOut<'_> {
        SmRfOut { mrf: self.mrf.outputs(), issue: self.issue.outputs(), grant_tag: self.grant_tag() }
    }

    fn tick(&mut self, i: &SmRfIn) {
        let (mut issue_in, mut mrf_in) = std::mem::take(self.wired.get_mut());
        let out = self.mrf.outputs();
        let freed = (out.disp_valid && i.mrf.disp_ready).then_some(out.disp_tag);
        let (stored, taken) = (out.wb_commit, i.mrf.wb_valid && out.wb_ready);
        self.wire_issue(i, &mut issue_in, &out);
        let grant = self.issue.decide(&issue_in).sched.grant;
        self.wire_mrf(i, &mut mrf_in, grant);
        self.mrf.tick(&mrf_in);
        self.issue.tick(&issue_in);
        if let Some(t) = freed {
            self.tag_free |= 1 << t;
        }
        if let Some(Release::Stored { depth }) = self.release {
            if stored {
                self.held.pop_front();
            }
            if taken {
                self.held.push_back((i.mrf.wb_warp, i.mrf.wb_reg));
                debug_assert!(self.held.len() <= depth as usize, "more write-backs wait than compressor stages");
            }
        }
        if mrf_in.issue_valid {
            let t = mrf_in.issue_tag;
            self.tag_free &= !(1 << t);
            self.sources[t as usize] = (mrf_in.issue_src_valid, i.issue.next[mrf_in.issue_warp as usize].src_reg);
        }
        *self.wired.get_mut() = (issue_in, mrf_in);
    }
}
