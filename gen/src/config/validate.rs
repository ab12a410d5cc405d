//! Validation: turns a parsed [`Config`] into a [`Checked`] one, or names the first broken rule.
//! Rules are checked in a fixed order, base fields before the rules that combine them, so one
//! mistake yields exactly one message.

use super::Checked;
use crate::layout::bdi::{Layout, MODES, Mode};
use crate::layout::geometry::{Geometry, index_bits};
use crate::layout::orf::OrfLayout;
use crate::layout::rfc::RfcLayout;
use crate::schema::*;

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

/// The fixed bounds of every integer field, `(path, lowest, highest, power of two)`. Some rules
/// below narrow them with other fields (clusters up to the lanes, active warps up to the warps).
const LIMITS: &[(&str, u32, u32, bool)] = &[
    ("sm.warps", 2, 64, false),
    ("sm.lanes", 1, 64, true),
    ("sm.clusters", 1, 64, true),
    ("sm.registers_per_thread", 2, 256, false),
    ("sm.count", 1, 64, false),
    ("mrf.banks", 1, 2048, true),
    ("mrf.entries", 2, 65536, true),
    ("mrf.collectors", 1, 16, false),
    ("mrf.tag_bits", 1, 32, false),
    ("scheduler.active_warps", 1, 64, false),
    ("rfc.entries", 1, 8, false),
    ("orf.entries", 1, 8, false),
    ("compression.compress_latency", 1, 8, false),
    ("compression.decompress_latency", 1, 8, false),
    ("compression.compressors", 1, 16, false),
    ("compression.decompressors", 1, 16, false),
    ("compression.wakeup_cycles", 0, 1000, false),
    ("compression.gate_delay", 0, 1000, false),
    ("rename.cmos_rows", 0, 65536, false),
    ("rename.thr_acc", 0, 2047, false),
    ("rename.ref_acc", 1, 1024, true),
    ("latency.alu", 1, 10000, false),
    ("latency.sfu", 1, 10000, false),
    ("latency.shared", 1, 10000, false),
    ("latency.texture", 1, 10000, false),
    ("latency.dram", 1, 10000, false),
    ("throughput.alu", 1, 1024, false),
    ("throughput.sfu", 1, 1024, false),
    ("throughput.texture", 1, 1024, false),
    ("memory.shared_bytes_per_cycle", 1, 4096, false),
    ("memory.dram_bytes_per_cycle", 1, 4096, false),
    ("memory.segment_bytes", 4, 4096, true),
];

fn limits(path: &str) -> (u32, u32, bool) {
    let &(_, lo, hi, pow) = LIMITS.iter().find(|l| l.0 == path).unwrap_or_else(|| panic!("no limits for {path}"));
    (lo, hi, pow)
}

/// What an integer field accepts, in words (for values that do not even fit its type).
pub(super) fn allowed_integers(path: &str) -> String {
    match LIMITS.iter().find(|l| l.0 == path) {
        Some(&(_, lo, hi, true)) => powers_of_two(lo, hi),
        Some(&(_, lo, hi, false)) => format!("{lo} to {hi}"),
        None => format!("0 to {}", u32::MAX),
    }
}

/// What a float field accepts, in words (for values that do not even fit its type).
pub(super) fn allowed_floats(path: &str) -> String {
    if path == "energy.clock_ghz" { "a finite number above 0".into() } else { "a finite number, 0 or more".into() }
}

/// `path` within its fixed bounds, narrowed to at most `hi` when given.
fn range_to(path: &str, v: u32, hi: Option<u32>) -> Result<(), ConfigError> {
    let (lo, max, pow) = limits(path);
    let hi = hi.map_or(max, |h| h.min(max));
    if pow {
        require(
            v.is_power_of_two() && (lo..=hi).contains(&v),
            path,
            v,
            "must be a power of two in range",
            powers_of_two(lo, hi),
        )
    } else {
        require((lo..=hi).contains(&v), path, v, "out of range", format!("{lo} to {hi}"))
    }
}

fn range(path: &str, v: u32) -> Result<(), ConfigError> {
    range_to(path, v, None)
}

/// A float as a person would write it: no 300-digit expansions.
pub(super) fn show_float(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e9).contains(&v.abs()) { format!("{v:e}") } else { v.to_string() }
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

