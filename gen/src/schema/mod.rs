//! The configuration as written: one typed struct per TOML section, with the paper-baseline defaults
//! (SPEC §0). These `Default` impls are the only place the defaults live; `docs/config.md`
//! describes every field.

pub mod error;

pub use error::ConfigError;

use serde::de::{DeserializeOwned, Error, IntoDeserializer};
use serde::{Deserialize, Deserializer, Serialize};

/// An enum field: a string naming the variant. A table such as `{ fifo = {} }`, which serde
/// would also take for a variant, is refused, and a value of the wrong type names the allowed
/// strings.
fn variant<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<T, D::Error> {
    let from =
        |name: &str| T::deserialize(name.into_deserializer()).map_err(|e: serde::de::value::Error| e.to_string());
    match toml::Value::deserialize(d)? {
        toml::Value::String(name) => from(&name).map_err(D::Error::custom),
        other => {
            // serde's message for an unknown name lists the known ones: "..., expected `a` or `b`".
            let known = from("").err().unwrap_or_default();
            let allowed = known.split_once("expected ").map_or("", |(_, a)| a).trim_start_matches("one of ");
            Err(D::Error::custom(format!("expected a string, found {} (allowed: {allowed})", other.type_str())))
        }
    }
}

/// A whole SM configuration, as written in TOML.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Design name: output folder `rtl-out/<name>/` and Verilog module prefix (`-` becomes `_`).
    pub name: String,
    pub sm: Sm,
    pub mrf: Mrf,
    pub scheduler: Scheduler,
    pub warpboard: Warpboard,
    pub rfc: Rfc,
    pub orf: Orf,
    pub compression: Compression,
    pub rename: Rename,
    pub latency: Latency,
    pub throughput: Throughput,
    pub memory: Memory,
    pub energy: Energy,
    /// Left out of the written config (and so of its hash) while every option is off: a
    /// config without pipeline-stage options is the same hardware it always was.
    #[serde(skip_serializing_if = "Timing::is_default")]
    pub timing: Timing,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            name: "baseline".into(),
            sm: Sm::default(),
            mrf: Mrf::default(),
            scheduler: Scheduler::default(),
            warpboard: Warpboard::default(),
            rfc: Rfc::default(),
            orf: Orf::default(),
            compression: Compression::default(),
            rename: Rename::default(),
            latency: Latency::default(),
            throughput: Throughput::default(),
            memory: Memory::default(),
            energy: Energy::default(),
            timing: Timing::default(),
        }
    }
}

/// Pipeline-stage options (docs/config.md `[timing]`): each adds a register on a measured
/// critical path and trades a cycle of latency for clock rate. All off by default (the papers'
/// timing).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Timing {
    /// The MRF's bank grant is registered before the banks' read address: a bank read is issued
    /// the cycle after its slot wins arbitration (an operand arrives a cycle later).
    pub mrf_registered_grant: bool,
    /// With `mrf_registered_grant`: the granted slot's row is registered beside the banks as
    /// their read address, so a bank read is issued two cycles after its slot wins arbitration
    /// (an operand arrives a cycle later still).
    pub mrf_registered_address: bool,
    /// The MRF's bank read data is registered in its bank group before the collectors' operand
    /// multiplexers (an operand arrives a cycle later).
    pub mrf_registered_read: bool,
    /// The MRF's dispatch arbiter chooses the collector to offer a cycle ahead, into a register
    /// that drives the dispatch outputs (an instruction is offered a cycle later).
    pub mrf_registered_dispatch: bool,
    /// The BDI compressor's first stage is split in two: the differences from the base are
    /// registered before their fit check (the compressor takes a cycle more).
    pub bdi_split_compressor: bool,
    /// The BDI compressor registers whether each difference fits each mode before reducing
    /// those to the modes' fit flags (the compressor takes a cycle more).
    pub bdi_registered_fit: bool,
    /// The BDI decompressor registers each value's delta, selected by the range indicator,
    /// before adding the base (the decompressor takes a cycle more).
    pub bdi_split_decompressor: bool,
    /// The issue stage computes which warps may issue a cycle ahead, from the state and
    /// descriptors of the cycle before, into a register the scheduler picks from: a release
    /// lets a warp issue a cycle later, and a warp does not issue in two cycles running.
    pub issue_registered_eligibility: bool,
    /// The issue stage registers the granted instruction's reservations (scoreboard, warpboard)
    /// and makes them at the next edge, so the pick and the reservations are not one path: the
    /// granted warp sits out a cycle more.
    pub issue_registered_reservation: bool,
    /// The rename stage registers a completing memory access's counted latency beyond
    /// `thr_acc`, then Eq. (1)'s prediction from it, and writes that at the edge after, so the
    /// counter's multiplexer, the subtraction, the multiply and the counters' update are not one
    /// path: the counter holds two cycles before the prediction lands.
    pub rename_registered_prediction: bool,
}

