//! The `rename` cosim block: the rename stage's model bound to the generated `<prefix>_rename`.
//! The table reads and the destination's register are decided within the cycle (compared with
//! the model's lookup on the same inputs, where the table entry was written); the free counts,
//! ready and TRWS hints every cycle. The random stimulus follows the protocol: only registers
//! handed out and not yet released are released, memory accesses start and complete per warp.

use super::window::Window;
use crate::glue::{CosimBlock, Expected, Glue, RandomBlock, Stimulus, bind_all};
use crate::kernel::{InSm, SmWith};
use crate::lockstep::Lockstep;
use crate::verilator::{Layout as PortLayout, PortSlot};
use anyhow::Result;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rfgen_gen::Checked;
use rfgen_gen::blocks::rename::interface::RenamePorts;
use rfgen_gen::layout::rename::{COUNTER_MAX, RenameLayout};
use rfgen_model::blocks::issue::Issue;
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::blocks::rename::{Rename, RenameBlock, RenameIn, RenameOut};
use rfgen_model::blocks::sm_rf::SmRf;
use rfgen_model::kernel::Kernel;
use rfgen_model::sm::{SimError, SimStats, Sm};

impl Glue for Rename {
    type Ports = RenamePorts<PortSlot>;

    fn bind(&self, layout: &PortLayout) -> Result<Self::Ports> {
        bind_all(&RenamePorts::new(self.layout()), layout, |i, f| i.map(f))
    }

    fn drive(&self, p: &Self::Ports, i: &RenameIn, buf: &mut [u32]) {
        let pack = |v: &[u32], w: u32| v.iter().rev().fold(0u64, |m, &x| m << w | u64::from(x));
        p.ren_valid.put(buf, i.ren_valid as u64);
        p.ren_warp.put(buf, i.ren_warp.into());
        p.ren_src_reg.put(buf, pack(&i.ren_src_reg, p.ren_src_reg.width / 3));
        p.ren_dst_new.put(buf, i.ren_dst_new as u64);
        p.ren_dst_reg.put(buf, i.ren_dst_reg.into());
        p.ren_dst_load.put(buf, i.ren_dst_load as u64);
        p.rel_valid.put(buf, i.rel_valid.iter().rev().fold(0, |m, &b| m << 1 | b as u64));
        p.rel_phys.put(buf, pack(&i.rel_phys, p.rel_phys.width / 3));
        p.mem_start_valid.put(buf, i.mem_start_valid as u64);
        p.mem_start_warp.put(buf, i.mem_start_warp.into());
        p.mem_done_valid.put(buf, i.mem_done_valid as u64);
        p.mem_done_warp.put(buf, i.mem_done_warp.into());
        p.sample_acc.put(buf, i.sample_acc.into());
    }

    fn expect(&self, p: &Self::Ports, out: &RenameOut, inp: &RenameIn, exp: &mut Expected) {
        let l = self.lookup(inp);
        for (port, phys) in p.ren_src_phys.iter().zip(l.src_phys) {
            exp.set_if(phys.is_some(), port, phys.unwrap_or(0).into());
        }
        exp.set_if(l.dst_phys.is_some(), &p.ren_dst_phys, l.dst_phys.unwrap_or(0).into());
        exp.set_if(l.dst_phys.is_some(), &p.ren_dst_tfet, l.dst_tfet as u64);
        exp.set(&p.ren_ready, out.ren_ready as u64);
        exp.set(&p.tfet_hint, out.tfet_hint);
        exp.set(&p.cmos_free, out.cmos_free.into());
        exp.set(&p.tfet_free, out.tfet_free.into());
    }
}

/// The SM can run on the lockstep pair as on the model alone.
impl<B: Glue + RenameBlock> RenameBlock for Lockstep<B> {
    fn golden(&self) -> &Rename {
        Lockstep::model(self).golden()
    }
}

/// In the SM (with `rename.enabled`), every rename, release and MEM_RA event of a real kernel
/// reaches the rename stage's RTL.
impl InSm for Rename {
    type Rf = SmRf<Mrf, Issue, Lockstep<Rename>>;

    fn missing(c: &Checked) -> Option<String> {
        (!c.config.rename.enabled)
            .then(|| "the SM renames only with `rename.enabled` = true (preset tfet-hybrid has it)".to_string())
    }

