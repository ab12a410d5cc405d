//! The whole-SM golden cycle model: warp slots, the issue stage block (scoreboard, warpboard,
//! warp scheduler — the model `rfgen cosim --block issue` checks), the MRF block model (operand
//! collectors and banks — the very model `rfgen cosim --block mrf` checks against the RTL),
//! execution units, memory and write-back, driven by a kernel.
//!
//! # One cycle, in order (all decisions from the state at the start of the cycle)
//! 1. **Write-back**: completed instructions leave their unit queues, oldest first; one result
//!    per cycle uses the MRF write port (register write with the instruction's active mask);
//!    predicate results need no port.
//! 2. **Dispatch**: the MRF's offered instruction is taken if its unit is free; each source
//!    operand it delivers is checked, lane by active lane, against the functional value.
//! 3. **Issue**: the issue stage decides from each warp's next instruction (no pending
//!    register or predicate, no WAR block, not at a barrier, a free collector unless it is a
//!    branch, exit or barrier) and its scheduler grants one warp (`model::blocks::issue`).
//!    Issuing executes the instruction functionally.
//! 4. The MRF model ticks with the write-back, dispatch and issue inputs.
//! 5. Completions and finished warps and blocks (new blocks launch into the lowest free
//!    slots); the issue stage's edge — the granted instruction's reservations, this cycle's
//!    releases (visible to issue next cycle) and launches; then the descriptors of the warps
//!    whose next instruction changed.

pub mod gpu;
pub mod orf_control;
pub mod rename_control;
pub mod stats;
pub mod units;

use crate::block::Block as _;
use crate::blocks::issue::{Issue, IssueBlock, Next, NextFields};
use crate::blocks::mrf::{Mrf, MrfBlock, lane_mask};
use crate::blocks::rename::RenameBlock;
use crate::blocks::sm_rf::{Handshake, NextRead, SmRf, SmRfBlock, SmRfIn};
use crate::func::barrier::BlockBarrier;
use crate::func::{self, ExecError, GlobalMemory, Values, Warp};
use crate::kernel::{Kernel, Op, Src, Unit};
use orf_control::OrfControl;
use rename_control::{Issued, RenameControl};
use rfgen_gen::Checked;
use rfgen_gen::layout::rename::RenameLayout;
pub use stats::SimStats;
use stats::{Occupancy, OperandMismatch, Stall, ValueLife};
use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;
use units::Units;

/// Why a simulation stopped without finishing the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// The kernel does not fit the configuration.
    DoesNotFit(String),
    /// The kernel faulted (misaligned access, ...).
    Exec(ExecError),
    /// The cycle limit was reached.
    CycleLimit(u64),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::DoesNotFit(m) => f.write_str(m),
            SimError::Exec(e) => write!(f, "kernel fault at {e}"),
            SimError::CycleLimit(c) => write!(f, "the kernel did not finish within {c} cycles (raise --max-cycles)"),
        }
    }
}

impl std::error::Error for SimError {}

struct Slot {
    warp: Option<Warp>,
    block: usize,
    at_barrier: bool,
    /// Issued instructions not yet completed, and those of them still in operand collectors.
    inflight: u32,
    collecting: u32,
    full_mask: u64,
    issued: u64,
}

/// A rest ([`Sm::at_rest`]): the cycles from `from` until before `until` repeat the one that
/// started it, whose issue slot went to `cause`; `cycles` of them have passed.
struct Rest {
    from: u64,
    until: u64,
    cycles: u64,
    cause: Stall,
}

struct Block {
    shared: Vec<u32>,
    slots: Vec<usize>,
    /// Warps not finished / waiting at the barrier.
    live: u32,
    arrived: u32,
    /// Whether every warp reaches the barrier (docs/ptx.md, *Faults*).
    barrier: BlockBarrier,
}

/// What the SMs of one run share: global memory, the DRAM channel (free from this cycle on) and
/// the next block to launch.
pub struct Shared {
    global: RefCell<GlobalMemory>,
    dram_free: Cell<u64>,
    next_block: Cell<u32>,
}

impl Shared {
    pub fn new(k: &Kernel) -> Rc<Shared> {
        Rc::new(Shared {
            global: RefCell::new(func::initial_memory(k)),
            dram_free: Cell::new(0),
            next_block: Cell::new(0),
        })
    }
}

/// An issued instruction until it completes.
struct Flight {
    slot: usize,
    pc: u32,
    mask: u64,
    segments: u32,
    vals: Values,
    /// Renamed: the physical registers of its sources and destination.
    src_phys: [Option<u32>; 3],
    dst_phys: u32,
    issued_at: u64,
}

