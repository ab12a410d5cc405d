//! MRF stimulus that respects the port protocol: an offered instruction — and, where the MRF has
//! `wb_ready` (compressed, behind a register file cache, TFET rows), an offered write-back — is
//! held, unchanged, until the MRF accepts it. Random (seeded, for long runs) or scripted (for
//! proptest). Renamed, register ids are physical: any id below `physical_registers`, with any
//! warp.

use super::cache_events::CacheEvents;
use crate::blocks::bdi::Pattern;
use crate::glue::{MEAN_CYCLES_BETWEEN_RESETS, Stimulus};
use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rfgen_gen::layout::bdi::{Layout, Mode, ModeLayout};
use rfgen_gen::layout::orf::OrfLayout;
use rfgen_gen::{Checked, Geometry};
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::blocks::mrf::{MrfIn, MrfOut, lane_mask};

/// Probabilities of the random stimulus.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// A new instruction is offered when none is pending.
    pub issue: f64,
    /// Execution accepts an offered instruction.
    pub ready: f64,
    /// A write-back happens.
    pub writeback: f64,
    /// A write-back has a partial (divergent) lane mask.
    pub partial_mask: f64,
    /// A second or third source lands in the first source's bank group (a forced conflict).
    pub same_group: f64,
    /// A source lands in the hot bank group, one group for a run of instructions
    /// ([`HOT_RUN`]), so that slots of every collector wait on one arbiter together, in every
    /// combination and behind every pointer position.
    pub hot_group: f64,
    /// Weights of instructions with 0, 1, 2, 3 sources.
    pub sources: [u32; 4],
    /// A write-back carries kernel-shaped data ([`Pattern::random`]) rather than uniform words.
    pub kernel_values: f64,
    /// The compressed MRF's modes, for phases, every other one, in which every write-back is
    /// full-mask and fits a mode of at most 1, 2, … banks (in turn, phase by phase), long
    /// enough (16 writes per register) for bank groups to empty the banks above, which are then
    /// gated and woken again. Each mode of the phase comes up, so every range indicator sits
    /// beside an empty bank. None: no such phases.
    pub compressible_phases: Vec<ModeLayout>,
    /// Register file cache events: per cycle, the chance of an activation, a flush and a
    /// release (a register file cache only); per source and write-back, of a last read and a
    /// long-latency result.
    pub cache: Option<CacheKnobs>,
    /// Compressed MRF: per cycle, a warp is freed (its registers invalidated) — one with no
    /// write-back offered or on its way to the banks, as the port requires.
    pub free: f64,
    /// An ORF/LRF beside the MRF: sources read from it or filling it, strand starts, and
    /// write-backs to its levels, over every entry index the ports can name (absent ones too).
    pub orf: Option<OrfKnobs>,
    /// Per cycle, the MRF is reset (model and RTL together) before the cycle's inputs: the
    /// arbiters' pointers and every other reset value are met again by the traffic after it.
    pub reset: f64,
    /// A write-back goes to a source of the instruction offered last, which its collector may
    /// be reading now: the order of the bank reads and the writes then shows in the operands.
    pub write_a_source: f64,
}

#[derive(Clone, Debug)]
pub struct OrfKnobs {
    pub layout: OrfLayout,
    /// Per source: read from the ORF or LRF (half each); else, fill one from the MRF read.
    pub upper_read: f64,
    pub fill: f64,
    /// The instruction starts a strand.
    pub strand: f64,
    /// Per write-back: it writes the MRF; it writes the ORF or LRF (half each).
    pub wb_mrf: f64,
    pub wb_upper: f64,
    /// Slots per active warp: per cycle, a random warp loses its slot (`rel_mask`).
    pub release: f64,
}

impl OrfKnobs {
    pub fn new(layout: &OrfLayout) -> Self {
        OrfKnobs {
            layout: layout.clone(),
            upper_read: 0.45,
            fill: 0.3,
            strand: 0.05,
            wb_mrf: 0.75,
            wb_upper: 0.5,
            release: 0.05,
        }
    }
}

#[derive(Clone, Debug)]
pub struct CacheKnobs {
    pub activate: f64,
    pub flush: f64,
    pub release: f64,
    pub last_read: f64,
    pub long_latency: f64,
}