impl Timing {
    pub fn is_default(&self) -> bool {
        *self == Timing::default()
    }
}

/// The streaming multiprocessor's thread organisation (seed 000 §2.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Sm {
    /// Resident warp slots.
    pub warps: u32,
    /// SIMT lanes per warp (threads per warp).
    pub lanes: u32,
    /// Lane clusters; each cluster owns `mrf.banks / clusters` banks.
    pub clusters: u32,
    /// Architectural registers per thread.
    pub registers_per_thread: u32,
    /// SMs the model runs a kernel on, sharing global memory and the DRAM bandwidth (a model
    /// feature: the RTL is one SM's).
    pub count: u32,
}

impl Default for Sm {
    fn default() -> Self {
        Sm { warps: 32, lanes: 32, clusters: 8, registers_per_thread: 32, count: 1 }
    }
}

/// Bank port organisation. Only 1 read + 1 write port per bank is generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BankPorts {
    #[serde(rename = "1r1w")]
    R1W1,
}

/// The banked main register file and its operand collectors (SPEC §0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Mrf {
    /// Total banks in the SM (all clusters); each bank entry holds one register of the cluster's lanes.
    pub banks: u32,
    /// Entries (rows) per bank.
    pub entries: u32,
    /// Bank ports.
    #[serde(deserialize_with = "variant")]
    pub ports: BankPorts,
    /// Operand collector units (each with 3 source-operand slots).
    pub collectors: u32,
    /// Width of the opaque instruction tag carried from issue to dispatch.
    pub tag_bits: u32,
}