/// The SM running kernel `'k` with the register-file pipeline `P` (issue stage and MRF: the
/// models, or anything with their ports and timing — the cosim's lockstep adapters run the
/// Verilated RTL beside them).
pub struct Sm<'k, P: SmRfBlock = SmRf<Mrf, Issue>> {
    k: &'k Kernel,
    lanes: usize,
    clusters: usize,
    /// The register-file pipeline and this cycle's inputs for it: each warp's next instruction,
    /// barriers, the events of the cycle, dispatch and write-back.
    rf: P,
    rf_in: SmRfIn,
    shared: Rc<Shared>,
    /// Most blocks resident at once (TUBA lowers and raises it).
    block_limit: u32,
    /// Per instruction, its descriptor for the issue stage (built once, not at each issue).
    info: Vec<Next>,
    slots: Vec<Slot>,
    blocks: Vec<Option<Block>>,
    /// Blocks resident (`blocks` not `None`): whether the SM is done is asked every cycle.
    live_blocks: u32,
    warps_per_block: usize,
    two_level: bool,
    /// The MRF invalidates a finished warp's registers (compressed: banks left empty are gated),
    /// one per cycle.
    frees: bool,
    /// Compressed MRF: slots whose warp finished and whose registers the pipeline has not
    /// invalidated yet (`freeing`); such a slot takes no new warp until it has.
    freeing: u64,
    /// Cycles counted instead of clocked, while the pipeline waits for a completion; whether
    /// the SM may rest at all, and the cycles it rested.
    resting: Option<Rest>,
    rests: bool,
    rested: u64,
    /// A block finished while some of its slots were still being freed: launch again as they are.
    relaunch: bool,
    /// Warps whose next instruction changed this cycle: their descriptors are rewritten after
    /// the issue stage's edge.
    dirty: u64,
    units: Units,
    flights: Vec<Flight>,
    free_flights: Vec<usize>,
    /// Collector tag → flight, for instructions in the operand collectors.
    tags: Vec<usize>,
    lives: Vec<ValueLife>,
    /// Per slot bits, updated after each edge: warps at a barrier with instructions left;
    /// warps with instructions left.
    at_barrier: u64,
    resident: u64,
    stats: SimStats,
    cycle: u64,
    /// `(cycle, warp slot, pc)` of every issue, when recording.
    issues: Option<Vec<(u64, u32, u32)>>,
    completed: Vec<usize>,
    /// Compressed MRF: write-backs taken by the write port and not yet committed, oldest first.
    uncommitted: VecDeque<usize>,
    /// Compressed MRF: banks per range indicator, for the statistics.
    bdi: Option<rfgen_gen::layout::bdi::Layout>,
    /// A register file cache in front of the MRF.
    cache: bool,
    /// ORF/LRF: the compiler's placement of every instruction's operands, and the strands.
    orf: Option<OrfControl>,
    /// What the SM tells the rename stage, with renaming.
    rename: Option<RenameControl>,
    /// Instructions in operand collectors.
    collecting: Vec<usize>,
    /// Operands a write-back may have overwritten before they were read: (reader flight,
    /// operand, writer pc). A wrong value delivered there is a write-after-read hazard.
    war_exposed: Vec<(usize, usize, u32)>,
}

use stats::MISMATCH_EXAMPLES_KEPT as MISMATCH_EXAMPLES;

/// Whether kernel `k` fits the SM of `c` (registers per thread, warps per block, rows for a
/// block); [`SimError::DoesNotFit`] names what does not. Cheap: builds nothing.
pub fn fits(c: &Checked, k: &Kernel) -> Result<(), SimError> {
    let g = &c.geometry;
    let fit = |ok: bool, msg: String| if ok { Ok(()) } else { Err(SimError::DoesNotFit(msg)) };
    fit(
        k.regs <= g.registers,
        format!("kernel {} uses {} registers but sm.registers_per_thread = {}", k.name, k.regs, g.registers),
    )?;
    let warps_per_block = k.warps_per_block(g.lanes) as usize;
    fit(
        warps_per_block <= g.warps as usize,
        format!("kernel {} has {} warps per block but the SM has {} warp slots", k.name, warps_per_block, g.warps),
    )?;
    // Register-limited: only the first warp slots have rows at the kernel's registers.
    let usable = g.resident_warps(k.regs) as usize;
    fit(
        warps_per_block <= usable,
        format!(
            "kernel {} has {} warps per block but at {} registers per thread ({} rows per warp of {}) the register file holds {} warps",
            k.name,
            warps_per_block,
            k.regs,
            g.rows_per_warp(k.regs),
            g.entries,
            usable
        ),
    )?;
    Ok(())
}

/// Kernel `k` as it launches on the SM of `c` (docs/kernel-ir.md, "Launches"): with its own
/// block when that fits; otherwise the threads per block are halved until a block fits (the grid
/// keeps its total threads, or takes its blocks from the kernel's derived constant), while the
/// block has more than one warp, halves evenly and stays at or above `.min_threads`.
/// [`SimError::DoesNotFit`] when no block the rule allows fits, or registers per thread do not.
pub fn launch<'k>(c: &Checked, k: &'k Kernel) -> Result<Cow<'k, Kernel>, SimError> {
    let why = match fits(c, k) {
        Ok(()) => return Ok(Cow::Borrowed(k)),
        Err(SimError::DoesNotFit(why)) => why,
        Err(e) => return Err(e),
    };
    let g = &c.geometry;
    // A smaller block needs as many registers per thread.
    if k.regs > g.registers {
        return Err(SimError::DoesNotFit(why));
    }
    let most_warps = g.warps.min(g.resident_warps(k.regs));
    let mut threads = k.threads;
    loop {
        let stop = if threads <= g.lanes {
            Some("one warp is the smallest block".to_string())
        } else if threads % 2 == 1 {
            Some("an odd number of threads cannot be halved".to_string())
        } else if threads / 2 < k.min_threads {
            Some(format!("the kernel needs at least {} threads per block (.min_threads)", k.min_threads))
        } else {
            None
        };
        if let Some(stop) = stop {
            return Err(SimError::DoesNotFit(format!(
                "{why}; halving the threads per block stops at {threads} ({} warps): {stop}",
                threads.div_ceil(g.lanes)
            )));
        }
        threads /= 2;
        if threads.div_ceil(g.lanes) <= most_warps {
            return k.with_threads(threads).map(Cow::Owned).map_err(|e| {
                SimError::DoesNotFit(format!("{why}; at {threads} threads per block, which would fit, {e}"))
            });
        }
    }
}