impl Default for CacheKnobs {
    fn default() -> Self {
        CacheKnobs { activate: 0.3, flush: 0.04, release: 0.01, last_read: 0.3, long_latency: 0.2 }
    }
}

impl Default for Knobs {
    fn default() -> Self {
        // Sources per instruction average ~1.9, near the 1.6 reads per instruction of
        // SPEC section 7 but a little above it, to keep the banks busy.
        Knobs {
            issue: 0.9,
            ready: 0.85,
            writeback: 0.6,
            partial_mask: 0.2,
            same_group: 0.25,
            hot_group: 0.0,
            sources: [1, 3, 4, 2],
            kernel_values: 0.0,
            compressible_phases: Vec::new(),
            cache: None,
            free: 0.0,
            orf: None,
            reset: 0.0,
            write_a_source: 0.0,
        }
    }
}

impl Knobs {
    /// For a compressed MRF: mostly compressible data, so registers get compressed and then
    /// partially overwritten (dummy MOVs), and banks empty and wake up.
    pub fn compressed(layout: &Layout) -> Self {
        Knobs { kernel_values: 0.85, compressible_phases: layout.modes.clone(), free: 0.01, ..Knobs::default() }
    }

    /// The knobs for a config's MRF: compressed data if compressed; with a register file cache,
    /// its events (the registers repeat often enough to hit).
    pub fn for_config(checked: &Checked) -> Self {
        let base = checked.compression.as_ref().map_or_else(Knobs::default, Knobs::compressed);
        Knobs {
            cache: checked.rfc.as_ref().map(|_| CacheKnobs::default()),
            // Behind a register file cache the write port's registers are the cache's, whose
            // warps the stimulus does not follow: no frees (kernel-driven runs cover them).
            free: if checked.rfc.is_some() { 0.0 } else { base.free },
            orf: checked.orf.as_ref().map(OrfKnobs::new),
            ..base
        }
    }
}

impl Knobs {
    /// Every even seed crowds the bank groups: three sources mostly, most of them in one group
    /// and half of them in the hot group, and execution slow to take what is collected — so
    /// every slot of both kinds of collector requests at once, behind every arbiter pointer
    /// (the arbiters' corners), and slots of different collectors meet in one arbiter. It also
    /// resets the MRF now and then, so that the first requests an arbiter sees after reset meet
    /// its reset pointer in many combinations; odd seeds keep their long histories unbroken.
    pub fn for_seed(self, seed: u64) -> Self {
        if seed % 2 == 1 {
            return self;
        }
        let reset = 1.0 / MEAN_CYCLES_BETWEEN_RESETS;
        Knobs { same_group: 0.7, hot_group: 0.5, sources: [0, 1, 3, 6], ready: 0.5, reset, write_a_source: 0.3, ..self }
    }
}

/// Instructions offered before the hot bank group moves on.
const HOT_RUN: u32 = 500;

pub struct RandomStimulus {
    rng: Xoshiro256PlusPlus,
    /// The hot bank group ([`Knobs::hot_group`]) and the instructions left before it moves.
    hot: u32,
    hot_left: u32,
    g: Geometry,
    knobs: Knobs,
    offering: bool,
    /// A write-back is offered and not taken yet.
    writing: bool,
    next_tag: u32,
    cache: CacheEvents,
    /// Rows per warp, the warps that have rows, and the register ids named: a register-limited
    /// MRF runs at a stride drawn per seed, with as many warps as its rows leave room for.
    stride: u32,
    warps: u32,
    regs: u32,
    /// Warps of the write-backs taken and not yet committed, oldest first (commits are in order).
    uncommitted: std::collections::VecDeque<u32>,
    pub resets: u64,
}

