//! Formal harnesses: the properties `rfgen prove` checks, and for each a small Verilog wrapper
//! module that instantiates the generated RTL with free inputs and states the property as
//! immediate assertions (read by Yosys with `read_verilog -formal`). The harnesses are built from
//! the same config, layouts and typed ports as the RTL, so a property always speaks about the
//! design the config generates. Running them (Yosys, an SMT solver) is the CLI's job.
//!
//! Every property is declared once in [`PROPERTIES`]: its name and one-line statement are what
//! `rfgen prove` prints and what `docs/prove.md` lists.

mod arbiter;
mod bdi;
mod collector;
mod mrf;
mod reg_map;
mod rename;
mod rfc;
mod scoreboard;

use crate::config::{Checked, ConfigError};
use crate::emit::Design;
use crate::registry::Block;
use crate::verilog::{Dir, Port, Ports, Sig, Submodule};

/// A property of a generated block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property {
    /// Stable name, `<block part>.<what>`.
    pub name: &'static str,
    /// The block whose RTL it is about, as `--block` names it.
    pub block: Block,
    /// One line: what holds.
    pub statement: &'static str,
}

pub const BDI_ROUND_TRIP: Property = Property {
    name: "bdi.round_trip",
    block: Block::Bdi,
    statement: "decompress(compress(x)) = x for every register value x, bypassed or not, lane by lane",
};
pub const BDI_SMALLEST: Property = Property {
    name: "bdi.smallest",
    block: Block::Bdi,
    statement: "the compressor stores a register in the fewest banks any enabled mode that fits it needs, uncompressed when bypassed or when none fits",
};
pub const ARBITER_GRANT: Property = Property {
    name: "arbiter.grant",
    block: Block::Mrf,
    statement: "a bank arbiter grants only a requester, at most one per cycle, and someone whenever anyone requests",
};
pub const ARBITER_FAIR: Property = Property {
    name: "arbiter.fair",
    block: Block::Mrf,
    statement: "a requester that keeps requesting is granted before n-1 taken grants go to others (n requesters)",
};
pub const COLLECTOR_IDLE: Property = Property {
    name: "collector.idle",
    block: Block::Mrf,
    statement: "a free operand collector has no source pending or in flight, so it requests no read",
};
pub const REG_MAP_BIJECTION: Property = Property {
    name: "reg_map.bijection",
    block: Block::Mrf,
    statement: "two different (warp, register) pairs in range map to different (bank group, row), every row in range",
};

pub const RFC_WRITEBACK: Property = Property {
    name: "rfc.writeback",
    block: Block::Mrf,
    statement: "the register file cache never loses a register's latest value: what the banks lack is held by a live dirty entry or the eviction buffer and reaches the banks with that value, by the end of the warp's flush at the latest (dead values and released warps excepted)",
};

pub const SCOREBOARD_RESERVED: Property = Property {
    name: "scoreboard.reserved",
    block: Block::Scoreboard,
    statement: "a register or predicate becomes pending only when reserved and stops only at its write-back or a reset; a long-latency mark only on a pending register",
};

pub const RENAME_UNIQUE: Property = Property {
    name: "rename.unique",
    block: Block::Rename,
    statement: "every physical register is at every step either free, once, in its kind's free list, or handed out and not released since: none is handed out twice, none is lost",
};

/// Every property, in the order `rfgen prove` runs them.
pub const PROPERTIES: &[Property] = &[
    BDI_ROUND_TRIP,
    BDI_SMALLEST,
    ARBITER_GRANT,
    ARBITER_FAIR,
    COLLECTOR_IDLE,
    REG_MAP_BIJECTION,
    RFC_WRITEBACK,
    SCOREBOARD_RESERVED,
    RENAME_UNIQUE,
];

/// How a harness is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    /// One bounded check of `depth` steps in which the design starts in an arbitrary state (its
    /// registers have no initial value) and the harness follows one transaction from step 0 to
    /// its end. Complete: every real run is one of these from some reachable state.
    AnyState { depth: u32 },
    /// The same check by Yosys' own SAT solver (`sat -seq`), which takes a wide datapath bit by
    /// bit where z3 (through yosys-smtbmc) takes minutes: for checks over a whole register.
    AnyStateSat { depth: u32 },
    /// Bounded model checking from reset to `depth` steps, then k-induction of `depth` steps:
    /// proved when the induction passes, bounded to `depth` when only the bounded check does.
    Induction { depth: u32 },
}