pub(super) fn validate(cfg: Config) -> Result<Checked, ConfigError> {
    check_name_and_geometry(&cfg)?;
    check_parts(&cfg)?;
    check_timing_and_energy(&cfg)?;
    check_combinations(&cfg)?;
    let mut geometry = Geometry::new(&cfg.sm, &cfg.mrf, &cfg.timing);
    if cfg.rename.enabled {
        geometry = geometry.renamed(cfg.rename.cmos_rows);
    }
    let compression =
        if cfg.compression.enabled { Some(Layout::new(&geometry, &cfg.compression, &cfg.timing)?) } else { None };
    let rfc = cfg.rfc.enabled.then(|| RfcLayout::new(&geometry, &cfg.rfc, &cfg.scheduler));
    let orf = cfg.orf.enabled.then(|| OrfLayout::new(&geometry, &cfg.orf, &cfg.scheduler));
    let warnings = ignored_fields(&cfg);
    Ok(Checked { config: cfg, geometry, compression, rfc, orf, warnings })
}

/// The name, the SM and the MRF: each field's range, and what the register-to-bank mapping
/// and the operand collectors' tags need.
fn check_name_and_geometry(cfg: &Config) -> Result<(), ConfigError> {
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
    range("sm.warps", sm.warps)?;
    range("sm.count", sm.count)?;
    range("sm.lanes", sm.lanes)?;
    range_to("sm.clusters", sm.clusters, Some(sm.lanes))?;
    let mrf = &cfg.mrf;
    require(
        mrf.banks.is_power_of_two() && mrf.banks.is_multiple_of(sm.clusters) && mrf.banks / sm.clusters <= 32,
        "mrf.banks",
        mrf.banks,
        &format!("must be a power of two with 1 to 32 banks per cluster (sm.clusters = {})", sm.clusters),
        powers_of_two(sm.clusters, sm.clusters * 32),
    )?;
    let groups = mrf.banks / sm.clusters;
    require(
        (2..=256).contains(&sm.registers_per_thread) && sm.registers_per_thread.is_multiple_of(groups),
        "sm.registers_per_thread",
        sm.registers_per_thread,
        &format!(
            "must be 2 to 256 and a multiple of the banks per cluster ({groups}) so the register-to-bank mapping is one-to-one"
        ),
        format!("multiples of {groups} up to 256"),
    )?;
    range("mrf.entries", mrf.entries)?;
    // One warp at the most registers must fit; when not every warp does, occupancy is
    // register-limited (`Geometry::register_limited`).
    let needed = sm.registers_per_thread / groups;
    require(
        mrf.entries >= needed,
        "mrf.entries",
        mrf.entries,
        &format!(
            "too small: one warp of {} registers over {groups} banks per cluster needs {needed} rows",
            sm.registers_per_thread
        ),
        powers_of_two(needed, 65536),
    )?;
    range("mrf.collectors", mrf.collectors)?;
    range("mrf.tag_bits", mrf.tag_bits)?;
    // The SM tells apart the instructions waiting in operand collectors by their tag.
    let tag_bits_needed = index_bits(mrf.collectors);
    require(
        mrf.tag_bits >= tag_bits_needed,
        "mrf.tag_bits",
        mrf.tag_bits,
        &format!(
            "too narrow: every instruction in an operand collector needs its own tag, and mrf.collectors = {}",
            mrf.collectors
        ),
        format!("{tag_bits_needed} to 32"),
    )?;
    Ok(())
}

/// The optional parts' own sections: scheduler, compression, renaming and the rest.
fn check_parts(cfg: &Config) -> Result<(), ConfigError> {
    let (sm, mrf) = (&cfg.sm, &cfg.mrf);
    // A whole number: `check_name_and_geometry` ran first.
    let groups = mrf.banks / sm.clusters;
    if cfg.scheduler.policy == SchedulerPolicy::TwoLevel {
        range_to("scheduler.active_warps", cfg.scheduler.active_warps, Some(sm.warps))?;
    }
    range("rfc.entries", cfg.rfc.entries)?;
    range("orf.entries", cfg.orf.entries)?;

    let c = &cfg.compression;
    let modes = MODES.map(|m| m.name()).join(" ");
    require(!c.modes.is_empty(), "compression.modes", "[]", "must not be empty", &modes)?;
    for (i, m) in c.modes.iter().enumerate() {
        require(Mode::parse(m).is_some(), "compression.modes", format!("{m:?}"), "unknown mode", &modes)?;
        require(!c.modes[..i].contains(m), "compression.modes", format!("{m:?}"), "listed twice", "each mode once")?;
    }
    range("compression.compress_latency", c.compress_latency)?;
    range("compression.decompress_latency", c.decompress_latency)?;
    range("compression.compressors", c.compressors)?;
    range("compression.decompressors", c.decompressors)?;
    range("compression.wakeup_cycles", c.wakeup_cycles)?;
    range("compression.gate_delay", c.gate_delay)?;

    let r = &cfg.rename;
    // Without renaming the stage is still generated alone, all CMOS past the rows there are.
    range_to("rename.cmos_rows", r.cmos_rows, r.enabled.then_some(mrf.entries))?;
    if r.enabled {
        // The rename stage maps every warp slot's registers: all of them must have a row.
        let rows = sm.warps * sm.registers_per_thread / groups;
        require(
            mrf.entries >= rows,
            "mrf.entries",
            mrf.entries,
            &format!(
                "too small for renaming: {} warps x {} registers over {groups} banks per cluster need {rows} rows",
                sm.warps, sm.registers_per_thread
            ),
            powers_of_two(rows, 65536),
        )?;
    }
    range("rename.ref_acc", r.ref_acc)?;
    range("rename.thr_acc", r.thr_acc)?;
    Ok(())
}

