//! The `warpboard` cosim block: the warpboard model bound to the generated `<prefix>_warpboard`
//! of the config's `warpboard.policy`. Its outputs are its state (busy bits or bins), compared
//! every cycle. The random stimulus follows the issue stage's protocol: an instruction issues
//! only when the check on this cycle's outputs lets it and a collector is free; it leaves its
//! collector later, and commits after leaving.

use super::window::Window;
use crate::glue::{CosimBlock, Expected, Glue, RandomBlock, Stimulus, bind_all, draw_reset};
use crate::kernel::{InSm, SmWith};
use crate::lockstep::Lockstep;
use crate::verilator::{Layout as PortLayout, PortSlot};
use anyhow::{Result, anyhow};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rfgen_gen::blocks::warpboard::Shape;
use rfgen_gen::blocks::warpboard::interface::WarpboardPorts;
use rfgen_gen::{Checked, Geometry};
use rfgen_model::blocks::issue::Issue;
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::blocks::scheduler::Scheduler;
use rfgen_model::blocks::scoreboard::Scoreboard;
use rfgen_model::blocks::sm_rf::SmRf;
use rfgen_model::blocks::warpboard::{Warpboard, WarpboardBlock, WarpboardIn, WarpboardOut, touch};
use rfgen_model::kernel::Kernel;
use rfgen_model::sm::{SimError, SimStats, Sm};

impl Glue for Warpboard {
    const RESET_HOLDS_INPUTS: bool = true;

    type Ports = WarpboardPorts<PortSlot>;

    fn bind(&self, layout: &PortLayout) -> Result<Self::Ports> {
        bind_all(&WarpboardPorts::new(self.shape()), layout, |i, f| i.map(f))
    }

    fn drive(&self, p: &Self::Ports, i: &WarpboardIn, buf: &mut [u32]) {
        let bits = |v: &[bool; 3]| v.iter().enumerate().fold(0, |m, (k, &b)| m | (b as u64) << k);
        p.iss_valid.put(buf, i.iss_valid as u64);
        p.iss_warp.put(buf, i.iss_warp as u64);
        if let (Some(v), Some(w)) = (&p.lv_valid, &p.lv_warp) {
            v.put(buf, i.lv_valid as u64);
            w.put(buf, i.lv_warp as u64);
        }
        if let Some(c) = &p.commit {
            c.put(buf, i.commit);
        }
        if let Some(b) = &p.bloom {
            b.iss_src_valid.put(buf, bits(&i.iss_src_valid));
            b.lv_src_valid.put(buf, bits(&i.lv_src_valid));
            for k in 0..3 {
                b.iss_src_reg[k].put(buf, i.iss_src_reg[k] as u64);
                b.lv_src_reg[k].put(buf, i.lv_src_reg[k] as u64);
            }
        }
    }

    fn expect(&self, p: &Self::Ports, out: &WarpboardOut<'_>, _inp: &Self::In, exp: &mut Expected) {
        if let Some(busy) = &p.busy {
            exp.set(busy, out.busy);
        }
        if let (Some(b), Some(bins)) = (&p.bloom, &self.shape().bloom) {
            let cw = bins.counter_bits as usize;
            let mut words = vec![0u64; (out.bins.len() * cw).div_ceil(64)];
            for (i, &v) in out.bins.iter().enumerate() {
                for bit in 0..cw {
                    let at = i * cw + bit;
                    words[at / 64] |= u64::from(v >> bit & 1) << (at % 64);
                }
            }
            exp.set_bits(&b.bins, &words);
        }
    }
}

/// The SM can run on the lockstep pair as on the model alone.
impl<B: Glue + WarpboardBlock> WarpboardBlock for Lockstep<B> {
    fn shape(&self) -> &Shape {
        self.model().shape()
    }
}

/// In the SM, the warpboard in lockstep sees the issue, leave and commit events of a real
/// kernel's instruction stream.
impl InSm for Warpboard {
    type Rf = SmRf<Mrf, Issue<Scoreboard, Lockstep<Warpboard>, Scheduler>>;

    fn place<'k>(c: &Checked, k: &'k Kernel, pair: Lockstep<Warpboard>) -> Result<SmWith<'k, Warpboard>, SimError> {
        let g = &c.geometry;
        let issue = Issue::new(c, Scoreboard::new(g), Some(pair), Scheduler::new(g, &c.config));
        Sm::with_blocks(c, k, Mrf::for_config(c), issue)
    }

    fn pair<'a>(sm: &'a SmWith<'_, Warpboard>) -> &'a Lockstep<Warpboard> {
        sm.issue_stage().warpboard.as_ref().expect("placed with its warpboard")
    }

    fn take(sm: SmWith<'_, Warpboard>) -> Lockstep<Warpboard> {
        sm.into_issue_stage().warpboard.expect("placed with its warpboard")
    }

    fn kernel_stats(&self, sim: &SimStats) -> Vec<(&'static str, u64)> {
        vec![("warp instructions", sim.warp_instructions), ("issue slots the warpboard held", sim.stalls.warpboard)]
    }
}

