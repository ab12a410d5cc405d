//! How each block of the registry (`rfgen_gen::registry`) is cosimulated: one entry per
//! [`Block`]. A block joins by implementing [`Glue`] (its interface bound to the RTL) and
//! [`CosimBlock`] (its model and random stimulus) for its model, and adding a line to
//! [`BLOCKS`]; the runners are shared.

pub mod bdi;
pub mod issue;
pub mod mrf;
pub mod rename;
pub mod scheduler;
pub mod scoreboard;
pub mod sm;
pub mod warpboard;
mod window;

use crate::bench::{BenchReport, bench_kernel, bench_random};
use crate::glue::RandomBlock;
use crate::kernel::{InSm, KernelOptions, KernelOutcome, run_block};
use crate::lockstep::Mismatch;
use crate::random::{self, RunOptions};
use crate::verilator::RtlLib;
use anyhow::Result;
use rfgen_gen::{Block, Checked};
use rfgen_model::blocks::bdi::Codec;
use rfgen_model::blocks::issue::Issue;
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::blocks::rename::Rename;
use rfgen_model::blocks::scheduler::Scheduler;
use rfgen_model::blocks::scoreboard::Scoreboard;
use rfgen_model::blocks::sm_rf::SmRf;
use rfgen_model::blocks::warpboard::Warpboard;
use rfgen_model::kernel::Kernel;
use std::sync::Arc;

/// How a random run ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub cycles: u64,
    pub mismatch: Option<Mismatch>,
    pub stats: Vec<(&'static str, u64)>,
    /// The kernel that showed the mismatch, when a run is several and it is not the first (the
    /// composed top's random programs, as `--kernel` names it).
    pub program: Option<String>,
}

pub struct BlockInfo {
    pub block: Block,
    /// A random-stimulus lockstep run with a seed.
    pub random: RandomRun,
    /// Throughput of random-stimulus lockstep, the RTL alone and the model alone (`rfgen bench`).
    pub bench: fn(&Checked, &Arc<RtlLib>, u64, u64) -> Result<BenchReport>,
    /// Kernel mode: the SM model drives the block's RTL (blocks on the SM's path only).
    pub kernel: Option<KernelMode>,
}

/// Runs random stimulus from a seed on the block's RTL, loaded as the library, beside its model.
pub type RandomRun = fn(&Checked, &Arc<RtlLib>, u64, &RunOptions, &mut dyn FnMut(u64)) -> Result<Outcome>;

/// Runs a kernel on the SM with the block's RTL, loaded as the library, in place of its model.
pub type KernelRun = fn(&Checked, &Arc<RtlLib>, &Kernel, &KernelOptions, &mut dyn FnMut(u64)) -> Result<KernelOutcome>;

/// A block's kernel mode: where it sits in the SM model ([`InSm`]), as the runners use it.
pub struct KernelMode {
    /// What the config lacks for the SM to hold the block, if anything.
    pub missing: fn(&Checked) -> Option<String>,
    /// A kernel-driven lockstep run ([`run_block`]).
    pub run: KernelRun,
    /// Throughput under a kernel, repeated for at least so many cycles (`rfgen bench`).
    pub bench: fn(&Checked, &Arc<RtlLib>, &Kernel, u64) -> Result<BenchReport>,
}

impl KernelMode {
    const fn of<B: InSm>() -> Option<KernelMode> {
        Some(KernelMode { missing: B::missing, run: run_block::<B>, bench: bench_kernel::<B> })
    }
}

pub const BLOCKS: &[BlockInfo] = &[
    BlockInfo {
        block: Block::Sm,
        random: sm::random_run,
        bench: |c, lib, cycles, seed| bench_kernel::<SmRf<Mrf, Issue>>(c, lib, &sm::random_program(c, seed), cycles),
        kernel: KernelMode::of::<SmRf<Mrf, Issue>>(),
    },
    BlockInfo {
        block: Block::Mrf,
        random: random_run::<Mrf>,
        bench: |c, lib, cycles, seed| bench_random::<Mrf>(c, lib, cycles, seed),
        kernel: KernelMode::of::<Mrf>(),
    },
    BlockInfo {
        block: Block::Bdi,
        random: random_run::<Codec>,
        bench: |c, lib, cycles, seed| bench_random::<Codec>(c, lib, cycles, seed),
        kernel: None,
    },
    BlockInfo {
        block: Block::Issue,
        random: random_run::<Issue>,
        bench: |c, lib, cycles, seed| bench_random::<Issue>(c, lib, cycles, seed),
        kernel: KernelMode::of::<Issue>(),
    },
    BlockInfo {
        block: Block::Rename,
        random: random_run::<Rename>,
        bench: |c, lib, cycles, seed| bench_random::<Rename>(c, lib, cycles, seed),
        kernel: KernelMode::of::<Rename>(),
    },
    BlockInfo {
        block: Block::Scheduler,
        random: random_run::<Scheduler>,
        bench: |c, lib, cycles, seed| bench_random::<Scheduler>(c, lib, cycles, seed),
        kernel: KernelMode::of::<Scheduler>(),
    },
    BlockInfo {
        block: Block::Scoreboard,
        random: random_run::<Scoreboard>,
        bench: |c, lib, cycles, seed| bench_random::<Scoreboard>(c, lib, cycles, seed),
        kernel: KernelMode::of::<Scoreboard>(),
    },
    BlockInfo {
        block: Block::Warpboard,
        random: random_run::<Warpboard>,
        bench: |c, lib, cycles, seed| bench_random::<Warpboard>(c, lib, cycles, seed),
        kernel: KernelMode::of::<Warpboard>(),
    },
];

/// The kernel mode of `block`; the error names the blocks that have one.
pub fn kernel_mode(block: Block) -> Result<&'static KernelMode, String> {
    find(block).kernel.as_ref().ok_or_else(|| {
        let able: Vec<&str> = BLOCKS.iter().filter(|b| b.kernel.is_some()).map(|b| b.block.name()).collect();
        format!("--kernel: the SM model does not drive block `{block}` (kernel-driven blocks: {})", able.join(", "))
    })
}

/// How `block` is cosimulated.
pub fn find(block: Block) -> &'static BlockInfo {
    BLOCKS.iter().find(|b| b.block == block).expect("every block of the registry has a cosim entry")
}

fn random_run<B: RandomBlock>(
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
    Ok(Outcome { cycles: r.cycles, mismatch: r.mismatch, stats: r.block.model().summary(&stimulus), program: None })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_block_of_the_registry_has_one_cosim_entry() {
        for b in rfgen_gen::registry::BLOCKS {
            assert_eq!(super::BLOCKS.iter().filter(|i| i.block == b).count(), 1, "{b}");
        }
    }
}
