//! What a sweep measured at one point, stored as `points/<config hash>.json` so that a rerun
//! with the same settings skips the point. Files are written atomically.

use crate::synth::pnr::PnrSettings;
use crate::synth::{ModuleArea, SramModel, Target};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The measurement settings; a stored point counts as done only under equal settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub synth: Option<SynthSettings>,
    pub cosim: Option<CosimSettings>,
    #[serde(default)]
    pub sim: Vec<KernelSettings>,
}

/// A kernel run on the SM model of every point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelSettings {
    pub kernel: String,
    /// Content hash of the kernel's source, and the rfgen version whose model ran it.
    pub source: String,
    pub rfgen: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SynthSettings {
    /// rfgen's flow revision and the Yosys version.
    pub flow: String,
    pub target: Target,
    /// Content hash of the Liberty file.
    pub liberty: Option<String>,
    /// Only in the ASIC view, where memory leaves are costed by it.
    pub sram: Option<SramModel>,
    /// With `--pnr`: the clock the place and route aims at and nextpnr's router.
    #[serde(default)]
    pub pnr: Option<PnrSettings>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CosimSettings {
    pub block: rfgen_gen::Block,
    pub cycles: u64,
    pub seed: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub name: String,
    pub config_hash: String,
    pub settings: Settings,
    /// Area of every module of the design, each synthesized with what it instantiates, in
    /// manifest order: leaves first, the top last. Empty without `--synth`.
    pub modules: Vec<ModuleArea>,
    /// With `--pnr`: the top placed and routed.
    #[serde(default)]
    pub pnr: Option<crate::synth::Pnr>,
    pub cosim: Option<CosimOutcome>,
    /// One per kernel of the settings, in their order.
    #[serde(default)]
    pub sim: Vec<SimOutcome>,
}

/// A kernel on the SM model of a point: performance, MRF traffic, energy (SPEC §6) and, with a
/// register file cache, what it saves against the same point without it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimOutcome {
    pub kernel: String,
    /// Why the kernel did not run (it does not fit the point's SM); the figures are then 0.
    pub error: Option<String>,
    pub cycles: u64,
    pub ipc: f64,
    pub energy_pj: f64,
    pub mrf_reads: u64,
    pub mrf_writes: u64,
    pub rfc: Option<RfcOutcome>,
    pub orf: Option<OrfOutcome>,
    /// Absent in records written before renaming existed.
    #[serde(default)]
    pub rename: Option<RenameOutcome>,
}

/// With renaming: the energy saved by this point (seed 003's accounting) against the same point
/// all-CMOS (power-gated) and its slowdown, the same for all-TFET and CMOS_RA, and the share of
/// destinations given TFET.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RenameOutcome {
    pub tfet_share: f64,
    pub energy_reduction: f64,
    pub slowdown: f64,
    pub all_tfet_energy_reduction: f64,
    pub all_tfet_slowdown: f64,
    pub cmos_ra_energy_reduction: f64,
    pub cmos_ra_slowdown: f64,
}

/// With an ORF/LRF: MRF reads per warp instruction (Table 6.1's measure), and the register-file
/// energy against the same point without it and with the paper's hardware RFC instead.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrfOutcome {
    pub mrf_reads_per_instruction: f64,
    pub energy_ratio: f64,
    pub rfc_energy_ratio: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RfcOutcome {
    /// `1 - with / without`: the read reduction is also the share of operands the RFC delivered.
    pub read_reduction: f64,
    pub write_reduction: f64,
    pub energy_ratio: f64,
}

impl Record {
    /// Area of the top module.
    pub fn area(&self) -> Option<&ModuleArea> {
        self.modules.last()
    }

    /// A module's name without the point's prefix (`<name>_`): the same for every point.
    pub fn role<'a>(&self, module: &'a str) -> &'a str {
        let prefix = self.name.replace('-', "_");
        module.strip_prefix(prefix.as_str()).and_then(|m| m.strip_prefix('_')).unwrap_or(module)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CosimOutcome {
    pub cycles: u64,
    /// The mismatch report, when RTL and model disagree.
    pub mismatch: Option<String>,
}

/// A stored record, if there is a readable one.
pub fn load(path: &Path) -> Option<Record> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

pub fn save(path: &Path, record: &Record) -> anyhow::Result<()> {
    write_atomic(path, (serde_json::to_string_pretty(record)? + "\n").as_bytes())
}

/// Writes a sibling temporary file and renames it over `path`: readers see the old file or
/// the new one, never a part.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::Permissions::from_mode(0o644);
    let mut tmp = tempfile::Builder::new().prefix(".rfgen-").permissions(mode).tempfile_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(path).map_err(|e| anyhow::anyhow!("cannot write {}: {}", path.display(), e.error))?;
    Ok(())
}
