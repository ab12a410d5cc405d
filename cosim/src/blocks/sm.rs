//! The `sm` cosim block: the SM's register-file pipeline (`rfgen_model::blocks::sm_rf`) bound to
//! the generated `<prefix>_sm_rf`. The parts' glue encodes the ports that pass through the top
//! (the issue stage's, the MRF's and the rename stage's, under their own names): each part
//! drives and expects on a buffer of its own shape, and the words are routed to the top's ports.
//! What the top adds is encoded here: the per-warp operand descriptors (`next_src_last`, the
//! ORF/LRF fields, the rename stage's `next_dst_new`/`next_dst_load`), `wb_arch_reg`, the warp
//! events (`launch` beside a scheduler without it, `exit`), `grant_tag` and `freeing`. Its random stimulus is random programs run by the SM (`--kernel synthetic:...`).

use super::Outcome;
use crate::glue::{CosimBlock, Expected, Glue, bind_all, pack, sources};
use crate::kernel::{InSm, KernelOptions, SmWith, run_block};
use crate::lockstep::Lockstep;
use crate::random::RunOptions;
use crate::verilator::RtlLib;
use crate::verilator::{Layout, PortSlot};
use anyhow::{Result, bail};
use rfgen_gen::Checked;
use rfgen_gen::blocks::issue::interface::IssuePorts;
use rfgen_gen::blocks::mrf::interface::MrfPorts;
use rfgen_gen::blocks::rename::interface::RenamePorts;
use rfgen_gen::blocks::sm_rf::interface::SmRfPorts;
use rfgen_gen::verilog::Ports;
use rfgen_model::blocks::issue::{Issue, IssueDecision};
use rfgen_model::blocks::mrf::{Mrf, MrfStats};
use rfgen_model::blocks::rename::{Lookup, Rename};
use rfgen_model::blocks::sm_rf::{NextRead, SmRf, SmRfBlock, SmRfIn, SmRfOut};
use rfgen_model::kernel::{Kernel, synthetic};
use rfgen_model::sm::{SimError, SimStats, Sm};
use std::cell::RefCell;
use std::sync::Arc;

/// A part of the top: its ports bound to a buffer of its own shape, and which of them are
/// ports of the top (part slot, top slot).
pub struct Part<P> {
    layout: Layout,
    ports: P,
    inputs: Vec<(PortSlot, PortSlot)>,
    outputs: Vec<(PortSlot, PortSlot)>,
}

impl<P> Part<P> {
    /// Binds a part through `bind` to a layout of its own ports, and routes every port the top
    /// shares with it by name (checked for width).
    fn new(
        declared: &[rfgen_gen::verilog::Port],
        top: &Layout,
        bind: impl FnOnce(&Layout) -> Result<P>,
    ) -> Result<Self> {
        let layout = Layout::of(declared);
        let ports = bind(&layout)?;
        let route = |mine: &[PortSlot], theirs: &[PortSlot]| -> Result<Vec<(PortSlot, PortSlot)>> {
            let mut v = Vec::new();
            for m in mine {
                if let Some(t) = theirs.iter().find(|t| t.name == m.name) {
                    if t.width != m.width {
                        bail!("port `{}` of the top is {} bits, its part's is {}", t.name, t.width, m.width);
                    }
                    v.push((m.clone(), t.clone()));
                }
            }
            Ok(v)
        };
        let inputs = route(&layout.inputs, &top.inputs)?;
        let outputs = route(&layout.outputs, &top.outputs)?;
        Ok(Part { layout, ports, inputs, outputs })
    }
}

/// The top's ports: the parts', the per-warp operand descriptors and the tag output; buffers for
/// the parts' encodings.
pub struct SmRfSlots {
    issue: Part<<Issue as Glue>::Ports>,
    mrf: Part<<Mrf as Glue>::Ports>,
    rename: Option<Part<<Rename as Glue>::Ports>>,
    top: SmRfPorts<PortSlot>,
    scratch: RefCell<Scratch>,
}

struct Scratch {
    issue_in: Vec<u32>,
    mrf_in: Vec<u32>,
    rename_in: Vec<u32>,
    issue_exp: Expected,
    mrf_exp: Expected,
    rename_exp: Option<Expected>,
}

impl Glue for SmRf<Mrf, Issue> {
    type Ports = SmRfSlots;

