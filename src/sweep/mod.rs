//! Design-space sweeps: every point of a cross product of config parameters is validated,
//! measured (Yosys area of every module, lockstep cosim, kernels on the SM model) and stored on its own, so that a
//! rerun skips what is done; the summary is `results.csv`, `results.json` and one SVG plot per
//! varied parameter.
//!
//! Folder layout: `points/<config hash>.json` (one record per measured point),
//! `work/<config hash>/` (RTL, Yosys scripts and logs, mismatch waveforms), and the summaries.

mod params;
mod plot;
mod record;
mod results;

pub use params::{Param, points, show};
use record::{CosimOutcome, OrfOutcome, RenameOutcome, RfcOutcome, SimOutcome, SynthSettings};
pub use record::{CosimSettings, KernelSettings, Record, Settings, write_atomic};
pub use results::{Row, Status, cell, columns};

use crate::synth::pnr::PnrSettings;
use crate::synth::{Options, Synth};
use anyhow::{Result, anyhow};
use rfgen_cosim::session::{CosimOptions, cosim_design};
use rfgen_cosim::verilator::x_seed_of;
use rfgen_gen::{Checked, SramKind};
use rfgen_model::kernel::Kernel;
use rfgen_model::sm::SimError;
use std::path::{Path, PathBuf};

/// What to measure at each point.
pub struct Job {
    pub synth: Option<Options>,
    /// With synthesis on an FPGA target: place and route the top.
    pub pnr: Option<PnrSettings>,
    pub cosim: Option<CosimSettings>,
    /// Kernels to run on the SM model.
    pub sim: Vec<SimKernel>,
    /// Verilator build cache.
    pub cache: PathBuf,
}

/// A kernel run at every point: what identifies its results, and the kernel within a point's
/// registers per thread (a PTX kernel allocated within them, spilling the rest, as `rfgen sim`
/// does for its config).
pub struct SimKernel {
    pub settings: KernelSettings,
    pub within: Box<dyn Fn(u32) -> Result<Kernel> + Send + Sync>,
}

/// A sweep's kernels stop with an error after this many cycles, as `rfgen sim` does.
const SIM_MAX_CYCLES: u64 = 200_000_000;

/// Runs `kernel` on the point's SM model.
fn simulate(checked: &Checked, kernel: &Kernel) -> Result<SimOutcome> {
    let name = kernel.name.clone();
    let r = match rfgen_model::sim::simulate(checked, kernel, SIM_MAX_CYCLES, &mut |_| {}) {
        Err(SimError::DoesNotFit(m)) => {
            let error = Some(format!("does not fit: {m}"));
            let none = SimOutcome {
                kernel: name,
                error,
                cycles: 0,
                ipc: 0.0,
                energy_pj: 0.0,
                mrf_reads: 0,
                mrf_writes: 0,
                rfc: None,
                orf: None,
                rename: None,
            };
            return Ok(none);
        }
        Err(e) => return Err(anyhow!("kernel {name}: {e}")),
        Ok(r) => r,
    };
    if r.stats.operand_mismatches > 0 {
        return Err(anyhow!("kernel {name}: the SM model delivered {} wrong operands", r.stats.operand_mismatches));
    }
    Ok(SimOutcome {
        kernel: name,
        error: None,
        cycles: r.stats.cycles,
        ipc: r.ipc,
        energy_pj: r.energy.total_pj,
        mrf_reads: r.stats.mrf.reads,
        mrf_writes: r.stats.mrf.writes,
        rfc: r.rfc.map(|c| RfcOutcome {
            read_reduction: c.read_reduction,
            write_reduction: c.write_reduction,
            energy_ratio: c.energy_ratio,
        }),
        orf: r.orf.map(|o| OrfOutcome {
            mrf_reads_per_instruction: o.reads_per_instruction[0],
            energy_ratio: o.energy_ratio,
            rfc_energy_ratio: o.rfc_energy_ratio,
        }),
        rename: r.rename.map(|n| {
            let d = |name: &str| n.designs.iter().find(|d| d.name == name).expect("every design is reported");
            // The point itself is the last design (MEM_RA, with TRWS or TUBA when on).
            let mem_ra = n.designs.last().expect("every design is reported");
            let (all_tfet, cmos_ra) = (d("all-TFET"), d("CMOS_RA"));
            RenameOutcome {
                tfet_share: n.tfet_share,
                energy_reduction: mem_ra.energy_reduction,
                slowdown: mem_ra.slowdown,
                all_tfet_energy_reduction: all_tfet.energy_reduction,
                all_tfet_slowdown: all_tfet.slowdown,
                cmos_ra_energy_reduction: cmos_ra.energy_reduction,
                cmos_ra_slowdown: cmos_ra.slowdown,
            }
        }),
    })
}