impl Default for Mrf {
    fn default() -> Self {
        Mrf { banks: 32, entries: 256, ports: BankPorts::R1W1, collectors: 4, tag_bits: 8 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerPolicy {
    /// Loose round-robin.
    Lrr,
    /// Greedy-then-oldest.
    Gto,
    /// Two-level: greedy among `active_warps`, round-robin refill from the pending set.
    TwoLevel,
}

/// Warp scheduler (SPEC §1); used by the SM model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Scheduler {
    #[serde(deserialize_with = "variant")]
    pub policy: SchedulerPolicy,
    /// Size of the active set of the two-level scheduler.
    pub active_warps: u32,
}

impl Default for Scheduler {
    fn default() -> Self {
        Scheduler { policy: SchedulerPolicy::Gto, active_warps: 8 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarPolicy {
    /// No WAR protection (GPGPU-Sim 3.2.2); the model counts the wrong operands.
    None,
    ReleaseOnCommit,
    ReleaseOnRead,
    Bloom1,
    Bloom2,
    BloomUnbounded,
}

/// WAR-hazard warpboard (SPEC §1, seed 002).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Warpboard {
    #[serde(deserialize_with = "variant")]
    pub policy: WarPolicy,
}

impl Default for Warpboard {
    fn default() -> Self {
        Warpboard { policy: WarPolicy::None }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Replacement {
    Fifo,
    Lru,
}

/// Hardware register file cache (SPEC §2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Rfc {
    pub enabled: bool,
    /// Entries per active warp.
    pub entries: u32,
    #[serde(deserialize_with = "variant")]
    pub replacement: Replacement,
    /// Use the compiler's last-read bits to mark entries dead.
    pub liveness: bool,
}

impl Default for Rfc {
    fn default() -> Self {
        Rfc { enabled: false, entries: 6, replacement: Replacement::Fifo, liveness: true }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LrfKind {
    None,
    Unified,
    Split,
}

/// Software-managed operand register file and last result file (SPEC §3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Orf {
    pub enabled: bool,
    /// ORF entries per thread.
    pub entries: u32,
    #[serde(deserialize_with = "variant")]
    pub lrf: LrfKind,
}

impl Default for Orf {
    fn default() -> Self {
        Orf { enabled: false, entries: 3, lrf: LrfKind::Split }
    }
}

/// BDI register compression (SPEC §4, seed 004).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Compression {
    pub enabled: bool,
    /// `<base bytes, delta bytes>` modes, written "4,0".
    pub modes: Vec<String>,
    pub compress_latency: u32,
    pub decompress_latency: u32,
    pub compressors: u32,
    pub decompressors: u32,
    /// Cycles for a power-gated bank to wake up.
    pub wakeup_cycles: u32,
    /// Cycles a bank must hold no valid entry before it is gated (0: at once, seed 004 §5.3).
    pub gate_delay: u32,
}

impl Default for Compression {
    fn default() -> Self {
        Compression {
            enabled: false,
            modes: vec!["4,0".into(), "4,1".into(), "4,2".into()],
            compress_latency: 2,
            decompress_latency: 1,
            compressors: 2,
            decompressors: 4,
            wakeup_cycles: 10,
            gate_delay: 0,
        }
    }
}

/// Register renaming and the hybrid CMOS/TFET register file (SPEC §5, seed 003).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Rename {
    pub enabled: bool,
    /// Bank rows built in CMOS; the rest are TFET.
    pub cmos_rows: u32,
    /// MEM_RA threshold `thr_acc` (cycles).
    pub thr_acc: u32,
    /// MEM_RA reference `ref_acc` (cycles, power of two).
    pub ref_acc: u32,
    pub trws: bool,
    pub tuba: bool,
}

impl Default for Rename {
    fn default() -> Self {
        Rename { enabled: false, cmos_rows: 200, thr_acc: 10, ref_acc: 128, trws: false, tuba: false }
    }
}

/// Execution and memory latencies in cycles (seed 000 Table 4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Latency {
    pub alu: u32,
    pub sfu: u32,
    pub shared: u32,
    pub texture: u32,
    pub dram: u32,
}

impl Default for Latency {
    fn default() -> Self {
        Latency { alu: 8, sfu: 20, shared: 20, texture: 400, dram: 400 }
    }
}

/// Execution-unit throughputs in threads per cycle (seed 000 §4: full-width ALU, 8 SFU
/// operations and 4 texture instructions per cycle); a warp occupies a unit for
/// `lanes / throughput` cycles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Throughput {
    pub alu: u32,
    pub sfu: u32,
    pub texture: u32,
}

impl Default for Throughput {
    fn default() -> Self {
        Throughput { alu: 32, sfu: 8, texture: 4 }
    }
}

/// Memory bandwidths (seed 000 Table 4). Global accesses move whole segments (coalescing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Memory {
    pub shared_bytes_per_cycle: u32,
    pub dram_bytes_per_cycle: u32,
    /// Bytes of the memory transaction a warp's accesses are coalesced into.
    pub segment_bytes: u32,
}

impl Default for Memory {
    fn default() -> Self {
        Memory { shared_bytes_per_cycle: 32, dram_bytes_per_cycle: 32, segment_bytes: 128 }
    }
}

/// Energy per access (SPEC §6). Index `i` of the RFC/ORF tables is for `i + 1` entries per thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Energy {
    pub mrf_read_pj: f64,
    pub mrf_write_pj: f64,
    pub small_rf_read_pj: Vec<f64>,
    pub small_rf_write_pj: Vec<f64>,
    pub lrf_read_pj: f64,
    pub lrf_write_pj: f64,
    /// Wire energy per mm per 32 bit.
    pub wire_pj_per_mm: f64,
    pub mrf_wire_mm: f64,
    pub orf_private_wire_mm: f64,
    pub orf_shared_wire_mm: f64,
    pub lrf_wire_mm: f64,
    /// Register file cache to ALU distance (seed 000 §5.4: 0.2 mm beside a 1 mm MRF).
    pub rfc_wire_mm: f64,
    /// Seed 004 Table 3 (45 nm), for the compression report: 128-bit bank access, wire per mm
    /// per 128 bit, leakage per powered bank, compressor and decompressor activations, clock.
    pub bdi_bank_access_pj: f64,
    pub bdi_wire_pj_per_mm: f64,
    pub bank_leakage_mw: f64,
    pub compressor_pj: f64,
    pub decompressor_pj: f64,
    pub clock_ghz: f64,
    /// Hybrid CMOS/TFET register file (seed 003), on the CMOS figures above: a TFET bank
    /// access costs `tfet_access_ratio` of a CMOS one — CV² at the paper's 0.3 V TFET and 0.7 V
    /// CMOS supplies (§5) with cells of similar size (§4.1.2.1): (0.3 / 0.7)² — and a TFET row
    /// leaks `tfet_leakage_ratio` of a CMOS row (Fig. 2: TFET off-current orders of magnitude
    /// below CMOS; the paper gives no figure, 0.01 is ours).
    pub tfet_access_ratio: f64,
    pub tfet_leakage_ratio: f64,
}

impl Default for Energy {
    fn default() -> Self {
        Energy {
            mrf_read_pj: 8.0,
            mrf_write_pj: 11.0,
            small_rf_read_pj: vec![0.7, 1.2, 1.2, 1.9, 2.0, 2.0, 2.4, 3.4],
            small_rf_write_pj: vec![2.0, 3.8, 4.4, 6.1, 6.0, 6.7, 7.7, 10.9],
            lrf_read_pj: 0.7,
            lrf_write_pj: 2.0,
            wire_pj_per_mm: 1.9,
            mrf_wire_mm: 1.0,
            orf_private_wire_mm: 0.2,
            orf_shared_wire_mm: 0.4,
            lrf_wire_mm: 0.05,
            rfc_wire_mm: 0.2,
            bdi_bank_access_pj: 7.0,
            bdi_wire_pj_per_mm: 9.6,
            bank_leakage_mw: 5.8,
            compressor_pj: 23.0,
            decompressor_pj: 21.0,
            clock_ghz: 1.4,
            tfet_access_ratio: 0.184,
            tfet_leakage_ratio: 0.01,
        }
    }
}