impl<'k> Sm<'k> {
    /// The SM a config describes, with its MRF model.
    pub fn new(c: &Checked, k: &'k Kernel) -> Result<Sm<'k>, SimError> {
        Sm::with_mrf(c, k, Mrf::for_config(c))
    }

    /// One of several SMs sharing `shared`, with its models; no block launched yet (see
    /// [`Sm::launch_block`] and [`Sm::start`]).
    pub fn in_gpu(c: &Checked, k: &'k Kernel, shared: Rc<Shared>) -> Result<Sm<'k>, SimError> {
        Sm::build(c, k, SmRf::new(c, Mrf::for_config(c), Issue::for_config(c)), shared)
    }
}

impl<'k, M: MrfBlock> Sm<'k, SmRf<M, Issue>> {
    /// The SM a config describes, with `mrf` as its register file.
    pub fn with_mrf(c: &Checked, k: &'k Kernel, mrf: M) -> Result<Self, SimError> {
        Sm::with_blocks(c, k, mrf, Issue::for_config(c))
    }
}

impl<'k, M: MrfBlock, I: IssueBlock> Sm<'k, SmRf<M, I>> {
    /// The SM a config describes with these blocks: `mrf` its register file, `issue` its issue
    /// stage.
    pub fn with_blocks(c: &Checked, k: &'k Kernel, mrf: M, issue: I) -> Result<Self, SimError> {
        Sm::with_pipeline(c, k, SmRf::new(c, mrf, issue))
    }
}

impl<'k, M: MrfBlock, I: IssueBlock, R: RenameBlock> Sm<'k, SmRf<M, I, R>> {
    /// The register file.
    pub fn mrf(&self) -> &M {
        &self.rf.mrf
    }

    /// The register file, once the run is over.
    pub fn into_mrf(self) -> M {
        self.rf.mrf
    }

    /// The issue stage.
    pub fn issue_stage(&self) -> &I {
        &self.rf.issue
    }

    /// The issue stage, once the run is over.
    pub fn into_issue_stage(self) -> I {
        self.rf.issue
    }
}

impl<'k, P: SmRfBlock> Sm<'k, P> {
    /// The SM a config describes with `rf` as its register-file pipeline.
    pub fn with_pipeline(c: &Checked, k: &'k Kernel, rf: P) -> Result<Self, SimError> {
        let mut sm = Sm::build(c, k, rf, Shared::new(k))?;
        sm.launch_blocks();
        sm.start();
        Ok(sm)
    }

    fn build(c: &Checked, k: &'k Kernel, rf: P, shared: Rc<Shared>) -> Result<Self, SimError> {
        fits(c, k)?;
        let g = &c.geometry;
        let warps_per_block = k.warps_per_block(g.lanes) as usize;
        let usable = g.resident_warps(k.regs);
        let info = k
            .code
            .iter()
            .zip(&k.notes)
            .map(|(i, n)| {
                let mut src = [None; 3];
                i.src_regs().for_each(|(k, r)| src[k] = Some(r.into()));
                let preds = [i.guard.map(|g| g.pred), i.psrc, i.pdst].iter().flatten().fold(0u8, |m, p| m | 1 << p);
                Next::new(&NextFields {
                    src,
                    dst: i.dst.map(u32::from),
                    preds,
                    pdst: i.pdst.map(u32::from),
                    control: i.op.unit() == Unit::Control,
                    long: i.op.is_long_latency(),
                    long_consumer: n.long_latency_consumer,
                })
            })
            .collect();
        let slots = (0..g.warps)
            .map(|_| Slot {
                warp: None,
                block: 0,
                at_barrier: false,
                inflight: 0,
                collecting: 0,
                full_mask: 0,
                issued: 0,
            })
            .collect();
        let mut rf_in = SmRfIn::new(g);
        rf_in.mrf.rows_per_warp = g.rows_per_warp(k.regs);
        let sm = Sm {
            k,
            lanes: g.lanes as usize,
            clusters: g.clusters as usize,
            rf,
            rf_in,
            shared,
            block_limit: u32::MAX,
            info,
            slots,
            blocks: (0..g.warps).map(|_| None).collect(),
            live_blocks: 0,
            warps_per_block,
            dirty: 0,
            two_level: c.config.scheduler.policy == rfgen_gen::config::SchedulerPolicy::TwoLevel,
            frees: c.compression.is_some(),
            freeing: 0,
            resting: None,
            rests: true,
            rested: 0,
            relaunch: false,
            units: Units::new(c),
            flights: Vec::new(),
            free_flights: Vec::new(),
            tags: vec![0; g.collectors as usize],
            lives: vec![ValueLife::default(); g.warps as usize * k.regs.max(1) as usize],
            at_barrier: 0,
            resident: 0,
            stats: SimStats {
                sms: 1,
                executed: vec![0; k.code.len()],
                occupancy: Occupancy {
                    warp_slots: g.warps,
                    usable_slots: usable,
                    rows_per_warp: g.rows_per_warp(k.regs),
                    peak_warps: 0,
                },
                ..SimStats::default()
            },
            cycle: 0,
            issues: None,
            completed: Vec::new(),
            uncommitted: VecDeque::new(),
            bdi: c.compression.clone(),
            cache: c.rfc.is_some(),
            orf: OrfControl::new(c, k),
            rename: c
                .config
                .rename
                .enabled
                .then(|| RenameControl::new(&RenameLayout::new(g, &c.config.rename, &c.config.timing))),
            collecting: Vec::new(),
            war_exposed: Vec::new(),
        };
        Ok(sm)
    }

    /// After the first launches: their descriptors. The launches reach the pipeline at the first
    /// edge (the register file cache activates those warps; GTO's age order among launched
    /// warps stays slot order).
    pub fn start(&mut self) {
        self.refresh_dirty();
    }

    /// Records every issue from now on (see [`Sm::issues`]).
    pub fn record_issues(&mut self) {
        self.issues = Some(Vec::new());
    }

    /// `(cycle, warp slot, pc)` of every issue since [`Sm::record_issues`].
    pub fn issues(&self) -> &[(u64, u32, u32)] {
        self.issues.as_deref().unwrap_or(&[])
    }

    pub fn stats(&self) -> &SimStats {
        &self.stats
    }

    pub fn memory(&self) -> Ref<'_, GlobalMemory> {
        self.shared.global.borrow()
    }

    /// Blocks resident now, and the most it may hold (TUBA moves the limit).
    pub fn resident_blocks(&self) -> u32 {
        self.live_blocks
    }

    pub fn block_limit(&self) -> u32 {
        self.block_limit
    }

    pub fn set_block_limit(&mut self, limit: u32) {
        self.block_limit = limit;
    }

    /// Free TFET registers and all TFET registers, with renaming.
    pub fn tfet_registers(&self) -> Option<(u32, u32)> {
        let stage = self.rf.rename_model()?;
        Some((stage.outputs().tfet_free, stage.layout().tfet()))
    }

    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The register-file pipeline.
    pub fn rf(&self) -> &P {
        &self.rf
    }

    /// The register-file pipeline, once the run is over.
    pub fn into_rf(self) -> P {
        self.rf
    }

    /// The kernel has finished: every block ran, every instruction completed and, renamed,
    /// every register is free again.
    pub fn done(&self) -> bool {
        self.shared.next_block.get() == self.k.blocks
            && self.live_blocks == 0
            && !self.units.busy()
            && self.rename.as_ref().is_none_or(RenameControl::idle)
            && self.freeing == 0
    }

    /// Runs to completion, calling `progress` every 2^16 cycles.
    pub fn run(&mut self, max_cycles: u64, progress: &mut dyn FnMut(u64)) -> Result<(), SimError> {
        while !self.done() {
            if self.cycle >= max_cycles {
                return Err(SimError::CycleLimit(max_cycles));
            }
            self.step()?;
            if self.cycle & 0xffff == 0 {
                progress(self.cycle);
            }
        }
        self.finish();
        Ok(())
    }

    /// Launches blocks into the lowest free warp slots while a whole block fits.
    fn launch_blocks(&mut self) {
        while self.launch_block() {}
    }

    /// Launches the next block into the lowest free warp slots if a whole block fits and the
    /// block limit allows; whether it did.
    pub fn launch_block(&mut self) -> bool {
        {
            let next = &self.shared.next_block;
            if next.get() >= self.k.blocks || self.resident_blocks() >= self.block_limit {
                return false;
            }
            let usable = self.stats.occupancy.usable_slots as usize;
            let free: Vec<usize> = (0..usable)
                .filter(|&w| self.slots[w].warp.is_none() && self.freeing >> w & 1 == 0)
                .take(self.warps_per_block)
                .collect();
            let Some(b) = self.blocks.iter().position(Option::is_none) else { return false };
            if free.len() < self.warps_per_block {
                return false;
            }
            let id = next.get();
            next.set(id + 1);
            for (i, &w) in free.iter().enumerate() {
                let warp = Warp::new(self.k, id, i as u32, self.lanes as u32);
                let s = &mut self.slots[w];
                s.full_mask = warp.next().map(|(_, m)| m).unwrap_or(0);
                s.warp = Some(warp);
                s.block = b;
                s.at_barrier = false;
                self.rf_in.issue.launch |= 1 << w;
                self.refresh(w);
            }
            let resident = self.slots.iter().filter(|s| s.warp.is_some()).count() as u32;
            self.stats.registers_allocated = self.stats.registers_allocated.max(resident * self.k.regs.max(1));
            let o = &mut self.stats.occupancy;
            o.peak_warps = o.peak_warps.max(resident);
            self.live_blocks += 1;
            self.blocks[b] = Some(Block {
                shared: vec![0; self.k.shared_bytes as usize / 4],
                live: free.len() as u32,
                arrived: 0,
                barrier: BlockBarrier::default(),
                slots: free,
            });
        }
        true
    }

    fn alloc_flight(&mut self) -> usize {
        match self.free_flights.pop() {
            Some(f) => f,
            None => {
                let vals = Values::new(self.lanes);
                let f = Flight {
                    slot: 0,
                    pc: 0,
                    mask: 0,
                    segments: 0,
                    vals,
                    src_phys: [None; 3],
                    dst_phys: 0,
                    issued_at: 0,
                };
                self.flights.push(f);
                self.flights.len() - 1
            }
        }
    }

    /// The next instruction of slot `w` changed (it issued, launched, finished, or a barrier
    /// changed): its descriptor is rewritten after this cycle's edge.
    fn refresh(&mut self, w: usize) {
        self.dirty |= 1 << w;
    }

    /// Rewrites the descriptors of the warps whose next instruction changed.
    // Inlined: every cycle, for a warp or two.
    #[inline(always)]
    fn refresh_dirty(&mut self) {
        let set = |m: &mut u64, bit: u64, on: bool| *m = if on { *m | bit } else { *m & !bit };
        while self.dirty != 0 {
            let w = self.dirty.trailing_zeros() as usize;
            let bit = 1u64 << w;
            self.dirty &= !bit;
            let s = &self.slots[w];
            let next = s.warp.as_ref().and_then(|x| x.next());
            // Each written in place (a pair built first and moved cost more).
            match next {
                Some((pc, _)) => {
                    self.rf_in.issue.next[w] = self.info[pc as usize];
                    let read = &mut self.rf_in.next_read[w];
                    next_read(self.k, s, self.orf.as_ref(), self.rename.as_ref(), w, pc as usize, read);
                }
                None => (self.rf_in.issue.next[w], self.rf_in.next_read[w]) = Default::default(),
            }
            set(&mut self.rf_in.issue.barrier, bit, s.at_barrier);
            self.rf_in.issue.changed |= bit;
            set(&mut self.at_barrier, bit, next.is_some() && s.at_barrier);
            set(&mut self.resident, bit, next.is_some());
        }
    }

    pub fn step(&mut self) -> Result<(), SimError> {
        if let Some(r) = &mut self.resting {
            if self.cycle < r.until {
                r.cycles += 1;
                self.cycle += 1;
                self.stats.cycles = self.cycle;
                return Ok(());
            }
            self.wake();
        }
        let now = self.cycle;
        // What the pipeline shows this cycle (its state before the edge); dispatch reads the
        // operands.
        let Handshake { wb_commit, wb_ready, disp_valid, grant_tag: tag } = self.rf.handshake();
        self.write_back(now, wb_commit, wb_ready);
        self.rf_in.mrf.disp_ready = false;
        if disp_valid {
            self.dispatch(now);
        }
        let rests = self.rests && !disp_valid && !wb_commit && self.at_rest(now);
        let cause = self.issue_slot(tag)?;
        self.clock_mrf(now);
        self.complete();
        self.cycle += 1;
        self.stats.cycles = self.cycle;
        if rests {
            self.resting = Some(Rest { from: self.cycle, until: self.units.next_due(), cycles: 0, cause });
        }
        Ok(())
    }

    /// Whether the rest of this cycle (from the issue decision on) changes nothing but counters,
    /// so that every cycle until the next completion repeats it: nothing was written back or
    /// dispatched, no instruction is collecting operands or waiting to commit, no warp changed,
    /// and the pipeline is at rest with these inputs ([`crate::block::Block::at_rest`]).
    fn at_rest(&self, now: u64) -> bool {
        self.units.next_due() > now + 1
            && !self.rf_in.mrf.wb_valid
            && self.completed.is_empty()
            && self.collecting.is_empty()
            && self.uncommitted.is_empty()
            && self.dirty == 0
            && self.rf_in.issue.changed == 0
            && self.rf_in.exit == 0
            && self.freeing == 0
            && self.rename.as_ref().is_none_or(RenameControl::at_rest)
            && self.rf.at_rest(&self.rf_in)
    }

    /// Ends a rest: its cycles counted as the cycle that started it counted.
    fn wake(&mut self) {
        if let Some(r) = self.resting.take() {
            self.rested += r.cycles;
            self.stats.stalls.count(r.cause, r.cycles);
            self.rf.rest(r.cycles);
            if let Some(c) = &mut self.rename {
                c.rest(r.from, r.cycles);
            }
        }
    }

    /// Write-back. A compressed MRF's write port may refuse (`wb_ready`) and commits later:
    /// the scoreboard is released when the write commits, in the order writes were taken. A
    /// register file cache in front of it releases at once: it holds the value or, on its way
    /// to the banks, the MRF holds the register's reads until stored.
    fn write_back(&mut self, now: u64, wb_commit: bool, wb_ready: bool) {
        self.rf_in.mrf.wb_valid = false;
        self.completed.clear();
        if wb_commit {
            self.completed.extend(self.uncommitted.pop_front());
        }
        let (due, n) = self.units.due(now);
        for &q in &due[..n] {
            while let Some(id) = self.units.head(q, now) {
                let f = &self.flights[id];
                if let Some(dst) = self.k.code[f.pc as usize].dst {
                    if self.rf_in.mrf.wb_valid || !wb_ready {
                        break; // the write port is taken or busy this cycle
                    }
                    self.rf_in.mrf.wb_valid = true;
                    self.rf_in.mrf.wb_warp = f.slot as u32;
                    self.rf_in.mrf.wb_reg = if self.rename.is_some() { f.dst_phys } else { dst as u32 };
                    self.rf_in.wb_arch_reg = dst as u32;
                    self.rf_in.mrf.wb_mask = f.mask;
                    self.rf_in.mrf.wb_data.copy_from_slice(f.vals.dst());
                    self.rf_in.mrf.wb_long = self.k.code[f.pc as usize].op.is_long_latency();
                    if let Some(o) = &self.orf {
                        o.drive_write_back(f.pc as usize, &mut self.rf_in.mrf);
                    }
                    // Only an instruction of the same warp can have read it (most write-backs have none).
                    if self.slots[f.slot].collecting > 0 {
                        expose_readers(self.k, &self.flights, &self.collecting, &mut self.war_exposed, id, dst);
                    }
                    self.units.pop(q);
                    let ins = &self.k.code[f.pc as usize];
                    let mut slow = false;
                    if let Some(r) = &mut self.rename {
                        if ins.op.unit() == Unit::Global {
                            r.mem_done(f.slot as u32, now - f.issued_at);
                        }
                        // A TFET write takes one more cycle: the MRF says when it is done.
                        slow = r.layout().is_tfet(f.dst_phys);
                    }
                    if slow || self.bdi.is_some() && !self.cache {
                        self.uncommitted.push_back(id);
                        continue;
                    }
                } else {
                    self.units.pop(q);
                }
                self.completed.push(id);
            }
        }
    }

    /// Dispatch of the instruction the MRF offers, checking every delivered operand against the
    /// functional value.
    fn dispatch(&mut self, now: u64) {
        let (disp_tag, operands) = self.rf.offered_operands();
        let id = self.tags[disp_tag as usize];
        let f = &self.flights[id];
        let ins = &self.k.code[f.pc as usize];
        let unit = ins.op.unit();
        if self.units.can_accept(unit, now) {
            self.rf_in.mrf.disp_ready = true;
            for (s, src) in ins.srcs.iter().enumerate() {
                if !matches!(src, Src::Reg(_)) {
                    continue;
                }
                let (got, want) = (operands[s], f.vals.src(s));
                let defined = f.mask & f.vals.src_defined[s];
                // Rarely any lane: counted only then (a bit count is a long sequence of
                // instructions on the baseline x86-64 target).
                let undefined = f.mask & !defined;
                if undefined != 0 {
                    self.stats.undefined_reads += undefined.count_ones() as u64;
                }
                // All lanes equal (one slice compare) is the common case; only when they are
                // not is each lane asked whether it is defined.
                let lanes = self.lanes;
                let lane = if got[..lanes] == want[..lanes] {
                    None
                } else {
                    (0..lanes).find(|&l| defined >> l & 1 == 1 && got[l] != want[l])
                };
                if let Some(lane) = lane {
                    self.stats.operand_mismatches += 1;
                    let war = self.war_exposed.iter().find(|e| e.0 == id && e.1 == s);
                    let war_writer_line = war.map(|e| self.k.pos[e.2 as usize].line);
                    self.stats.war_hazards += war.is_some() as u64;
                    if self.stats.mismatch_examples.len() < MISMATCH_EXAMPLES {
                        self.stats.mismatch_examples.push(OperandMismatch {
                            cycle: now,
                            warp: f.slot as u32,
                            line: self.k.pos[f.pc as usize].line,
                            operand: s as u32,
                            lane: lane as u32,
                            expected: want[lane],
                            actual: got[lane],
                            war_writer_line,
                        });
                    }
                }
            }
            let completes = ins.dst.is_some() || ins.pdst.is_some();
            self.units.accept(unit, now, f.segments, completes, id, &self.shared.dram_free);
            if let Some(at) = self.collecting.iter().position(|&c| c == id) {
                self.collecting.swap_remove(at);
                self.slots[f.slot].collecting -= 1;
            }
            if !self.war_exposed.is_empty() {
                self.war_exposed.retain(|e| e.0 != id);
            }
            if !completes {
                self.completed.push(id);
            }
        }
    }

    /// Issue: the issue stage decides on this cycle's inputs; a grant issues, and a cycle without
    /// one is counted by its cause.
    fn issue_slot(&mut self, tag: u32) -> Result<Stall, SimError> {
        // A warp with an ORF/LRF fill on its way issues nothing, so every later read or write of
        // the entry comes after the fill.
        // Renaming: while no register is free, the pipeline stalls warps whose next
        // instruction writes one.
        let full = self.rf.rename_model().is_some_and(|r| !r.outputs().ren_ready);
        let no_register = if full { self.next_writers() } else { 0 };
        // Two-level: the active set before the decision, to count the warps it deschedules.
        let before = if self.two_level { self.rf.outputs().issue.scheduler.active_mask() } else { 0 };
        let d = self.rf.decide(&self.rf_in);
        let candidates = if self.two_level {
            self.stats.deschedules += u64::from((before & d.desched).count_ones());
            d.sched.active_mask()
        } else {
            self.resident
        };
        let cause = match d.sched.grant {
            Some(w) => {
                self.issue(w as usize, tag)?;
                Stall::Issued
            }
            None if d.can_issue & candidates != 0 => Stall::CollectorFull,
            None if d.war_blocked & candidates != 0 => Stall::Warpboard,
            None if no_register & candidates != 0 => Stall::NoRegister,
            None if candidates & !d.can_issue & !self.at_barrier != 0 => Stall::Scoreboard,
            None if candidates & self.at_barrier != 0 => Stall::Barrier,
            None if self.two_level && self.resident & !candidates != 0 => Stall::Descheduled,
            None => Stall::NoWarp,
        };
        self.stats.stalls.count(cause, 1);
        Ok(cause)
    }

    /// Slots whose registers the pipeline has invalidated take warps again; the rename stage's
    /// edge.
    fn clock_mrf(&mut self, now: u64) {
        // A warp that finished at an earlier edge is in `freeing` until invalidated (one
        // finishing now joins it at this edge).
        if self.freeing != 0 {
            let still = self.rf.outputs().freeing | self.rf_in.exit;
            let freed = self.freeing & !still != 0;
            self.freeing &= still;
            if freed && self.relaunch {
                self.launch_blocks();
                self.relaunch = self.freeing != 0;
            }
        }
        if let Some(r) = &mut self.rename {
            let (flights, collecting) = (&self.flights, &self.collecting);
            let reading = |p| collecting.iter().any(|&c: &usize| flights[c].src_phys.contains(&Some(p)));
            r.drive(now, reading, &mut self.rf_in.rename);
        }
    }

    /// Completions, finished warps and blocks; the issue stage's edge (this cycle's issue,
    /// leave, commits and launches); then the next instructions of the warps that changed.
    fn complete(&mut self) {
        for &id in &self.completed {
            let f = &self.flights[id];
            let ins = &self.k.code[f.pc as usize];
            if let Some(p) = ins.pdst {
                self.rf_in.issue.clr_preds[f.slot] |= 1 << p;
                self.rf_in.issue.clr_pred_warps |= 1 << f.slot;
            }
            // The pipeline releases a register result (and commits its warp) itself.
            if ins.dst.is_none() {
                self.rf_in.issue.commit |= 1 << f.slot;
            }
        }
        for i in 0..self.completed.len() {
            let id = self.completed[i];
            let w = self.flights[id].slot;
            self.slots[w].inflight -= 1;
            self.free_flights.push(id);
            self.maybe_finish(w);
        }
        self.rf.tick(&self.rf_in);
        self.rf_in.issue.clear_events();
        self.rf_in.exit = 0;
        self.rf_in.issue.changed = 0;
        self.rf_in.issue.clr_pred_warps = 0;
        self.refresh_dirty();
    }

    fn issue(&mut self, w: usize, tag: u32) -> Result<(), SimError> {
        let id = self.alloc_flight();
        let s = &mut self.slots[w];
        let warp = s.warp.as_mut().expect("only live warps issue");
        let block = self.blocks[s.block].as_mut().expect("a live warp has a block");
        let f = &mut self.flights[id];
        let e = warp
            .execute(self.k, &mut self.shared.global.borrow_mut(), &mut block.shared, &mut f.vals)
            .map_err(SimError::Exec)?;
        if self.k.code[e.pc as usize].op == Op::Bar {
            block.barrier.arrive(self.k, warp.block, warp.warp_in_block, e.pc).map_err(SimError::Exec)?;
        }
        if warp.done() {
            block.barrier.exit(self.k, warp.block, warp.warp_in_block, e.pc).map_err(SimError::Exec)?;
        }
        if let Some(log) = &mut self.issues {
            log.push((self.cycle, w as u32, e.pc));
        }
        self.stats.executed[e.pc as usize] += 1;
        f.slot = w;
        f.pc = e.pc;
        f.mask = e.mask;
        f.segments = e.segments;
        f.issued_at = self.cycle;
        let ins = &self.k.code[e.pc as usize];
        let unit = ins.op.unit();

        let st = &mut self.stats;
        st.warp_instructions += 1;
        // A whole warp (most instructions) without a bit count.
        st.thread_instructions +=
            if e.mask == lane_mask(self.lanes) { self.lanes as u64 } else { e.mask.count_ones() as u64 };
        st.divergent_instructions += (e.path_mask != s.full_mask) as u64;
        *match unit {
            Unit::Alu => &mut st.alu,
            Unit::Sfu => &mut st.sfu,
            Unit::Shared => &mut st.shared,
            Unit::Global => &mut st.global,
            Unit::Texture => &mut st.texture,
            Unit::Control => &mut st.control,
        } += 1;

        // Value statistics, in each warp's program order.
        let regs = self.k.regs.max(1) as usize;
        let n = s.issued;
        s.issued += 1;
        for (_, r) in ins.src_regs() {
            let v = &mut self.lives[w * regs + r as usize];
            v.reads += 1;
            v.last_read_at = n;
            st.values.reads += 1;
            st.values.reads_by_sfu_mem_tex += (unit != Unit::Alu) as u64;
        }
        if let Some(d) = ins.dst {
            let v = &mut self.lives[w * regs + d as usize];
            st.values.close(v);
            *v = ValueLife { live: true, reads: 0, written_at: n, last_read_at: n };
            st.values.record_write(f.vals.dst(), e.mask, e.mask == s.full_mask);
        }

        self.dirty |= 1 << w; // its next instruction
        if unit == Unit::Control {
            if let Some(o) = &mut self.orf {
                o.control(w, self.k.notes[e.pc as usize].strand_start);
            }
            self.free_flights.push(id);
            if ins.op == Op::Bar {
                s.at_barrier = true;
                block.arrived += 1;
                if block.arrived == block.live {
                    self.release_barrier(self.slots[w].block);
                }
            }
        } else {
            self.tags[tag as usize] = id;
            self.collecting.push(id);
            let s = &mut self.slots[w];
            if let Some(r) = &mut self.rename {
                let mut src = [None; 3];
                ins.src_regs().for_each(|(k, reg)| src[k] = Some(reg.into()));
                let look = self.rf.renamed(&self.rf_in, w as u32).expect("the pipeline renames when the SM does");
                let renamed = r.issue(
                    &Issued {
                        warp: w as u32,
                        src,
                        last_read: self.k.notes[e.pc as usize].last_read,
                        dst: ins.dst.map(u32::from),
                        dst_new: self.rf_in.next_read[w].dst_new,
                        divergent: e.path_mask != s.full_mask,
                    },
                    &look,
                );
                if unit == Unit::Global && ins.dst.is_some() {
                    r.mem_start(w as u32);
                }
                let f = &mut self.flights[id];
                f.src_phys = renamed.src;
                f.dst_phys = renamed.dst.unwrap_or(0);
            }
            if let Some(o) = &mut self.orf {
                o.issued(w);
            }
            s.inflight += 1;
            s.collecting += 1;
        }
        if self.slots[w].warp.as_ref().is_some_and(Warp::done) {
            self.rf_in.issue.grant_last = true;
            self.maybe_finish(w);
        }
        Ok(())
    }

    fn release_barrier(&mut self, b: usize) {
        let block = self.blocks[b].as_mut().unwrap();
        block.arrived = 0;
        block.barrier.release();
        for w in block.slots.clone() {
            self.slots[w].at_barrier = false;
            self.refresh(w);
        }
    }

    /// Frees warp `w` if its instructions have all issued and completed ([`Sm::finish_warp`]).
    // Inlined: asked at every completion, and a warp rarely finishes.
    #[inline(always)]
    fn maybe_finish(&mut self, w: usize) {
        let s = &self.slots[w];
        if s.inflight == 0 && s.warp.as_ref().is_some_and(Warp::done) {
            self.finish_warp(w);
        }
    }

    /// Frees warp `w`, whose instructions have all issued and completed, and its block when it
    /// was the last one.
    fn finish_warp(&mut self, w: usize) {
        let s = &mut self.slots[w];
        s.warp = None;
        if self.frees {
            self.freeing |= 1 << w;
        }
        if self.frees || self.cache {
            self.rf_in.exit |= 1 << w;
        }
        if let Some(r) = &mut self.rename {
            r.warp_finished(w as u32);
        }
        self.slots[w].issued = 0;
        self.refresh(w);
        let regs = self.k.regs.max(1) as usize;
        for v in &mut self.lives[w * regs..][..regs] {
            self.stats.values.close(v);
            v.live = false;
        }
        let b = self.slots[w].block;
        let block = self.blocks[b].as_mut().unwrap();
        block.live -= 1;
        if block.live == 0 {
            self.blocks[b] = None;
            self.live_blocks -= 1;
            self.relaunch = self.frees;
            self.launch_blocks();
        } else if block.arrived == block.live {
            self.release_barrier(b);
        }
    }

    /// Warps whose next instruction writes a register.
    fn next_writers(&self) -> u64 {
        let mut m = 0;
        for (w, s) in self.slots.iter().enumerate() {
            if let Some((pc, _)) = s.warp.as_ref().and_then(Warp::next) {
                m |= u64::from(self.info[pc as usize].dst_valid) << w;
            }
        }
        m
    }

    /// Clocks the pipeline in every cycle, never resting ([`Sm::at_rest`]): what resting must
    /// not change.
    pub fn clock_every_cycle(&mut self) {
        self.rests = false;
    }

    /// Cycles counted at rest instead of clocked.
    pub fn rested_cycles(&self) -> u64 {
        self.rested
    }

    /// Completes the statistics after the last step (`run` does it).
    pub fn finish(&mut self) {
        self.wake();
        let m = self.rf.mrf_stats();
        let t = &mut self.stats.mrf;
        let per_bank = (self.lanes / self.clusters) as u64;
        t.reads = m.operand_reads;
        t.writes = m.mrf_writes;
        t.bank_reads = m.bank_reads;
        t.bank_writes = m.bank_writes;
        t.read_values = m.bank_reads * per_bank;
        t.written_values = m.bank_writes * per_bank;
        t.bank_conflicts = m.bank_conflicts;
        self.stats.compression =
            self.bdi.as_ref().map(|layout| stats::CompressionStats::new(m, layout, self.clusters as u32));
        let lanes = self.lanes as u64;
        self.stats.rfc = self.cache.then(|| {
            let r = &m.rfc;
            stats::RfcTraffic {
                read_hits: r.read_hits,
                write_hits: r.write_hits,
                allocations: r.allocations,
                bypasses: r.bypasses,
                evictions: r.evictions,
                flush_writes: r.flush_writes,
                dead_evictions: r.dead_evictions,
                flushes: r.flushes,
                activations: r.activations,
                // Hits deliver every lane; evictions and flushes read whole entries; a write
                // hit writes its active lanes, an allocation every lane.
                read_values: (r.read_hits + r.evictions + r.flush_writes) * lanes,
                delivered_values: r.read_hits * lanes,
                written_values: m.rfc_written_lanes,
            }
        });
        self.stats.rename = self
            .rename
            .as_ref()
            .zip(self.rf.rename_model())
            .map(|(r, stage)| r.traffic(stage, m.tfet_reads, m.tfet_writes));
        self.stats.orf = self.orf.as_ref().map(|o| o.traffic(self.lanes as u32, &m.orf));
    }
}

/// How the MRF reads instruction `pc` of warp `w` (in slot `s`), into `read`: last reads and,
/// with an ORF/LRF, the compiler's placement of its sources; with renaming, the destination.
// Written in place and inlined into the descriptors' refresh (returned, it was copied field by
// field), for a warp or two each cycle.
#[inline(always)]
fn next_read(
    k: &Kernel,
    s: &Slot,
    orf: Option<&OrfControl>,
    rename: Option<&RenameControl>,
    w: usize,
    pc: usize,
    read: &mut NextRead,
) {
    let note = &k.notes[pc];
    let divergent = s.warp.as_ref().and_then(|x| x.next_active(k)) != Some(s.full_mask);
    // Liveness is per thread: under a partial mask a value dead for the lanes on this path
    // may still be read by those waiting on the other, so only a full warp's last read
    // tells the register file the value is dead.
    let src_last = if divergent { [false; 3] } else { note.last_read };
    *read = NextRead { src_last, ..NextRead::default() };
    if let Some(o) = orf {
        o.next_read(w, pc, note.strand_start, read);
    }
    if let Some(r) = rename {
        let ins = &k.code[pc];
        read.dst_new = r.dst_new(w as u32, ins.dst.map(u32::from), divergent);
        read.dst_load = matches!(ins.op.unit(), Unit::Global | Unit::Shared | Unit::Texture);
    }
}

/// The write-back of flight `writer` to `dst` is taken: the older instructions of its warp still
/// collecting operands that read `dst` may get its value instead of theirs.
fn expose_readers(
    k: &Kernel,
    flights: &[Flight],
    collecting: &[usize],
    exposed: &mut Vec<(usize, usize, u32)>,
    writer: usize,
    dst: u8,
) {
    let (w, pc) = (flights[writer].slot, flights[writer].pc);
    for &r in collecting.iter().filter(|&&r| flights[r].slot == w) {
        let srcs = k.code[flights[r].pc as usize].src_regs();
        srcs.filter(|&(_, reg)| reg == dst).for_each(|(op, _)| exposed.push((r, op, pc)));
    }
}

#[cfg(test)]
mod tests {
    use super::Sm;
    use crate::blocks::sm_rf::SmRfBlock;
    use crate::kernel::library;

