//! Golden model of the rename stage (generated `<prefix>_rename`; seed 003 §4.1, SPEC §5,
//! docs/rename.md): the rename table, the CMOS and TFET free lists, and MEM_RA's per-warp
//! counters.
//!
//! # Structure (one struct per generated module)
//! - **Rename table**: per (warp, architectural register), the physical register holding its
//!   value (`P = G × rows` physical warp registers, `p` in bank group `p mod G`, row `p / G`).
//!   Not reset: an entry is read only after its register was written.
//! - Two **free lists** ([`FreeList`]), CMOS (`0 .. C`, the rows below `rename.cmos_rows`) and
//!   TFET (`C .. P`): a FIFO of released registers and a counter of registers never handed out
//!   yet. The head of the FIFO is handed out first, then the counter's next; released registers
//!   join the FIFO's tail. After reset every register is free and the FIFOs are empty.
//! - **MEM_RA counters**, 11 bits per warp, with a counting bit.
//!
//! # One cycle
//! Within the cycle, from the state and this cycle's inputs ([`Rename::lookup`]):
//! - each source's physical register is the table's entry for (`ren_warp`, its register);
//! - the destination *requests* a TFET register when its warp's counter is above 1, the warp's
//!   counter is not counting and it is not a load (`ren_dst_load`); a CMOS one otherwise. It gets
//!   the head of the requested kind's list, or the other kind's when that one is empty;
//!   `ren_dst_phys` is that register with `ren_dst_new`, else the table's current entry.
//!
//! Outputs from the state: `ren_ready` (some register free), `tfet_hint` (counter above 0 and not
//! counting: TRWS issues these warps first), the free counts.
//!
//! At the clock edge, all from the state before it:
//! 1. **Rename**: with `ren_valid`, `ren_dst_new` and a register free, the chosen register leaves
//!    its list and becomes the table's entry for (`ren_warp`, `ren_dst_reg`). A TFET register
//!    given on request takes 2 from the warp's counter (at least 0).
//! 2. **Releases**: each valid `rel_phys`, in slot order, joins the tail of its kind's FIFO (a
//!    register released at this edge is handed out from the next one).
//! 3. **Counters**: a counting warp's counter adds 1 (saturating at 2047); `mem_done` writes
//!    Eq. (1)'s predicted stall from the counter and `sample_acc` and stops counting;
//!    `mem_start` restarts it from 0, counting (it wins over `mem_done` for the same warp).
//!    With `timing.rename_registered_prediction` a completion instead stops the count and holds
//!    the counter, and (unless the warp restarts at the same edge) records the warp, its counter
//!    and `sample_acc`; two edges later the record writes Eq. (1)'s prediction into that warp's
//!    counter, over anything but a start of the warp — a start at the edge between drops it.
//!
//! Protocol: a released register is one the table handed out and not released since; the SM
//! renames a new destination only with `ren_ready`. Reset frees every register and stops every
//! counter at 0; the table keeps its contents.

use crate::block::Block;
use rfgen_gen::layout::geometry::SLOTS_PER_COLLECTOR;
use rfgen_gen::layout::rename::{COUNTER_MAX, RenameLayout};

const SLOTS: usize = SLOTS_PER_COLLECTOR as usize;
/// With `timing.rename_registered_prediction`, the edges from a completion to its prediction.
const PREDICTION_EDGES: usize = 2;

/// Inputs of one cycle: one field per input port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenameIn {
    pub ren_valid: bool,
    pub ren_warp: u32,
    pub ren_src_reg: [u32; SLOTS],
    pub ren_dst_new: bool,
    pub ren_dst_reg: u32,
    pub ren_dst_load: bool,
    pub rel_valid: [bool; SLOTS],
    pub rel_phys: [u32; SLOTS],
    pub mem_start_valid: bool,
    pub mem_start_warp: u32,
    pub mem_done_valid: bool,
    pub mem_done_warp: u32,
    pub sample_acc: u32,
}

/// Outputs from the state, and (not ports) what a driver needs to know which register a new
/// destination gets: each list's next register and the warps that would request TFET.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenameOut {
    pub ren_ready: bool,
    pub tfet_hint: u64,
    pub cmos_free: u32,
    pub tfet_free: u32,
    pub next_cmos: Option<u32>,
    pub next_tfet: Option<u32>,
    /// Warps whose next non-load destination requests a TFET register.
    pub requesting: u64,
}

