//! The summary of a sweep, one row per point in cross-product order: `results.csv`,
//! `results.json`, each written atomically.

use super::params::{Param, show};
use super::record::{CosimOutcome, Record, RenameOutcome, Settings, SimOutcome, write_atomic};
use crate::synth::{Metric, ModuleArea};
use serde::Serialize;
use std::path::{Path, PathBuf};
use toml::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Measured (now or by an earlier run).
    Ok,
    /// The config is refused by validation; the message says why.
    Invalid,
    /// A tool failed (Yosys, Verilator); the message names its log.
    Failed,
    /// Cosim found RTL and model disagreeing.
    Mismatch,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Invalid => "invalid",
            Status::Failed => "failed",
            Status::Mismatch => "mismatch",
        }
    }
}

#[derive(Serialize)]
struct JsonResults<'a> {
    base: &'a str,
    params: &'a [Param],
    settings: &'a Settings,
    points: Vec<JsonPoint<'a>>,
}

#[derive(Serialize)]
struct JsonPoint<'a> {
    params: std::collections::BTreeMap<&'a str, &'a Value>,
    status: Status,
    message: &'a str,
    name: Option<&'a str>,
    config_hash: Option<&'a str>,
    /// The top module's area, then every module's by its name without the point's prefix.
    area: Option<&'a ModuleArea>,
    modules: std::collections::BTreeMap<&'a str, &'a ModuleArea>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pnr: Option<&'a crate::synth::Pnr>,
    cosim: Option<&'a CosimOutcome>,
    sim: Option<&'a [SimOutcome]>,
}

pub struct Row {
    pub values: Vec<Value>,
    pub status: Status,
    pub message: String,
    pub record: Option<Record>,
    /// Measured by an earlier run and skipped now.
    pub reused: bool,
}

/// One column of the tables: the top module's area figures, the kernels' figures, and every
/// module's area figures (`<module>.<figure>`, in the CSV only).
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub key: String,
    pub label: String,
    pub value: f64,
    pub decimals: usize,
    /// Shown in the printed summary and plotted.
    pub headline: bool,
}

impl Figure {
    fn new(key: String, label: String, value: f64, decimals: usize, headline: bool) -> Self {
        Figure { key, label, value, decimals, headline }
    }

    fn from_metric(m: &Metric, prefix: Option<&str>) -> Self {
        match prefix {
            None => Figure::new(m.key.into(), m.label.into(), m.value, m.decimals, true),
            Some(p) => Figure::new(format!("{p}.{}", m.key), format!("{p} {}", m.label), m.value, m.decimals, false),
        }
    }

    pub fn format(&self) -> String {
        format!("{:.*}", self.decimals, self.value)
    }
}

/// A kernel's figures, `<kernel>.<figure>`; with several kernels the headline is their total
/// energy and mean ratios (`all.*`).
/// One per-kernel measure averaged over the kernels.
type Measure<'a> = &'a dyn Fn(&SimOutcome) -> Option<f64>;

