//! The area of one synthesized module and its summary figures, the same for every output
//! format (text table, CSV, JSON, sweep plots).

use super::sram::SramCost;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Area of a module with everything below it, flattened. Figures that do not apply to the
/// target are `None` (transistors only for `generic`, LUTs only for FPGAs, µm² only with a
/// Liberty file, SRAM only in the ASIC view where memory leaves are black boxes).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModuleArea {
    pub module: String,
    pub cells: u64,
    pub flip_flops: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transistors: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub luts: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lut_ram: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_ram: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsp: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logic_um2: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sram: Option<SramCost>,
    /// Mapped cells by type; black-boxed memory leaves are in `sram` instead.
    pub cells_by_type: BTreeMap<String, u64>,
}

/// One summary figure: a column of the tables, a panel of the sweep plots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metric {
    /// Column name in CSV and key in plots.
    pub key: &'static str,
    /// Human-readable heading.
    pub label: &'static str,
    pub value: f64,
    /// Digits after the decimal point when printed.
    pub decimals: usize,
}

impl Metric {
    pub fn format(&self) -> String {
        format!("{:.*}", self.decimals, self.value)
    }
}

impl ModuleArea {
    /// The figures that apply, in a fixed order.
    pub fn metrics(&self) -> Vec<Metric> {
        let count = |key, label, v: u64| Metric { key, label, value: v as f64, decimals: 0 };
        let um2 = |key, label, v: f64| Metric { key, label, value: v, decimals: 1 };
        let mut m = vec![count("cells", "cells", self.cells), count("flip_flops", "FFs", self.flip_flops)];
        let optional = [
            ("transistors", "transistors", self.transistors),
            ("luts", "LUTs", self.luts),
            ("lut_ram", "LUT RAM", self.lut_ram),
            ("block_ram", "BRAM", self.block_ram),
            ("dsp", "DSP", self.dsp),
        ];
        m.extend(optional.into_iter().filter_map(|(k, l, v)| v.map(|v| count(k, l, v))));
        if let Some(a) = self.logic_um2 {
            m.push(um2("logic_um2", "logic µm²", a));
        }
        if let Some(s) = self.sram {
            m.push(count("sram_macros", "SRAM macros", s.macros));
            m.push(count("sram_bits", "SRAM bits", s.bits));
            m.push(um2("sram_um2", "SRAM µm²", s.um2));
        }
        if let (Some(a), Some(s)) = (self.logic_um2, self.sram) {
            m.push(um2("total_um2", "total µm²", a + s.um2));
        }
        m
    }
}