impl RandomStimulus {
    pub fn new(g: &Geometry, seed: u64, knobs: Knobs) -> Self {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let most = g.registers / g.groups;
        let stride = if g.register_limited { 1 + (rng.next_u32() % most) } else { g.rows_per_warp(g.registers) };
        let regs = if g.renamed { g.physical_registers() } else { (stride * g.groups).min(g.registers) };
        RandomStimulus {
            rng,
            hot: 0,
            hot_left: HOT_RUN,
            g: g.clone(),
            knobs,
            offering: false,
            writing: false,
            next_tag: 0,
            cache: CacheEvents::default(),
            stride,
            warps: g.resident_warps(regs.min(g.registers)),
            regs,
            uncommitted: Default::default(),
            resets: 0,
        }
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.rng.next_u32() as f64) < p * 4_294_967_296.0
    }

    fn below(&mut self, n: u32) -> u32 {
        ((self.rng.next_u32() as u64 * n as u64) >> 32) as u32
    }

    /// Offers an instruction of a warp outside `held` (warps waiting for a fill), if any.
    fn new_instruction(&mut self, inp: &mut MrfIn, held: u64) -> bool {
        let g = self.g.clone();
        let Some(warp) = self.pick(lane_mask(self.warps as usize) & !held) else { return false };
        inp.issue_warp = warp;
        let total: u32 = self.knobs.sources.iter().sum();
        let mut pick = self.below(total);
        let mut count = 0;
        while pick >= self.knobs.sources[count] {
            pick -= self.knobs.sources[count];
            count += 1;
        }
        let regs = self.regs;
        self.hot_left -= 1;
        if self.hot_left == 0 {
            (self.hot, self.hot_left) = ((self.hot + 1) % g.groups, HOT_RUN);
        }
        let first = self.below(regs);
        for s in 0..3 {
            inp.issue_src_valid[s] = s < count;
            inp.issue_src_reg[s] = if self.chance(self.knobs.hot_group) {
                // The lowest register of the warp in the hot group, plus a multiple of the
                // group count.
                let base = (0..g.groups).find(|&r| g.group(warp, r) == self.hot).unwrap_or(0);
                base + g.groups * self.below(regs / g.groups)
            } else if s == 0 {
                first
            } else if self.chance(self.knobs.same_group) {
                // Same group: offset by a multiple of the group count.
                (first + g.groups * self.below(regs / g.groups)) % regs
            } else {
                self.below(regs)
            };
        }
        inp.issue_tag = self.next_tag;
        self.next_tag = (self.next_tag + 1) & ((1u64 << g.tag_bits) - 1) as u32;
        if let Some(c) = self.knobs.cache.clone() {
            inp.issue_src_last = std::array::from_fn(|_| self.chance(c.last_read));
        }
        if let Some(o) = self.knobs.orf.clone() {
            let entries = 1 << o.layout.entry_bits();
            for s in 0..3 {
                inp.issue_src_level[s] = if self.chance(o.upper_read) { 1 + self.below(2) as u8 } else { 0 };
                inp.issue_src_fill[s] = if self.chance(o.fill) { 1 + self.below(2) as u8 } else { 0 };
                inp.issue_src_entry[s] = self.below(entries);
            }
            inp.issue_strand = self.chance(o.strand);
        }
        true
    }

    /// Sometimes (`always`: whenever it can) frees a warp with no write-back offered, taken at
    /// this edge or uncommitted; then follows this edge's commit.
    fn free(&mut self, out: &MrfOut, inp: &mut MrfIn, always: bool) {
        inp.free_valid = false;
        if self.knobs.free == 0.0 {
            return;
        }
        let mut busy = self.uncommitted.iter().fold(0u64, |m, &w| m | 1 << w);
        if inp.wb_valid {
            busy |= 1 << inp.wb_warp;
        }
        if (always || self.chance(self.knobs.free))
            && let Some(w) = self.pick(lane_mask(self.warps as usize) & !busy)
        {
            (inp.free_valid, inp.free_warp) = (true, w);
        }
        if out.wb_commit {
            self.uncommitted.pop_front();
        }
    }

    /// A random warp of `among` (bit per warp), if any.
    fn pick(&mut self, among: u64) -> Option<u32> {
        let n = among.count_ones();
        (n > 0).then(|| {
            let mut k = self.below(n);
            let mut m = among;
            while k > 0 {
                m &= m - 1;
                k -= 1;
            }
            m.trailing_zeros()
        })
    }
}

impl Stimulus<Mrf> for RandomStimulus {
    /// A reset drops the offered instruction and write-back (the MRF's inputs are 0 while it
    /// resets) and everything in flight, the cache's slots with them.
    fn reset_now(&mut self) -> bool {
        // Drawn only where the knob is on: the other seeds' streams stay as they were.
        if self.knobs.reset == 0.0 || !self.chance(self.knobs.reset) {
            return false;
        }
        (self.offering, self.writing, self.cache) = (false, false, CacheEvents::default());
        self.uncommitted.clear();
        self.resets += 1;
        true
    }