/// One check: a property of one part of a design (a lane, an arbiter size), as a wrapper module
/// over the design's sources.
#[derive(Clone, Debug)]
pub struct Harness {
    pub property: Property,
    /// Which part, e.g. `lane 3`, `rr_arbiter_4`; empty when the property is checked whole.
    pub part: String,
    /// The wrapper module's name.
    pub top: String,
    /// The wrapper: SystemVerilog immediate assertions and assumptions, Yosys `-formal` syntax.
    pub text: String,
    /// The design's Verilog files the wrapper instantiates (names as in the design).
    pub sources: Vec<String>,
    pub proof: Proof,
    /// Internal signals of the design the wrapper reads; empty for most properties.
    pub probes: Vec<Probe>,
}

/// An internal signal of the design under test that an induction needs (an invariant over state
/// the ports do not show). Verilog cannot name it from the wrapper, so the wrapper declares an
/// undriven wire, guarded by `` `ifdef RFGEN_PROBES `` with the assertions that read it, and the
/// prover connects it to `path` after flattening (Yosys `connect -set`). A design without the
/// signal (a user's copy that renamed it) is checked without the guarded part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The wrapper's wire.
    pub wire: String,
    /// The signal's flattened name: `<instance>.<signal>`; word `i` of a memory is
    /// `<instance>.<memory>[i]` (the prover maps memories to flip-flops before connecting).
    pub path: String,
    /// The signal's bits the wire takes, `(msb, lsb)`; `None`: all of them.
    pub bits: Option<(u32, u32)>,
}

/// The define that turns on the wrapper's probed part.
pub const PROBES_DEFINE: &str = "RFGEN_PROBES";

/// The blocks that have properties.
pub const PROVED_BLOCKS: [Block; 4] = [Block::Bdi, Block::Mrf, Block::Scoreboard, Block::Rename];

/// The harnesses of `block`'s properties over `design`, the RTL `block` generates for
/// `checked` (possibly a user's edited copy with the same file names). `depth` is the bound of
/// the properties checked by induction.
pub fn harnesses(checked: &Checked, block: Block, design: &Design, depth: u32) -> Result<Vec<Harness>, ConfigError> {
    let prefix = checked.prefix();
    Ok(match block {
        Block::Bdi => bdi::harnesses(&prefix, &checked.codec_layout()?),
        Block::Mrf => {
            let mut h = arbiter::harnesses(&prefix, design, depth);
            h.extend(collector::harnesses(&prefix, checked, depth));
            h.extend(reg_map::harnesses(&prefix, &checked.geometry, design));
            if let Some(r) = &checked.rfc {
                let banks_may_refuse = checked.compression.is_some();
                h.extend(rfc::harnesses(&prefix, &checked.geometry, r, banks_may_refuse, depth));
            }
            h
        }
        Block::Scoreboard => scoreboard::harnesses(&prefix, &checked.geometry, depth),
        Block::Rename => rename::harnesses(&prefix, &rename_layout(checked), depth),
        _ => Vec::new(),
    })
}

fn rename_layout(checked: &Checked) -> crate::layout::rename::RenameLayout {
    crate::layout::rename::RenameLayout::new(&checked.geometry, &checked.config.rename, &checked.config.timing)
}

/// What holds in every state a module of `checked`'s designs reaches from reset, as (module,
/// Verilog boolean expressions over the module's own names): `rfgen mutate` proves them along
/// with a surviving mutant's edit (docs/mutate.md). The collector's, the register file cache's
/// and the rename stage's free lists' are expressions their harnesses assert; the MRF top's are
/// proved only there, with the edit (no harness holds the whole MRF yet).
pub fn invariants(checked: &Checked) -> Vec<(String, Vec<String>)> {
    let own = |state: &str| state.to_string();
    let mut held = collector::invariants(own);
    held.extend(collector::group_copies(checked));
    let mut all = vec![(format!("{}_operand_collector", checked.prefix()), held)];
    let top = mrf::invariants(checked);
    if !top.is_empty() {
        all.push((format!("{}_mrf", checked.prefix()), top));
    }
    if let Some(r) = &checked.rfc {
        let rank_bits = crate::layout::geometry::index_bits(r.entries);
        let rfc = crate::blocks::mrf::rfc::invariants::invariants(r.slots, r.entries, rank_bits, r.slot_bits(), &own);
        all.push((format!("{}_rfc", checked.prefix()), rfc));
    }
    if checked.config.rename.enabled {
        all.extend(rename::invariants(&checked.prefix(), &rename_layout(checked)));
    }
    all
}

