//! Validation: turns a parsed [`Config`] into a [`Checked`] one, or names the first broken rule.
//! Rules are checked in a fixed order, base fields before the rules that combine them, so one
//! mistake yields exactly one message.

use super::schema::*;
use super::{Checked, ConfigError};
use crate::geometry::Geometry;

/// Checks one rule; `allowed` says what values would be accepted.
fn require(
    ok: bool,
    path: &str,
    value: impl ToString,
    rule: &str,
    allowed: impl Into<String>,
) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::Rule {
            path: path.into(),
            value: value.to_string(),
            rule: rule.into(),
            allowed: allowed.into(),
        })
    }
}

fn range(path: &str, v: u32, lo: u32, hi: u32) -> Result<(), ConfigError> {
    require((lo..=hi).contains(&v), path, v, "out of range", format!("{lo} to {hi}"))
}

fn pow2(path: &str, v: u32, lo: u32, hi: u32) -> Result<(), ConfigError> {
    require(
        v.is_power_of_two() && (lo..=hi).contains(&v),
        path,
        v,
        "must be a power of two in range",
        powers_of_two(lo, hi),
    )
}

fn powers_of_two(lo: u32, hi: u32) -> String {
    let mut v = Vec::new();
    let mut p = lo.max(1).next_power_of_two();
    while p <= hi {
        v.push(p.to_string());
        p *= 2;
    }
    match v.len() {
        0 => "none".into(),
        1..=8 => v.join(", "),
        _ => format!("powers of two from {} to {}", v[0], v[v.len() - 1]),
    }
}

fn not_generated(path: &str, what: &str) -> ConfigError {
    ConfigError::Rule {
        path: path.into(),
        value: "true".into(),
        rule: format!("{what} is not generated yet"),
        allowed: "disabled (the default)".into(),
    }
}