    fn bind(&self, layout: &Layout) -> Result<SmRfSlots> {
        let issue_ports = IssuePorts::new(self.issue.shape());
        let m = &self.mrf;
        let mrf_ports = MrfPorts::new(m.geometry(), m.layout(), m.rfc_layout(), m.orf_layout());
        let rename_ports = self.rename.as_ref().map(|r| RenamePorts::new(r.layout()));
        let iface = SmRfPorts::new(m.geometry(), &issue_ports, &mrf_ports, rename_ports.as_ref());
        let top = bind_all(&iface, layout, |i, f| i.map(f))?;
        let issue = Part::new(&issue_ports.declared(), layout, |l| self.issue.bind(l))?;
        let mrf = Part::new(&mrf_ports.declared(), layout, |l| self.mrf.bind(l))?;
        let rename = match (&self.rename, &rename_ports) {
            (Some(r), Some(ports)) => Some(Part::new(&ports.declared(), layout, |l| r.bind(l))?),
            _ => None,
        };
        let scratch = Scratch {
            issue_in: vec![0; issue.layout.in_words],
            mrf_in: vec![0; mrf.layout.in_words],
            rename_in: vec![0; rename.as_ref().map_or(0, |r| r.layout.in_words)],
            issue_exp: Expected::new(&issue.layout),
            mrf_exp: Expected::new(&mrf.layout),
            rename_exp: rename.as_ref().map(|r| Expected::new(&r.layout)),
        };
        Ok(SmRfSlots { issue, mrf, rename, top, scratch: RefCell::new(scratch) })
    }

    fn drive(&self, p: &SmRfSlots, i: &SmRfIn, buf: &mut [u32]) {
        let s = &mut *p.scratch.borrow_mut();
        self.issue.drive(&p.issue.ports, &i.issue, &mut s.issue_in);
        self.mrf.drive(&p.mrf.ports, &i.mrf, &mut s.mrf_in);
        if let (Some(r), Some(part)) = (&self.rename, &p.rename) {
            r.drive(&part.ports, &i.rename, &mut s.rename_in);
        }
        let rename = p.rename.as_ref().map(|r| (&r.inputs, &s.rename_in));
        for (part, scratch) in [(&p.issue.inputs, &s.issue_in), (&p.mrf.inputs, &s.mrf_in)].into_iter().chain(rename) {
            for (mine, top) in part {
                buf[top.range()].copy_from_slice(&scratch[mine.range()]);
            }
        }
        let t = &p.top;
        if let Some(launch) = &t.launch {
            launch.put(buf, i.issue.launch);
        }
        if let Some(exit) = &t.exit {
            exit.put(buf, i.exit);
        }
        let each = |f: &dyn Fn(&NextRead) -> u64| i.next_read.iter().map(f).collect::<Vec<_>>();
        if let Some(port) = t.rfc.as_ref().and_then(|r| r.next_src_last.as_ref()) {
            pack(buf, port, 3, each(&|r| sources(r.src_last, 1)).into_iter());
        }
        if let Some(o) = &t.orf {
            let eb = o.next_src_entry.width / (3 * self.issue.geometry().warps);
            pack(buf, &o.next_src_level, 6, each(&|r| sources(r.src_level, 2)).into_iter());
            pack(buf, &o.next_src_entry, 3 * eb as usize, each(&|r| sources(r.src_entry, eb)).into_iter());
            pack(buf, &o.next_src_fill, 6, each(&|r| sources(r.src_fill, 2)).into_iter());
            pack(buf, &o.next_strand, 1, each(&|r| r.strand as u64).into_iter());
        }
        if let Some(r) = &t.rename {
            pack(buf, &r.next_dst_new, 1, each(&|r| r.dst_new as u64).into_iter());
            pack(buf, &r.next_dst_load, 1, each(&|r| r.dst_load as u64).into_iter());
            r.wb_arch_reg.put(buf, i.wb_arch_reg.into());
        }
    }

