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
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    pub terms: Vec<String>,
}

/// Wire distances from the units, for the comparisons that vary them (seed 000 Table 5).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
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
    let mut t =
        Energy { mrf_access_pj, mrf_wire_pj, terms: vec!["mrf access".into(), "mrf wire".into()], ..Energy::default() };
    if let (Some(r), Some(entries)) = (&s.rfc, entries) {
        let i = entries as usize - 1;
        t.rfc_access_pj =
            (r.read_values as f64 * e.small_rf_read_pj[i] + r.written_values as f64 * e.small_rf_write_pj[i]) / 4.0;
        t.rfc_wire_pj = (r.delivered_values + r.written_values) as f64 * e.wire_pj_per_mm * d.rfc_mm;
        t.terms.extend(["rfc access", "rfc wire"].map(String::from));
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
        t.terms.extend(["orf access", "orf wire (private)", "lrf access", "lrf wire"].map(String::from));
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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

/// Register-file energy of seed 003's comparison: Table 3's CMOS bank accesses, 128-bit wires
/// and bank leakage, with TFET rows at `tfet_access_ratio` per access and `tfet_leakage_ratio`
/// per row. Leakage follows seed 003's power gating of unused registers: CMOS registers no warp
/// can use are gated for the whole run — without renaming all but the registers of the most
/// warps resident at once, with renaming all but those ever handed out — and TFET rows are
/// never gated.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Hybrid {
    pub cmos_access_pj: f64,
    pub tfet_access_pj: f64,
    pub wire_pj: f64,
    pub cmos_leakage_pj: f64,
    pub tfet_leakage_pj: f64,
    pub dynamic_pj: f64,
    pub leakage_pj: f64,
    pub total_pj: f64,
}

pub const HYBRID_TERMS: [&str; 5] =
    ["CMOS bank accesses", "TFET bank accesses", "128-bit wires", "CMOS leakage", "TFET leakage"];

pub fn hybrid(s: &SimStats, e: &EnergyTable, g: &rfgen_gen::layout::geometry::Geometry) -> Hybrid {
    let m = &s.mrf;
    let clusters = f64::from(g.clusters);
    // TFET warp-register reads touch every cluster's bank; writes, on average, as many as all.
    let (tfet_reads, tfet_writes) = s.rename.as_ref().map_or((0, 0), |r| (r.tfet_reads, r.tfet_writes));
    let per_write = m.bank_writes as f64 / m.writes.max(1) as f64;
    let tfet_banks = tfet_reads as f64 * clusters + tfet_writes as f64 * per_write;
    let cmos_banks = (m.bank_reads + m.bank_writes) as f64 - tfet_banks;
    // A warp register is one row in a bank of every cluster; mW over GHz is pJ per cycle.
    let row_pj = clusters * e.bank_leakage_mw / f64::from(g.entries) / e.clock_ghz;
    let (cmos_rows, tfet_rows) = match &s.rename {
        Some(r) => (r.cmos_used, r.physical - r.cmos),
        None => (s.registers_allocated, 0),
    };
    let cycles = s.cycles as f64;
    let h = Hybrid {
        cmos_access_pj: cmos_banks * e.bdi_bank_access_pj,
        tfet_access_pj: tfet_banks * e.bdi_bank_access_pj * e.tfet_access_ratio,
        wire_pj: (m.bank_reads + m.bank_writes) as f64 * e.bdi_wire_pj_per_mm * e.mrf_wire_mm,
        cmos_leakage_pj: cycles * f64::from(cmos_rows) * row_pj,
        tfet_leakage_pj: cycles * f64::from(tfet_rows) * row_pj * e.tfet_leakage_ratio,
        ..Hybrid::default()
    };
    let dynamic_pj = h.cmos_access_pj + h.tfet_access_pj + h.wire_pj;
    let leakage_pj = h.cmos_leakage_pj + h.tfet_leakage_pj;
    Hybrid { dynamic_pj, leakage_pj, total_pj: dynamic_pj + leakage_pj, ..h }
}
