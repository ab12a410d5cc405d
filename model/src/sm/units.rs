//! Execution units and memory as latency/throughput models (SPEC §0, seed 000 Table 4).
//!
//! A warp instruction occupies its unit for `lanes / throughput` cycles (the ALU, SFU, memory
//! unit and texture unit accept a new warp instruction when free). Results complete after the
//! unit's latency; global accesses also queue on the DRAM channel, shared by every SM of the
//! run: a warp's accesses move whole segments, transferred back to back at
//! `dram_bytes_per_cycle`, and a load completes `latency.dram` cycles after its transfer. Shared memory and global accesses share
//! the memory unit. Completions of each instruction class leave in issue order.

use crate::kernel::Unit;
use rfgen_gen::Checked;
use std::cell::Cell;
use std::collections::VecDeque;

/// Classes with their own completion queue.
const CLASSES: [Unit; 5] = [Unit::Alu, Unit::Sfu, Unit::Shared, Unit::Global, Unit::Texture];

fn class(u: Unit) -> usize {
    CLASSES.iter().position(|&c| c == u).expect("control instructions never reach a unit")
}

/// Physical unit a class occupies: ALU, SFU, memory (shared and global), texture.
fn physical(u: Unit) -> usize {
    match u {
        Unit::Alu => 0,
        Unit::Sfu => 1,
        Unit::Shared | Unit::Global => 2,
        Unit::Texture => 3,
        Unit::Control => unreachable!("control instructions never reach a unit"),
    }
}

pub struct Units {
    occupancy: [u64; 4],
    next_free: [u64; 4],
    latency: [u64; 5],
    queues: [VecDeque<(u64, usize)>; 5],
    /// Per queue, when its head completes (`u64::MAX`: empty), and the earliest of them: asked
    /// every cycle, they answer without looking into the queues.
    heads: [u64; 5],
    next_due: u64,
    /// Per queue, the instruction at its head (`heads` answers with it, without indexing the
    /// queue).
    head_ids: [usize; 5],
    segment_bytes: u64,
    dram_bytes_per_cycle: u64,
}

impl Units {
    pub fn new(c: &Checked) -> Units {
        let cfg = &c.config;
        let lanes = cfg.sm.lanes;
        let t = &cfg.throughput;
        let m = &cfg.memory;
        let l = &cfg.latency;
        Units {
            occupancy: [
                lanes.div_ceil(t.alu) as u64,
                lanes.div_ceil(t.sfu) as u64,
                (lanes * 4).div_ceil(m.shared_bytes_per_cycle) as u64,
                lanes.div_ceil(t.texture) as u64,
            ],
            next_free: [0; 4],
            latency: [l.alu as u64, l.sfu as u64, l.shared as u64, l.dram as u64, l.texture as u64],
            queues: Default::default(),
            heads: [u64::MAX; 5],
            head_ids: [0; 5],
            next_due: u64::MAX,
            segment_bytes: m.segment_bytes as u64,
            dram_bytes_per_cycle: m.dram_bytes_per_cycle as u64,
        }
    }

    pub fn can_accept(&self, unit: Unit, now: u64) -> bool {
        self.next_free[physical(unit)] <= now
    }

    /// Starts instruction `id` in cycle `now`. `segments` are the global segments it moves over
    /// the DRAM channel, free from cycle `dram_free` on; with `completes` false (a store)
    /// nothing comes back.
    pub fn accept(&mut self, unit: Unit, now: u64, segments: u32, completes: bool, id: usize, dram_free: &Cell<u64>) {
        let p = physical(unit);
        self.next_free[p] = now + self.occupancy[p];
        let mut done = now + self.latency[class(unit)];
        if unit == Unit::Global {
            let start = now.max(dram_free.get());
            let transfer = (segments as u64 * self.segment_bytes).div_ceil(self.dram_bytes_per_cycle);
            dram_free.set(start + transfer);
            done = dram_free.get() + self.latency[class(unit)];
        }
        if completes {
            let c = class(unit);
            self.queues[c].push_back((done, id));
            // Behind others, it changes neither the queue's head nor the earliest completion.
            if self.queues[c].len() == 1 {
                (self.heads[c], self.head_ids[c]) = (done, id);
                self.next_due = self.next_due.min(done);
            }
        }
    }

    /// Classes whose oldest completion is due by `now`, earliest first: the first `n` of the
    /// array, `n` returned beside it (an array rather than a list: asked every cycle).
    // Inlined: asked every cycle, and most cycles nothing is due.
    #[inline(always)]
    pub fn due(&self, now: u64) -> ([usize; CLASSES.len()], usize) {
        let mut out = [0; CLASSES.len()];
        if now < self.next_due {
            return (out, 0);
        }
        let mut n = 0;
        for q in 0..CLASSES.len() {
            out[n] = q;
            n += usize::from(self.heads[q] <= now);
        }
        // Usually one class is due: nothing to order.
        if n > 1 {
            out[..n].sort_by_key(|&q| self.heads[q]);
        }
        (out, n)
    }

    /// The oldest completion of class `q` if due by `now`.
    pub fn head(&self, q: usize, now: u64) -> Option<usize> {
        (self.heads[q] <= now).then_some(self.head_ids[q])
    }

    pub fn pop(&mut self, q: usize) {
        self.queues[q].pop_front();
        (self.heads[q], self.head_ids[q]) = self.queues[q].front().copied().unwrap_or((u64::MAX, 0));
        self.next_due = self.heads.iter().copied().min().unwrap_or(u64::MAX);
    }

    /// The first cycle a completion is due in (`u64::MAX`: none is on its way).
    pub fn next_due(&self) -> u64 {
        self.next_due
    }

    /// Instructions still executing.
    pub fn busy(&self) -> bool {
        self.queues.iter().any(|q| !q.is_empty())
    }
}
