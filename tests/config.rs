//! Configuration: defaults, presets, and one exact message for each kind of bad config.

use rfgen_gen::config::{self, Config};

/// `(TOML text, exact error message)`.
const BAD: &[(&str, &str)] = &[
    (
        "[mrf]\nbankz = 4",
        "`mrf.bankz`: unknown field `bankz`, expected one of `banks`, `entries`, `ports`, `collectors`, `tag_bits`",
    ),
    ("[mrf]\nbanks = \"many\"", "`mrf.banks`: expected a non-negative integer, found string \"many\""),
    ("[sm]\nwarps = -3", "`sm.warps` = -3: out of range (allowed: 2 to 64)"),
    ("[sm]\nwarps = 99999999999", "`sm.warps` = 99999999999: out of range (allowed: 2 to 64)"),
    (
        "[mrf]\nentries = 99999999999999999999999",
        "`mrf.entries` = 99999999999999999999999: out of range (allowed: powers of two from 2 to 65536)",
    ),
    ("[sm]\nwarps = 4\nwarps = 5", "line 3, column 1: invalid TOML: duplicate key `warps`"),
    ("[sm]\nwarps = 4\n[sm]\nlanes = 8", "line 3, column 2: invalid TOML: duplicate key `sm`"),
    (
        "[mrf]\ntag_bits = 1",
        "`mrf.tag_bits` = 1: too narrow: every instruction in an operand collector needs its own tag, and mrf.collectors = 4 (allowed: 2 to 32)",
    ),
    ("[mrf]\ntag_bits = 1.5", "`mrf.tag_bits`: expected a non-negative integer, found floating point `1.5`"),
    ("[energy]\nmrf_read_pj = \"8\"", "`energy.mrf_read_pj`: expected a number, found string \"8\""),
    ("[rfc]\nenabled = 1", "`rfc.enabled`: expected a boolean, found integer `1`"),
    ("[scheduler]\npolicy = \"fifo\"", "`scheduler.policy`: unknown value `fifo` (allowed: `lrr`, `gto`, `two_level`)"),
    ("[mrf]\nports = \"2r1w\"", "`mrf.ports`: unknown value `2r1w` (allowed: `1r1w`)"),
    // Enum fields are strings: a table, which serde would take for a variant, is refused.
    ("[rfc]\nreplacement = 1", "`rfc.replacement`: expected a string, found integer (allowed: `fifo` or `lru`)"),
    ("[rfc]\nreplacement = {}", "`rfc.replacement`: expected a string, found table (allowed: `fifo` or `lru`)"),
    (
        "[rfc]\nreplacement = { fifo = {} }",
        "`rfc.replacement`: expected a string, found table (allowed: `fifo` or `lru`)",
    ),
    (
        "[energy]\nmrf_read_pj = 100000000000000000000",
        "`energy.mrf_read_pj` = 100000000000000000000: out of range (allowed: a finite number, 0 or more)",
    ),
    (
        "[energy]\nclock_ghz = 1e999",
        "`energy.clock_ghz` = a number past the largest 64-bit float: out of range (allowed: a finite number above 0)",
    ),
    ("mrf = 3", "`mrf`: expected the section `[mrf]` (a table), found integer `3`"),
    ("[mrf\nbanks = 4", "line 1, column 5: invalid TOML: unclosed table, expected `]`"),
    (
        "name = \"Bad Name\"",
        "`name` = \"Bad Name\": must be a lowercase identifier of at most 32 characters (allowed: a-z first, then a-z, 0-9, '_' or '-')",
    ),
    ("[sm]\nwarps = 0", "`sm.warps` = 0: out of range (allowed: 2 to 64)"),
    ("[sm]\nlanes = 48", "`sm.lanes` = 48: must be a power of two in range (allowed: 1, 2, 4, 8, 16, 32, 64)"),
    ("[sm]\nclusters = 64", "`sm.clusters` = 64: must be a power of two in range (allowed: 1, 2, 4, 8, 16, 32)"),
    (
        "[mrf]\nbanks = 24",
        "`mrf.banks` = 24: must be a power of two with 1 to 32 banks per cluster (sm.clusters = 8) (allowed: 8, 16, 32, 64, 128, 256)",
    ),
    (
        "[mrf]\nbanks = 0",
        "`mrf.banks` = 0: must be a power of two with 1 to 32 banks per cluster (sm.clusters = 8) (allowed: 8, 16, 32, 64, 128, 256)",
    ),
    (
        "[sm]\nregisters_per_thread = 30",
        "`sm.registers_per_thread` = 30: must be 2 to 256 and a multiple of the banks per cluster (4) so the register-to-bank mapping is one-to-one (allowed: multiples of 4 up to 256)",
    ),
    (
        "[mrf]\nentries = 100",
        "`mrf.entries` = 100: must be a power of two in range (allowed: powers of two from 2 to 65536)",
    ),
    (
        "[mrf]\nentries = 4",
        "`mrf.entries` = 4: too small: one warp of 32 registers over 4 banks per cluster needs 8 rows (allowed: powers of two from 8 to 65536)",
    ),
    (
        "[mrf]\nentries = 128\n[rename]\nenabled = true\ncmos_rows = 100",
        "`mrf.entries` = 128: too small for renaming: 32 warps x 32 registers over 4 banks per cluster need 256 rows (allowed: powers of two from 256 to 65536)",
    ),
    ("[mrf]\ncollectors = 0", "`mrf.collectors` = 0: out of range (allowed: 1 to 16)"),
    ("[mrf]\ntag_bits = 33", "`mrf.tag_bits` = 33: out of range (allowed: 1 to 32)"),
    (
        "[scheduler]\npolicy = \"two_level\"\nactive_warps = 40",
        "`scheduler.active_warps` = 40: out of range (allowed: 1 to 32)",
    ),
    ("[compression]\nmodes = []", "`compression.modes` = []: must not be empty (allowed: 4,0 4,1 4,2 8,0 8,1 8,2 8,4)"),
    (
        "[compression]\nmodes = [\"4,3\"]",
        "`compression.modes` = \"4,3\": unknown mode (allowed: 4,0 4,1 4,2 8,0 8,1 8,2 8,4)",
    ),
    (
        "[compression]\nmodes = [\"4,1\", \"4,0\", \"4,1\"]",
        "`compression.modes` = \"4,1\": listed twice (allowed: each mode once)",
    ),
    (
        "[energy]\nsmall_rf_read_pj = [1.0]",
        "`energy.small_rf_read_pj` = 1 values: needs one value per size (allowed: 8 values (1 to 8 entries per thread))",
    ),
    ("[energy]\nmrf_read_pj = -1.0", "`energy.mrf_read_pj` = -1: must be a finite number (allowed: 0 or more)"),
    ("[energy]\nmrf_read_pj = -1e308", "`energy.mrf_read_pj` = -1e308: must be a finite number (allowed: 0 or more)"),
    (
        "[energy]\nsmall_rf_write_pj = [1, 2, 3, -4, 5, 6, 7, 8]",
        "`energy.small_rf_write_pj[3]` = -4: must be a finite number (allowed: 0 or more)",
    ),
    ("[latency]\ndram = 0", "`latency.dram` = 0: out of range (allowed: 1 to 10000)"),
    (
        "[orf]\nenabled = true\n[rfc]\nenabled = true",
        "`orf.enabled` = true: the operand register file does not compose with `rfc.enabled` (allowed: false, or `rfc.enabled` = false)",
    ),
    (
        "[sm]\nclusters = 2\n[mrf]\nbanks = 8\n[compression]\nenabled = true",
        "`compression.modes` = \"4,2\": needs 2 of the 2 banks of a register, saving none (sm.lanes = 32, sm.clusters = 2) (allowed: 4,0 4,1 8,0 8,1 8,2)",
    ),
    (
        "[sm]\nlanes = 2\nclusters = 2\n[compression]\nenabled = true\nmodes = [\"4,0\", \"8,0\"]",
        "`compression.modes` = \"8,0\": cuts a register of 2 lanes into fewer than 2 values (allowed: 4,0)",
    ),
    (
        "[rename]\nenabled = true\n[compression]\nenabled = true",
        "`rename.enabled` = true: register renaming does not compose with `compression.enabled` (allowed: false, or `compression.enabled` = false)",
    ),
    (
        "[rename]\nenabled = true\ntrws = true\n[scheduler]\npolicy = \"two_level\"",
        "`rename.trws` = true: TRWS needs a scheduler that sees every warp (allowed: false, or scheduler.policy = \"lrr\" or \"gto\")",
    ),
    ("[rename]\nenabled = true\ncmos_rows = 300", "`rename.cmos_rows` = 300: out of range (allowed: 0 to 256)"),
    (
        "[sm]\ncount = 2\n[rfc]\nenabled = true",
        "`sm.count` = 2: several SMs run without `rfc.enabled` only (allowed: 1, or `rfc.enabled` = false)",
    ),
    (
        "[rename]\nenabled = true\ntuba = true",
        "`rename.tuba` = true: TUBA balances TFET registers across SMs (allowed: false, or sm.count of 2 or more)",
    ),
];