/// The modules of `checked`'s designs that hold memory leaves, each with its register of one-hot
/// reads issued to them this cycle (the leaves' read enable is its OR): a reader takes a leaf's
/// read registers only the cycles after those reads, which `rfgen mutate` observes them in.
pub fn issued_reads(checked: &Checked) -> Vec<(String, String)> {
    mrf::issued_reads(checked).into_iter().collect()
}

/// The modules of `checked`'s designs that no read of a memory leaf passes through, which
/// `rfgen mutate` cuts out where it observes those reads.
pub fn beside_reads(checked: &Checked) -> Vec<String> {
    mrf::beside_reads(checked)
}

/// Common head of every wrapper: a formal-only module with a clock and nothing else, every input
/// of the design under test driven from inside.
fn module_head(name: &str, about: &str) -> String {
    format!(
        "// {about}\n// Formal harness generated by rfgen; read with `read_verilog -formal`.\nmodule {name} (\n  input wire clk\n);\n"
    )
}

/// The design under test as `dut`, reset at step 0 and whenever the free `rst_any` says, every
/// other input free in every cycle and every output on a wire of its own name (`conns` connects
/// each port to its name).
fn free_running<T: Ports<Port>>(dut: &Submodule<T>, conns: &T::Of<Sig>) -> String {
    let mut b =
        String::from("  reg init = 1'b1;\n  always @(posedge clk) init <= 1'b0;\n  (* anyseq *) wire rst_any;\n");
    b += "  wire rst = init | rst_any;\n";
    for p in dut.ports.declared() {
        if p.name == "clk" || p.name == "rst" {
            continue;
        }
        let range = if p.width > 1 { format!(" [{}:0]", p.width - 1) } else { String::new() };
        let free = if p.dir == Dir::Input { "(* anyseq *) " } else { "" };
        b += &format!("  {free}wire{range} {};\n", p.name);
    }
    b + &dut.instance("dut", conns)
}

/// A step counter from 0 (its initial value) that stops at its largest value: the harness's
/// time, so assertions can name the step a transaction reaches each point.
fn step_counter(bits: u32) -> String {
    let max = (1u64 << bits) - 1;
    format!(
        "  reg [{h}:0] t = {bits}'d0;\n  always @(posedge clk) if (t != {bits}'d{max}) t <= t + {bits}'d1;\n",
        h = bits - 1
    )
}