    fn place<'k>(c: &Checked, k: &'k Kernel, pair: Lockstep<Rename>) -> Result<SmWith<'k, Rename>, SimError> {
        Sm::with_pipeline(c, k, SmRf::with_rename(c, Mrf::for_config(c), Issue::for_config(c), Some(pair)))
    }

    fn pair<'a>(sm: &'a SmWith<'_, Rename>) -> &'a Lockstep<Rename> {
        sm.rf().rename.as_ref().expect("placed with its rename stage")
    }

    fn take(sm: SmWith<'_, Rename>) -> Lockstep<Rename> {
        sm.into_rf().rename.expect("placed with its rename stage")
    }

    fn kernel_stats(&self, sim: &SimStats) -> Vec<(&'static str, u64)> {
        let r = sim.rename.clone().unwrap_or_default();
        vec![
            ("destinations renamed", r.renames),
            ("TFET registers given", r.tfet_given),
            ("registers released", r.releases),
            ("stall predictions", r.predictions),
        ]
    }
}

impl CosimBlock for Rename {
    fn model(checked: &Checked) -> Result<Self> {
        Ok(Rename::new(&RenameLayout::new(&checked.geometry, &checked.config.rename, &checked.config.timing)))
    }
}

impl RandomBlock for Rename {
    type Stimulus = RandomRenames;

    fn stimulus(checked: &Checked, seed: u64) -> RandomRenames {
        RandomRenames::new(RenameLayout::new(&checked.geometry, &checked.config.rename, &checked.config.timing), seed)
    }

    fn idle(&self) -> RenameIn {
        RenameIn::default()
    }

    fn summary(&self, _: &RandomRenames) -> Vec<(&'static str, u64)> {
        let s = self.stats();
        vec![
            ("destinations renamed", s.renames),
            ("TFET requests", s.tfet_requests),
            ("TFET registers given", s.tfet_given),
            ("fallbacks to other kind", s.fallbacks),
            ("renames with none free", s.stalls),
            ("registers released", s.releases),
            ("stall predictions", s.predictions),
        ]
    }
}

/// A counter's whole range, which short accesses never reach: now and then one warp's memory
/// access is held past the counter's top (it saturates, and the prediction from it is at its
/// largest), then that warp renames most destinations until the counter has drained to zero
/// (two per TFET register it is given), so every counter bit shows in when its warp's TFET
/// requests stop.
#[derive(Clone, Copy, Debug)]
enum Dwell {
    Held { warp: u32, until: u64 },
    Draining { warp: u32, until: u64 },
}

impl Dwell {
    fn warp(self) -> u32 {
        match self {
            Dwell::Held { warp, .. } | Dwell::Draining { warp, .. } => warp,
        }
    }
}

/// An access timed so that its warp's prediction lands on one bit's edge, then renames by that
/// warp: a prediction shows only in whether the warp requests TFET registers (above 1), at the
/// edge after it lands, so an edit of one bit of that check (`|stall[10:1]` without bit 7) shows
/// only for a prediction with that bit alone, and only if the warp renames then. Each (warp, bit)
/// in turn, at 2^k cycles, then 2^k + 1, then 2^k − 1 (every bit below).
#[derive(Clone, Copy, Debug)]
enum Edge {
    Timed { warp: u32, done_at: u64 },
    Renaming { warp: u32, until: u64 },
}

impl Edge {
    fn warp(self) -> u32 {
        match self {
            Edge::Timed { warp, .. } | Edge::Renaming { warp, .. } => warp,
        }
    }
}

/// The cycles a registered prediction takes to land, and one more: the edge warp renames in each.
const EDGE_RENAMES: u64 = 3;

/// Random rename traffic: renames of few registers per warp, releases of registers handed out,
/// loads, and memory accesses whose latencies vary around `ref_acc`, in phases that fill the
/// register file (few releases) and drain it (many).
pub struct RandomRenames {
    rng: Xoshiro256PlusPlus,
    /// Registers only: every warp renames.
    window: Window,
    l: RenameLayout,
    /// Registers handed out and not released.
    live: Vec<u32>,
    /// Warps with a memory access under way.
    waiting: u64,
    /// The warp the traffic dwells on, if any, and how many it has dwelt on (each warp in turn).
    dwell: Option<Dwell>,
    dwells: u32,
    /// The access timed to a bit's edge, if any, and how many have been (each in turn).
    edge: Option<Edge>,
    edges: u32,
    sample: u32,
    /// The warp that completed an access at the last edge, if any.
    last_done: Option<u32>,
}