    /// Counting the cycles a memory-bound kernel waits instead of clocking them changes none of
    /// the run's figures, with each part that can rest: the plain MRF, the pipeline stages,
    /// the warpboard, the rename stage's counters, the register file cache and the ORF/LRF.
    #[test]
    fn cycles_counted_at_rest_are_the_cycles_clocked() {
        let k = library::find("bfs").unwrap().parse().unwrap();
        for preset in ["baseline", "small", "war-warpboard", "tfet-hybrid", "isca11-rfc", "micro11-orf-lrf"] {
            let c = rfgen_gen::config::preset(preset).unwrap();
            let k = super::launch(&c, &k).unwrap();
            let run = |rests: bool| {
                let mut sm = Sm::new(&c, &k).unwrap();
                if !rests {
                    sm.clock_every_cycle();
                }
                sm.run(10_000_000, &mut |_| {}).unwrap();
                // The rename stage's counters end as the predictions from them left them.
                let stage = format!("{:?}", sm.rf().rename_model());
                (sm.stats().clone(), sm.rf().mrf_stats().clone(), stage, sm.rested_cycles())
            };
            let ((resting, resting_mrf, resting_stage, rested), (clocked, clocked_mrf, clocked_stage, none)) =
                (run(true), run(false));
            assert_eq!(none, 0);
            assert!(rested > clocked.cycles / 4, "{preset}: {rested} of {} cycles at rest", clocked.cycles);
            assert_eq!(resting, clocked, "{preset}");
            assert_eq!(resting_mrf, clocked_mrf, "{preset}");
            assert_eq!(resting_stage, clocked_stage, "{preset}");
        }
    }
}
