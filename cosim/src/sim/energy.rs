//! Register-file energy per SPEC §6: Σ accesses × (access energy + wire energy), every term
//! reported separately. MRF: 128-bit bank reads and writes at `mrf_read_pj`/`mrf_write_pj`; wire:
//! every 32-bit value moved between the MRF and the units travels `mrf_wire_mm` at
//! `wire_pj_per_mm`.

use crate::model::sm::SimStats;
use rfgen_gen::config::Energy as EnergyTable;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Energy {
    pub mrf_access_pj: f64,
    pub mrf_wire_pj: f64,
    pub total_pj: f64,
    /// Terms included in `total_pj`.
    pub terms: Vec<&'static str>,
}

pub fn energy(s: &SimStats, e: &EnergyTable) -> Energy {
    let m = &s.mrf;
    let access = m.bank_reads as f64 * e.mrf_read_pj + m.bank_writes as f64 * e.mrf_write_pj;
    let wire = (m.read_values + m.written_values) as f64 * e.wire_pj_per_mm * e.mrf_wire_mm;
    Energy { mrf_access_pj: access, mrf_wire_pj: wire, total_pj: access + wire, terms: vec!["mrf access", "mrf wire"] }
}
