//! What the SM tells the rename stage (SPEC §5, seed 003 §4.1, docs/rename.md) and what it does
//! with the answers. The stage itself is `model::blocks::rename::Rename`, the model of the
//! generated `<prefix>_rename`, inside the register-file pipeline (`SmRf`): the granted warp's
//! next instruction is renamed there, its physical registers go to the MRF, and a full stage
//! stalls warps whose next instruction writes a register. The SM's side:
//!
//! - **Descriptor**: each warp's next instruction says whether its destination starts a value
//!   (`dst_new`: it gets a free register) — unless the write is partial (a diverged path or a
//!   guard predicate leaves lanes off) and the register holds a live value, whose other lanes
//!   must survive — and whether it is a load (never a TFET register by request).
//! - **Death and release**: a value dies at its compiler-marked last read on a non-divergent
//!   path (every thread of the warp has read it), when a new register replaces it without such a
//!   read (a value never read, or last read on a diverged path), or when its warp finishes. A
//!   dead register is released once no operand collector slot still has to read it, at most
//!   three per edge, oldest first.
//! - **MEM_RA events**: a global load's issue starts its warp's counter (`mem_start`), its
//!   write-back stops it (`mem_done`). `sample_acc` is the issue-to-write-back latency of the
//!   latest global load completed before the last [`SAMPLE_PERIOD`] boundary.
//!
//! Validation keeps `warps × registers_per_thread` within the physical registers, so a warp
//! waiting for a register always gets one once others release theirs.

use super::stats::RenameTraffic;
use crate::blocks::rename::{Lookup, Rename, RenameIn};
use rfgen_gen::layout::geometry::SLOTS_PER_COLLECTOR;
use rfgen_gen::layout::rename::RenameLayout;
use std::collections::VecDeque;

const SLOTS: usize = SLOTS_PER_COLLECTOR as usize;

/// Cycles between two samples of the memory latency (seed 003 samples periodically without
/// giving the period; the 1K cycles it uses for TUBA's TFET samples).
pub const SAMPLE_PERIOD: u64 = 1024;

/// An issued instruction's physical registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Renamed {
    pub src: [Option<u32>; SLOTS],
    pub dst: Option<u32>,
}

/// What the issued instruction is, as far as renaming cares.
pub struct Issued {
    pub warp: u32,
    /// Source registers by operand slot.
    pub src: [Option<u32>; SLOTS],
    /// Sources marked as their value's last read.
    pub last_read: [bool; SLOTS],
    pub dst: Option<u32>,
    /// Its destination starts a value (the descriptor's `dst_new`).
    pub dst_new: bool,
    /// Some lanes of the warp are not on this path.
    pub divergent: bool,
}

/// Counts the SM adds to the stage's own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenameEvents {
    /// Partial writes that kept their register.
    pub kept: u64,
    /// Values that died at a last read, were replaced unread (or read only on a diverged
    /// path), or outlived their warp.
    pub died_at_last_read: u64,
    pub died_replaced: u64,
    pub died_at_exit: u64,
    /// Most physical registers live at once.
    pub peak_live: u32,
}

pub struct RenameControl {
    layout: RenameLayout,
    registers: usize,
    /// Per (warp, register): the physical register of its live value.
    live: Vec<Option<u32>>,
    live_count: u32,
    /// Dead registers not yet released, oldest first.
    dead: VecDeque<u32>,
    /// Memory events of this cycle, for the stage's edge.
    events: RenameIn,
    latest_load: u32,
    sample_acc: u32,
    counts: RenameEvents,
    /// Seeded bug for the tests: a last read on a diverged path releases the register.
    #[cfg(test)]
    release_diverged: bool,
}

impl RenameControl {
    pub fn new(layout: &RenameLayout) -> Self {
        let registers = layout.registers as usize;
        RenameControl {
            live: vec![None; layout.warps as usize * registers],
            layout: layout.clone(),
            registers,
            live_count: 0,
            dead: VecDeque::new(),
            events: RenameIn::default(),
            latest_load: 0,
            sample_acc: 0,
            counts: RenameEvents::default(),
            #[cfg(test)]
            release_diverged: false,
        }
    }

    pub fn layout(&self) -> &RenameLayout {
        &self.layout
    }

    /// The statistics: the stage's (`stage`, its model) with the SM's and the MRF's TFET reads
    /// and writes.
    pub fn traffic(&self, stage: &Rename, tfet_reads: u64, tfet_writes: u64) -> RenameTraffic {
        let (s, e, l) = (stage.stats(), &self.counts, &self.layout);
        let (cmos_used, tfet_used) = stage.used();
        RenameTraffic {
            physical: l.phys,
            cmos: l.cmos,
            renames: s.renames,
            tfet_requests: s.tfet_requests,
            tfet_given: s.tfet_given,
            fallbacks: s.fallbacks,
            kept: e.kept,
            releases: s.releases,
            died_at_last_read: e.died_at_last_read,
            died_replaced: e.died_replaced,
            died_at_exit: e.died_at_exit,
            predictions: s.predictions,
            peak_live: e.peak_live,
            cmos_used,
            tfet_used,
            tfet_reads,
            tfet_writes,
        }
    }

    /// No memory event and no dead register for the stage at the next edge.
    pub fn at_rest(&self) -> bool {
        !self.events.mem_start_valid && !self.events.mem_done_valid && self.dead.is_empty()
    }