/// The identifiers of a Verilog expression, without the base and digits of a sized constant
/// (`3'd2`).
pub fn identifiers(expression: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut start = None;
    let bytes = expression.as_bytes();
    for (i, &c) in bytes.iter().chain([b' '].iter()).enumerate() {
        let part = c.is_ascii_alphanumeric() || c == b'_';
        match (start, part) {
            (None, true) if !c.is_ascii_digit() && (i == 0 || bytes[i - 1] != b'\'') => start = Some(i),
            (None, true) => start = Some(usize::MAX),
            (Some(s), false) => {
                if s != usize::MAX {
                    found.push(&expression[s..i]);
                }
                start = None;
            }
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{PRESETS, preset};
    use crate::emit::SramKind;

    /// The register file cache is cut out where `rfgen mutate` observes the bank leaves' reads
    /// of the `small` MRF with one, whose reads the MRF top's invariants now cover, and so is an
    /// ORF/LRF; an MRF without either has nothing beside its reads.
    #[test]
    fn a_register_file_cache_or_an_orf_is_beside_the_reads_of_an_mrf_that_has_one() {
        let small = preset("small").unwrap();
        assert!(beside_reads(&small).is_empty());
        let text = PRESETS.iter().find(|(n, _)| *n == "small").map(|(_, t)| *t).unwrap();
        let cached = crate::config::parse(&format!("{text}\n[rfc]\nenabled = true\n")).unwrap();
        assert_eq!(beside_reads(&cached), ["small_rfc"]);
        assert!(!issued_reads(&cached).is_empty(), "its bank groups' reads are observed as without a cache");
        assert!(invariants(&cached).iter().any(|(m, h)| m == "small_mrf" && !h.is_empty()));
        // An ORF/LRF fills its entries from a collector's value, after the read: beside too.
        let orf = "\n[scheduler]\npolicy = \"two_level\"\nactive_warps = 4\n[orf]\nenabled = true\nentries = 3\nlrf = \"split\"\n";
        let upper = crate::config::parse(&format!("{text}{orf}")).unwrap();
        assert_eq!(beside_reads(&upper), ["small_orf"]);
        assert!(invariants(&upper).iter().any(|(m, h)| m == "small_mrf" && !h.is_empty()));
    }

    /// A name no net of its module declares would leave `rfgen mutate`'s check unbuilt, and the
    /// invariants unused without a word: each is declared (a port, wire or register) in its
    /// module of every preset, and `small` has the MRF top's and the collector's one-hot copy's.
    #[test]
    fn every_name_an_invariant_reads_is_a_net_of_its_module() {
        for (name, _) in PRESETS {
            let checked = preset(name).unwrap();
            let mut design = Block::Mrf.generate(&checked, SramKind::Behavioural).unwrap();
            if checked.config.rename.enabled {
                design.files.extend(Block::Rename.generate(&checked, SramKind::Behavioural).unwrap().files);
            }
            let all = invariants(&checked);
            for (module, holds) in &all {
                let file = format!("{module}.v");
                let Some((_, text)) = design.files.iter().find(|(f, _)| *f == file) else { continue };
                let declared: Vec<&str> = text
                    .lines()
                    .map(|l| l.split("//").next().unwrap().trim())
                    .filter(|l| ["wire ", "reg ", "input ", "output "].iter().any(|k| l.starts_with(k)))
                    .filter_map(|l| l.trim_end_matches([',', ';']).split_whitespace().last())
                    .collect();
                for h in holds {
                    for n in identifiers(h) {
                        assert!(declared.contains(&n), "{name}: `{n}` of `{h}` is not a net of {file}");
                    }
                }
            }
            if *name == "tfet-hybrid" {
                let lists = all.iter().filter(|(m, _)| m.contains("_free_list_")).count();
                assert_eq!(lists, 2, "the CMOS and TFET free lists of tfet-hybrid have invariants");
            }
            if *name == "small" {
                let held = |m: &str| all.iter().find(|(n, _)| n == m).map_or(0, |(_, h)| h.len());
                assert!(held("small_mrf") > 0, "the small MRF top has no invariants");
                assert!(held("small_operand_collector") > collector::invariants(|s| s.to_string()).len());
            }
        }
    }

    /// The cache's property has a harness of its bookkeeping, which asserts it and reads no
    /// values, and one per lane, which assumes it and reads that lane's 32 bits of the cache's
    /// values and nothing of the others'.
    #[test]
    fn the_cache_has_a_bookkeeping_harness_and_one_per_lane_reading_its_own_bits() {
        let text = PRESETS.iter().find(|(n, _)| *n == "small").map(|(_, t)| *t).unwrap();
        let cached = crate::config::parse(&format!("{text}\n[rfc]\nenabled = true\n")).unwrap();
        let design = Block::Mrf.generate(&cached, SramKind::Behavioural).unwrap();
        let parts: Vec<Harness> = harnesses(&cached, Block::Mrf, &design, 5)
            .unwrap()
            .into_iter()
            .filter(|h| h.property == RFC_WRITEBACK)
            .collect();
        let (bookkeeping, lanes) = parts.split_first().unwrap();
        assert_eq!(bookkeeping.part, "bookkeeping");
        assert!(bookkeeping.probes.iter().all(|p| p.bits.is_none()), "the bookkeeping reads no lane's values");
        let invariant = "if (!p_owner_valid[0]) ";
        assert!(bookkeeping.text.contains(&format!("{invariant}assert(")));
        assert_eq!(lanes.len() as u32, cached.geometry.lanes);
        for (l, h) in lanes.iter().enumerate() {
            assert_eq!(h.part, format!("lane {l}"));
            assert!(h.text.contains(&format!("{invariant}assume(")), "lane {l} does not assume the bookkeeping");
            assert!(!h.text.contains(&format!("{invariant}assert(")), "lane {l} proves the bookkeeping again");
            let sliced: Vec<_> = h.probes.iter().filter_map(|p| p.bits).collect();
            assert!(!sliced.is_empty(), "lane {l} reads no values");
            assert!(sliced.iter().all(|&b| b == (32 * l as u32 + 31, 32 * l as u32)), "lane {l}: {sliced:?}");
        }
    }

    #[test]
    fn identifiers_leave_out_constants() {
        assert_eq!(
            identifiers("(flush_busy && flush_slot == 3'd2) || !valid[12] || rank12 == 3'b1"),
            vec!["flush_busy", "flush_slot", "valid", "rank12"]
        );
    }
}