impl Job {
    pub fn settings(&self) -> Settings {
        Settings {
            synth: self.synth.as_ref().map(|o| SynthSettings {
                flow: o.flow.clone(),
                target: o.target,
                liberty: o.liberty.as_ref().map(|l| l.digest().to_string()),
                sram: (!o.target.is_fpga()).then_some(o.sram),
                pnr: self.pnr,
            }),
            cosim: self.cosim.clone(),
            sim: self.sim.iter().map(|k| k.settings.clone()).collect(),
        }
    }

    /// The stored record of a point measured earlier with the same settings.
    pub fn done(&self, out: &Path, checked: &Checked) -> Option<Record> {
        record::load(&record_path(out, checked)).filter(|r| r.settings == self.settings())
    }

    /// Measures one point and stores its record.
    pub fn measure(&self, out: &Path, checked: &Checked) -> Result<Record> {
        let work = out.join("work").join(checked.hash());
        // The point's design, generated once for synthesis and cosim alike (with the target's
        // memory leaves, which keep the behavioural leaf's timing).
        let sram =
            self.synth.as_ref().map_or(SramKind::Behavioural, |o| o.target.sram_kind(checked.config.mrf.entries));
        let design = rfgen_gen::generate(checked, sram);
        let (modules, pnr) = match &self.synth {
            Some(opts) => {
                let synth = Synth::new(&design, opts, &work)?;
                let top = &design.manifest.top;
                let below = design.manifest.modules.iter().map(|m| &m.name).filter(|&m| m != top);
                let modules = below.chain([top]).map(|m| synth.module(m)).collect::<Result<_>>()?;
                (modules, self.pnr.map(|p| synth.place_and_route(p)).transpose()?)
            }
            None => (vec![], None),
        };
        let cosim = match &self.cosim {
            Some(c) => {
                std::fs::create_dir_all(&work)?;
                let opts = CosimOptions {
                    block: c.block,
                    cycles: c.cycles,
                    seed: c.seed,
                    x_seed: x_seed_of(c.seed),
                    trace: None,
                    fail_wave_dir: Some(work.clone()),
                    cache: self.cache.clone(),
                };
                let report = cosim_design(checked, &design, &opts, &mut |_| {})?;
                Some(CosimOutcome { cycles: report.cycles, mismatch: report.mismatch.map(|m| m.to_string()) })
            }
            None => None,
        };
        let registers = checked.config.sm.registers_per_thread;
        let sim = self.sim.iter().map(|k| simulate(checked, &(k.within)(registers)?)).collect::<Result<_>>()?;
        let record = Record {
            name: checked.config.name.clone(),
            config_hash: checked.hash(),
            settings: self.settings(),
            modules,
            pnr,
            cosim,
            sim,
        };
        std::fs::create_dir_all(out.join("points"))?;
        record::save(&record_path(out, checked), &record)?;
        Ok(record)
    }
}

/// Writes the summary of a sweep: `results.csv`, `results.json` and the plots; returns the files.
pub fn write_results(
    out: &Path,
    base: &str,
    params: &[Param],
    settings: &Settings,
    rows: &[Row],
) -> Result<Vec<PathBuf>> {
    let mut written = results::write_tables(out, base, params, settings, rows)?;
    written.extend(plot::write(out, params, rows)?);
    Ok(written)
}

fn record_path(out: &Path, checked: &Checked) -> PathBuf {
    out.join("points").join(format!("{}.json", checked.hash()))
}