/// Latencies, throughputs, memory timing and the energy tables.
fn check_timing_and_energy(cfg: &Config) -> Result<(), ConfigError> {
    let (l, t, m) = (&cfg.latency, &cfg.throughput, &cfg.memory);
    for (path, v) in [
        ("latency.alu", l.alu),
        ("latency.sfu", l.sfu),
        ("latency.shared", l.shared),
        ("latency.texture", l.texture),
        ("latency.dram", l.dram),
        ("throughput.alu", t.alu),
        ("throughput.sfu", t.sfu),
        ("throughput.texture", t.texture),
        ("memory.shared_bytes_per_cycle", m.shared_bytes_per_cycle),
        ("memory.dram_bytes_per_cycle", m.dram_bytes_per_cycle),
        ("memory.segment_bytes", m.segment_bytes),
    ] {
        range(path, v)?;
    }

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
        ("energy.rfc_wire_mm", e.rfc_wire_mm),
        ("energy.bdi_bank_access_pj", e.bdi_bank_access_pj),
        ("energy.bdi_wire_pj_per_mm", e.bdi_wire_pj_per_mm),
        ("energy.bank_leakage_mw", e.bank_leakage_mw),
        ("energy.compressor_pj", e.compressor_pj),
        ("energy.decompressor_pj", e.decompressor_pj),
        ("energy.tfet_access_ratio", e.tfet_access_ratio),
        ("energy.tfet_leakage_ratio", e.tfet_leakage_ratio),
    ];
    require(
        e.clock_ghz.is_finite() && e.clock_ghz > 0.0,
        "energy.clock_ghz",
        show_float(e.clock_ghz),
        "must be a positive number",
        "above 0",
    )?;
    let tables = [("energy.small_rf_read_pj", &e.small_rf_read_pj), ("energy.small_rf_write_pj", &e.small_rf_write_pj)]
        .into_iter()
        .flat_map(|(path, t)| t.iter().enumerate().map(move |(i, &v)| (format!("{path}[{i}]"), v)));
    for (path, v) in scalars.into_iter().map(|(p, v)| (p.to_string(), v)).chain(tables) {
        require(v.is_finite() && v >= 0.0, &path, show_float(v), "must be a finite number", "0 or more")?;
    }
    Ok(())
}

