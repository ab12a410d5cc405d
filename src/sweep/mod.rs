//! Design-space sweeps: every point of a cross product of config parameters is validated,
//! measured (Yosys area of the top module, lockstep cosim) and stored on its own, so that a
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
use record::{CosimOutcome, SynthSettings};
pub use record::{CosimSettings, Record, Settings};
pub use results::{Row, Status, metric_columns};

use crate::synth::{Options, Synth};
use anyhow::Result;
use rfgen_cosim::session::{CosimOptions, cosim};
use rfgen_gen::{Checked, SramKind};
use std::path::{Path, PathBuf};

/// What to measure at each point.
pub struct Job {
    pub synth: Option<Options>,
    pub cosim: Option<CosimSettings>,
    /// Verilator build cache.
    pub cache: PathBuf,
}

impl Job {
    pub fn settings(&self) -> Settings {
        Settings {
            synth: self.synth.as_ref().map(|o| SynthSettings {
                flow: o.flow.clone(),
                target: o.target,
                liberty: o.liberty.as_ref().map(|l| l.digest().to_string()),
                sram: (!o.target.is_fpga()).then_some(o.sram),
            }),
            cosim: self.cosim.clone(),
        }
    }

    /// The stored record of a point measured earlier with the same settings.
    pub fn done(&self, out: &Path, checked: &Checked) -> Option<Record> {
        record::load(&record_path(out, checked)).filter(|r| r.settings == self.settings())
    }

    /// Measures one point and stores its record.
    pub fn measure(&self, out: &Path, checked: &Checked) -> Result<Record> {
        let work = out.join("work").join(checked.hash());
        let area = match &self.synth {
            Some(opts) => {
                let design = rfgen_gen::generate(checked, SramKind::Behavioural);
                Some(Synth::new(&design, opts, &work)?.module(&design.manifest.top)?)
            }
            None => None,
        };
        let cosim = match &self.cosim {
            Some(c) => {
                std::fs::create_dir_all(&work)?;
                let opts = CosimOptions {
                    block: c.block.clone(),
                    cycles: c.cycles,
                    seed: c.seed,
                    x_seed: c.seed as u32,
                    trace: None,
                    fail_wave_dir: Some(work.clone()),
                    cache: self.cache.clone(),
                };
                let report = cosim(checked, &opts, &mut |_| {})?;
                Some(CosimOutcome { cycles: report.cycles, mismatch: report.mismatch.map(|m| m.to_string()) })
            }
            None => None,
        };
        let record = Record {
            name: checked.config.name.clone(),
            config_hash: checked.hash(),
            settings: self.settings(),
            area,
            cosim,
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
    written.extend(plot::write(out, params, rows, &metric_columns(rows))?);
    Ok(written)
}

fn record_path(out: &Path, checked: &Checked) -> PathBuf {
    out.join("points").join(format!("{}.json", checked.hash()))
}
