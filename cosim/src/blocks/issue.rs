//! The `issue` cosim block: the issue stage's model (scoreboard, warpboard, warp scheduler and
//! the check between them) bound to the generated `<prefix>_issue`. The grant, the active set
//! and the eligible warps are decided within the cycle, so each cycle the model's decision on
//! that cycle's inputs is compared with the RTL's. The random stimulus keeps each warp's next
//! instruction for a while over few registers (conflicts are common), moves the last issuer on,
//! and releases what is pending; kernel mode is the real protocol.

use super::window::Window;
use crate::glue::{CosimBlock, Expected, Glue, RandomBlock, Stimulus, bind_all, draw_reset, pack};
use crate::kernel::{InSm, SmWith};
use crate::lockstep::Lockstep;
use crate::verilator::{Layout as PortLayout, PortSlot};
use anyhow::Result;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rfgen_gen::blocks::issue::interface::IssuePorts;
use rfgen_gen::blocks::scoreboard::PREDICATES;
use rfgen_gen::config::SchedulerPolicy;
use rfgen_gen::{Checked, Geometry};
use rfgen_model::blocks::issue::{Issue, IssueBlock, IssueDecision, IssueIn, IssueOut, Next, NextFields};
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::blocks::sm_rf::SmRf;
use rfgen_model::kernel::Kernel;
use rfgen_model::sm::{SimError, SimStats, Sm};

impl Glue for Issue {
    const RESET_HOLDS_INPUTS: bool = true;

    type Ports = IssuePorts<PortSlot>;

    fn bind(&self, layout: &PortLayout) -> Result<Self::Ports> {
        bind_all(&IssuePorts::new(self.shape()), layout, |i, f| i.map(f))
    }

    fn drive(&self, p: &Self::Ports, i: &IssueIn, buf: &mut [u32]) {
        let mask = |f: fn(&Next) -> bool| i.next.iter().enumerate().fold(0u64, |m, (w, n)| m | (f(n) as u64) << w);
        p.next_valid.put(buf, mask(|n| n.valid));
        p.next_dst_valid.put(buf, mask(|n| n.dst_valid));
        p.next_pdst_valid.put(buf, mask(|n| n.pdst_valid));
        p.next_control.put(buf, mask(|n| n.control));
        p.next_long.put(buf, mask(|n| n.long));
        if let Some(port) = &p.next_long_consumer {
            port.put(buf, mask(|n| n.long_consumer));
        }
        let slots = || i.next.iter().flat_map(|n| (0..3).map(|k| (n.src_valid[k], n.src_reg[k])));
        pack(buf, &p.next_src_valid, 1, slots().map(|(v, _)| v as u64));
        let rb = self.shape().reg_bits as usize;
        pack(buf, &p.next_src_reg, rb, slots().map(|(_, r)| r.into()));
        pack(buf, &p.next_dst, rb, i.next.iter().map(|n| n.dst.into()));
        pack(buf, &p.next_preds, PREDICATES as usize, i.next.iter().map(|n| n.preds.into()));
        pack(buf, &p.next_pdst, 3, i.next.iter().map(|n| n.pdst.into()));
        p.barrier.put(buf, i.barrier);
        if let Some(port) = &p.hold {
            port.put(buf, i.hold);
        }
        if let Some(port) = &p.stall {
            port.put(buf, i.stall);
        }
        if let Some(port) = &p.first {
            port.put(buf, i.first);
        }
        p.collector_ready.put(buf, i.collector_ready as u64);
        if let Some(port) = &p.launch {
            port.put(buf, i.launch);
        }
        p.grant_last.put(buf, i.grant_last as u64);
        p.clr_valid.put(buf, i.clr_valid as u64);
        p.clr_warp.put(buf, i.clr_warp.into());
        p.clr_reg.put(buf, i.clr_reg.into());
        pack(buf, &p.clr_preds, PREDICATES as usize, i.clr_preds.iter().map(|&m| m.into()));
        if let (Some(v), Some(w)) = (&p.lv_valid, &p.lv_warp) {
            v.put(buf, i.lv_valid as u64);
            w.put(buf, i.lv_warp.into());
        }
        if let (Some(v), Some(regs)) = (&p.lv_src_valid, &p.lv_src_reg) {
            v.put(buf, i.lv_src_valid.iter().enumerate().fold(0, |m, (k, &b)| m | (b as u64) << k));
            for (port, &r) in regs.iter().zip(&i.lv_src_reg) {
                port.put(buf, r.into());
            }
        }
        if let Some(port) = &p.commit {
            port.put(buf, i.commit);
        }
    }

    fn expect(&self, p: &Self::Ports, _out: &IssueOut<'_>, inp: &IssueIn, exp: &mut Expected) {
        let d = self.decide(inp);
        let grant = d.sched.grant;
        exp.set(&p.grant_valid, grant.is_some() as u64);
        exp.set_if(grant.is_some(), &p.grant_warp, grant.unwrap_or(0).into());
        // What enters a collector: the grant unless it completes at issue, its warp chosen as
        // if a collector were free (the grant whenever one is).
        let to_collector = grant.is_some_and(|w| !inp.next[w as usize].control);
        exp.set(&p.to_collector, to_collector as u64);
        let if_free = d.sched.if_free;
        exp.set_if(if_free.is_some(), &p.to_collector_warp, if_free.unwrap_or(0).into());
        if let Some(active) = &p.active {
            exp.set(active, d.sched.active_mask());
        }
        exp.set(&p.eligible, d.eligible);
    }
}