impl RenameOut {
    /// The register a new destination of `warp` gets (the lookup's rule, from these outputs).
    pub fn next_for(&self, warp: u32, load: bool) -> Option<u32> {
        pick(!load && self.requesting >> warp & 1 == 1, self.next_cmos, self.next_tfet)
    }
}

/// The requested kind's next register, else the other kind's.
fn pick(tfet_first: bool, cmos: Option<u32>, tfet: Option<u32>) -> Option<u32> {
    if tfet_first { tfet.or(cmos) } else { cmos.or(tfet) }
}

/// What the stage decides within the cycle from its inputs: physical registers (None where the
/// table's entry was never written, undefined in the RTL) and the destination's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookup {
    pub src_phys: [Option<u32>; SLOTS],
    pub dst_phys: Option<u32>,
    pub dst_tfet: bool,
    /// The destination requested a TFET register.
    pub requested_tfet: bool,
}

/// One kind's free registers: ids `base .. base + n`.
#[derive(Clone, Debug)]
pub struct FreeList {
    base: u32,
    n: u32,
    /// Next id never handed out.
    fresh: u32,
    fifo: Vec<u32>,
    head: usize,
    count: usize,
}

impl FreeList {
    pub fn new(base: u32, n: u32) -> Self {
        FreeList { base, n, fresh: base, fifo: vec![0; n as usize], head: 0, count: 0 }
    }

    pub fn reset(&mut self) {
        (self.fresh, self.head, self.count) = (self.base, 0, 0);
    }

    /// The register handed out next.
    pub fn peek(&self) -> Option<u32> {
        if self.count > 0 {
            Some(self.fifo[self.head])
        } else {
            (self.fresh < self.base + self.n).then_some(self.fresh)
        }
    }

    fn pop(&mut self) {
        if self.count > 0 {
            self.head = (self.head + 1) % self.fifo.len();
            self.count -= 1;
        } else {
            self.fresh += 1;
        }
    }

    fn push(&mut self, id: u32) {
        let n = self.fifo.len();
        self.fifo[(self.head + self.count) % n] = id;
        self.count += 1;
    }

    pub fn free(&self) -> u32 {
        self.count as u32 + self.base + self.n - self.fresh
    }

    /// Registers ever handed out: the FIFO recycles released ones first, so this is the most
    /// of this kind ever in use at once.
    pub fn used(&self) -> u32 {
        self.fresh - self.base
    }
}

/// Event counts since construction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenameStats {
    pub renames: u64,
    pub tfet_requests: u64,
    pub tfet_given: u64,
    /// Requests served by the other kind (its list empty).
    pub fallbacks: u64,
    /// New destinations offered with no register free.
    pub stalls: u64,
    pub releases: u64,
    pub predictions: u64,
}

#[derive(Clone, Debug)]
pub struct Rename {
    layout: RenameLayout,
    table: Vec<u32>,
    known: Vec<bool>,
    cmos: FreeList,
    tfet: FreeList,
    counter: Vec<u32>,
    counting: u64,
    /// From the counters after each edge (the outputs are read several times a cycle): warps
    /// not counting with a count above 0 (`tfet_hint`), and above 1 (`requesting`).
    hint: u64,
    requesting: u64,
    /// With `registered_prediction`: the completions (warp, counted latency, sampled latency)
    /// of the last edge and of the one before, whose predictions are written two edges after.
    completions: [Option<(u32, u32, u32)>; PREDICTION_EDGES],
    stats: RenameStats,
}

impl Rename {
    pub fn new(layout: &RenameLayout) -> Self {
        let entries = (layout.warps * layout.registers) as usize;
        Rename {
            layout: layout.clone(),
            table: vec![0; entries],
            known: vec![false; entries],
            cmos: FreeList::new(0, layout.cmos),
            tfet: FreeList::new(layout.cmos, layout.tfet()),
            counter: vec![0; layout.warps as usize],
            counting: 0,
            hint: 0,
            requesting: 0,
            completions: [None; PREDICTION_EDGES],
            stats: RenameStats::default(),
        }
    }