impl CosimBlock for Warpboard {
    fn model(checked: &Checked) -> Result<Self> {
        Warpboard::new(&checked.geometry, checked.config.warpboard.policy)
            .ok_or_else(|| anyhow!("warpboard.policy is \"none\": there is no warpboard"))
    }
}

impl RandomBlock for Warpboard {
    type Stimulus = RandomIssue;

    fn stimulus(checked: &Checked, seed: u64) -> RandomIssue {
        RandomIssue::new(checked, seed)
    }

    fn idle(&self) -> WarpboardIn {
        WarpboardIn::default()
    }

    fn summary(&self, s: &RandomIssue) -> Vec<(&'static str, u64)> {
        vec![
            ("instructions issued", s.issued),
            ("issues the warpboard stalled", s.stalled),
            ("issues past the check", s.forced),
            ("leaves", s.leaves),
            ("commits", s.commits),
            ("resets in the run", s.resets),
        ]
    }
}

/// An instruction between issue and commit.
#[derive(Clone, Copy, Debug)]
struct Pending {
    warp: u32,
    src_valid: [bool; 3],
    src_reg: [u32; 3],
}

/// Of the instructions the check stalls, the share issued all the same: outside the issue
/// protocol, which never takes a bin past its maximum, so that the counters' saturation and
/// their floor at 0 (losing the reads saturation dropped) are checked too. Without it a
/// 200-mutant campaign of `war-warpboard` left three edits of those escaping.
const PAST_THE_CHECK: f64 = 0.05;

/// Random issue-stage traffic: instructions of random warps with random sources (few
/// registers, so bins fill), issued when the check passes (now and then when it does not) and
/// one of the `collectors` is free.
pub struct RandomIssue {
    rng: Xoshiro256PlusPlus,
    window: Window,
    g: Geometry,
    shape: Shape,
    collecting: Vec<Pending>,
    executing: Vec<Pending>,
    issued: u64,
    stalled: u64,
    forced: u64,
    leaves: u64,
    commits: u64,
    resets: u64,
}

impl RandomIssue {
    pub fn new(checked: &Checked, seed: u64) -> Self {
        let g = checked.geometry.clone();
        let shape =
            Shape::new(&g, checked.config.warpboard.policy).expect("the block exists, so the policy is not none");
        RandomIssue {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            window: Window::new(g.warps, g.registers),
            g,
            shape,
            collecting: Vec::new(),
            executing: Vec::new(),
            issued: 0,
            stalled: 0,
            forced: 0,
            leaves: 0,
            commits: 0,
            resets: 0,
        }
    }
}

impl Stimulus<Warpboard> for RandomIssue {
    /// A reset forgets the instructions collecting and executing.
    fn reset_now(&mut self) -> bool {
        let reset = draw_reset(&mut self.rng);
        if reset {
            self.collecting.clear();
            self.executing.clear();
            self.resets += 1;
        }
        reset
    }

    fn next(&mut self, _cycle: u64, out: &WarpboardOut<'_>, i: &mut WarpboardIn) {
        *i = WarpboardIn::default();
        let rng = &mut self.rng;
        self.window.step(rng);
        // Commits of instructions that left earlier.
        let mut still = Vec::new();
        for p in self.executing.drain(..) {
            if rng.random_bool(0.3) {
                i.commit |= 1 << p.warp;
                self.commits += 1;
            } else {
                still.push(p);
            }
        }
        self.executing = still;
        let full = self.collecting.len() >= self.g.collectors as usize;
        if !self.collecting.is_empty() && rng.random_bool(0.4) {
            let p = self.collecting.swap_remove(rng.random_range(0..self.collecting.len()));
            (i.lv_valid, i.lv_warp, i.lv_src_valid, i.lv_src_reg) = (true, p.warp, p.src_valid, p.src_reg);
            self.executing.push(p);
            self.leaves += 1;
        }
        if full || !rng.random_bool(0.8) {
            return;
        }
        let window = &self.window;
        let warp = window.warp(rng);
        let mut p = Pending { warp, src_valid: [false; 3], src_reg: [0; 3] };
        for k in 0..3 {
            (p.src_valid[k], p.src_reg[k]) = (rng.random_bool(0.7), window.register(rng));
        }
        let dst = rng.random_bool(0.8).then(|| window.register(rng));
        let srcs = (0..3).filter(|&k| p.src_valid[k]).map(|k| p.src_reg[k]);
        if out.stalls(&self.shape, warp as usize, &touch(&self.g, warp, srcs, dst)) {
            if !rng.random_bool(PAST_THE_CHECK) {
                self.stalled += 1;
                return;
            }
            self.forced += 1;
        }
        (i.iss_valid, i.iss_warp, i.iss_src_valid, i.iss_src_reg) = (true, warp, p.src_valid, p.src_reg);
        self.collecting.push(p);
        self.issued += 1;
    }
}