    fn expect(&self, p: &SmRfSlots, out: &SmRfOut<'_>, inp: &SmRfIn, exp: &mut Expected) {
        let s = &mut *p.scratch.borrow_mut();
        self.issue.expect(&p.issue.ports, &out.issue, &self.issue_inputs(inp), &mut s.issue_exp);
        self.mrf.expect(&p.mrf.ports, &out.mrf, &inp.mrf, &mut s.mrf_exp);
        if let (Some(r), Some(part), Some(out), Some(e)) = (&self.rename, &p.rename, &out.rename, &mut s.rename_exp) {
            r.expect(&part.ports, out, &self.rename_inputs(inp), e);
        }
        let rename = p.rename.as_ref().zip(s.rename_exp.as_ref()).map(|(r, e)| (&r.outputs, e));
        for (part, from) in [(&p.issue.outputs, &s.issue_exp), (&p.mrf.outputs, &s.mrf_exp)].into_iter().chain(rename) {
            for (mine, top) in part {
                exp.route(from, mine, top);
            }
        }
        exp.set(&p.top.grant_tag, out.grant_tag.into());
        if let Some(c) = &p.top.compressed {
            exp.set(&c.freeing, out.freeing);
        }
    }
}

/// The SM can run on the lockstep pair as on the model alone.
impl<B: Glue + SmRfBlock> SmRfBlock for Lockstep<B> {
    fn decide(&self, i: &SmRfIn) -> IssueDecision {
        self.model().decide(i)
    }

    fn mrf_stats(&self) -> &MrfStats {
        self.model().mrf_stats()
    }

    fn renamed(&self, i: &SmRfIn, w: u32) -> Option<Lookup> {
        self.model().renamed(i, w)
    }

    fn rename_model(&self) -> Option<&Rename> {
        self.model().rename_model()
    }
}

impl CosimBlock for SmRf<Mrf, Issue> {
    fn model(checked: &Checked) -> Result<Self> {
        Ok(SmRf::new(checked, Mrf::for_config(checked), Issue::for_config(checked)))
    }
}

/// In the SM, the whole register-file pipeline in lockstep: every issue slot, operand read,
/// dispatch and write-back of a real kernel, and the wires between the parts.
impl InSm for SmRf<Mrf, Issue> {
    type Rf = Lockstep<SmRf<Mrf, Issue>>;

    fn place<'k>(c: &Checked, k: &'k Kernel, pair: Self::Rf) -> Result<SmWith<'k, Self>, SimError> {
        Sm::with_pipeline(c, k, pair)
    }

    fn pair<'a>(sm: &'a SmWith<'_, Self>) -> &'a Lockstep<Self> {
        sm.rf()
    }

    fn take(sm: SmWith<'_, Self>) -> Lockstep<Self> {
        sm.into_rf()
    }

    fn kernel_stats(&self, sim: &SimStats) -> Vec<(&'static str, u64)> {
        vec![
            ("warp instructions", sim.warp_instructions),
            ("bank conflicts", sim.mrf.bank_conflicts),
            ("issue slots the scoreboard held", sim.stalls.scoreboard),
            ("issue slots the warpboard held", sim.stalls.warpboard),
        ]
    }
}

/// The random program of `seed` for the composed top of `checked`, as `--kernel` names it: a
/// short synthetic kernel (ALU and SFU mixes, divergence, barriers, predicated writes,
/// long-latency loads) sized to fit the SM. Odd seeds use 16 registers at most (values collide
/// in the scoreboard and the banks), even seeds every register a thread has (so that the
/// decodes of the high registers are reached too). 2.6 register reads per instruction make
/// most instructions read three sources, so every collector's third operand slot captures data
/// (at the synthetic default of 2.0, edits of that capture survived a mutation campaign). The
/// guards use every predicate a warp has, and the programs of a run ([`random_run`]: `seed +
/// k·2³²`) take blocks of half the warps, then of one, three and two warps, so that warps are
/// launched apart from their neighbours: with guards on `p2` alone and blocks of half the warps,
/// edits of the high predicates' scoreboard bits and of the age order between warps of one
/// block survived a mutation campaign.
pub fn random_program_spec(checked: &Checked, seed: u64) -> String {
    let g = &checked.geometry;
    let registers = if seed.is_multiple_of(2) { g.registers } else { g.registers.min(16) };
    let (threads, blocks) = match (seed >> 32) % 4 {
        0 => ((g.warps * g.lanes / 2).clamp(g.lanes, 256), 3),
        k => {
            // Every warp slot filled, and two blocks more that take the slots of finished ones.
            let warps = [1, 3, 2][k as usize - 1].min(g.warps);
            (warps * g.lanes, g.warps.div_ceil(warps) + 2)
        }
    };
    format!(
        "synthetic:length=60,iterations=2,blocks={blocks},threads={threads},registers={registers},reads=2.6,divergence=0.2,long_latency=0.1,sfu=0.1,barriers=0.1,predicated=0.15,predicates=6,seed={seed}"
    )
}