    /// The stage a config describes.
    pub fn for_config(c: &rfgen_gen::Checked) -> Self {
        Rename::new(&RenameLayout::new(&c.geometry, &c.config.rename, &c.config.timing))
    }

    pub fn layout(&self) -> &RenameLayout {
        &self.layout
    }

    pub fn stats(&self) -> &RenameStats {
        &self.stats
    }

    /// CMOS and TFET registers ever handed out.
    pub fn used(&self) -> (u32, u32) {
        (self.cmos.used(), self.tfet.used())
    }

    fn entry(&self, warp: u32, reg: u32) -> usize {
        (warp * self.layout.registers + reg) as usize
    }

    /// The warp's destination would request a TFET register.
    fn requests_tfet(&self, warp: u32, load: bool) -> bool {
        self.counter[warp as usize] > 1 && self.counting >> warp & 1 == 0 && !load
    }

    /// The register a new destination of `warp` gets, and its kind (TFET: true).
    fn choose(&self, warp: u32, load: bool) -> Option<(u32, bool)> {
        pick(self.requests_tfet(warp, load), self.cmos.peek(), self.tfet.peek()).map(|p| (p, self.layout.is_tfet(p)))
    }

    /// This cycle's table reads and allocation (see the module documentation).
    pub fn lookup(&self, i: &RenameIn) -> Lookup {
        let read = |reg: u32| {
            let e = self.entry(i.ren_warp, reg);
            self.known[e].then_some(self.table[e])
        };
        let (dst_phys, dst_tfet) = if i.ren_dst_new {
            match self.choose(i.ren_warp, i.ren_dst_load) {
                Some((p, tfet)) => (Some(p), tfet),
                None => (None, false),
            }
        } else {
            let p = read(i.ren_dst_reg);
            (p, p.is_some_and(|p| self.layout.is_tfet(p)))
        };
        Lookup {
            src_phys: i.ren_src_reg.map(read),
            dst_phys,
            dst_tfet,
            requested_tfet: self.requests_tfet(i.ren_warp, i.ren_dst_load),
        }
    }
}

/// What the SM needs of its rename stage: its ports, this cycle's lookup and its counts. The
/// model is one; the cosim's lockstep adapter around it is another.
pub trait RenameBlock: 'static + Block<In = RenameIn> + for<'a> Block<Out<'a> = RenameOut> {
    /// The stage's golden model (its lookup, statistics and shape).
    fn golden(&self) -> &Rename;
}

impl RenameBlock for Rename {
    fn golden(&self) -> &Rename {
        self
    }
}

impl Block for Rename {
    type In = RenameIn;
    type Out<'a> = RenameOut;

    fn reset(&mut self) {
        self.cmos.reset();
        self.tfet.reset();
        self.counter.fill(0);
        self.counting = 0;
        self.completions = [None; PREDICTION_EDGES];
        (self.hint, self.requesting) = (0, 0);
    }

    fn outputs(&self) -> RenameOut {
        let (cmos_free, tfet_free) = (self.cmos.free(), self.tfet.free());
        RenameOut {
            ren_ready: cmos_free + tfet_free > 0,
            tfet_hint: self.hint,
            cmos_free,
            tfet_free,
            next_cmos: self.cmos.peek(),
            next_tfet: self.tfet.peek(),
            requesting: self.requesting,
        }
    }