/// The SM can run on the lockstep pair as on the model alone.
impl<B: Glue + IssueBlock> IssueBlock for Lockstep<B> {
    fn decide(&self, i: &IssueIn) -> IssueDecision {
        self.model().decide(i)
    }
}

/// In the SM, the issue stage in lockstep checks and grants every issue slot of a real kernel.
impl InSm for Issue {
    type Rf = SmRf<Mrf, Lockstep<Issue>>;

    fn place<'k>(c: &Checked, k: &'k Kernel, pair: Lockstep<Issue>) -> Result<SmWith<'k, Issue>, SimError> {
        Sm::with_blocks(c, k, Mrf::for_config(c), pair)
    }

    fn pair<'a>(sm: &'a SmWith<'_, Issue>) -> &'a Lockstep<Issue> {
        sm.issue_stage()
    }

    fn take(sm: SmWith<'_, Issue>) -> Lockstep<Issue> {
        sm.into_issue_stage()
    }

    fn kernel_stats(&self, sim: &SimStats) -> Vec<(&'static str, u64)> {
        vec![
            ("warp instructions", sim.warp_instructions),
            ("issue slots the scoreboard held", sim.stalls.scoreboard),
            ("issue slots the warpboard held", sim.stalls.warpboard),
            ("deschedules", sim.deschedules),
        ]
    }
}

impl CosimBlock for Issue {
    fn model(checked: &Checked) -> Result<Self> {
        Ok(Issue::for_config(checked))
    }
}

impl RandomBlock for Issue {
    type Stimulus = RandomStage;

    fn stimulus(checked: &Checked, seed: u64) -> RandomStage {
        RandomStage::new(checked, seed)
    }

    fn idle(&self) -> IssueIn {
        IssueIn::new(self.geometry())
    }

    fn summary(&self, s: &RandomStage) -> Vec<(&'static str, u64)> {
        vec![
            ("cycles with a last issuer", s.granted),
            ("cycles with registers pending", s.pending),
            ("register releases", s.releases),
            ("leaves", s.leaves),
            ("resets in the run", s.resets),
        ]
    }
}

/// Random issue-stage traffic over few registers and warps.
pub struct RandomStage {
    rng: Xoshiro256PlusPlus,
    /// Registers only: every warp has a next instruction.
    window: Window,
    g: Geometry,
    policy: SchedulerPolicy,
    granted: u64,
    pending: u64,
    releases: u64,
    leaves: u64,
    resets: u64,
}

impl RandomStage {
    pub fn new(checked: &Checked, seed: u64) -> Self {
        RandomStage {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            window: Window::new(checked.geometry.warps, checked.geometry.registers),
            g: checked.geometry.clone(),
            policy: checked.config.scheduler.policy,
            granted: 0,
            pending: 0,
            releases: 0,
            leaves: 0,
            resets: 0,
        }
    }

    /// Warp `w`'s next instruction after `prev`. Half the time it also reads a predicate its
    /// warp has pending (or `prev` writes: its reservation may be a register stage away), and
    /// names one of the warp's pending registers (or `prev`'s destination) in one of its four
    /// register fields, used or not, so that each pending bit is tested soon after it is set and
    /// against every field: one predicate's bit released an edge early, and an absent
    /// destination counted as register 28, escaped instructions drawn without regard to what is
    /// pending.
    fn next_instruction(&mut self, out: &IssueOut<'_>, w: u32, prev: &Next) -> Next {
        let (rng, window) = (&mut self.rng, &self.window);
        let mut reg = |p: f64| rng.random_bool(p).then(|| window.register(rng));
        let mut f = NextFields {
            src: [reg(0.7), reg(0.5), reg(0.2)],
            dst: reg(0.7),
            preds: if rng.random_bool(0.3) { 1 << window.predicate(rng) } else { 0 },
            pdst: rng.random_bool(0.2).then(|| window.predicate(rng)),
            control: rng.random_bool(0.1),
            long: rng.random_bool(0.3),
            long_consumer: rng.random_bool(0.3),
        };
        let written = if prev.valid && prev.pdst_valid { 1u8 << prev.pdst } else { 0 };
        let preds = out.scoreboard.pending_preds[w as usize] | written;
        if preds != 0 && rng.random_bool(0.5) {
            let k = rng.random_range(0..preds.count_ones()) as usize;
            f.preds |= 1 << (0..8).filter(|b| preds >> b & 1 == 1).nth(k).expect("k < the pending count");
        }
        let regs = out.scoreboard.pending[w as usize];
        let mut waiting: Vec<u32> = (0..self.g.registers).filter(|&r| regs.contains(r)).collect();
        if prev.valid && prev.dst_valid && !regs.contains(prev.dst) {
            waiting.push(prev.dst);
        }
        // (field, register): fields 0 to 2 the sources, 3 the destination.
        let named = (!waiting.is_empty() && rng.random_bool(0.5))
            .then(|| (rng.random_range(0..4usize), waiting[rng.random_range(0..waiting.len())]));
        match named {
            Some((3, r)) if f.dst.is_some() => f.dst = Some(r),
            Some((s, r)) if s < 3 && f.src[s].is_some() => f.src[s] = Some(r),
            _ => {}
        }
        // Fields of absent operands carry noise, as a real decoder's would: an edit that lets
        // an invalid slot's register count (a valid bit XNORed with itself) escaped zeros there.
        // Half of it from the window, where registers are pending: an edit counting an absent
        // destination as register 28 escaped noise drawn from all registers.
        let mut next = Next::new(&f);
        let any = self.g.registers;
        let (rng, window) = (&mut self.rng, &self.window);
        let mut noise = || if rng.random_bool(0.5) { window.register(rng) } else { rng.random_range(0..any) };
        for s in 0..3 {
            if !next.src_valid[s] {
                next.src_reg[s] = noise();
            }
        }
        if !next.dst_valid {
            next.dst = noise();
        }
        match named {
            Some((3, r)) if !next.dst_valid => next.dst = r,
            Some((s, r)) if s < 3 && !next.src_valid[s] => next.src_reg[s] = r,
            _ => {}
        }
        if !next.pdst_valid {
            next.pdst = if self.rng.random_bool(0.5) {
                self.window.predicate(&mut self.rng)
            } else {
                self.rng.random_range(0..PREDICATES)
            };
        }
        next
    }
}