impl RandomRenames {
    pub fn new(l: RenameLayout, seed: u64) -> Self {
        let window = Window::new(l.warps, l.registers);
        // Two seeds in a row start the round half the warps apart: a 50,000-cycle run dwells
        // on six to nine warps, and with every seed starting at warp 0 the last never had one.
        let warps = l.warps;
        let first = (seed % u64::from(warps)) as u32 * warps.div_ceil(2) % warps;
        RandomRenames {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            window,
            l,
            live: Vec::new(),
            waiting: 0,
            dwell: None,
            dwells: first,
            edge: None,
            // Seeds in a row start their edge accesses at bits of their own too.
            edges: first + warps * (seed % 10) as u32,
            sample: 100,
            last_done: None,
        }
    }
}

impl RandomRenames {
    /// The access timed to a bit's edge ([`Edge`]): started now and then while none is, on a
    /// warp not dwelt on; completed at its cycle (after a held completion due then); its renames
    /// ended. Returns its warp in the cycle it completes, where a register of each kind is
    /// released unless some are free.
    fn edge_step(
        &mut self,
        cycle: u64,
        out: &RenameOut,
        dwelt: Option<u32>,
        held_done: bool,
        i: &mut RenameIn,
    ) -> Option<u32> {
        let warps = self.l.warps;
        match self.edge {
            None => {
                let bits = self.edge_bits();
                let warp = self.edges % warps;
                if bits == 0 || !self.rng.random_bool(0.05) {
                    return None;
                }
                // The warp dwelt on is passed over, this turn.
                if Some(warp) == dwelt {
                    self.edges += 1;
                    return None;
                }
                let k = 1 + (self.edges / warps) % bits;
                let stall = match self.edges / (warps * bits) % 3 {
                    0 => 1 << k,
                    1 => (1 << k) + 1,
                    _ => (1 << k) - 1,
                };
                // The counter reads the cycles after the start's edge, before the completion's.
                let counted = u64::from(self.l.thr_acc + stall);
                (i.mem_start_valid, i.mem_start_warp) = (true, warp);
                self.edge = Some(Edge::Timed { warp, done_at: cycle + counted + 1 });
                None
            }
            Some(Edge::Timed { warp, done_at }) => {
                i.mem_start_valid &= i.mem_start_warp != warp;
                if cycle < done_at || held_done {
                    return None;
                }
                self.edge = Some(Edge::Renaming { warp, until: cycle + EDGE_RENAMES });
                // A register of each kind free for its renames (this cycle's rename may take one):
                // with none of the kind it asks for, or none of the other, a request and its
                // absence both end in the same kind.
                for (slot, (tfet, free)) in [(false, out.cmos_free), (true, out.tfet_free)].into_iter().enumerate() {
                    if free < 2
                        && let Some(at) = self.live.iter().position(|&p| self.l.is_tfet(p) == tfet)
                    {
                        if i.rel_valid[slot] {
                            self.live.push(i.rel_phys[slot]);
                        }
                        (i.rel_valid[slot], i.rel_phys[slot]) = (true, self.live.swap_remove(at));
                    }
                }
                Some(warp)
            }
            Some(Edge::Renaming { until, .. }) => {
                if cycle >= until {
                    (self.edge, self.edges) = (None, self.edges + 1);
                }
                None
            }
        }
    }

    /// How many of the prediction's bits (from bit 1) an edge access reaches: thr_acc and one
    /// above the bit's value within the counter.
    fn edge_bits(&self) -> u32 {
        (1..=COUNTER_MAX.ilog2()).take_while(|k| self.l.thr_acc + (1 << k) < COUNTER_MAX).count() as u32
    }
}