fn kernel_figures(sims: &[SimOutcome]) -> Vec<Figure> {
    let ran: Vec<&SimOutcome> = sims.iter().filter(|s| s.error.is_none()).collect();
    let single = sims.len() == 1;
    let mut figs = Vec::new();
    let per_kernel = |s: &SimOutcome| {
        let mut v = vec![
            ("cycles", "cycles", s.cycles as f64, 0),
            ("ipc", "IPC", s.ipc, 3),
            ("energy_nj", "RF energy nJ", s.energy_pj / 1000.0, 1),
            ("mrf_reads", "MRF reads", s.mrf_reads as f64, 0),
            ("mrf_writes", "MRF writes", s.mrf_writes as f64, 0),
        ];
        if let Some(r) = &s.rfc {
            v.extend([
                ("mrf_read_reduction", "MRF read reduction", r.read_reduction, 3),
                ("mrf_write_reduction", "MRF write reduction", r.write_reduction, 3),
                ("rfc_energy_ratio", "energy vs no RFC", r.energy_ratio, 3),
            ]);
        }
        if let Some(o) = &s.orf {
            v.extend([
                ("mrf_reads_per_instruction", "MRF reads/instr", o.mrf_reads_per_instruction, 2),
                ("orf_energy_ratio", "energy vs no ORF", o.energy_ratio, 3),
                ("hw_rfc_energy_ratio", "energy, RFC instead", o.rfc_energy_ratio, 3),
            ]);
        }
        if let Some(n) = &s.rename {
            v.extend([
                ("tfet_share", "TFET share", n.tfet_share, 3),
                ("tfet_energy_reduction", "energy saved vs all-CMOS", n.energy_reduction, 3),
                ("tfet_slowdown", "slowdown vs all-CMOS", n.slowdown, 3),
                ("all_tfet_energy_reduction", "all-TFET energy saved", n.all_tfet_energy_reduction, 3),
                ("all_tfet_slowdown", "all-TFET slowdown", n.all_tfet_slowdown, 3),
                ("cmos_ra_energy_reduction", "CMOS_RA energy saved", n.cmos_ra_energy_reduction, 3),
                ("cmos_ra_slowdown", "CMOS_RA slowdown", n.cmos_ra_slowdown, 3),
            ]);
        }
        v
    };
    for s in &ran {
        for (key, label, value, decimals) in per_kernel(s) {
            figs.push(Figure::new(
                format!("{}.{key}", s.kernel),
                format!("{} {label}", s.kernel),
                value,
                decimals,
                single,
            ));
        }
    }
    if !single && !ran.is_empty() && ran.len() == sims.len() {
        let mean = |f: &dyn Fn(&SimOutcome) -> Option<f64>| {
            let v: Vec<f64> = ran.iter().filter_map(|s| f(s)).collect();
            (v.len() == ran.len()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        let total = ran.iter().map(|s| s.energy_pj).sum::<f64>() / 1000.0;
        figs.push(Figure::new("all.energy_nj".into(), "RF energy nJ, all kernels".into(), total, 1, true));
        let rename = |f: fn(&RenameOutcome) -> f64| move |s: &SimOutcome| s.rename.as_ref().map(f);
        let means: [(&str, &str, Measure); 12] = [
            ("ipc", "mean IPC", &|s| Some(s.ipc)),
            ("mrf_read_reduction", "mean MRF read reduction", &|s| s.rfc.as_ref().map(|r| r.read_reduction)),
            ("mrf_write_reduction", "mean MRF write reduction", &|s| s.rfc.as_ref().map(|r| r.write_reduction)),
            ("rfc_energy_ratio", "mean energy vs no RFC", &|s| s.rfc.as_ref().map(|r| r.energy_ratio)),
            ("mrf_reads_per_instruction", "mean MRF reads/instr", &|s| {
                s.orf.as_ref().map(|o| o.mrf_reads_per_instruction)
            }),
            ("orf_energy_ratio", "mean energy vs no ORF", &|s| s.orf.as_ref().map(|o| o.energy_ratio)),
            ("hw_rfc_energy_ratio", "mean energy, RFC instead", &|s| s.orf.as_ref().map(|o| o.rfc_energy_ratio)),
            ("tfet_share", "mean TFET share", &rename(|n| n.tfet_share)),
            ("tfet_energy_reduction", "mean energy saved vs all-CMOS", &rename(|n| n.energy_reduction)),
            ("tfet_slowdown", "mean slowdown vs all-CMOS", &rename(|n| n.slowdown)),
            ("all_tfet_energy_reduction", "mean all-TFET energy saved", &rename(|n| n.all_tfet_energy_reduction)),
            ("cmos_ra_energy_reduction", "mean CMOS_RA energy saved", &rename(|n| n.cmos_ra_energy_reduction)),
        ];
        for (key, label, f) in means {
            if let Some(v) = mean(f) {
                figs.push(Figure::new(format!("all.{key}"), label.into(), v, 3, true));
            }
        }
    }
    figs
}

impl Row {
    /// Every figure of the row's record, in column order.
    pub fn figures(&self) -> Vec<Figure> {
        let Some(r) = &self.record else { return vec![] };
        let mut figs: Vec<Figure> =
            r.area().map(|a| a.metrics().iter().map(|m| Figure::from_metric(m, None)).collect()).unwrap_or_default();
        if let Some(p) = &r.pnr {
            figs.push(Figure::new("fmax_mhz".into(), "Fmax MHz".into(), p.fmax_mhz, 1, true));
        }
        figs.extend(kernel_figures(&r.sim));
        // Cycles trade against clock rate: a kernel's time at the placed design's Fmax.
        if let Some(p) = r.pnr.as_ref().filter(|p| p.fmax_mhz > 0.0) {
            let ran: Vec<&SimOutcome> = r.sim.iter().filter(|s| s.error.is_none()).collect();
            for s in &ran {
                let us = s.cycles as f64 / p.fmax_mhz;
                let label = format!("{} µs at Fmax", s.kernel);
                figs.push(Figure::new(format!("{}.time_us", s.kernel), label, us, 1, ran.len() == 1));
            }
        }
        let below = &r.modules[..r.modules.len().saturating_sub(1)];
        for m in below {
            figs.extend(m.metrics().iter().map(|x| Figure::from_metric(x, Some(r.role(&m.module)))));
        }
        figs
    }

    pub fn cosim(&self) -> &'static str {
        match self.record.as_ref().and_then(|r| r.cosim.as_ref()) {
            None => "",
            Some(c) if c.mismatch.is_some() => "mismatch",
            Some(_) => "pass",
        }
    }
}

/// Columns `(key, label)` present in any row, in the order they first appear; only the
/// headline ones when `headline`.
pub fn columns(rows: &[Row], headline: bool) -> Vec<(String, String)> {
    let mut cols: Vec<(String, String)> = Vec::new();
    for f in rows.iter().flat_map(Row::figures).filter(|f| f.headline || !headline) {
        if !cols.iter().any(|(k, _)| *k == f.key) {
            cols.push((f.key, f.label));
        }
    }
    cols
}

/// The value of column `key` in `figures`, formatted, or empty.
pub fn cell(figures: &[Figure], key: &str) -> String {
    figures.iter().find(|f| f.key == key).map(Figure::format).unwrap_or_default()
}

/// Writes the CSV and the JSON; returns the files written.
pub fn write_tables(
    out: &Path,
    base: &str,
    params: &[Param],
    settings: &Settings,
    rows: &[Row],
) -> anyhow::Result<Vec<PathBuf>> {
    let cols = columns(rows, false);
    let mut csv = ::csv::Writer::from_writer(Vec::new());
    let mut header: Vec<&str> = params.iter().map(|p| p.path.as_str()).collect();
    header.extend(["name", "config_hash", "status"]);
    header.extend(cols.iter().map(|(k, _)| k.as_str()));
    header.extend(["cosim", "message"]);
    csv.write_record(&header)?;
    for row in rows {
        let mut fields: Vec<String> = row.values.iter().map(show).collect();
        let (name, hash) = row.record.as_ref().map_or(("", ""), |r| (r.name.as_str(), r.config_hash.as_str()));
        fields.extend([name.to_string(), hash.to_string(), row.status.as_str().to_string()]);
        let figures = row.figures();
        fields.extend(cols.iter().map(|(key, _)| cell(&figures, key)));
        fields.extend([row.cosim().to_string(), row.message.clone()]);
        csv.write_record(&fields)?;
    }
    let csv_path = out.join("results.csv");
    write_atomic(&csv_path, &csv.into_inner()?)?;

    let points: Vec<JsonPoint> = rows
        .iter()
        .map(|row| JsonPoint {
            params: params.iter().zip(&row.values).map(|(p, v)| (p.path.as_str(), v)).collect(),
            status: row.status,
            message: &row.message,
            name: row.record.as_ref().map(|r| r.name.as_str()),
            config_hash: row.record.as_ref().map(|r| r.config_hash.as_str()),
            area: row.record.as_ref().and_then(|r| r.area()),
            modules: row.record.iter().flat_map(|r| r.modules.iter().map(move |m| (r.role(&m.module), m))).collect(),
            pnr: row.record.as_ref().and_then(|r| r.pnr.as_ref()),
            cosim: row.record.as_ref().and_then(|r| r.cosim.as_ref()),
            sim: row.record.as_ref().map(|r| &r.sim[..]).filter(|s| !s.is_empty()),
        })
        .collect();
    let json = JsonResults { base, params, settings, points };
    let json_path = out.join("results.json");
    write_atomic(&json_path, (serde_json::to_string_pretty(&json)? + "\n").as_bytes())?;

    Ok(vec![csv_path, json_path])
}
