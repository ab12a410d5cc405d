//! The blocks `rfgen cosim --block` can check: one registry entry each. A block joins by
//! implementing [`Glue`] (its interface bound to the RTL) and [`CosimBlock`] (its design, model
//! and random stimulus) for its model, and adding a line to [`BLOCKS`]; the runners are shared.

pub mod bdi;
pub mod issue;
pub mod mrf;
pub mod rename;
pub mod scheduler;
pub mod scoreboard;
pub mod warpboard;

use crate::bench::{BenchReport, bench_random};
use crate::glue::CosimBlock;
use crate::kernel::{KernelOptions, KernelOutcome};
use crate::lockstep::Mismatch;
use crate::random::{self, RunOptions};
use crate::verilator::RtlLib;
use anyhow::{Result, bail};
use rfgen_gen::{Checked, Design};
use rfgen_model::blocks::bdi::Codec;
use rfgen_model::blocks::issue::Issue;
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::blocks::rename::Rename;
use rfgen_model::blocks::scheduler::Scheduler;
use rfgen_model::blocks::scoreboard::Scoreboard;
use rfgen_model::blocks::warpboard::Warpboard;
use rfgen_model::kernel::Kernel;
use std::sync::Arc;

/// How a random run ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub cycles: u64,
    pub mismatch: Option<Mismatch>,
    pub stats: Vec<(&'static str, u64)>,
}

pub struct BlockInfo {
    pub name: &'static str,
    pub about: &'static str,
    pub design: fn(&Checked) -> Result<Design>,
    /// A random-stimulus lockstep run with a seed.
    pub random: fn(&Checked, &Arc<RtlLib>, u64, &RunOptions, &mut dyn FnMut(u64)) -> Result<Outcome>,
    /// Throughput of random-stimulus lockstep, the RTL alone and the model alone (`rfgen bench`).
    pub bench: fn(&Checked, &Arc<RtlLib>, u64, u64) -> Result<BenchReport>,
    /// A kernel-driven run: the SM model drives the block's RTL (blocks on the SM's path only).
    pub kernel:
        Option<fn(&Checked, &Arc<RtlLib>, &Kernel, &KernelOptions, &mut dyn FnMut(u64)) -> Result<KernelOutcome>>,
}

pub const BLOCKS: &[BlockInfo] = &[
    BlockInfo {
        name: "mrf",
        about: "banked main register file with operand collectors, with the compressor, register file cache or ORF/LRF the config enables (top <prefix>_mrf)",
        design: Mrf::design,
        random: random_run::<Mrf>,
        bench: |c, lib, cycles, seed| bench_random::<Mrf>(c, lib, cycles, seed),
        kernel: Some(crate::kernel::run),
    },
    BlockInfo {
        name: "bdi",
        about: "BDI compressor feeding a decompressor, from the config's [compression] section (top <prefix>_bdi_codec)",
        design: Codec::design,
        random: random_run::<Codec>,
        bench: |c, lib, cycles, seed| bench_random::<Codec>(c, lib, cycles, seed),
        kernel: None,
    },
    BlockInfo {
        name: "issue",
        about: "issue stage: scoreboard, warpboard and warp scheduler with the check between them (top <prefix>_issue)",
        design: Issue::design,
        random: random_run::<Issue>,
        bench: |c, lib, cycles, seed| bench_random::<Issue>(c, lib, cycles, seed),
        kernel: Some(issue::kernel_run),
    },
    BlockInfo {
        name: "rename",
        about: "rename stage: rename table, CMOS and TFET free lists, MEM_RA counters, from the config's [rename] section (top <prefix>_rename)",
        design: Rename::design,
        random: random_run::<Rename>,
        bench: |c, lib, cycles, seed| bench_random::<Rename>(c, lib, cycles, seed),
        kernel: Some(rename::kernel_run),
    },
    BlockInfo {
        name: "scheduler",
        about: "warp scheduler of the issue stage, the config's scheduler.policy (top <prefix>_scheduler)",
        design: Scheduler::design,
        random: random_run::<Scheduler>,
        bench: |c, lib, cycles, seed| bench_random::<Scheduler>(c, lib, cycles, seed),
        kernel: Some(scheduler::kernel_run),
    },
    BlockInfo {
        name: "scoreboard",
        about: "scoreboard of the issue stage: pending registers, long-latency results, predicates (top <prefix>_scoreboard)",
        design: Scoreboard::design,
        random: random_run::<Scoreboard>,
        bench: |c, lib, cycles, seed| bench_random::<Scoreboard>(c, lib, cycles, seed),
        kernel: Some(scoreboard::kernel_run),
    },
    BlockInfo {
        name: "warpboard",
        about: "WAR-hazard warpboard of the config's warpboard.policy (top <prefix>_warpboard)",
        design: Warpboard::design,
        random: random_run::<Warpboard>,
        bench: |c, lib, cycles, seed| bench_random::<Warpboard>(c, lib, cycles, seed),
        kernel: Some(warpboard::kernel_run),
    },
];

pub fn find(name: &str) -> Result<&'static BlockInfo> {
    match BLOCKS.iter().find(|b| b.name == name) {
        Some(b) => Ok(b),
        None => {
            let names: Vec<&str> = BLOCKS.iter().map(|b| b.name).collect();
            bail!("unknown block `{name}` (allowed: {})", names.join(", "))
        }
    }
}

fn random_run<B: CosimBlock>(
    checked: &Checked,
    lib: &Arc<RtlLib>,
    seed: u64,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<Outcome> {
    let model = B::model(checked)?;
    let mut stimulus = B::stimulus(checked, seed);
    let idle = model.idle();
    let r = random::run(lib, model, &mut stimulus, idle, opts, progress)?;
    Ok(Outcome { cycles: r.cycles, mismatch: r.mismatch, stats: r.block.model().summary(&stimulus) })
}
