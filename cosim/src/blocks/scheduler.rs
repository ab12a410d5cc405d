//! The `scheduler` cosim block: the warp scheduler model bound to the generated
//! `<prefix>_scheduler` of the config's `[scheduler]`. The grant (and, two-level, the active set)
//! is decided within the cycle, so each cycle the model's decision on that cycle's inputs is
//! compared with the RTL's. The random stimulus varies eligibility slowly, so the last issuer
//! often stays eligible beside older warps (greedy choices matter), deschedules members of the
//! active set, offers refill candidates, launches warps and ends them. Half the cycles offer
//! more warps eligible if a collector were free than eligible, as the issue stage does while
//! every collector is busy.

use crate::glue::{CosimBlock, Expected, Glue, RandomBlock, Stimulus, bind_all, draw_reset};
use crate::kernel::{InSm, SmWith};
use crate::lockstep::Lockstep;
use crate::verilator::{Layout as PortLayout, PortSlot};
use anyhow::Result;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rfgen_gen::Checked;
use rfgen_gen::blocks::scheduler::Shape;
use rfgen_gen::blocks::scheduler::interface::SchedulerPorts;
use rfgen_gen::config::SchedulerPolicy;
use rfgen_model::blocks::issue::Issue;
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::blocks::scheduler::{Decision, Scheduler, SchedulerBlock, SchedulerIn, SchedulerOut};
use rfgen_model::blocks::scoreboard::Scoreboard;
use rfgen_model::blocks::sm_rf::SmRf;
use rfgen_model::blocks::warpboard::Warpboard;
use rfgen_model::kernel::Kernel;
use rfgen_model::sm::{SimError, SimStats, Sm};

impl Glue for Scheduler {
    const RESET_HOLDS_INPUTS: bool = true;

    type Ports = SchedulerPorts<PortSlot>;

    fn bind(&self, layout: &PortLayout) -> Result<Self::Ports> {
        bind_all(&SchedulerPorts::new(self.shape()), layout, |i, f| i.map(f))
    }

    fn drive(&self, p: &Self::Ports, i: &SchedulerIn, buf: &mut [u32]) {
        p.eligible.put(buf, i.eligible);
        p.eligible_if_free.put(buf, i.eligible_if_free);
        for (port, value) in [(&p.desched, i.desched), (&p.ready, i.ready), (&p.launch, i.launch), (&p.first, i.first)]
        {
            if let Some(port) = port {
                port.put(buf, value);
            }
        }
        p.grant_last.put(buf, i.grant_last as u64);
    }

    fn expect(&self, p: &Self::Ports, _out: &SchedulerOut<'_>, inp: &SchedulerIn, exp: &mut Expected) {
        let d = self.decide(inp);
        exp.set(&p.grant_valid, d.grant.is_some() as u64);
        exp.set_if(d.grant.is_some(), &p.grant_warp, d.grant.unwrap_or(0).into());
        exp.set(&p.if_free_valid, d.if_free.is_some() as u64);
        exp.set_if(d.if_free.is_some(), &p.if_free_warp, d.if_free.unwrap_or(0).into());
        if let Some(active) = &p.active {
            exp.set(active, d.active_mask());
        }
    }
}

/// The SM can run on the lockstep pair as on the model alone.
impl<B: Glue + SchedulerBlock> SchedulerBlock for Lockstep<B> {
    fn decide(&self, i: &SchedulerIn) -> Decision {
        self.model().decide(i)
    }
}

/// In the SM, the warp scheduler in lockstep grants every issue slot of a real kernel.
impl InSm for Scheduler {
    type Rf = SmRf<Mrf, Issue<Scoreboard, Warpboard, Lockstep<Scheduler>>>;

    fn place<'k>(c: &Checked, k: &'k Kernel, pair: Lockstep<Scheduler>) -> Result<SmWith<'k, Scheduler>, SimError> {
        let g = &c.geometry;
        let issue = Issue::new(c, Scoreboard::new(g), Warpboard::new(g, c.config.warpboard.policy), pair);
        Sm::with_blocks(c, k, Mrf::for_config(c), issue)
    }

    fn pair<'a>(sm: &'a SmWith<'_, Scheduler>) -> &'a Lockstep<Scheduler> {
        &sm.issue_stage().scheduler
    }

    fn take(sm: SmWith<'_, Scheduler>) -> Lockstep<Scheduler> {
        sm.into_issue_stage().scheduler
    }

    fn kernel_stats(&self, sim: &SimStats) -> Vec<(&'static str, u64)> {
        vec![
            ("warp instructions", sim.warp_instructions),
            ("cycles without an issue", sim.cycles - sim.stalls.issued),
            ("deschedules", sim.deschedules),
        ]
    }
}