impl Stimulus<Rename> for RandomRenames {
    fn next(&mut self, cycle: u64, out: &RenameOut, i: &mut RenameIn) {
        let (rng, l, window) = (&mut self.rng, &self.l, &mut self.window);
        window.step(rng);
        let draining = match self.dwell {
            Some(Dwell::Draining { warp, .. }) => Some(warp),
            _ => None,
        };
        let filling = draining.is_none() && (cycle / 2_000).is_multiple_of(2);
        let edge_renames = match self.edge {
            Some(Edge::Renaming { warp, until }) if cycle <= until => Some(warp),
            _ => None,
        };
        i.ren_valid = edge_renames.is_some() || rng.random_bool(0.8);
        i.ren_warp = match (edge_renames, draining) {
            (Some(w), _) => w,
            (_, Some(w)) if rng.random_bool(0.9) => w,
            _ => rng.random_range(0..l.warps),
        };
        i.ren_src_reg = std::array::from_fn(|_| window.register(rng));
        i.ren_dst_reg = window.register(rng);
        i.ren_dst_load = draining != Some(i.ren_warp) && edge_renames.is_none() && rng.random_bool(0.3);
        // New destinations mostly when a register is free (the SM's protocol), sometimes not; an
        // edge access's warp takes one at each edge after its completion.
        i.ren_dst_new = (edge_renames.is_some() || rng.random_bool(0.7)) && (out.ren_ready || rng.random_bool(0.1));
        if i.ren_valid && i.ren_dst_new && out.ren_ready {
            let p = out.next_for(i.ren_warp, i.ren_dst_load).expect("a register is free");
            self.live.push(p);
        }
        let release = if filling { 0.05 } else { 0.5 };
        for s in 0..3 {
            i.rel_valid[s] = !self.live.is_empty() && rng.random_bool(release);
            if i.rel_valid[s] {
                let at = rng.random_range(0..self.live.len());
                i.rel_phys[s] = self.live.swap_remove(at);
            }
        }
        // Memory: accesses start and complete; the sampled latency drifts across ref_acc.
        i.mem_start_valid = rng.random_bool(0.04);
        i.mem_start_warp = rng.random_range(0..l.warps);
        let top = u64::from(COUNTER_MAX) + 1;
        let mut held_done = None;
        let edge_warp = self.edge.map(Edge::warp);
        match self.dwell {
            None if rng.random_bool(0.001) && edge_warp != Some(self.dwells % l.warps) => {
                (i.mem_start_valid, i.mem_start_warp) = (true, self.dwells % l.warps);
                self.dwells += 1;
                self.dwell =
                    Some(Dwell::Held { warp: i.mem_start_warp, until: cycle + top + rng.random_range(0..top / 2) });
            }
            Some(Dwell::Held { warp, until }) if cycle >= until => {
                // Completes now, with no restart beside it: the drain starts from the prediction.
                i.mem_start_valid &= i.mem_start_warp != warp;
                held_done = Some(warp);
                self.dwell = Some(Dwell::Draining { warp, until: cycle + 4 * top });
            }
            // Drained (it no longer requests TFET registers: the counter is below 2, where an
            // odd prediction stays at 1), or given up on.
            Some(Dwell::Draining { warp, until }) if cycle >= until || out.requesting >> warp & 1 == 0 => {
                self.dwell = None
            }
            // The warp dwelt on starts no other access.
            Some(d) if i.mem_start_warp == d.warp() => i.mem_start_valid = false,
            _ => {}
        }
        let dwelt = self.dwell.map(Dwell::warp);
        let edge_done = self.edge_step(cycle, out, dwelt, held_done.is_some(), i);
        let held = match self.dwell {
            Some(Dwell::Held { warp, .. }) => 1u64 << warp,
            _ => 0,
        };
        let timed = self.edge.map(Edge::warp);
        let (rng, l) = (&mut self.rng, &self.l);
        let waiting = self.waiting & !held & !timed.map_or(0, |w| 1u64 << w);
        let done = held_done.or(edge_done);
        i.mem_done_valid = done.is_some() || (waiting != 0 && rng.random_bool(0.05));
        if let Some(w) = done {
            i.mem_done_warp = w;
            self.waiting &= !(1 << w);
        } else if i.mem_done_valid {
            let n = rng.random_range(0..waiting.count_ones());
            let mut m = waiting;
            (0..n).for_each(|_| m &= m - 1);
            i.mem_done_warp = m.trailing_zeros();
            self.waiting &= !(1 << i.mem_done_warp);
        }
        // Now and then a warp restarts at its completion's edge or at the edge after (the start
        // wins over the completion, and over its prediction still on the way): a coincidence
        // the independent draws above give a few times a run. Not the warp dwelt on, nor one
        // timed to an edge.
        let done = i.mem_done_valid.then_some(i.mem_done_warp);
        let again = if rng.random_bool(0.5) { done } else { self.last_done };
        if let Some(w) = again.filter(|&w| Some(w) != dwelt && Some(w) != timed && held_done.is_none())
            && rng.random_bool(0.05)
        {
            (i.mem_start_valid, i.mem_start_warp) = (true, w);
        }
        self.last_done = done;
        if i.mem_start_valid {
            self.waiting |= 1 << i.mem_start_warp;
        }
        if rng.random_bool(0.01) {
            // Mostly around ref_acc; sometimes anywhere the port reaches.
            self.sample = match rng.random_bool(0.9) {
                true => rng.random_range(0..2 << l.ref_shift.min(9)),
                false => rng.random_range(0..=COUNTER_MAX),
            };
        }
        i.sample_acc = self.sample;
        // An edge access's prediction is its count beyond thr_acc: a sample at least ref_acc.
        if edge_done.is_some() && 1 << l.ref_shift <= COUNTER_MAX {
            i.sample_acc = self.sample.max(1 << l.ref_shift);
        }
    }
}
