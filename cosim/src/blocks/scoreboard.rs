//! The `scoreboard` cosim block: the scoreboard model bound to the generated
//! `<prefix>_scoreboard`. Its outputs are its state (pending, long-pending and pending
//! predicates), compared every cycle. The random stimulus follows the issue protocol: an
//! instruction issues only when none of its registers or predicates is pending, and its results
//! commit later, one register per cycle.

use super::window::Window;
use crate::glue::{CosimBlock, Expected, Glue, RandomBlock, Stimulus, bind_all, draw_reset};
use crate::kernel::{InSm, SmWith};
use crate::lockstep::Lockstep;
use crate::verilator::{Layout as PortLayout, PortSlot};
use anyhow::Result;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rfgen_gen::blocks::scoreboard::PREDICATES;
use rfgen_gen::blocks::scoreboard::interface::ScoreboardPorts;
use rfgen_gen::{Checked, Geometry};
use rfgen_model::blocks::issue::Issue;
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::blocks::scheduler::Scheduler;
use rfgen_model::blocks::scoreboard::{RegSet, Scoreboard, ScoreboardBlock, ScoreboardIn, ScoreboardOut};
use rfgen_model::blocks::sm_rf::SmRf;
use rfgen_model::blocks::warpboard::Warpboard;
use rfgen_model::kernel::Kernel;
use rfgen_model::sm::{SimError, SimStats, Sm};

/// A bit vector of `per` bits per warp, warp `w` at bit `per * w`, from each warp's bits
/// (`chunks(w)`: its bits as 64-bit words, lowest first), in 64-bit words.
fn pack(warps: usize, per: u32, chunks: impl Fn(usize) -> [u64; 4]) -> Vec<u64> {
    let mut words = vec![0u64; (warps * per as usize).div_ceil(64)];
    for w in 0..warps {
        let bits = chunks(w);
        for (c, &chunk) in bits.iter().enumerate().take((per as usize).div_ceil(64)) {
            let len = (per as usize - 64 * c).min(64);
            let value = if len == 64 { chunk } else { chunk & ((1 << len) - 1) };
            let at = w * per as usize + 64 * c;
            words[at / 64] |= value << (at % 64);
            if at % 64 + len > 64 {
                words[at / 64 + 1] |= value >> (64 - at % 64);
            }
        }
    }
    words
}

impl Glue for Scoreboard {
    const RESET_HOLDS_INPUTS: bool = true;

    type Ports = ScoreboardPorts<PortSlot>;

    fn bind(&self, layout: &PortLayout) -> Result<Self::Ports> {
        bind_all(&ScoreboardPorts::new(self.geometry()), layout, |i, f| i.map(f))
    }

    fn drive(&self, p: &Self::Ports, i: &ScoreboardIn, buf: &mut [u32]) {
        p.set_valid.put(buf, i.set_valid as u64);
        p.set_warp.put(buf, i.set_warp as u64);
        p.set_reg_valid.put(buf, i.set_reg_valid as u64);
        p.set_reg.put(buf, i.set_reg as u64);
        p.set_long.put(buf, i.set_long as u64);
        p.set_pred_valid.put(buf, i.set_pred_valid as u64);
        p.set_pred.put(buf, i.set_pred as u64);
        p.clr_valid.put(buf, i.clr_valid as u64);
        p.clr_warp.put(buf, i.clr_warp as u64);
        p.clr_reg.put(buf, i.clr_reg as u64);
        let preds = pack(i.clr_preds.len(), PREDICATES, |w| [u64::from(i.clr_preds[w]), 0, 0, 0]);
        for (k, word) in buf[p.clr_preds.range()].iter_mut().enumerate() {
            *word = (preds[k / 2] >> (32 * (k % 2))) as u32;
        }
    }

    fn expect(&self, p: &Self::Ports, out: &ScoreboardOut<'_>, _inp: &Self::In, exp: &mut Expected) {
        let (w, r) = (self.geometry().warps as usize, self.geometry().registers);
        let regs = |sets: &[RegSet]| pack(w, r, |w| sets[w].0);
        exp.set_bits(&p.pending, &regs(out.pending));
        exp.set_bits(&p.long_pending, &regs(out.long_pending));
        exp.set_bits(&p.pending_preds, &pack(w, PREDICATES, |w| [u64::from(out.pending_preds[w]), 0, 0, 0]));
    }
}

/// In the SM, the scoreboard in lockstep holds every issue of a real kernel on its pending registers.
impl InSm for Scoreboard {
    type Rf = SmRf<Mrf, Issue<Lockstep<Scoreboard>, Warpboard, Scheduler>>;

