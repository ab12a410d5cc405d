//! `rfgen sim`: runs a kernel on the SM model of a configuration and reports performance,
//! register-file traffic, operand-value statistics and energy, normalized to the `baseline`
//! preset running the same kernel.

pub mod energy;

use crate::kernel::Kernel;
use crate::sm::{SimError, SimStats, Sm};
use energy::Energy;
use rfgen_gen::Checked;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct SimReport {
    pub kernel: String,
    pub config: String,
    pub config_hash: String,
    pub scheduler: String,
    pub ipc: f64,
    pub stats: SimStats,
    pub energy: Energy,
    /// The same kernel on the `baseline` preset (absent when this is the baseline or the kernel
    /// does not fit it).
    pub baseline: Option<Baseline>,
    /// With a compressed MRF: seed 004's figures, against this config without compression.
    pub compression: Option<CompressionReport>,
}

/// Seed 004's measures, beside the paper's numbers.
#[derive(Clone, Debug, Serialize)]
pub struct CompressionReport {
    /// Absent without such writes.
    pub ratio_non_divergent: Option<f64>,
    pub ratio_divergent: Option<f64>,
    pub banks_per_read: f64,
    pub banks_per_write: f64,
    pub gated_bank_cycles: u64,
    /// Share of all bank-cycles spent power-gated.
    pub gated_share: f64,
    pub dummy_movs: u64,
    /// Dummy MOVs per warp instruction.
    pub dummy_mov_share: f64,
    pub energy: energy::Table3,
    /// The same kernel on this config with compression disabled.
    pub uncompressed: energy::Table3,
    pub uncompressed_cycles: u64,
    /// `1 - energy / uncompressed`, total, dynamic (accesses, wires, units) and leakage.
    pub reduction: f64,
    pub dynamic_reduction: f64,
    pub leakage_reduction: f64,
}

/// Seed 004's headline figures.
pub const PAPER_RATIO_NON_DIVERGENT: f64 = 2.5;
pub const PAPER_RATIO_DIVERGENT: f64 = 1.3;
pub const PAPER_ENERGY_REDUCTION: f64 = 0.25;
pub const PAPER_DUMMY_MOV_SHARE: f64 = 0.02;

fn compression_report(
    checked: &Checked,
    kernel: &Kernel,
    stats: &SimStats,
    max_cycles: u64,
) -> Result<Option<CompressionReport>, SimError> {
    let Some(c) = &stats.compression else { return Ok(None) };
    let mut plain = checked.config.clone();
    plain.compression.enabled = false;
    let plain = rfgen_gen::config::check(plain).expect("disabling compression keeps a config valid");
    let (u, _) = run(&plain, kernel, max_cycles, &mut |_| {})?;
    let e = &checked.config.energy;
    let banks = c.banks as u64;
    let (mine, theirs) = (energy::table3(stats, banks, e), energy::table3(&u, banks, e));
    let dynamic = |t: &energy::Table3| t.dynamic_pj + t.wire_pj + t.compressor_pj + t.decompressor_pj;
    let full: u64 = c.full_writes_by_ri.iter().sum();
    Ok(Some(CompressionReport {
        ratio_non_divergent: c.ratio_non_divergent(),
        ratio_divergent: c.ratio_divergent(),
        banks_per_read: stats.mrf.bank_reads as f64 / (stats.mrf.reads + c.dummy_movs).max(1) as f64,
        banks_per_write: stats.mrf.bank_writes as f64 / (full + c.partial_writes + c.dummy_movs).max(1) as f64,
        gated_bank_cycles: c.gated_bank_cycles,
        gated_share: c.gated_bank_cycles as f64 / (stats.cycles * banks).max(1) as f64,
        dummy_movs: c.dummy_movs,
        dummy_mov_share: c.dummy_movs as f64 / stats.warp_instructions.max(1) as f64,
        reduction: 1.0 - mine.total_pj / theirs.total_pj,
        dynamic_reduction: 1.0 - dynamic(&mine) / dynamic(&theirs),
        leakage_reduction: 1.0 - mine.leakage_pj / theirs.leakage_pj,
        energy: mine,
        uncompressed: theirs,
        uncompressed_cycles: u.cycles,
    }))
}

#[derive(Clone, Debug, Serialize)]
pub struct Baseline {
    pub cycles: u64,
    pub energy_pj: f64,
    /// This config's register-file energy divided by the baseline's.
    pub energy_ratio: f64,
}

/// Runs `kernel` to completion on `checked`; `progress` gets the cycle count now and then.
pub fn run(
    checked: &Checked,
    kernel: &Kernel,
    max_cycles: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<(SimStats, Energy), SimError> {
    let mut sm = Sm::new(checked, kernel)?;
    sm.run(max_cycles, progress)?;
    let stats = sm.stats().clone();
    let energy = energy::energy(&stats, &checked.config.energy);
    Ok((stats, energy))
}

/// [`run`] plus the comparison with the baseline preset.
pub fn simulate(
    checked: &Checked,
    kernel: &Kernel,
    max_cycles: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<SimReport, SimError> {
    let (stats, energy) = run(checked, kernel, max_cycles, progress)?;
    let base = rfgen_gen::config::preset("baseline").expect("the baseline preset is valid");
    // No comparison when this is the baseline, or when the kernel does not fit the baseline SM.
    let baseline = if base.hash() == checked.hash() {
        None
    } else {
        match run(&base, kernel, max_cycles, &mut |_| {}) {
            Err(SimError::DoesNotFit(_)) => None,
            Err(e) => return Err(e),
            Ok((b, e)) => {
                Some(Baseline { cycles: b.cycles, energy_pj: e.total_pj, energy_ratio: energy.total_pj / e.total_pj })
            }
        }
    };
    let compression = compression_report(checked, kernel, &stats, max_cycles)?;
    Ok(SimReport {
        kernel: kernel.name.clone(),
        config: checked.config.name.clone(),
        config_hash: checked.hash(),
        scheduler: serde_json::to_value(checked.config.scheduler.policy)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        ipc: stats.warp_instructions as f64 / stats.cycles.max(1) as f64,
        stats,
        energy,
        baseline,
        compression,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::func::{self, default_word};
    use crate::kernel::library;

    #[test]
    fn vecadd_runs_to_the_functional_result() {
        let c = rfgen_gen::config::preset("baseline").unwrap();
        let k = library::find("vecadd").unwrap().parse().unwrap();
        let mut sm = Sm::new(&c, &k).unwrap();
        sm.run(10_000_000, &mut |_| {}).unwrap();
        let f = func::run(&k, 32).unwrap();
        let s = sm.stats();
        assert_eq!(s.operand_mismatches, 0, "{:?}", s.mismatch_examples);
        assert_eq!(s.warp_instructions, f.warp_instructions);
        assert_eq!(s.thread_instructions, f.thread_instructions);
        for i in 0..8192u32 {
            let want = default_word(0x100000 + 4 * i).wrapping_add(default_word(0x200000 + 4 * i));
            assert_eq!(sm.memory().read(0x300000 + 4 * i), want, "c[{i}]");
        }
        assert!(s.cycles > 400 && s.warp_instructions as f64 / (s.cycles as f64) <= 1.0);
    }
}