    fn tick(&mut self, i: &RenameIn) {
        let choice = (i.ren_valid && i.ren_dst_new).then(|| self.choose(i.ren_warp, i.ren_dst_load));
        let requested = self.requests_tfet(i.ren_warp, i.ren_dst_load);
        let done_prev = self.counter.get(i.mem_done_warp as usize).copied().unwrap_or(0);
        // 1. Rename (the lists' heads before the edge).
        let mut took_tfet = false;
        match choice {
            Some(Some((p, tfet))) => {
                if tfet {
                    self.tfet.pop()
                } else {
                    self.cmos.pop()
                }
                let e = self.entry(i.ren_warp, i.ren_dst_reg);
                (self.table[e], self.known[e]) = (p, true);
                let st = &mut self.stats;
                st.renames += 1;
                st.tfet_requests += u64::from(requested);
                st.tfet_given += u64::from(tfet);
                st.fallbacks += u64::from(requested != tfet);
                took_tfet = requested && tfet;
            }
            Some(None) => self.stats.stalls += 1,
            None => {}
        }
        // 2. Releases, at the lists' tails.
        for s in (0..SLOTS).filter(|&s| i.rel_valid[s]) {
            let p = i.rel_phys[s];
            if self.layout.is_tfet(p) {
                self.tfet.push(p)
            } else {
                self.cmos.push(p)
            }
            self.stats.releases += 1;
        }
        // 3. Counters.
        for w in 0..self.layout.warps as usize {
            let c = &mut self.counter[w];
            if self.counting >> w & 1 == 1 {
                *c = (*c + 1).min(COUNTER_MAX);
            } else if took_tfet && w as u32 == i.ren_warp {
                *c = c.saturating_sub(2);
            }
        }
        // Completions on their way to a prediction move one edge on; a start drops its warp's.
        let restarts = |w: u32| i.mem_start_valid && i.mem_start_warp == w;
        let [recent, landing] = std::mem::take(&mut self.completions);
        self.completions[1] = recent.filter(|&(w, ..)| !restarts(w));
        if i.mem_done_valid {
            let w = i.mem_done_warp as usize;
            self.counter[w] = if self.layout.registered_prediction {
                self.completions[0] =
                    (!restarts(i.mem_done_warp)).then_some((i.mem_done_warp, done_prev, i.sample_acc));
                done_prev
            } else {
                self.layout.predicted_stall(done_prev, i.sample_acc).min(COUNTER_MAX)
            };
            self.counting &= !(1 << w);
            self.stats.predictions += 1;
        }
        if let Some((w, prev, sample)) = landing {
            self.counter[w as usize] = self.layout.predicted_stall(prev, sample).min(COUNTER_MAX);
        }
        if i.mem_start_valid {
            let w = i.mem_start_warp as usize;
            self.counter[w] = 0;
            self.counting |= 1 << w;
        }
        // One branch-free pass: warps not counting with a count above 0 are hinted, above 1
        // request TFET registers (`requests_tfet` for a non-load). A rest moves only the
        // counting warps' counters, which neither mask shows.
        let (mut hint, mut requesting) = (0u64, 0u64);
        for (w, &c) in self.counter.iter().enumerate() {
            hint |= u64::from(c > 0) << w;
            requesting |= u64::from(c > 1) << w;
        }
        (self.hint, self.requesting) = (hint & !self.counting, requesting & !self.counting);
    }

    /// Nothing renamed, released, started or completed, and no prediction on its way: only the
    /// counters of warps waiting for memory move, and no output shows them while they count.
    fn at_rest(&self, i: &RenameIn) -> bool {
        let events = i.ren_valid || i.mem_done_valid || i.mem_start_valid || i.rel_valid.contains(&true);
        !events && self.completions.iter().all(Option::is_none)
    }

