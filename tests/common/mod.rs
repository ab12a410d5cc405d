//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod fuzz;
pub mod kernels;
pub mod mutants;
pub mod slurm;

use rfgen_cosim::session::{Event, load};
use rfgen_cosim::verilator::{RtlLib, TraceKind};
use rfgen_gen::{Checked, Design};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Arc;

/// The workspace's root folder.
pub fn root() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every committed PTX workload (`workloads/*.ptx`), by name, in name order.
pub fn workload_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("workloads"))
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".ptx").map(str::to_string))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no workloads/*.ptx");
    names
}

/// Verilator build cache shared by every test binary of this workspace.
pub fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rfgen-cache")
}

/// The temporary folder of the rfgen runs the tests start: what a run keeps there on purpose
/// (a failed proof's counterexamples) stays under the build folder, not in the machine's.
pub fn scratch_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rfgen-runs");
    std::fs::create_dir_all(&dir).expect("the tests' scratch folder");
    dir
}

pub fn rfgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rfgen"))
        .args(args)
        .env("RFGEN_CACHE_DIR", cache_dir())
        .env("TMPDIR", scratch_dir())
        .output()
        .expect("rfgen runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Small configurations covering the corners of the geometry: one cluster, one bank per
/// cluster, non-power-of-two warps and collectors, 64 lanes (two-word masks).
pub const SMALL: &[(&str, &str)] = &[
    (
        "tiny",
        "name = \"tiny\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 1\nregisters_per_thread = 4\n[mrf]\nbanks = 2\nentries = 4\ncollectors = 1\ntag_bits = 1\n",
    ),
    (
        "small",
        "name = \"small\"\n[sm]\nwarps = 4\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 4\nentries = 16\ncollectors = 2\ntag_bits = 4\n",
    ),
    (
        "odd",
        "name = \"odd\"\n[sm]\nwarps = 6\nlanes = 16\nclusters = 4\nregisters_per_thread = 8\n[mrf]\nbanks = 16\nentries = 16\ncollectors = 3\ntag_bits = 3\n",
    ),
    (
        "onebank",
        "name = \"onebank\"\n[sm]\nwarps = 3\nlanes = 2\nclusters = 2\nregisters_per_thread = 2\n[mrf]\nbanks = 2\nentries = 8\ncollectors = 2\n",
    ),
    (
        "wide",
        "name = \"wide\"\n[sm]\nwarps = 4\nlanes = 64\nclusters = 8\nregisters_per_thread = 4\n[mrf]\nbanks = 16\nentries = 8\ncollectors = 2\n",
    ),
];

pub fn small(name: &str) -> Checked {
    let (_, text) = SMALL.iter().find(|(n, _)| *n == name).expect("a small config of that name");
    rfgen_gen::config::parse(text).expect("small configs are valid")
}

pub fn baseline() -> Checked {
    rfgen_gen::config::preset("baseline").unwrap()
}

/// A random or scripted lockstep run of an MRF model against `lib`.
pub fn mrf_run<S: rfgen_cosim::glue::Stimulus<rfgen_model::blocks::mrf::Mrf>>(
    lib: &Arc<RtlLib>,
    model: rfgen_model::blocks::mrf::Mrf,
    stimulus: &mut S,
    cycles: u64,
    x_seed: u32,
) -> rfgen_cosim::random::RunResult<rfgen_model::blocks::mrf::Mrf> {
    let idle = rfgen_model::blocks::mrf::MrfIn::new(model.geometry());
    let opts = rfgen_cosim::random::RunOptions { cycles, x_seed, waveform: None };
    rfgen_cosim::random::run(lib, model, stimulus, idle, &opts, &mut |_| {}).expect("the glue decides every port")
}

pub fn build(design: &Design) -> Arc<RtlLib> {
    load(design, TraceKind::None, &cache_dir(), &mut |_: Event| {}).expect("the Verilator build succeeds")
}

/// A random lockstep run of `design` against block `B`'s model of `checked`, stimulus from
/// `seed`: the first mismatch, and the stimulus' counts.
pub fn random_lockstep<B: rfgen_cosim::glue::RandomBlock>(
    checked: &Checked,
    design: &Design,
    cycles: u64,
    seed: u64,
    x_seed: u32,
) -> (Option<rfgen_cosim::lockstep::Mismatch>, Vec<(&'static str, u64)>) {
    let lib = build(design);
    let model = B::model(checked).expect("the config has the block");
    let mut stimulus = B::stimulus(checked, seed);
    let idle = model.idle();
    let opts = rfgen_cosim::random::RunOptions { cycles, x_seed, waveform: None };
    let r = rfgen_cosim::random::run(&lib, model, &mut stimulus, idle, &opts, &mut |_| {})
        .expect("the glue decides every port");
    let stats = r.block.model().summary(&stimulus);
    (r.mismatch, stats)
}

/// Options of a kernel-driven cosim of `block`.
pub fn kernel_options(block: rfgen_gen::Block) -> rfgen_cosim::session::CosimOptions {
    rfgen_cosim::session::CosimOptions {
        block,
        cycles: 5_000_000,
        seed: 0,
        x_seed: 1,
        trace: None,
        fail_wave_dir: None,
        cache: cache_dir(),
    }
}

/// `design` with `from` replaced by `to` in its file `file` (a seeded bug named `name`).
pub fn mutated(mut design: Design, file: &str, from: &str, to: &str, name: &str) -> Design {
    let (_, text) = design.files.iter_mut().find(|(n, _)| n == file).expect("the design has the file");
    assert!(text.contains(from), "mutation `{name}` does not apply:\n{text}");
    *text = text.replace(from, to);
    design
}

/// Small configurations with BDI compression, covering: all seven modes, three modes needing one
/// bank each (tie-breaks), 64 lanes, a single bank group, latencies and wake-up times other
/// than the defaults, and a gating delay (conegroup).
pub const COMPRESSED: &[(&str, &str)] = &[
    (
        "ctiny",
        "name = \"ctiny\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 2\nregisters_per_thread = 4\n[mrf]\nbanks = 4\nentries = 4\ncollectors = 1\ntag_bits = 1\n[compression]\nenabled = true\nmodes = [\"8,0\", \"4,1\", \"4,0\"]\ncompress_latency = 1\nwakeup_cycles = 0\n",
    ),
    (
        "csmall",
        "name = \"csmall\"\n[sm]\nwarps = 4\nlanes = 8\nclusters = 4\nregisters_per_thread = 8\n[mrf]\nbanks = 8\nentries = 16\ncollectors = 2\ntag_bits = 4\n[compression]\nenabled = true\nmodes = [\"4,0\", \"4,1\", \"4,2\", \"8,0\", \"8,1\", \"8,2\", \"8,4\"]\nwakeup_cycles = 3\n",
    ),
    (
        "cwide",
        "name = \"cwide\"\n[sm]\nwarps = 4\nlanes = 64\nclusters = 8\nregisters_per_thread = 4\n[mrf]\nbanks = 16\nentries = 8\ncollectors = 2\n[compression]\nenabled = true\ncompress_latency = 3\ndecompress_latency = 2\nwakeup_cycles = 1\n",
    ),
    (
        "conegroup",
        "name = \"conegroup\"\n[sm]\nwarps = 3\nlanes = 16\nclusters = 4\nregisters_per_thread = 2\n[mrf]\nbanks = 4\nentries = 8\ncollectors = 3\n[compression]\nenabled = true\nmodes = [\"4,2\", \"4,1\"]\ncompress_latency = 1\ndecompress_latency = 2\nwakeup_cycles = 2\ngate_delay = 3\n",
    ),
];

pub fn compressed(name: &str) -> Checked {
    let (_, text) = COMPRESSED.iter().find(|(n, _)| *n == name).expect("a compressed config of that name");
    rfgen_gen::config::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Small configurations with a register file cache, covering: one entry and one collector,
/// LRU and FIFO, liveness on and off, two-level slots fewer than warps, a warp count that is
/// not a power of two, 64 lanes, and in front of a compressed MRF (one entry, one-stage
/// compressor; LRU, two-stage compressor, slow wake-up).
pub const CACHED: &[(&str, &str)] = &[
    (
        "rtiny",
        "name = \"rtiny\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 1\nregisters_per_thread = 4\n[mrf]\nbanks = 2\nentries = 4\ncollectors = 1\ntag_bits = 1\n[rfc]\nenabled = true\nentries = 1\n",
    ),
    (
        "rsmall",
        "name = \"rsmall\"\n[sm]\nwarps = 4\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 4\nentries = 16\ncollectors = 2\ntag_bits = 4\n[scheduler]\npolicy = \"two_level\"\nactive_warps = 2\n[rfc]\nenabled = true\nentries = 3\nreplacement = \"lru\"\n",
    ),
    (
        "rodd",
        "name = \"rodd\"\n[sm]\nwarps = 6\nlanes = 16\nclusters = 4\nregisters_per_thread = 8\n[mrf]\nbanks = 16\nentries = 16\ncollectors = 3\ntag_bits = 3\n[scheduler]\npolicy = \"two_level\"\nactive_warps = 3\n[rfc]\nenabled = true\nentries = 5\nliveness = false\n",
    ),
    (
        "rwide",
        "name = \"rwide\"\n[sm]\nwarps = 4\nlanes = 64\nclusters = 8\nregisters_per_thread = 4\n[mrf]\nbanks = 16\nentries = 8\ncollectors = 2\n[scheduler]\npolicy = \"lrr\"\n[rfc]\nenabled = true\nentries = 2\nreplacement = \"lru\"\n",
    ),
    (
        "rctiny",
        "name = \"rctiny\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 2\nregisters_per_thread = 4\n[mrf]\nbanks = 4\nentries = 4\ncollectors = 1\ntag_bits = 1\n[compression]\nenabled = true\nmodes = [\"8,0\", \"4,1\", \"4,0\"]\ncompress_latency = 1\nwakeup_cycles = 0\n[rfc]\nenabled = true\nentries = 1\n",
    ),
    (
        "rcsmall",
        "name = \"rcsmall\"\n[sm]\nwarps = 4\nlanes = 8\nclusters = 4\nregisters_per_thread = 8\n[mrf]\nbanks = 8\nentries = 16\ncollectors = 2\ntag_bits = 4\n[compression]\nenabled = true\nmodes = [\"4,0\", \"4,1\", \"4,2\", \"8,0\", \"8,1\", \"8,2\", \"8,4\"]\nwakeup_cycles = 3\n[scheduler]\npolicy = \"two_level\"\nactive_warps = 2\n[rfc]\nenabled = true\nentries = 3\nreplacement = \"lru\"\n",
    ),
];

pub fn cached(name: &str) -> Checked {
    let (_, text) = CACHED.iter().find(|(n, _)| *n == name).expect("a cached config of that name");
    rfgen_gen::config::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Small configurations with an ORF/LRF: one ORF entry and a unified LRF on the smallest SM;
/// three entries, a split LRF, 6 warps (not a power of two) and the two-level scheduler; eight
/// entries and no LRF over 64 lanes.
pub const UPPER: &[(&str, &str)] = &[
    (
        "otiny",
        "name = \"otiny\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 1\nregisters_per_thread = 4\n[mrf]\nbanks = 2\nentries = 4\ncollectors = 1\ntag_bits = 1\n[orf]\nenabled = true\nentries = 1\nlrf = \"unified\"\n",
    ),
    (
        "osmall",
        "name = \"osmall\"\n[sm]\nwarps = 6\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 4\nentries = 32\ncollectors = 3\ntag_bits = 3\n[scheduler]\npolicy = \"two_level\"\nactive_warps = 3\n[orf]\nenabled = true\nentries = 3\nlrf = \"split\"\n",
    ),
    (
        "owide",
        "name = \"owide\"\n[sm]\nwarps = 4\nlanes = 64\nclusters = 8\nregisters_per_thread = 4\n[mrf]\nbanks = 16\nentries = 8\ncollectors = 2\n[orf]\nenabled = true\nentries = 8\nlrf = \"none\"\n",
    ),
];

pub fn upper(name: &str) -> Checked {
    let (_, text) = UPPER.iter().find(|(n, _)| *n == name).expect("an ORF config of that name");
    rfgen_gen::config::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The paper's register file cache (preset `isca11-rfc`).
pub fn isca11_rfc() -> Checked {
    rfgen_gen::config::preset("isca11-rfc").unwrap()
}

/// The paper's compressed SM (preset `isca15-bdi`).
pub fn isca15_bdi() -> Checked {
    rfgen_gen::config::preset("isca15-bdi").unwrap()
}

/// Register values for proptest: kernel-shaped (equal lanes, ramps of any stride, narrow noise,
/// values at the edges of each delta width, negative deltas, bases near the 2^32 wrap) and
/// uniform. Shrinks toward simpler patterns and smaller numbers.
pub fn pattern() -> impl proptest::strategy::Strategy<Value = rfgen_cosim::blocks::bdi::Pattern> {
    use proptest::prelude::*;
    use rfgen_cosim::blocks::bdi::Pattern;
    let base = prop_oneof![
        0u32..64,
        (0u32..64).prop_map(|d| 0u32.wrapping_sub(d)),
        (0u32..64).prop_map(|d| 0x8000_0000u32.wrapping_sub(d)),
        any::<u32>(),
    ];
    let stride = prop_oneof![0u32..9, (1u32..9).prop_map(u32::wrapping_neg), any::<u32>()];
    prop_oneof![
        2 => base.clone().prop_map(Pattern::Equal),
        3 => (base.clone(), stride).prop_map(|(base, stride)| Pattern::Ramp { base, stride }),
        1 => (any::<u64>(), any::<u64>(), 0u32..64)
            .prop_map(|(base, stride, shift)| Pattern::Ramp64 { base, stride: stride >> shift }),
        2 => (base.clone(), 1u32..=17, any::<u64>()).prop_map(|(base, bits, seed)| Pattern::Noise { base, bits, seed }),
        3 => (base, prop::sample::select(vec![7u32, 15, 31]), any::<bool>(), proptest::option::of(1u32..32), any::<u64>(), any::<u32>())
            .prop_map(|(low, k, wide, outside, seed, high)| Pattern::Boundary {
                base: low as u64 | (high as u64) << 32,
                k,
                wide,
                outside,
                seed,
            }),
        2 => any::<u64>().prop_map(Pattern::Uniform),
    ]
}

/// Small configurations with register renaming (physical ids on the MRF's ports): rows 10..15 of
/// 16 TFET (mixed); every row TFET with one bank per cluster (a single bank group, 3 warps, two
/// lanes per cluster); every row CMOS (no TFET timing at all) with 6 warps and 3 collectors.
pub const RENAMED: &[(&str, &str)] = &[
    (
        "tmixed",
        "name = \"tmixed\"\n[sm]\nwarps = 4\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 4\nentries = 16\ncollectors = 2\ntag_bits = 4\n[rename]\nenabled = true\ncmos_rows = 10\n",
    ),
    (
        "tallt",
        "name = \"tallt\"\n[sm]\nwarps = 3\nlanes = 4\nclusters = 2\nregisters_per_thread = 2\n[mrf]\nbanks = 2\nentries = 8\ncollectors = 2\ntag_bits = 2\n[rename]\nenabled = true\ncmos_rows = 0\n",
    ),
    (
        "tallc",
        "name = \"tallc\"\n[sm]\nwarps = 6\nlanes = 16\nclusters = 4\nregisters_per_thread = 8\n[mrf]\nbanks = 16\nentries = 16\ncollectors = 3\ntag_bits = 3\n[rename]\nenabled = true\ncmos_rows = 16\n",
    ),
];

pub fn renamed(name: &str) -> Checked {
    let (_, text) = RENAMED.iter().find(|(n, _)| *n == name).expect("a renamed config of that name");
    rfgen_gen::config::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The issue stage's small SM (6 warps, 3 active, 4 banks, 3 collectors) with a scheduler and a
/// warpboard.
pub const ISSUE_SMALL: &str = "name = \"ismall\"\n[sm]\nwarps = 6\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 4\nentries = 64\ncollectors = 3\ntag_bits = 2\n[scheduler]\nactive_warps = 3\n";

pub fn issue_small(scheduler: rfgen_gen::config::SchedulerPolicy, warpboard: rfgen_gen::config::WarPolicy) -> Checked {
    let mut c = rfgen_gen::config::parse(ISSUE_SMALL).unwrap();
    c.config.scheduler.policy = scheduler;
    c.config.warpboard.policy = warpboard;
    c
}

/// The scheduler's small SM: 6 warps, 3 active (two-level), one bank group.
pub const SCHEDULER_SMALL: &str = "name = \"ssmall\"\n[sm]\nwarps = 6\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 2\nentries = 64\ncollectors = 3\ntag_bits = 2\n[scheduler]\nactive_warps = 3\n";

/// The scoreboard's small SM.
pub const SCOREBOARD_SMALL: &str = "name = \"ssmall\"\n[sm]\nwarps = 6\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 2\nentries = 64\ncollectors = 3\ntag_bits = 2\n";

/// A small SM with one bank group and 3 collectors (bloomN counts to 9).
pub const WARPBOARD_SMALL: &str = "name = \"wsmall\"\n[sm]\nwarps = 6\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 2\nentries = 64\ncollectors = 3\ntag_bits = 2\n";

/// Small rename stages: mixed CMOS/TFET, all TFET, all CMOS.
pub const RENAME_SMALL: &[(&str, &str)] = &[
    (
        "nsmall",
        "name = \"nsmall\"\n[sm]\nwarps = 6\nlanes = 4\nclusters = 1\nregisters_per_thread = 8\n[mrf]\nbanks = 2\nentries = 32\ncollectors = 2\n[rename]\nenabled = true\ncmos_rows = 24\n",
    ),
    (
        "ntfet",
        "name = \"ntfet\"\n[sm]\nwarps = 4\nlanes = 4\nclusters = 1\nregisters_per_thread = 8\n[mrf]\nbanks = 2\nentries = 16\ncollectors = 2\n[rename]\ncmos_rows = 0\nthr_acc = 0\nref_acc = 1\n",
    ),
    (
        "ncmos",
        "name = \"ncmos\"\n[sm]\nwarps = 4\nlanes = 4\nclusters = 1\nregisters_per_thread = 8\n[mrf]\nbanks = 2\nentries = 16\ncollectors = 2\n[rename]\ncmos_rows = 16\nref_acc = 1024\n",
    ),
];

pub fn rename_small(name: &str) -> Checked {
    let (_, text) = RENAME_SMALL.iter().find(|(n, _)| *n == name).expect("a rename config of that name");
    rfgen_gen::config::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// 6 warps of up to 8 registers in 2 bank groups of 16 rows (24 needed): 4 to 6 warps resident.
pub const OCCUPANCY_PLAIN: &str = "name = \"lsmall\"\n[sm]\nwarps = 6\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n\
                     [mrf]\nbanks = 4\nentries = 16\ncollectors = 2\ntag_bits = 3\n";
