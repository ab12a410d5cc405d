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
    /// The SMs with work left, by index: an SM done with its share of the kernel stays done.
    busy: Vec<usize>,
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
        let busy = (0..sms.len()).filter(|&i| !sms[i].done()).collect();
        Ok(Gpu { sms, busy, tuba, max_blocks, cycle: 0, moves: TubaMoves::default() })
    }

    pub fn done(&self) -> bool {
        self.busy.is_empty()
    }

    pub fn sms(&self) -> &[Sm<'k>] {
        &self.sms
    }

    /// One cycle of every SM with work left, then TUBA's decision when one is due. An SM whose
    /// share of the kernel is over stays so (no block is left to launch into it): it is not
    /// clocked, so idle SMs cost nothing, and [`Gpu::stats`] counts its idle cycles.
    pub fn step(&mut self) -> Result<(), SimError> {
        for &i in &self.busy {
            self.sms[i].step()?;
        }
        // Most cycles no SM finishes: the list is rebuilt only when one does.
        if self.busy.iter().any(|&i| self.sms[i].done()) {
            self.busy.retain(|&i| !self.sms[i].done());
        }
        self.cycle += 1;
        if self.tuba && self.cycle.is_multiple_of(TUBA_PERIOD) {
            for &i in &self.busy {
                let sm = &mut self.sms[i];
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

    /// Every SM's statistics added up; cycles are the run's. The cycles an SM was idle after its
    /// share of the kernel are cycles with no warp to issue, as if it had been clocked.
    pub fn stats(&self) -> SimStats {
        let mut total = self.sms[0].stats().clone();
        for sm in &self.sms[1..] {
            total.add(sm.stats());
        }
        total.stalls.no_warp += self.sms.iter().map(|sm| self.cycle - sm.cycle()).sum::<u64>();
        total.cycles = self.cycle;
        total.tuba = self.tuba.then(|| self.moves.clone());
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::parse;

    /// One block on 64 SMs: the 63 without a block are never clocked, and the run's figures are
    /// one SM's, plus a cycle with no warp to issue for each idle SM-cycle.
    #[test]
    fn idle_sms_are_not_clocked_and_count_as_no_warp_cycles() {
        let k =
            parse(".kernel one\n.grid 1 64\n  mov r0, %gtid\n  shl r1, r0, 2\n  st.global [r1 + 0x100], r0\n  exit\n")
                .unwrap();
        let run = |count: u32| {
            let c = rfgen_gen::config::parse(&format!("[sm]\ncount = {count}")).unwrap();
            let mut gpu = Gpu::new(&c, &k).unwrap();
            gpu.run(100_000, &mut |_| {}).unwrap();
            let clocked = gpu.sms().iter().filter(|sm| sm.cycle() > 0).count();
            (gpu.stats(), clocked)
        };
        let ((one, _), (many, clocked)) = (run(1), run(64));
        assert_eq!(clocked, 1);
        assert_eq!((many.cycles, many.warp_instructions, many.sms), (one.cycles, one.warp_instructions, 64));
        assert_eq!(many.stalls.no_warp, one.stalls.no_warp + 63 * one.cycles);
        assert_eq!(many.stalls.issued, one.stalls.issued);
    }
}