    fn rest(&mut self, edges: u64) {
        for (w, c) in self.counter.iter_mut().enumerate() {
            if self.counting >> w & 1 == 1 {
                *c = (u64::from(*c) + edges).min(u64::from(COUNTER_MAX)) as u32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2 warps × 4 registers over 2 groups × 4 rows: 8 physical registers, rows 0–2 CMOS (ids
    /// 0–5), row 3 TFET (ids 6–7); thr_acc 10, ref_acc 128.
    fn stage() -> Rename {
        let text = "[sm]\nwarps = 2\nlanes = 4\nclusters = 1\nregisters_per_thread = 4\n[mrf]\nbanks = 2\nentries = 4\n[rename]\ncmos_rows = 3\n";
        let c = rfgen_gen::config::parse(text).unwrap();
        Rename::new(&RenameLayout::new(&c.geometry, &c.config.rename, &c.config.timing))
    }

    fn rename(r: &mut Rename, warp: u32, reg: u32, load: bool) -> Option<u32> {
        let i = RenameIn {
            ren_valid: true,
            ren_warp: warp,
            ren_dst_new: true,
            ren_dst_reg: reg,
            ren_dst_load: load,
            ..Default::default()
        };
        let p = r.lookup(&i).dst_phys;
        r.tick(&i);
        p
    }

    /// A completion's prediction (here 0: 5 cycles counted, under `thr_acc`) lands at once, or
    /// two edges later with `timing.rename_registered_prediction`, the counter held till then.
    #[test]
    fn a_registered_prediction_lands_two_edges_later() {
        let requesting = |registered: bool| -> Vec<bool> {
            let text = format!(
                "[sm]\nwarps = 2\nlanes = 4\nclusters = 1\nregisters_per_thread = 4\n[mrf]\nbanks = 2\nentries = 4\n\
                 [rename]\ncmos_rows = 3\n[timing]\nrename_registered_prediction = {registered}\n"
            );
            let c = rfgen_gen::config::parse(&text).unwrap();
            let mut r = Rename::for_config(&c);
            r.tick(&RenameIn { mem_start_valid: true, mem_start_warp: 1, ..Default::default() });
            for _ in 0..5 {
                r.tick(&RenameIn::default());
            }
            r.tick(&RenameIn { mem_done_valid: true, mem_done_warp: 1, sample_acc: 256, ..Default::default() });
            (0..3)
                .map(|_| {
                    let wants = r.outputs().requesting >> 1 & 1 == 1;
                    r.tick(&RenameIn::default());
                    wants
                })
                .collect()
        };
        assert_eq!(requesting(false), [false, false, false]);
        assert_eq!(requesting(true), [true, true, false], "the counted 5 held for two cycles");
    }

    #[test]
    fn eq1_predicts_the_stall() {
        let r = stage();
        let l = r.layout();
        assert_eq!(l.predicted_stall(10, 500), 0, "no wait beyond the threshold");
        assert_eq!(l.predicted_stall(100, 64), (64 * 90) >> 7, "a light load scales the wait down");
        assert_eq!(l.predicted_stall(100, 128), 90, "a heavy load keeps all of it");
    }

    #[test]
    fn free_lists_hand_out_fresh_then_released_and_fall_back() {
        let mut r = stage();
        // CMOS first, in id order, then TFET once the CMOS registers are gone.
        let got: Vec<u32> = (0..8).map(|k| rename(&mut r, k / 4, k % 4, false).unwrap()).collect();
        assert_eq!(got, [0, 1, 2, 3, 4, 5, 6, 7]);
        assert!(!r.outputs().ren_ready);
        assert_eq!(rename(&mut r, 0, 0, false), None, "none free: nothing renamed");
        assert_eq!(r.stats().stalls, 1);
        // Released registers come back in release order.
        let release = RenameIn { rel_valid: [true, true, false], rel_phys: [4, 1, 0], ..Default::default() };
        r.tick(&release);
        assert_eq!((r.outputs().cmos_free, r.outputs().tfet_free), (2, 0));
        assert_eq!(rename(&mut r, 1, 0, false), Some(4));
        assert_eq!(rename(&mut r, 1, 1, false), Some(1));
    }

    #[test]
    fn mem_ra_counts_predicts_and_spends() {
        let mut r = stage();
        let start = RenameIn { mem_start_valid: true, mem_start_warp: 1, ..Default::default() };
        r.tick(&start);
        for _ in 0..40 {
            r.tick(&RenameIn::default());
        }
        assert_eq!(r.outputs().tfet_hint, 0, "no hint while counting");
        let done = RenameIn { mem_done_valid: true, mem_done_warp: 1, sample_acc: 256, ..Default::default() };
        r.tick(&done);
        // 40 cycles counted, 30 beyond thr_acc, sampled latency above ref_acc: 30.
        assert_eq!(r.outputs().tfet_hint, 0b10);
        assert_eq!(rename(&mut r, 1, 0, true), Some(0), "a load never asks for TFET");
        assert_eq!(rename(&mut r, 1, 1, false), Some(6), "a non-load does while the counter is above 1");
        assert_eq!(rename(&mut r, 0, 0, false), Some(1), "another warp does not");
        assert_eq!(r.stats().tfet_requests, 1);
        // 30 - 2 per TFET register given on request.
        let mut tfet = 1;
        for k in 0..20 {
            if rename(&mut r, 1, (k % 2) + 2, false).is_some_and(|p| p >= 6) {
                tfet += 1;
            }
        }
        assert_eq!(tfet, 2, "only two TFET registers exist; the rest fall back to CMOS");
        assert!(r.stats().fallbacks > 0);
    }
}