    fn next(&mut self, cycle: u64, out: &MrfOut, inp: &mut MrfIn) {
        inp.rows_per_warp = self.stride;
        if !self.offering && self.chance(self.knobs.issue) {
            self.offering = self.new_instruction(inp, out.fill_busy);
        }
        inp.issue_valid = self.offering;
        if self.offering && out.issue_ready {
            self.offering = false; // accepted at this edge
        }
        inp.disp_ready = self.chance(self.knobs.ready);
        let phase_cycles = 16 * (self.warps * self.regs) as u64;
        let phase = cycle / phase_cycles;
        let compressible = !self.knobs.compressible_phases.is_empty() && phase % 2 == 1;
        // A compressible phase starts with every warp freed and nothing written for a while: each
        // bank group empties, so its first bank (every register has a chunk there) is gated and
        // the phase's first write to the group wakes it.
        let emptying = compressible && cycle % phase_cycles < 8 * u64::from(self.warps);
        if !self.writing && !emptying && self.chance(self.knobs.writeback) {
            self.writing = true;
            if let Some(o) = self.knobs.orf.clone() {
                inp.wb_mrf = self.chance(o.wb_mrf);
                inp.wb_upper = if self.chance(o.wb_upper) { 1 + self.below(2) as u8 } else { 0 };
                inp.wb_entry = self.below(1 << o.layout.entry_bits());
            }
            let sources: Vec<u32> = (0..3).filter(|&s| inp.issue_src_valid[s]).map(|s| inp.issue_src_reg[s]).collect();
            // Drawn only where the knob is on: the other seeds' streams stay as they were.
            if self.knobs.write_a_source > 0.0 && !sources.is_empty() && self.chance(self.knobs.write_a_source) {
                inp.wb_warp = inp.issue_warp;
                inp.wb_reg = sources[self.below(sources.len() as u32) as usize];
            } else {
                inp.wb_warp = self.below(self.warps);
                inp.wb_reg = self.below(self.regs);
            }
            let all = lane_mask(self.g.lanes as usize);
            inp.wb_mask = if self.chance(self.knobs.partial_mask) { self.rng.next_u64() & all } else { all };
            if compressible {
                let modes = &self.knobs.compressible_phases;
                inp.wb_mask = all;
                let (narrowest, widest) =
                    modes.iter().fold((u32::MAX, 0), |(lo, hi), m| (lo.min(m.banks), hi.max(m.banks)));
                let banks = narrowest + (phase / 2) as u32 % (widest - narrowest + 1);
                let fit: Vec<Mode> = modes.iter().filter(|m| m.banks <= banks).map(|m| m.mode).collect();
                let mode = fit[self.below(fit.len() as u32) as usize];
                let rng = &mut self.rng;
                Pattern::fitting(mode, || rng.next_u64()).fill(&mut inp.wb_data);
            } else if self.knobs.kernel_values > 0.0 && self.chance(self.knobs.kernel_values) {
                // A fifth of them one bit off fitting, at any bit of any value.
                let (lanes, flipped) = (self.g.lanes, self.chance(0.2));
                let rng = &mut self.rng;
                let draw = || rng.next_u64();
                if flipped { Pattern::flipped(lanes, draw) } else { Pattern::random(lanes, draw) }
                    .fill(&mut inp.wb_data);
            } else {
                for pair in inp.wb_data.chunks_mut(2) {
                    let r = self.rng.next_u64();
                    pair[0] = r as u32;
                    if let Some(w) = pair.get_mut(1) {
                        *w = (r >> 32) as u32;
                    }
                }
            }
        }
        inp.wb_valid = self.writing;
        if self.writing && out.wb_ready {
            self.writing = false; // taken at this edge
            if self.knobs.free > 0.0 {
                self.uncommitted.push_back(inp.wb_warp);
            }
        }
        self.free(out, inp, emptying);
        if let Some(c) = self.knobs.cache.clone() {
            if !inp.wb_valid || out.wb_ready {
                inp.wb_long = self.chance(c.long_latency);
            }
            let all = lane_mask(self.warps as usize);
            let act = if self.chance(c.activate) { self.pick(all & !self.cache.owns()) } else { None };
            let flush = if self.chance(c.flush) { self.pick(self.cache.settled()) } else { None };
            let release =
                if self.chance(c.release) { self.pick(self.cache.settled()).map_or(0, |w| 1 << w) } else { 0 };
            self.cache.next(act, flush, release, out, inp);
        }
        if let Some(o) = self.knobs.orf.as_ref().filter(|o| o.layout.mapped) {
            let release = self.chance(o.release);
            inp.rel_mask = if release { 1 << self.below(self.warps) } else { 0 };
        }
    }
}

