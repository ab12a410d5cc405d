//! The summary of a sweep, one row per point in cross-product order: `results.csv`,
//! `results.json`, each written atomically.

use super::params::{Param, show};
use super::record::{CosimOutcome, Record, Settings, write_atomic};
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
    area: Option<&'a ModuleArea>,
    cosim: Option<&'a CosimOutcome>,
}

pub struct Row {
    pub values: Vec<Value>,
    pub status: Status,
    pub message: String,
    pub record: Option<Record>,
    /// Measured by an earlier run and skipped now.
    pub reused: bool,
}

impl Row {
    pub fn metrics(&self) -> Vec<Metric> {
        self.record.as_ref().and_then(|r| r.area.as_ref()).map(|a| a.metrics()).unwrap_or_default()
    }

    fn cosim(&self) -> &'static str {
        match self.record.as_ref().and_then(|r| r.cosim.as_ref()) {
            None => "",
            Some(c) if c.mismatch.is_some() => "mismatch",
            Some(_) => "pass",
        }
    }
}

/// Metric columns present in any row, in the order they first appear.
pub fn metric_columns(rows: &[Row]) -> Vec<(&'static str, &'static str)> {
    let mut cols = Vec::new();
    for m in rows.iter().flat_map(Row::metrics) {
        if !cols.iter().any(|(k, _)| *k == m.key) {
            cols.push((m.key, m.label));
        }
    }
    cols
}

/// Writes the CSV and the JSON; returns the files written.
pub fn write_tables(
    out: &Path,
    base: &str,
    params: &[Param],
    settings: &Settings,
    rows: &[Row],
) -> anyhow::Result<Vec<PathBuf>> {
    let metrics = metric_columns(rows);
    let mut csv = ::csv::Writer::from_writer(Vec::new());
    let mut header: Vec<&str> = params.iter().map(|p| p.path.as_str()).collect();
    header.extend(["name", "config_hash", "status"]);
    header.extend(metrics.iter().map(|(k, _)| *k));
    header.extend(["cosim", "message"]);
    csv.write_record(&header)?;
    for row in rows {
        let mut fields: Vec<String> = row.values.iter().map(show).collect();
        let (name, hash) = row.record.as_ref().map_or(("", ""), |r| (r.name.as_str(), r.config_hash.as_str()));
        fields.extend([name.to_string(), hash.to_string(), row.status.as_str().to_string()]);
        let values = row.metrics();
        for (key, _) in &metrics {
            fields.push(values.iter().find(|m| m.key == *key).map(Metric::format).unwrap_or_default());
        }
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
            area: row.record.as_ref().and_then(|r| r.area.as_ref()),
            cosim: row.record.as_ref().and_then(|r| r.cosim.as_ref()),
        })
        .collect();
    let json = JsonResults { base, params, settings, points };
    let json_path = out.join("results.json");
    write_atomic(&json_path, (serde_json::to_string_pretty(&json)? + "\n").as_bytes())?;

    Ok(vec![csv_path, json_path])
}