pub(super) fn validate(cfg: Config) -> Result<Checked, ConfigError> {
    let name_ok = !cfg.name.is_empty()
        && cfg.name.len() <= 32
        && cfg.name.starts_with(|c: char| c.is_ascii_lowercase())
        && cfg.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    require(
        name_ok,
        "name",
        format!("{:?}", cfg.name),
        "must be a lowercase identifier of at most 32 characters",
        "a-z first, then a-z, 0-9, '_' or '-'",
    )?;

    let sm = &cfg.sm;
    range("sm.warps", sm.warps, 2, 64)?;
    pow2("sm.lanes", sm.lanes, 1, 64)?;
    pow2("sm.clusters", sm.clusters, 1, sm.lanes)?;
    let mrf = &cfg.mrf;
    require(
        mrf.banks.is_power_of_two() && mrf.banks % sm.clusters == 0 && mrf.banks / sm.clusters <= 32,
        "mrf.banks",
        mrf.banks,
        &format!("must be a power of two with 1 to 32 banks per cluster (sm.clusters = {})", sm.clusters),
        powers_of_two(sm.clusters, sm.clusters * 32),
    )?;
    let groups = mrf.banks / sm.clusters;
    require(
        (2..=256).contains(&sm.registers_per_thread) && sm.registers_per_thread % groups == 0,
        "sm.registers_per_thread",
        sm.registers_per_thread,
        &format!(
            "must be 2 to 256 and a multiple of the banks per cluster ({groups}) so the register-to-bank mapping is one-to-one"
        ),
        format!("multiples of {groups} up to 256"),
    )?;
    pow2("mrf.entries", mrf.entries, 2, 65536)?;
    let needed = sm.warps * sm.registers_per_thread / groups;
    require(
        mrf.entries >= needed,
        "mrf.entries",
        mrf.entries,
        &format!(
            "too small: {} warps x {} registers over {groups} banks per cluster need {needed} rows",
            sm.warps, sm.registers_per_thread
        ),
        powers_of_two(needed, 65536),
    )?;
    range("mrf.collectors", mrf.collectors, 1, 16)?;
    range("mrf.tag_bits", mrf.tag_bits, 1, 32)?;

    if cfg.scheduler.policy == SchedulerPolicy::TwoLevel {
        range("scheduler.active_warps", cfg.scheduler.active_warps, 1, sm.warps)?;
    }
    range("rfc.entries", cfg.rfc.entries, 1, 8)?;
    range("orf.entries", cfg.orf.entries, 1, 8)?;

    let c = &cfg.compression;
    let modes = crate::bdi::MODES.map(|m| m.name()).join(" ");
    require(!c.modes.is_empty(), "compression.modes", "[]", "must not be empty", &modes)?;
    for (i, m) in c.modes.iter().enumerate() {
        require(crate::bdi::Mode::parse(m).is_some(), "compression.modes", format!("{m:?}"), "unknown mode", &modes)?;
        require(!c.modes[..i].contains(m), "compression.modes", format!("{m:?}"), "listed twice", "each mode once")?;
    }
    range("compression.compress_latency", c.compress_latency, 1, 8)?;
    range("compression.decompress_latency", c.decompress_latency, 1, 8)?;
    range("compression.compressors", c.compressors, 1, 16)?;
    range("compression.decompressors", c.decompressors, 1, 16)?;
    range("compression.wakeup_cycles", c.wakeup_cycles, 0, 1000)?;

    let r = &cfg.rename;
    if r.enabled {
        range("rename.cmos_rows", r.cmos_rows, 0, mrf.entries)?;
    }
    pow2("rename.ref_acc", r.ref_acc, 1, 1024)?;
    range("rename.thr_acc", r.thr_acc, 0, 2047)?;

    let l = &cfg.latency;
    for (path, v) in [
        ("latency.alu", l.alu),
        ("latency.sfu", l.sfu),
        ("latency.shared", l.shared),
        ("latency.texture", l.texture),
        ("latency.dram", l.dram),
    ] {
        range(path, v, 1, 10000)?;
    }

    let t = &cfg.throughput;
    for (path, v) in [("throughput.alu", t.alu), ("throughput.sfu", t.sfu), ("throughput.texture", t.texture)] {
        range(path, v, 1, 1024)?;
    }
    let m = &cfg.memory;
    range("memory.shared_bytes_per_cycle", m.shared_bytes_per_cycle, 1, 4096)?;
    range("memory.dram_bytes_per_cycle", m.dram_bytes_per_cycle, 1, 4096)?;
    pow2("memory.segment_bytes", m.segment_bytes, 4, 4096)?;

    let e = &cfg.energy;
    for (path, table) in
        [("energy.small_rf_read_pj", &e.small_rf_read_pj), ("energy.small_rf_write_pj", &e.small_rf_write_pj)]
    {
        require(
            table.len() == 8,
            path,
            format!("{} values", table.len()),
            "needs one value per size",
            "8 values (1 to 8 entries per thread)",
        )?;
    }
    let scalars = [
        ("energy.mrf_read_pj", e.mrf_read_pj),
        ("energy.mrf_write_pj", e.mrf_write_pj),
        ("energy.lrf_read_pj", e.lrf_read_pj),
        ("energy.lrf_write_pj", e.lrf_write_pj),
        ("energy.wire_pj_per_mm", e.wire_pj_per_mm),
        ("energy.mrf_wire_mm", e.mrf_wire_mm),
        ("energy.orf_private_wire_mm", e.orf_private_wire_mm),
        ("energy.orf_shared_wire_mm", e.orf_shared_wire_mm),
        ("energy.lrf_wire_mm", e.lrf_wire_mm),
        ("energy.bdi_bank_access_pj", e.bdi_bank_access_pj),
        ("energy.bdi_wire_pj_per_mm", e.bdi_wire_pj_per_mm),
        ("energy.bank_leakage_mw", e.bank_leakage_mw),
        ("energy.compressor_pj", e.compressor_pj),
        ("energy.decompressor_pj", e.decompressor_pj),
    ];
    require(
        e.clock_ghz.is_finite() && e.clock_ghz > 0.0,
        "energy.clock_ghz",
        e.clock_ghz,
        "must be a positive number",
        "above 0",
    )?;
    let tables = e.small_rf_read_pj.iter().chain(&e.small_rf_write_pj).map(|&v| ("energy.small_rf_*_pj", v));
    for (path, v) in scalars.into_iter().chain(tables) {
        require(v.is_finite() && v >= 0.0, path, v, "must be a finite number", "0 or more")?;
    }

    // Blocks whose RTL does not exist yet: refuse rather than silently ignore.
    if cfg.rfc.enabled {
        return Err(not_generated("rfc.enabled", "the register file cache"));
    }
    if cfg.orf.enabled {
        return Err(not_generated("orf.enabled", "the operand register file"));
    }
    if cfg.rename.enabled {
        return Err(not_generated("rename.enabled", "register renaming"));
    }
    if cfg.warpboard.policy != WarPolicy::None {
        return Err(ConfigError::Rule {
            path: "warpboard.policy".into(),
            value: format!("{:?}", cfg.warpboard.policy).to_lowercase(),
            rule: "the warpboard is not generated yet".into(),
            allowed: "\"none\" (the default)".into(),
        });
    }

    let geometry = Geometry::new(&cfg);
    if cfg.compression.enabled {
        crate::bdi::Layout::new(&geometry, &cfg.compression)?;
    }
    Ok(Checked { config: cfg, geometry })
}