/// The random program of `seed` ([`random_program_spec`]).
pub fn random_program(checked: &Checked, seed: u64) -> Kernel {
    let spec = random_program_spec(checked, seed);
    let knobs = synthetic::Knobs::parse(spec.strip_prefix("synthetic:").expect("a synthetic spec"));
    synthetic::generate(&knobs.expect("the random program's knobs are valid"))
}

/// A random-program run: random programs on the SM with the composed top in lockstep, one after
/// another from reset until `opts.cycles` are spent (the last one stopped there), the program
/// of `seed` first and then those of `seed + k·2³²` (the same parity, so the same registers).
/// One program takes 10,000 to 20,000 cycles of the `small` SM: with one program a mutation
/// campaign's 50,000-cycle runs spent a fifth of their cycles, and a false stall that the
/// third and fourth programs reach escaped.
pub fn random_run(
    checked: &Checked,
    lib: &Arc<RtlLib>,
    seed: u64,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<Outcome> {
    let mut run = Outcome { cycles: 0, mismatch: None, stats: Vec::new(), program: None };
    for k in 0u64.. {
        let left = opts.cycles.saturating_sub(run.cycles);
        if left == 0 {
            break;
        }
        let program_seed = seed.wrapping_add(k << 32);
        let program = random_program(checked, program_seed);
        let kopts = KernelOptions { x_seed: opts.x_seed, max_cycles: left, waveform: opts.waveform.clone() };
        let done = run.cycles;
        let r = run_block::<SmRf<Mrf, Issue>>(checked, lib, &program, &kopts, &mut |c| progress(done + c))?;
        run.cycles += r.cycles;
        for (name, value) in r.stats {
            match run.stats.iter_mut().find(|(n, _)| *n == name) {
                Some((_, total)) => *total += value,
                None => run.stats.push((name, value)),
            }
        }
        if r.mismatch.is_some() {
            run.mismatch = r.mismatch;
            run.program = (k > 0).then(|| random_program_spec(checked, program_seed));
            break;
        }
        match &r.error {
            Some(SimError::CycleLimit(_)) => break,
            Some(e) => bail!("random program {program_seed}: {e}"),
            None => {}
        }
        if r.sim.operand_mismatches > 0 {
            bail!(
                "random program {program_seed}: {} operands differ from the functional values",
                r.sim.operand_mismatches
            );
        }
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Programs of 16 registers never reach the scoreboard's and the banks' decodes of the
    /// other 16 of the `small` SM's 32; every other seed's program does.
    #[test]
    fn even_seeds_write_every_register_a_thread_has() {
        let small = rfgen_gen::config::preset("small").unwrap();
        assert_eq!(small.geometry.registers, 32);
        for seed in 1..=4 {
            let regs = random_program(&small, seed).regs;
            assert_eq!(regs, if seed.is_multiple_of(2) { 32 } else { 16 }, "seed {seed}");
        }
    }

    /// The programs of one run launch blocks of half the `small` SM's 8 warps, then of one,
    /// three and two (each filling every slot and then two more), and between them guard with
    /// every predicate from `p2` to `p7`.
    #[test]
    fn a_runs_programs_launch_warps_apart_and_guard_with_every_predicate() {
        let small = rfgen_gen::config::preset("small").unwrap();
        let shapes: Vec<(u32, u32)> = (0..5u64)
            .map(|k| random_program(&small, 1 + (k << 32)))
            .map(|p| (p.warps_per_block(small.geometry.lanes), p.blocks))
            .collect();
        assert_eq!(shapes, [(4, 3), (1, 10), (3, 5), (2, 6), (4, 3)]);
        let text: String = (0..5u64)
            .map(|k| {
                let spec = random_program_spec(&small, 2 + (k << 32));
                synthetic::source(&synthetic::Knobs::parse(spec.strip_prefix("synthetic:").unwrap()).unwrap())
            })
            .collect();
        for p in 2..8 {
            assert!(text.contains(&format!("@p{p} ")), "no guard on p{p}");
        }
    }
}