#[test]
fn every_bad_config_gets_its_exact_message() {
    for (text, message) in BAD {
        let err = config::parse(text).expect_err(text);
        assert_eq!(err.to_string(), *message, "for config:\n{text}");
    }
}

/// Fields of a switched-off section are accepted but named as having no effect.
#[test]
fn ignored_fields_are_reported() {
    let c = config::parse("[rename]\ntrws = true\nthr_acc = 12\n[rfc]\nentries = 4\n[scheduler]\nactive_warps = 4")
        .unwrap();
    assert_eq!(
        c.warnings,
        [
            "`rfc.entries` = 4 has no effect while `rfc.enabled` = false",
            "`rename.trws` = true has no effect while `rename.enabled` = false",
            "`scheduler.active_warps` = 4 has no effect while `scheduler.policy` is not \"two_level\"",
        ]
    );
    // `rename.thr_acc` above shapes `--block rename` and `orf.entries` `sim --show-allocation`.
    assert!(config::parse("[orf]\nentries = 5\n[rename]\ncmos_rows = 100").unwrap().warnings.is_empty());
    let two_level = config::parse("[scheduler]\npolicy = \"two_level\"\nactive_warps = 4").unwrap();
    assert!(two_level.warnings.is_empty(), "{:?}", two_level.warnings);
    for name in config::preset_names() {
        assert!(config::preset(name).unwrap().warnings.is_empty(), "preset {name}");
    }
}

