//! `rfgen sim`: runs a kernel on the SM model of a configuration and reports performance,
//! register-file traffic, operand-value statistics and energy, normalized to the `baseline`
//! preset running the same kernel.

pub mod energy;

use crate::kernel::Kernel;
use crate::model::sm::{SimError, SimStats, Sm};
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