/// An instruction of a script: warp, up to three source registers, tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptInstr {
    pub warp: u32,
    pub srcs: [Option<u32>; 3],
    pub tag: u32,
}

/// A write-back of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptWb {
    pub warp: u32,
    pub reg: u32,
    pub mask: u64,
    pub data: Pattern,
}

/// What the environment does in one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptCycle {
    /// Offer the next instruction of the script if none is being offered.
    pub offer: bool,
    pub ready: bool,
    /// Offer this write-back, unless an earlier one is still waiting for `wb_ready` (then
    /// this one is skipped).
    pub wb: Option<ScriptWb>,
    /// Register file cache events of the cycle (ignored without a cache).
    pub cache: ScriptCache,
}

/// What a script asks of a register file cache in one cycle; requests the protocol does not
/// allow now ([`CacheEvents`]) are dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScriptCache {
    pub act: Option<u32>,
    pub flush: Option<u32>,
    /// Warps to release.
    pub release: u64,
    /// Last-read bits of the instruction offered, and whether the write-back is long-latency.
    pub last: [bool; 3],
    pub long: bool,
}

/// A finite stimulus: instructions are offered in order; one entry of `cycles` per cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    pub instrs: Vec<ScriptInstr>,
    pub cycles: Vec<ScriptCycle>,
}

pub struct ScriptedStimulus {
    script: Script,
    next_instr: usize,
    offering: bool,
    writing: bool,
    cycle: usize,
    cache: CacheEvents,
}

impl ScriptedStimulus {
    pub fn new(script: Script) -> Self {
        ScriptedStimulus {
            script,
            next_instr: 0,
            offering: false,
            writing: false,
            cycle: 0,
            cache: CacheEvents::default(),
        }
    }
}

impl Stimulus<Mrf> for ScriptedStimulus {
    fn next(&mut self, cycle: u64, out: &MrfOut, inp: &mut MrfIn) {
        self.cycle = cycle as usize + 1;
        let Some(act) = self.script.cycles.get(cycle as usize) else {
            inp.issue_valid = false;
            inp.wb_valid = self.writing;
            self.writing &= !out.wb_ready;
            return;
        };
        let c = &act.cache;
        self.cache.next(c.act, c.flush, c.release, out, inp);
        if !self.offering && act.offer && self.next_instr < self.script.instrs.len() {
            inp.issue_src_last = c.last;
            let ins = &self.script.instrs[self.next_instr];
            self.next_instr += 1;
            inp.issue_warp = ins.warp;
            inp.issue_tag = ins.tag;
            for s in 0..3 {
                inp.issue_src_valid[s] = ins.srcs[s].is_some();
                inp.issue_src_reg[s] = ins.srcs[s].unwrap_or(0);
            }
            self.offering = true;
        }
        inp.issue_valid = self.offering;
        if self.offering && out.issue_ready {
            self.offering = false;
        }
        inp.disp_ready = act.ready;
        if let (false, Some(wb)) = (self.writing, &act.wb) {
            self.writing = true;
            inp.wb_long = act.cache.long;
            inp.wb_warp = wb.warp;
            inp.wb_reg = wb.reg;
            inp.wb_mask = wb.mask & lane_mask(inp.wb_data.len());
            wb.data.fill(&mut inp.wb_data);
        }
        inp.wb_valid = self.writing;
        self.writing &= !out.wb_ready;
    }

    fn done(&self) -> bool {
        self.cycle >= self.script.cycles.len()
    }
}