/// Parts that cannot go together, and why.
fn check_combinations(cfg: &Config) -> Result<(), ConfigError> {
    // Blocks whose RTL does not exist yet: refuse rather than silently ignore.
    // The ORF/LRF sits beside the uncompressed MRF's collectors: a register may skip the MRF,
    // which neither a register file cache nor the compressor's write port expects.
    for (on, other) in [(cfg.rfc.enabled, "rfc.enabled"), (cfg.compression.enabled, "compression.enabled")] {
        require(
            !(cfg.orf.enabled && on),
            "orf.enabled",
            "true",
            &format!("the operand register file does not compose with `{other}`"),
            format!("false, or `{other}` = false"),
        )?;
    }
    // Renaming puts physical ids on the MRF's ports, which the register file cache, the
    // compressed MRF's range tables and the ORF/LRF's allocation all index architecturally.
    // Several SMs run the plain or the renamed SM.
    for (on, other) in [
        (cfg.rfc.enabled, "rfc.enabled"),
        (cfg.compression.enabled, "compression.enabled"),
        (cfg.orf.enabled, "orf.enabled"),
    ] {
        let allowed = format!("false, or `{other}` = false");
        let rule = format!("register renaming does not compose with `{other}`");
        require(!(cfg.rename.enabled && on), "rename.enabled", "true", &rule, allowed)?;
        let rule = format!("several SMs run without `{other}` only");
        require(!(cfg.sm.count > 1 && on), "sm.count", cfg.sm.count, &rule, format!("1, or `{other}` = false"))?;
    }
    // The compressed bank group's dummy MOV takes its read port at the edge it decides to, and
    // its decompressor is a pipeline of its own: these stages are for the uncompressed banks.
    for (on, option) in [
        (cfg.timing.mrf_registered_grant, "timing.mrf_registered_grant"),
        (cfg.timing.mrf_registered_read, "timing.mrf_registered_read"),
    ] {
        require(
            !(on && cfg.compression.enabled),
            option,
            "true",
            &format!("`{option}` does not compose with `compression.enabled`"),
            "false, or `compression.enabled` = false",
        )?;
    }
    // The address register holds the registered grant's row.
    require(
        !cfg.timing.mrf_registered_address || cfg.timing.mrf_registered_grant,
        "timing.mrf_registered_address",
        "true",
        "`timing.mrf_registered_address` registers the row of the registered grant",
        "false, or `timing.mrf_registered_grant` = true",
    )?;
    require(
        !(cfg.rename.tuba && cfg.sm.count < 2),
        "rename.tuba",
        "true",
        "TUBA balances TFET registers across SMs",
        "false, or sm.count of 2 or more",
    )?;
    // TRWS orders the whole eligible set; a two-level scheduler only ever looks at its active set.
    require(
        !(cfg.rename.trws && cfg.scheduler.policy == SchedulerPolicy::TwoLevel),
        "rename.trws",
        "true",
        "TRWS needs a scheduler that sees every warp",
        "false, or scheduler.policy = \"lrr\" or \"gto\"",
    )?;
    Ok(())
}

/// Fields set away from their default in a section that is switched off, so they have no effect.
fn ignored_fields(cfg: &Config) -> Vec<String> {
    fn table<T: serde::Serialize>(v: &T) -> toml::Table {
        toml::Table::try_from(v).expect("a config section serializes as a table")
    }
    let d = Config::default();
    let two_level = cfg.scheduler.policy == SchedulerPolicy::TwoLevel;
    let sections = [
        ("rfc", table(&cfg.rfc), table(&d.rfc), cfg.rfc.enabled, "`rfc.enabled` = false"),
        ("orf", table(&cfg.orf), table(&d.orf), cfg.orf.enabled, "`orf.enabled` = false"),
        ("rename", table(&cfg.rename), table(&d.rename), cfg.rename.enabled, "`rename.enabled` = false"),
        ("scheduler", table(&cfg.scheduler), table(&d.scheduler), two_level, "`scheduler.policy` is not \"two_level\""),
    ];
    // Fields some command uses whatever `enabled` says: the ORF/LRF shape drives `rfgen sim
    // --show-allocation`, the rename stage's shape `--block rename`.
    const USED_ANYWAY: &[&str] = &["orf.entries", "orf.lrf", "rename.cmos_rows", "rename.thr_acc", "rename.ref_acc"];
    let mut warnings = Vec::new();
    for (name, mine, default, on, why) in sections {
        let ignored = |k: &str| !USED_ANYWAY.contains(&format!("{name}.{k}").as_str());
        for (key, value) in mine
            .iter()
            .filter(|(k, v)| !on && *k != "enabled" && *k != "policy" && ignored(k) && default.get(*k) != Some(v))
        {
            warnings.push(format!("`{name}.{key}` = {value} has no effect while {why}"));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::LIMITS;

    /// docs/config.md states every integer field's fixed range in the field's row or its
    /// section's introduction.
    #[test]
    fn the_reference_states_every_integer_range() {
        let doc = include_str!("../../../docs/config.md");
        let mut missing = Vec::new();
        for &(path, lo, hi, pow) in LIMITS {
            let (section, field) = path.split_once('.').unwrap();
            let start = doc.find(&format!("## [{section}]")).unwrap_or_else(|| panic!("no section [{section}]"));
            let text = &doc[start..];
            let text = &text[..text[3..].find("\n## ").map_or(text.len(), |e| e + 3)];
            let row = text
                .lines()
                .find(|l| l.starts_with(&format!("| `{field}` |")))
                .unwrap_or_else(|| panic!("no row for {path}"));
            let range = if pow { hi.to_string() } else { format!("{lo} to {hi}") };
            let (intro, _) = text.split_once("\n|").unwrap();
            if !row.contains(&range) && !intro.contains(&range) {
                missing.push(format!("{path}: `{range}`"));
            }
        }
        assert!(missing.is_empty(), "docs/config.md does not state these ranges: {missing:#?}");
    }
}
