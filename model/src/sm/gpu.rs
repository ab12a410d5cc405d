//! Several SMs on one kernel (`sm.count`; a model feature, the RTL is one SM's): they share
//! global memory, the DRAM channel (so their loads contend for bandwidth, the memory contention
//! seed 003's MEM_RA feeds on) and the kernel's blocks, which launch into whichever SM has room,
//! one block per SM in turn at the start.
//!
//! **TUBA** (seed 003 §4.2, `rename.tuba`): every [`TUBA_PERIOD`] cycles each SM's block limit
//! moves by one: down (to at least 1) when fewer than 15 % of its TFET registers are free, up
//! (to at most what its warp slots hold) when more than 40 % are. An SM at its limit launches no
//! new block until one of its blocks finishes.

use super::stats::TubaMoves;
use super::{Shared, SimError, SimStats, Sm};
use crate::kernel::Kernel;
use rfgen_gen::Checked;

/// Cycles between two TUBA decisions (seed 003 samples free TFET registers every 1K cycles).
pub const TUBA_PERIOD: u64 = 1024;
/// Free-TFET shares below which an SM's block limit is lowered and above which it is raised.
pub const TUBA_LOW: f64 = 0.15;
pub const TUBA_HIGH: f64 = 0.40;

pub struct Gpu<'k> {
    sms: Vec<Sm<'k>>,
    tuba: bool,
    /// Blocks an SM's warp slots hold.
    max_blocks: u32,
    cycle: u64,
    moves: TubaMoves,
}

impl<'k> Gpu<'k> {
    pub fn new(c: &Checked, k: &'k Kernel) -> Result<Gpu<'k>, SimError> {
        let shared = Shared::new(k);
        let mut sms =
            (0..c.config.sm.count).map(|_| Sm::in_gpu(c, k, shared.clone())).collect::<Result<Vec<_>, _>>()?;
        // The first blocks go round-robin, one per SM in turn.
        while sms.iter_mut().fold(false, |any, sm| sm.launch_block() | any) {}
        sms.iter_mut().for_each(Sm::start);
        let max_blocks = c.geometry.warps / k.warps_per_block(c.geometry.lanes).max(1);
        let tuba = c.config.rename.enabled && c.config.rename.tuba;
        Ok(Gpu { sms, tuba, max_blocks, cycle: 0, moves: TubaMoves::default() })
    }

    pub fn done(&self) -> bool {
        self.sms.iter().all(Sm::done)
    }

    pub fn sms(&self) -> &[Sm<'k>] {
        &self.sms
    }

    /// One cycle of every SM, then TUBA's decision when one is due.
    pub fn step(&mut self) -> Result<(), SimError> {
        for sm in &mut self.sms {
            sm.step()?;
        }
        self.cycle += 1;
        if self.tuba && self.cycle.is_multiple_of(TUBA_PERIOD) {
            for sm in &mut self.sms {
                let Some((free, all)) = sm.tfet_registers() else { continue };
                let share = f64::from(free) / f64::from(all.max(1));
                let limit = sm.block_limit().min(self.max_blocks);
                if share < TUBA_LOW && limit > 1 {
                    sm.set_block_limit(limit - 1);
                    self.moves.lowered += 1;
                } else if share > TUBA_HIGH && limit < self.max_blocks {
                    sm.set_block_limit(limit + 1);
                    self.moves.raised += 1;
                }
            }
        }
        Ok(())
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
        self.sms.iter_mut().for_each(Sm::finish);
        Ok(())
    }

    /// Every SM's statistics added up; cycles are the run's.
    pub fn stats(&self) -> SimStats {
        let mut total = self.sms[0].stats().clone();
        for sm in &self.sms[1..] {
            total.add(sm.stats());
        }
        total.cycles = self.cycle;
        total.tuba = self.tuba.then(|| self.moves.clone());
        total
    }
}