impl CosimBlock for Scheduler {
    fn model(checked: &Checked) -> Result<Self> {
        Ok(Scheduler::new(&checked.geometry, &checked.config))
    }
}

impl RandomBlock for Scheduler {
    type Stimulus = RandomWarps;

    fn stimulus(checked: &Checked, seed: u64) -> RandomWarps {
        RandomWarps::new(&Shape::new(&checked.geometry, &checked.config), seed)
    }

    fn idle(&self) -> SchedulerIn {
        SchedulerIn::default()
    }

    fn summary(&self, s: &RandomWarps) -> Vec<(&'static str, u64)> {
        vec![
            ("cycles anything eligible", s.offered),
            ("deschedules", s.descheduled),
            ("warps launched", s.launched),
            ("last-instruction flags", s.finished),
            ("resets in the run", s.resets),
        ]
    }
}

/// Random scheduler traffic: each warp's eligibility flips now and then (so a warp stays
/// eligible for a few cycles), members of the active set leave, refill candidates and launches
/// come in groups.
pub struct RandomWarps {
    rng: Xoshiro256PlusPlus,
    shape: Shape,
    eligible: u64,
    offered: u64,
    descheduled: u64,
    launched: u64,
    finished: u64,
    resets: u64,
    /// Cycles left of the start after a reset: 2, no warp eligible and (GTO) a group launched;
    /// 1, a group of warps becomes eligible at once.
    restarting: u8,
}

impl RandomWarps {
    pub fn new(shape: &Shape, seed: u64) -> Self {
        RandomWarps {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            shape: *shape,
            eligible: 0,
            offered: 0,
            descheduled: 0,
            launched: 0,
            finished: 0,
            resets: 0,
            restarting: 0,
        }
    }

    fn some_warps(&mut self, p: f64) -> u64 {
        (0..self.shape.warps).filter(|_| self.rng.random_bool(p)).fold(0, |m, w| m | 1 << w)
    }
}

impl Stimulus<Scheduler> for RandomWarps {
    /// After a reset the warps start over: none eligible in the first cycle, and under GTO a
    /// group launched then, before any grant (the state the age order and the greedy choice
    /// must start from); in the next, a group of warps becomes eligible at once, so the first
    /// grant chooses among warps of both ages.
    fn reset_now(&mut self) -> bool {
        let reset = draw_reset(&mut self.rng);
        if reset {
            (self.eligible, self.restarting) = (0, 2);
            self.resets += 1;
        }
        reset
    }

    fn next(&mut self, _cycle: u64, out: &SchedulerOut<'_>, i: &mut SchedulerIn) {
        *i = SchedulerIn::default();
        match self.restarting {
            2 => {}
            1 => self.eligible = self.some_warps(0.5),
            _ => self.eligible ^= self.some_warps(0.15),
        }
        i.eligible = self.eligible;
        // As the issue stage drives it: the warps eligible if a collector were free, the same
        // as `eligible` in most cycles, else more (those waiting for a collector).
        i.eligible_if_free = match self.rng.random_bool(0.5) {
            true => i.eligible,
            false => i.eligible | self.some_warps(0.3),
        };
        self.offered += (i.eligible != 0) as u64;
        match self.shape.policy {
            SchedulerPolicy::TwoLevel => {
                for &w in out.active {
                    if self.rng.random_bool(0.1) {
                        i.desched |= 1 << w;
                        self.descheduled += 1;
                    }
                }
                // Descheduled warps are not ready: they wait for the same reason.
                i.ready = self.some_warps(0.4) & !i.desched;
            }
            SchedulerPolicy::Gto if self.restarting == 2 || self.rng.random_bool(0.05) => {
                i.launch = self.some_warps(if self.restarting == 2 { 0.5 } else { 0.3 });
                self.launched += i.launch.count_ones() as u64;
            }
            _ => {}
        }
        if self.shape.first {
            i.first = self.some_warps(0.3);
        }
        i.grant_last = self.rng.random_bool(0.03);
        self.finished += i.grant_last as u64;
        self.restarting = self.restarting.saturating_sub(1);
    }
}
