//! Register-file energy per SPEC §6: Σ accesses × (access energy + wire energy), every term
//! reported separately. MRF: 128-bit bank reads and writes at `mrf_read_pj`/`mrf_write_pj`; wire:
//! every 32-bit value moved between the MRF and the units travels `mrf_wire_mm` at
//! `wire_pj_per_mm`. Register file cache: every 4 values read or written cost one 128-bit access
//! of a small RF with `rfc.entries` entries per thread; the values it hands to the units and
//! takes from them travel `rfc_wire_mm`. Its evictions and flushes are RFC reads plus MRF writes
//! (their wire is the MRF's). ORF and LRF: every 4 values read or written (whole warp registers)
//! cost one 128-bit access of the ORF's size (Table 4.5) or of the LRF; their values travel the
//! private-datapath wires `orf_private_wire_mm` and `lrf_wire_mm`.

use crate::sm::SimStats;
use rfgen_gen::config::Energy as EnergyTable;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Energy {
    pub mrf_access_pj: f64,
    pub mrf_wire_pj: f64,
    pub rfc_access_pj: f64,
    pub rfc_wire_pj: f64,
    pub orf_access_pj: f64,
    pub orf_wire_pj: f64,
    pub lrf_access_pj: f64,
    pub lrf_wire_pj: f64,
    pub total_pj: f64,
    /// Terms included in `total_pj`.
    pub terms: Vec<&'static str>,
}

/// Wire distances from the units, for the comparisons that vary them (seed 000 Table 5).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Distances {
    pub mrf_mm: f64,
    pub rfc_mm: f64,
}

impl Distances {
    pub fn of(e: &EnergyTable) -> Self {
        Distances { mrf_mm: e.mrf_wire_mm, rfc_mm: e.rfc_wire_mm }
    }
}

pub fn energy(s: &SimStats, e: &EnergyTable, entries: Option<u32>) -> Energy {
    energy_at(s, e, entries, Distances::of(e))
}

/// [`energy`] with the wires at `d`. `entries` is the RFC's entries per thread, if any.
pub fn energy_at(s: &SimStats, e: &EnergyTable, entries: Option<u32>, d: Distances) -> Energy {
    let m = &s.mrf;
    let mrf_access_pj = m.bank_reads as f64 * e.mrf_read_pj + m.bank_writes as f64 * e.mrf_write_pj;
    let mrf_wire_pj = (m.read_values + m.written_values) as f64 * e.wire_pj_per_mm * d.mrf_mm;
    let mut t = Energy { mrf_access_pj, mrf_wire_pj, terms: vec!["mrf access", "mrf wire"], ..Energy::default() };
    if let (Some(r), Some(entries)) = (&s.rfc, entries) {
        let i = entries as usize - 1;
        t.rfc_access_pj =
            (r.read_values as f64 * e.small_rf_read_pj[i] + r.written_values as f64 * e.small_rf_write_pj[i]) / 4.0;
        t.rfc_wire_pj = (r.delivered_values + r.written_values) as f64 * e.wire_pj_per_mm * d.rfc_mm;
        t.terms.extend(["rfc access", "rfc wire"]);
    }
    if let Some(o) = &s.orf {
        let i = (o.entries as usize).clamp(1, e.small_rf_read_pj.len()) - 1;
        let values = |n: u64| (n * u64::from(o.lanes)) as f64;
        let (orf, lrf) = (values(o.orf_reads + o.orf_writes), values(o.lrf_reads + o.lrf_writes));
        t.orf_access_pj =
            (values(o.orf_reads) * e.small_rf_read_pj[i] + values(o.orf_writes) * e.small_rf_write_pj[i]) / 4.0;
        t.orf_wire_pj = orf * e.wire_pj_per_mm * e.orf_private_wire_mm;
        t.lrf_access_pj = (values(o.lrf_reads) * e.lrf_read_pj + values(o.lrf_writes) * e.lrf_write_pj) / 4.0;
        t.lrf_wire_pj = lrf * e.wire_pj_per_mm * e.lrf_wire_mm;
        t.terms.extend(["orf access", "orf wire (private)", "lrf access", "lrf wire"]);
    }
    t.total_pj = t.mrf_access_pj
        + t.mrf_wire_pj
        + t.rfc_access_pj
        + t.rfc_wire_pj
        + t.orf_access_pj
        + t.orf_wire_pj
        + t.lrf_access_pj
        + t.lrf_wire_pj;
    t
}
/// Register-file energy per seed 004 Table 3, the model of the compression report: dynamic bank
/// accesses and their 128-bit wires, leakage of every powered bank-cycle, compressor and
/// decompressor activations. Without compression no bank is ever gated.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Table3 {
    pub dynamic_pj: f64,
    pub wire_pj: f64,
    pub leakage_pj: f64,
    pub compressor_pj: f64,
    pub decompressor_pj: f64,
    pub total_pj: f64,
}

pub fn table3(s: &SimStats, banks: u64, e: &EnergyTable) -> Table3 {
    let accesses = (s.mrf.bank_reads + s.mrf.bank_writes) as f64;
    let c = s.compression.as_ref();
    let gated = c.map_or(0, |c| c.gated_bank_cycles);
    let powered = (s.cycles * banks).saturating_sub(gated) as f64;
    let t = Table3 {
        dynamic_pj: accesses * e.bdi_bank_access_pj,
        wire_pj: accesses * e.bdi_wire_pj_per_mm * e.mrf_wire_mm,
        // mW for one cycle of 1/clock_ghz ns is mW / GHz = pJ.
        leakage_pj: powered * e.bank_leakage_mw / e.clock_ghz,
        compressor_pj: c.map_or(0, |c| c.compressions) as f64 * e.compressor_pj,
        decompressor_pj: c.map_or(0, |c| c.decompressions) as f64 * e.decompressor_pj,
        total_pj: 0.0,
    };
    Table3 { total_pj: t.dynamic_pj + t.wire_pj + t.leakage_pj + t.compressor_pj + t.decompressor_pj, ..t }
}