#[test]
fn the_default_is_the_paper_baseline() {
    let checked = config::parse("").unwrap();
    let g = &checked.geometry;
    assert_eq!((g.warps, g.lanes, g.clusters, g.registers), (32, 32, 8, 32));
    assert_eq!((g.groups, g.entries, g.entry_bits(), g.collectors), (4, 256, 128, 4));
    // 32 banks x 256 entries x 16 bytes = 128 KB.
    assert_eq!(g.clusters * g.groups * g.entries * g.entry_bits() / 8, 128 * 1024);
    assert_eq!(checked, config::preset("baseline").unwrap());
}

#[test]
fn printed_default_parses_back_to_the_default() {
    let text = config::default_toml();
    assert_eq!(config::parse(&text).unwrap().config, Config::default());
    assert_eq!(config::parse(&text).unwrap().hash(), config::parse("").unwrap().hash());
}

#[test]
fn every_preset_is_valid_and_named_after_itself() {
    for name in config::preset_names() {
        let checked = config::preset(name).unwrap();
        assert_eq!(checked.config.name, name);
        let file = std::fs::read_to_string(format!("configs/{name}.toml")).unwrap();
        assert_eq!(config::parse(&file).unwrap(), checked);
    }
    assert_eq!(
        config::preset("nope").unwrap_err().to_string(),
        "unknown preset `nope` (allowed: baseline, isca15-bdi, isca11-rfc, micro11-orf-lrf, tfet-hybrid, small, war-warpboard, full)"
    );
}

#[test]
fn register_map_is_one_to_one_and_fits() {
    for text in [
        "",
        "[sm]\nwarps = 48\nregisters_per_thread = 20",
        "[sm]\nwarps = 3\nregisters_per_thread = 8\n[mrf]\nbanks = 16\nentries = 16",
        "[sm]\nwarps = 48\nregisters_per_thread = 32",
    ] {
        let g = config::parse(text).unwrap().geometry;
        // Register-limited, every kernel size maps the warps that have rows one-to-one.
        let sizes = if g.register_limited { (1..=g.registers).collect() } else { vec![g.registers] };
        for regs in sizes {
            let (stride, warps) = (g.rows_per_warp(regs), g.resident_warps(regs));
            let mut seen = std::collections::HashSet::new();
            for w in 0..warps {
                for r in 0..regs {
                    let a = g.map(w, r, stride);
                    assert!(a.group < g.groups && a.row < g.entries, "{text}: ({w}, {r}) at {regs} registers");
                    assert!(seen.insert((a.group, a.row)), "{text}: ({w}, {r}) collides at {regs} registers");
                }
            }
        }
    }
}

/// Occupancy limited by registers: with 48 warps of up to 32 registers in 256 rows of 4 bank
/// groups, a kernel of up to 21 registers keeps every warp; more registers, fewer warps.
#[test]
fn register_limited_occupancy() {
    let g = config::parse("[sm]\nwarps = 48\nregisters_per_thread = 32").unwrap().geometry;
    assert!(g.register_limited);
    let at = |regs| (g.rows_per_warp(regs), g.resident_warps(regs));
    assert_eq!([at(1), at(20), at(21), at(28), at(32)], [(1, 48), (5, 48), (6, 42), (7, 36), (8, 32)]);
    // Every warp fits at the most registers: the stride is the constant R / G, whatever the kernel.
    let g = config::parse("").unwrap().geometry;
    assert!(!g.register_limited);
    assert_eq!([g.rows_per_warp(3), g.resident_warps(3)], [8, 32]);
}

/// Every field of the schema is described in the config reference.
#[test]
fn config_reference_documents_every_field() {
    let doc = std::fs::read_to_string("docs/config.md").unwrap();
    let value: toml::Value = toml::from_str(&config::default_toml()).unwrap();
    for (section, v) in value.as_table().unwrap() {
        match v.as_table() {
            Some(fields) => {
                assert!(doc.contains(&format!("## [{section}]")), "docs/config.md lacks section [{section}]");
                for key in fields.keys() {
                    assert!(doc.contains(&format!("| `{key}` |")), "docs/config.md lacks {section}.{key}");
                }
            }
            None => assert!(doc.contains(&format!("| `{section}` |")), "docs/config.md lacks {section}"),
        }
    }
}