    fn place<'k>(c: &Checked, k: &'k Kernel, pair: Lockstep<Scoreboard>) -> Result<SmWith<'k, Scoreboard>, SimError> {
        let g = &c.geometry;
        let issue = Issue::new(c, pair, Warpboard::new(g, c.config.warpboard.policy), Scheduler::new(g, &c.config));
        Sm::with_blocks(c, k, Mrf::for_config(c), issue)
    }

    fn pair<'a>(sm: &'a SmWith<'_, Scoreboard>) -> &'a Lockstep<Scoreboard> {
        &sm.issue_stage().scoreboard
    }

    fn take(sm: SmWith<'_, Scoreboard>) -> Lockstep<Scoreboard> {
        sm.into_issue_stage().scoreboard
    }

    fn kernel_stats(&self, sim: &SimStats) -> Vec<(&'static str, u64)> {
        vec![("warp instructions", sim.warp_instructions), ("issue slots the scoreboard held", sim.stalls.scoreboard)]
    }
}

/// The SM can run on the lockstep pair as on the model alone.
impl<B: Glue + ScoreboardBlock> ScoreboardBlock for Lockstep<B> {}

impl CosimBlock for Scoreboard {
    fn model(checked: &Checked) -> Result<Self> {
        Ok(Scoreboard::new(&checked.geometry))
    }
}

impl RandomBlock for Scoreboard {
    type Stimulus = RandomResults;

    fn stimulus(checked: &Checked, seed: u64) -> RandomResults {
        RandomResults::new(&checked.geometry, seed)
    }

    fn idle(&self) -> ScoreboardIn {
        ScoreboardIn::new(self.geometry())
    }

    fn summary(&self, s: &RandomResults) -> Vec<(&'static str, u64)> {
        vec![
            ("instructions issued", s.issued),
            ("issues the scoreboard stalled", s.stalled),
            ("results committed", s.commits),
            ("resets in the run", s.resets),
        ]
    }
}

/// An instruction between issue and commit: its warp, register and predicate results.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    warp: u32,
    reg: Option<u32>,
    pred: Option<u32>,
}

/// Random issue traffic over few warps, registers and predicates at a time, so conflicts are
/// common, the warps and registers moving over the whole block ([`Window`]).
pub struct RandomResults {
    rng: Xoshiro256PlusPlus,
    window: Window,
    flying: Vec<InFlight>,
    issued: u64,
    stalled: u64,
    commits: u64,
    resets: u64,
}

impl RandomResults {
    pub fn new(g: &Geometry, seed: u64) -> Self {
        RandomResults {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            window: Window::new(g.warps, g.registers),
            flying: Vec::new(),
            issued: 0,
            stalled: 0,
            commits: 0,
            resets: 0,
        }
    }
}

impl Stimulus<Scoreboard> for RandomResults {
    /// A reset forgets the results on their way.
    fn reset_now(&mut self) -> bool {
        let reset = draw_reset(&mut self.rng);
        if reset {
            self.flying.clear();
            self.resets += 1;
        }
        reset
    }

    fn next(&mut self, _cycle: u64, out: &ScoreboardOut<'_>, i: &mut ScoreboardIn) {
        i.clear();
        let rng = &mut self.rng;
        self.window.step(rng);
        // Results complete: predicates freely, one register per cycle (the one write port).
        let mut reg_done = false;
        let mut still = Vec::new();
        for f in self.flying.drain(..) {
            if !rng.random_bool(0.25) || (f.reg.is_some() && reg_done) {
                still.push(f);
                continue;
            }
            if let Some(r) = f.reg {
                (i.clr_valid, i.clr_warp, i.clr_reg, reg_done) = (true, f.warp, r, true);
            }
            if let Some(p) = f.pred {
                i.clr_preds[f.warp as usize] |= 1 << p;
            }
            self.commits += 1;
        }
        self.flying = still;
        if !rng.random_bool(0.8) {
            return;
        }
        let window = &self.window;
        let warp = window.warp(rng);
        let mut touched = RegSet::default();
        for _ in 0..rng.random_range(0..=3) {
            touched.insert(window.register(rng));
        }
        let reg = rng.random_bool(0.7).then(|| window.register(rng));
        let pred = rng.random_bool(0.3).then(|| rng.random_range(0..PREDICATES));
        reg.into_iter().for_each(|r| touched.insert(r));
        let read_pred = rng.random_bool(0.3).then(|| rng.random_range(0..PREDICATES));
        let preds = [pred, read_pred].iter().flatten().fold(0u8, |m, &p| m | 1 << p);
        if out.conflicts(warp as usize, &touched, preds) {
            self.stalled += 1;
            return;
        }
        (i.set_valid, i.set_warp, i.set_long) = (true, warp, rng.random_bool(0.3));
        (i.set_reg_valid, i.set_reg) = (reg.is_some(), reg.unwrap_or(0));
        (i.set_pred_valid, i.set_pred) = (pred.is_some(), pred.unwrap_or(0));
        self.flying.push(InFlight { warp, reg, pred });
        self.issued += 1;
    }
}