impl Stimulus<Issue> for RandomStage {
    /// The stage's state is read from its outputs each cycle; the descriptors stay.
    fn reset_now(&mut self) -> bool {
        let reset = draw_reset(&mut self.rng);
        self.resets += reset as u64;
        reset
    }

    fn next(&mut self, _cycle: u64, out: &IssueOut<'_>, i: &mut IssueIn) {
        i.clear_events();
        self.window.step(&mut self.rng);
        let warps = self.g.warps;
        // The last issuer moves on to its next instruction; others change now and then.
        let last = out.scheduler.last;
        self.granted += last.is_some() as u64;
        for w in 0..warps {
            let p = if last == Some(w) { 0.8 } else { 0.05 };
            if self.rng.random_bool(p) {
                let prev = i.next[w as usize];
                i.next[w as usize] =
                    if self.rng.random_bool(0.9) { self.next_instruction(out, w, &prev) } else { Next::default() };
            }
            if self.rng.random_bool(0.01) {
                i.barrier ^= 1 << w;
            }
        }
        let rng = &mut self.rng;
        i.hold = if rng.random_bool(0.2) { 1 << rng.random_range(0..warps) } else { 0 };
        i.stall = if rng.random_bool(0.2) { 1 << rng.random_range(0..warps) } else { 0 };
        i.first = if rng.random_bool(0.5) { rng.random::<u64>() & (u64::MAX >> (64 - warps)) } else { 0 };
        i.collector_ready = rng.random_bool(0.7);
        if self.policy == SchedulerPolicy::Gto && rng.random_bool(0.05) {
            i.launch = 1 << rng.random_range(0..warps);
        }
        i.grant_last = rng.random_bool(0.02);
        // Releases: any pending register of some warp (not always its lowest, so that a high
        // register is released while a low one waits); predicates below.
        let w = rng.random_range(0..warps) as usize;
        let pending = out.scoreboard.pending[w];
        self.pending += out.scoreboard.pending.iter().any(|p| !p.is_empty()) as u64;
        let waiting = || (0..self.g.registers).filter(|&r| pending.contains(r));
        let n = waiting().count();
        if n > 0 && rng.random_bool(0.6) {
            let r = waiting().nth(rng.random_range(0..n)).expect("n registers wait");
            (i.clr_valid, i.clr_warp, i.clr_reg) = (true, w as u32, r);
            self.releases += 1;
        }
        // Predicates complete in several warps at once, as results of different warps do: an
        // edit releasing one warp's predicate with another warp's escaped releases of one warp
        // per cycle.
        for (clr, &pending) in i.clr_preds.iter_mut().zip(out.scoreboard.pending_preds) {
            *clr = if rng.random_bool(0.2) { pending & rng.random::<u8>() } else { 0 };
        }
        // Leaves and commits of earlier instructions (counters never go below 0).
        if rng.random_bool(0.4) {
            let window = &self.window;
            (i.lv_valid, i.lv_warp) = (true, rng.random_range(0..warps));
            i.lv_src_valid = [rng.random_bool(0.7), rng.random_bool(0.5), rng.random_bool(0.2)];
            i.lv_src_reg = [window.register(rng), window.register(rng), window.register(rng)];
            self.leaves += 1;
        }
        i.commit = if rng.random_bool(0.3) { 1 << rng.random_range(0..warps) } else { 0 };
    }
}