    /// `cycles` cycles at rest from cycle `from` on, each driving nothing: the latency sample
    /// is taken at the end of each [`SAMPLE_PERIOD`] among them, as [`RenameControl::drive`]
    /// takes it.
    pub fn rest(&mut self, from: u64, cycles: u64) {
        if (from + cycles) / SAMPLE_PERIOD > from / SAMPLE_PERIOD {
            self.sample_acc = self.latest_load;
        }
    }

    /// Every dead register has been released.
    pub fn idle(&self) -> bool {
        self.dead.is_empty()
    }

    fn at(&self, warp: u32, reg: u32) -> usize {
        warp as usize * self.registers + reg as usize
    }

    /// Whether warp `warp`'s next instruction, writing `dst` on lanes `partial`ly, starts a value
    /// (the descriptor's `dst_new`).
    pub fn dst_new(&self, warp: u32, dst: Option<u32>, partial: bool) -> bool {
        dst.is_some_and(|d| !(partial && self.live[self.at(warp, d)].is_some()))
    }

    /// The instruction issued this cycle, renamed by the stage as `look`.
    pub fn issue(&mut self, i: &Issued, look: &Lookup) -> Renamed {
        let src = std::array::from_fn(|k| i.src[k].and(look.src_phys[k]));
        #[cfg(test)]
        let divergent = i.divergent && !self.release_diverged;
        #[cfg(not(test))]
        let divergent = i.divergent;
        for k in (0..SLOTS).filter(|&k| i.last_read[k] && !divergent) {
            let at = i.src[k].map(|r| self.at(i.warp, r));
            if let Some(p) = at.and_then(|a| self.live[a].take()) {
                self.dead.push_back(p);
                self.counts.died_at_last_read += 1;
                self.live_count -= 1;
            }
        }
        let dst = i.dst.and(look.dst_phys);
        if let Some(d) = i.dst {
            debug_assert!(dst.is_some(), "the pipeline stalls new destinations while no register is free");
            let at = self.at(i.warp, d);
            if i.dst_new {
                if let Some(old) = self.live[at].take() {
                    self.dead.push_back(old);
                    self.counts.died_replaced += 1;
                    self.live_count -= 1;
                }
                self.live[at] = dst;
                self.live_count += u32::from(dst.is_some());
            } else {
                self.counts.kept += 1;
            }
        }
        self.counts.peak_live = self.counts.peak_live.max(self.live_count);
        Renamed { src, dst }
    }

    /// Warp `w` issued a global load.
    pub fn mem_start(&mut self, w: u32) {
        (self.events.mem_start_valid, self.events.mem_start_warp) = (true, w);
    }

    /// Warp `w`'s global load came back after `latency` cycles.
    pub fn mem_done(&mut self, w: u32, latency: u64) {
        (self.events.mem_done_valid, self.events.mem_done_warp) = (true, w);
        self.latest_load = latency.min(u64::from(u32::MAX)) as u32;
    }

    /// Warp `w` finished: its live values die.
    pub fn warp_finished(&mut self, w: u32) {
        let from = w as usize * self.registers;
        for v in &mut self.live[from..from + self.registers] {
            if let Some(p) = v.take() {
                self.dead.push_back(p);
                self.counts.died_at_exit += 1;
                self.live_count -= 1;
            }
        }
    }

    /// The stage's inputs (`into`) for the edge at the end of cycle `now`: this cycle's memory
    /// events, the sampled latency, and up to three dead registers no collector slot reads
    /// (`reading`), oldest first.
    pub fn drive(&mut self, now: u64, reading: impl Fn(u32) -> bool, into: &mut RenameIn) {
        let e = std::mem::take(&mut self.events);
        (into.mem_start_valid, into.mem_start_warp) = (e.mem_start_valid, e.mem_start_warp);
        (into.mem_done_valid, into.mem_done_warp) = (e.mem_done_valid, e.mem_done_warp);
        (into.rel_valid, into.rel_phys) = ([false; SLOTS], [0; SLOTS]);
        let mut slot = 0;
        let mut k = 0;
        while k < self.dead.len() && slot < SLOTS {
            let p = self.dead[k];
            if reading(p) {
                k += 1;
                continue;
            }
            self.dead.remove(k);
            (into.rel_valid[slot], into.rel_phys[slot]) = (true, p);
            slot += 1;
        }
        into.sample_acc = self.sample_acc;
        if (now + 1).is_multiple_of(SAMPLE_PERIOD) {
            self.sample_acc = self.latest_load;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::kernel::library;
    use crate::sm::Sm;

    fn run(kernel: &str, release_diverged: bool) -> crate::sm::SimStats {
        let c = rfgen_gen::config::parse("[rename]\nenabled = true\ncmos_rows = 256\n").unwrap();
        let k = library::find(kernel).unwrap().parse().unwrap();
        let mut sm = Sm::new(&c, &k).unwrap();
        sm.rename.as_mut().unwrap().release_diverged = release_diverged;
        sm.run(50_000_000, &mut |_| {}).unwrap();
        sm.stats().clone()
    }

    /// A value last read on a diverged path is still needed by the threads of the other path:
    /// releasing it there hands its register to another value before they read it, and the
    /// SM's operand check sees the wrong values.
    #[test]
    fn a_release_before_the_last_diverged_read_is_caught() {
        let right = run("bfs", false);
        assert_eq!(right.operand_mismatches, 0, "{:?}", right.mismatch_examples);
        let r = right.rename.as_ref().unwrap();
        assert_eq!(r.releases, r.renames, "every register is free again at the end");
        assert_eq!(r.died_at_last_read + r.died_replaced + r.died_at_exit, r.renames);
        let early = run("bfs", true);
        assert!(early.operand_mismatches > 0, "releasing at a diverged last read must corrupt operands");
    }
}
