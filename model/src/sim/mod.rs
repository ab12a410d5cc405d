//! `rfgen sim`: runs a kernel on the SM model of a configuration and reports performance,
//! register-file traffic, operand-value statistics and energy, normalized to the `baseline`
//! preset running the same kernel.

pub mod allocation;
pub mod energy;
pub mod memo;

use crate::kernel::Kernel;
use crate::sm::gpu::Gpu;
use crate::sm::{SimError, SimStats, launch};
use energy::Energy;
use rfgen_gen::Checked;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SimReport {
    pub kernel: String,
    pub config: String,
    pub config_hash: String,
    pub scheduler: String,
    pub ipc: f64,
    /// The launch, when the kernel's own block did not fit the SM and it was scaled
    /// ([`crate::sm::launch`]); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch: Option<Launch>,
    pub stats: SimStats,
    pub energy: Energy,
    /// The same kernel on the `baseline` preset (absent when this is the baseline or the kernel
    /// does not fit it).
    pub baseline: Option<Baseline>,
    /// With a compressed MRF: seed 004's figures, against this config without compression.
    pub compression: Option<CompressionReport>,
    /// With a register file cache: seed 000's figures, against this config without it.
    pub rfc: Option<RfcReport>,
    /// With an ORF/LRF: seed 001 ch. 6's figures, against this config without it and with the
    /// paper's hardware RFC instead.
    pub orf: Option<OrfReport>,
    /// With register renaming: seed 003's figures, against the same SM all-CMOS, all-TFET and
    /// with CMOS-first allocation.
    pub rename: Option<RenameReport>,
    /// With pipeline-stage options on: what they cost, against this config with them off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<TimingReport>,
}

/// The cycles the `[timing]` options cost a kernel.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimingReport {
    /// The options on, by their field names.
    pub options: Vec<String>,
    /// The kernel's cycles with every option off.
    pub cycles_without: u64,
    /// Cycles with the options over cycles without, minus one.
    pub slowdown: f64,
}

/// An optional part of the SM, for [`without`].
#[derive(Clone, Copy)]
enum Part {
    Rfc,
    Orf,
    Compression,
    Rename,
}

/// `c` without `part`: the part's section as a config that leaves the part out has it (its
/// defaults, off), so every report's variant without the same part is one design with one hash,
/// and [`memo`] runs it once however many points ask (eight RFC sizes, one uncached SM).
fn without(c: &rfgen_gen::config::Config, part: Part) -> rfgen_gen::config::Config {
    let mut c = c.clone();
    match part {
        Part::Rfc => c.rfc = Default::default(),
        Part::Orf => c.orf = Default::default(),
        Part::Compression => c.compression = Default::default(),
        Part::Rename => c.rename = Default::default(),
    }
    c
}

/// The same kernel with every `[timing]` option off, when one that changes this SM is on (the
/// compressor's split only matters with compression).
fn timing_report(
    checked: &Checked,
    kernel: &Kernel,
    stats: &SimStats,
    max_cycles: u64,
) -> Result<Option<TimingReport>, SimError> {
    let timing = &checked.config.timing;
    let options = toml::Table::try_from(timing).expect("the timing section serializes as a table");
    let applies = |option: &str| option != "bdi_split_compressor" || checked.compression.is_some();
    let options: Vec<String> =
        options.into_iter().filter(|(k, v)| v.as_bool() == Some(true) && applies(k)).map(|(k, _)| k).collect();
    if options.is_empty() {
        return Ok(None);
    }
    let mut plain = checked.config.clone();
    plain.timing = Default::default();
    let plain = rfgen_gen::config::check(plain).expect("turning pipeline stages off keeps a config valid");
    let (without, _) = run(&plain, kernel, max_cycles, &mut |_| {})?;
    let slowdown = stats.cycles as f64 / without.cycles.max(1) as f64 - 1.0;
    Ok(Some(TimingReport { options, cycles_without: without.cycles, slowdown }))
}

/// Seed 003's measures of renaming with a hybrid CMOS/TFET register file, beside the paper's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RenameReport {
    /// Share of renamed destinations given a TFET register.
    pub tfet_share: f64,
    /// Issue cycles lost because no physical register was free.
    pub no_register_stalls: u64,
    pub energy: energy::Hybrid,
    pub terms: Vec<String>,
    /// The energy's assumptions the paper does not state or that are not its own: a TFET row's
    /// leakage against a CMOS row's (`energy.tfet_leakage_ratio`), and the clock leakage is
    /// counted at (`energy.clock_ghz`).
    pub tfet_leakage_ratio: f64,
    pub clock_ghz: f64,
    /// This config and the designs seed 003 compares it with, first the reference.
    pub designs: Vec<Design>,
}

/// One of seed 003 Fig. 9's designs on this kernel.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Design {
    pub name: String,
    /// How it differs from this config.
    pub config: String,
    pub cycles: u64,
    pub energy: energy::Hybrid,
    /// Against the all-CMOS design: `1 - energy / theirs`, `cycles / theirs - 1`.
    pub energy_reduction: f64,
    pub slowdown: f64,
    /// Seed 003 §6.1.1's averages (none for the reference).
    pub paper_energy_reduction: Option<f64>,
    pub paper_slowdown: Option<f64>,
}

/// Seed 003 §6.1.1 (Fig. 9), averaged over its benchmarks: energy saved against all-CMOS with
/// power gating, and slowdown. MEM_RA's slowdown is "similar" to CMOS_RA's, no figure given.
pub const PAPER_ALL_TFET: (f64, f64) = (0.86, 0.45);
pub const PAPER_CMOS_RA: (f64, f64) = (0.123, 0.023);
pub const PAPER_MEM_RA_ENERGY_REDUCTION: f64 = 0.34;
/// Seed 003's abstract and §6.3: MEM_RA with TUBA and TRWS, against the same baseline.
pub const PAPER_MEM_RA_TRWS_TUBA_ENERGY_REDUCTION: f64 = 0.40;

fn rename_report(
    checked: &Checked,
    kernel: &Kernel,
    stats: &SimStats,
    max_cycles: u64,
) -> Result<Option<RenameReport>, SimError> {
    let Some(r) = &stats.rename else { return Ok(None) };
    let e = &checked.config.energy;
    let mine = energy::hybrid(stats, e, &checked.geometry);
    // Seed 003's designs are MEM_RA's neighbours: the same SM without TRWS and TUBA.
    let variant = |edit: &dyn Fn(&mut rfgen_gen::config::Config)| -> Result<(SimStats, energy::Hybrid), SimError> {
        let mut c = checked.config.clone();
        (c.rename.trws, c.rename.tuba) = (false, false);
        edit(&mut c);
        let c = rfgen_gen::config::check(c).expect("seed 003's designs keep a renamed config valid");
        let s = run(&c, kernel, max_cycles, &mut |_| {})?.0;
        let h = energy::hybrid(&s, e, &c.geometry);
        Ok((s, h))
    };
    let (cmos, reference) = variant(&|c| *c = without(c, Part::Rename))?;
    let design =
        |name: &str, config: String, (s, h): (SimStats, energy::Hybrid), paper: (Option<f64>, Option<f64>)| Design {
            name: name.to_string(),
            config,
            cycles: s.cycles,
            energy_reduction: 1.0 - h.total_pj / reference.total_pj,
            slowdown: s.cycles as f64 / cmos.cycles.max(1) as f64 - 1.0,
            energy: h,
            paper_energy_reduction: paper.0,
            paper_slowdown: paper.1,
        };
    let rc = &checked.config.rename;
    let max = rfgen_gen::layout::rename::COUNTER_MAX;
    let mut designs = vec![
        design("all-CMOS", "rename.enabled = false".into(), (cmos.clone(), reference.clone()), (None, None)),
        design(
            "all-TFET",
            "rename.cmos_rows = 0".into(),
            variant(&|c| c.rename.cmos_rows = 0)?,
            (Some(PAPER_ALL_TFET.0), Some(PAPER_ALL_TFET.1)),
        ),
        // CMOS_RA: no stall is ever predicted (every latency within `thr_acc`): TFET only as
        // the fallback when no CMOS register is free.
        design(
            "CMOS_RA",
            format!("rename.thr_acc = {max}"),
            variant(&|c| c.rename.thr_acc = max)?,
            (Some(PAPER_CMOS_RA.0), Some(PAPER_CMOS_RA.1)),
        ),
    ];
    let this =
        format!("this config (cmos_rows = {}, thr_acc = {}, ref_acc = {})", rc.cmos_rows, rc.thr_acc, rc.ref_acc);
    let mine_run = (stats.clone(), mine.clone());
    match (rc.trws, rc.tuba) {
        (false, false) => designs.push(design("MEM_RA", this, mine_run, (Some(PAPER_MEM_RA_ENERGY_REDUCTION), None))),
        (trws, tuba) => {
            designs.push(design(
                "MEM_RA",
                "rename.trws = false, rename.tuba = false".into(),
                variant(&|_| {})?,
                (Some(PAPER_MEM_RA_ENERGY_REDUCTION), None),
            ));
            let (name, paper) = match (trws, tuba) {
                (true, true) => ("MEM_RA+TRWS+TUBA", Some(PAPER_MEM_RA_TRWS_TUBA_ENERGY_REDUCTION)),
                (true, false) => ("MEM_RA+TRWS", None),
                _ => ("MEM_RA+TUBA", None),
            };
            designs.push(design(name, this, mine_run, (paper, None)));
        }
    }
    Ok(Some(RenameReport {
        tfet_share: r.tfet_given as f64 / r.renames.max(1) as f64,
        no_register_stalls: stats.stalls.no_register,
        energy: mine,
        terms: energy::HYBRID_TERMS.map(String::from).to_vec(),
        tfet_leakage_ratio: e.tfet_leakage_ratio,
        clock_ghz: e.clock_ghz,
        designs,
    }))
}

/// Seed 001 ch. 6's measures of the ORF/LRF, beside the paper's numbers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OrfReport {
    pub entries: u32,
    pub lrf: rfgen_gen::config::LrfKind,
    /// Per warp instruction, measured: reads and writes of the MRF, ORF and LRF.
    pub reads_per_instruction: [f64; 3],
    pub writes_per_instruction: [f64; 3],
    /// The same SM without the ORF/LRF: MRF reads and writes per warp instruction, cycles and
    /// register-file energy.
    pub plain_reads_per_instruction: f64,
    pub plain_writes_per_instruction: f64,
    pub plain_cycles: u64,
    pub plain_energy: Energy,
    /// Register-file energy over the plain SM's.
    pub energy_ratio: f64,
    /// The same SM with the paper's hardware RFC (`isca11-rfc`'s `[rfc]`) instead of the
    /// ORF/LRF: its energy over the plain SM's, and its cycles.
    pub rfc_energy_ratio: f64,
    pub rfc_cycles: u64,
}

/// Seed 001 §6.5: register-file energy saved by 3 ORF entries + split LRF (partial ranges and
/// read operands), and by the hardware RFC, on the same benchmarks.
pub const PAPER_ORF_ENERGY_REDUCTION: f64 = 0.54;
pub const PAPER_HW_RFC_ENERGY_REDUCTION: f64 = 0.34;

fn orf_report(
    checked: &Checked,
    kernel: &Kernel,
    stats: &SimStats,
    energy: &Energy,
    max_cycles: u64,
) -> Result<Option<OrfReport>, SimError> {
    let (Some(layout), Some(o)) = (&checked.orf, &stats.orf) else { return Ok(None) };
    let plain = without(&checked.config, Part::Orf);
    let mut cached = plain.clone();
    cached.rfc = rfgen_gen::config::preset("isca11-rfc").expect("the isca11-rfc preset is valid").config.rfc;
    let check = |c| rfgen_gen::config::check(c).expect("swapping the ORF for an RFC keeps a config valid");
    let (p, plain_energy) = run(&check(plain), kernel, max_cycles, &mut |_| {})?;
    let (r, rfc_energy) = run(&check(cached), kernel, max_cycles, &mut |_| {})?;
    let per = |n: u64, s: &SimStats| n as f64 / s.warp_instructions.max(1) as f64;
    Ok(Some(OrfReport {
        entries: layout.entries,
        lrf: layout.lrf,
        reads_per_instruction: [stats.mrf.reads, o.orf_reads, o.lrf_reads].map(|n| per(n, stats)),
        writes_per_instruction: [stats.mrf.writes, o.orf_writes, o.lrf_writes].map(|n| per(n, stats)),
        plain_reads_per_instruction: per(p.mrf.reads, &p),
        plain_writes_per_instruction: per(p.mrf.writes, &p),
        plain_cycles: p.cycles,
        energy_ratio: energy.total_pj / plain_energy.total_pj,
        rfc_energy_ratio: rfc_energy.total_pj / plain_energy.total_pj,
        plain_energy,
        rfc_cycles: r.cycles,
    }))
}

/// Seed 000's measures of the register file cache, beside the paper's numbers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RfcReport {
    pub entries: u32,
    /// Warp slots holding entries (the active set under two-level scheduling).
    pub slots: u32,
    /// Share of source operands the RFC delivered.
    pub hit_rate: f64,
    /// MRF warp-register reads and writes with the RFC and without it.
    pub mrf_reads: u64,
    pub mrf_writes: u64,
    pub uncached_mrf_reads: u64,
    pub uncached_mrf_writes: u64,
    /// `1 - with / without`.
    pub read_reduction: f64,
    pub write_reduction: f64,
    pub uncached_cycles: u64,
    /// Register-file energy over the same config without the RFC, at the configured distances.
    pub energy_ratio: f64,
    pub uncached_energy: Energy,
    /// Seed 000 Table 5: the energy ratio at the paper's four MRF/RFC wire distances.
    pub table5: Vec<Table5Row>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Table5Row {
    pub mrf_mm: f64,
    pub rfc_mm: f64,
    pub energy_ratio: f64,
    /// The paper's compute-trace figure for 8 active warps and 6 entries.
    pub paper: f64,
}

/// Seed 000 §5.3 and Table 5 (compute traces): MRF traffic cut by a 6-entry RFC with liveness
/// under two-level scheduling, and the normalized energy per (MRF, RFC) distance in mm.
pub const PAPER_RFC_READ_REDUCTION: (f64, f64) = (0.40, 0.60);
pub const PAPER_RFC_WRITE_REDUCTION: (f64, f64) = (0.40, 0.80);
pub const PAPER_TABLE5: [(f64, f64, f64); 4] = [(0.0, 0.0, 0.76), (1.0, 1.0, 0.87), (1.0, 0.2, 0.65), (1.0, 0.0, 0.63)];

fn rfc_report(
    checked: &Checked,
    kernel: &Kernel,
    stats: &SimStats,
    max_cycles: u64,
) -> Result<Option<RfcReport>, SimError> {
    let (Some(layout), Some(r)) = (&checked.rfc, &stats.rfc) else { return Ok(None) };
    let plain =
        rfgen_gen::config::check(without(&checked.config, Part::Rfc)).expect("disabling the RFC keeps a config valid");
    let (u, uncached_energy) = run(&plain, kernel, max_cycles, &mut |_| {})?;
    let e = &checked.config.energy;
    let ratio = |d: energy::Distances| {
        energy::energy_at(stats, e, Some(layout.entries), d).total_pj / energy::energy_at(&u, e, None, d).total_pj
    };
    let reduction = |with: u64, without: u64| 1.0 - with as f64 / without.max(1) as f64;
    Ok(Some(RfcReport {
        entries: layout.entries,
        slots: layout.slots,
        hit_rate: r.read_hits as f64 / (r.read_hits + stats.mrf.reads).max(1) as f64,
        mrf_reads: stats.mrf.reads,
        mrf_writes: stats.mrf.writes,
        uncached_mrf_reads: u.mrf.reads,
        uncached_mrf_writes: u.mrf.writes,
        read_reduction: reduction(stats.mrf.reads, u.mrf.reads),
        write_reduction: reduction(stats.mrf.writes, u.mrf.writes),
        uncached_cycles: u.cycles,
        energy_ratio: ratio(energy::Distances::of(e)),
        uncached_energy,
        table5: PAPER_TABLE5
            .iter()
            .map(|&(mrf_mm, rfc_mm, paper)| Table5Row {
                mrf_mm,
                rfc_mm,
                energy_ratio: ratio(energy::Distances { mrf_mm, rfc_mm }),
                paper,
            })
            .collect(),
    }))
}

/// Seed 004's measures, beside the paper's numbers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompressionReport {
    /// Compression ratios by banks (uncompressed banks over the banks the registers occupy)
    /// and by bits (original size over compressed size, seed 004's definition); absent without
    /// such writes.
    pub ratio_non_divergent: Option<f64>,
    pub ratio_divergent: Option<f64>,
    pub bit_ratio_non_divergent: Option<f64>,
    pub bit_ratio_divergent: Option<f64>,
    pub banks_per_read: f64,
    pub banks_per_write: f64,
    pub gated_bank_cycles: u64,
    /// Share of all bank-cycles spent power-gated.
    pub gated_share: f64,
    pub dummy_movs: u64,
    /// Dummy MOVs per warp instruction.
    pub dummy_mov_share: f64,
    pub energy: energy::Table3,
    /// The same kernel on this config with compression disabled.
    pub uncompressed: energy::Table3,
    pub uncompressed_cycles: u64,
    /// Seed 004 Table 3's accounting (terms in `table3_terms`): `1 - energy / uncompressed`,
    /// total, dynamic (accesses, wires, units) and leakage.
    pub reduction: f64,
    pub dynamic_reduction: f64,
    pub leakage_reduction: f64,
    pub table3_terms: Vec<String>,
    /// SPEC §6's accounting (the report's energy section, terms in `spec6_terms`), against the
    /// same SM without compression.
    pub spec6_reduction: f64,
    pub spec6_terms: Vec<String>,
}

/// Seed 004's headline figures.
pub const PAPER_RATIO_NON_DIVERGENT: f64 = 2.5;
pub const PAPER_RATIO_DIVERGENT: f64 = 1.3;
pub const PAPER_ENERGY_REDUCTION: f64 = 0.25;
pub const PAPER_DUMMY_MOV_SHARE: f64 = 0.02;

fn compression_report(
    checked: &Checked,
    kernel: &Kernel,
    stats: &SimStats,
    spec6: &Energy,
    max_cycles: u64,
) -> Result<Option<CompressionReport>, SimError> {
    let Some(c) = &stats.compression else { return Ok(None) };
    let plain = rfgen_gen::config::check(without(&checked.config, Part::Compression))
        .expect("disabling compression keeps a config valid");
    let (u, plain_energy) = run(&plain, kernel, max_cycles, &mut |_| {})?;
    let e = &checked.config.energy;
    let banks = c.banks as u64;
    let (mine, theirs) = (energy::table3(stats, banks, e), energy::table3(&u, banks, e));
    let dynamic = |t: &energy::Table3| t.dynamic_pj + t.wire_pj + t.compressor_pj + t.decompressor_pj;
    let full: u64 = c.full_writes_by_ri.iter().sum();
    Ok(Some(CompressionReport {
        ratio_non_divergent: c.ratio_non_divergent(),
        ratio_divergent: c.ratio_divergent(),
        bit_ratio_non_divergent: c.bit_ratio_non_divergent(),
        bit_ratio_divergent: c.bit_ratio_divergent(),
        banks_per_read: stats.mrf.bank_reads as f64 / (stats.mrf.reads + c.dummy_movs).max(1) as f64,
        banks_per_write: stats.mrf.bank_writes as f64 / (full + c.partial_writes + c.dummy_movs).max(1) as f64,
        gated_bank_cycles: c.gated_bank_cycles,
        gated_share: c.gated_bank_cycles as f64 / (stats.cycles * banks).max(1) as f64,
        dummy_movs: c.dummy_movs,
        dummy_mov_share: c.dummy_movs as f64 / stats.warp_instructions.max(1) as f64,
        reduction: 1.0 - mine.total_pj / theirs.total_pj,
        dynamic_reduction: 1.0 - dynamic(&mine) / dynamic(&theirs),
        leakage_reduction: 1.0 - mine.leakage_pj / theirs.leakage_pj,
        table3_terms: ["bank accesses", "128-bit wires", "leakage", "compressors", "decompressors"]
            .map(String::from)
            .to_vec(),
        spec6_reduction: 1.0 - spec6.total_pj / plain_energy.total_pj,
        spec6_terms: spec6.terms.clone(),
        energy: mine,
        uncompressed: theirs,
        uncompressed_cycles: u.cycles,
    }))
}

/// A scaled launch: the grid the kernel declares and the one it ran with.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Launch {
    pub declared: Grid,
    pub launched: Grid,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grid {
    /// Blocks in all, `blocks_y` of them along y.
    pub blocks: u32,
    pub blocks_y: u32,
    pub threads: u32,
}

impl Grid {
    pub fn of(k: &Kernel) -> Grid {
        Grid { blocks: k.blocks, blocks_y: k.blocks_y, threads: k.threads }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Baseline {
    pub cycles: u64,
    pub energy_pj: f64,
    /// This config's register-file energy divided by the baseline's.
    pub energy_ratio: f64,
}

/// Runs `kernel` to completion on `checked`, launched as [`launch`] says; `progress` gets the
/// cycle count now and then.
pub fn run(
    checked: &Checked,
    kernel: &Kernel,
    max_cycles: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<(SimStats, Energy), SimError> {
    let outcome = memo::once(checked.hash(), kernel, max_cycles, || {
        let kernel = launch(checked, kernel)?;
        // One SM is a GPU of one: the same launches, steps and statistics.
        let mut gpu = Gpu::new(checked, &kernel)?;
        gpu.run(max_cycles, progress)?;
        let stats = gpu.stats();
        let energy = energy::energy(&stats, &checked.config.energy, checked.rfc.as_ref().map(|r| r.entries));
        Ok((stats, energy))
    })?;
    // A run answered from memory reports its end.
    progress(outcome.0.cycles);
    Ok(outcome)
}

/// [`run`] plus the comparison with the baseline preset.
pub fn simulate(
    checked: &Checked,
    kernel: &Kernel,
    max_cycles: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<SimReport, SimError> {
    let declared = kernel;
    let kernel = &*launch(checked, declared)?;
    let (stats, energy) = run(checked, kernel, max_cycles, progress)?;
    // The baseline preset, on as many SMs.
    let mut base = rfgen_gen::config::preset("baseline").expect("the baseline preset is valid");
    if checked.config.sm.count > 1 {
        base.config.sm.count = checked.config.sm.count;
        base = rfgen_gen::config::check(base.config).expect("the baseline runs on several SMs");
    }
    // No comparison when this is the baseline, or when the kernel does not fit the baseline SM;
    // the baseline launches the kernel as it declares it, if it fits there.
    let baseline = if base.hash() == checked.hash() {
        None
    } else {
        match run(&base, declared, max_cycles, &mut |_| {}) {
            Err(SimError::DoesNotFit(_)) => None,
            Err(e) => return Err(e),
            Ok((b, e)) => {
                Some(Baseline { cycles: b.cycles, energy_pj: e.total_pj, energy_ratio: energy.total_pj / e.total_pj })
            }
        }
    };
    let compression = compression_report(checked, kernel, &stats, &energy, max_cycles)?;
    let rfc = rfc_report(checked, kernel, &stats, max_cycles)?;
    let orf = orf_report(checked, kernel, &stats, &energy, max_cycles)?;
    let rename = rename_report(checked, kernel, &stats, max_cycles)?;
    let timing = timing_report(checked, kernel, &stats, max_cycles)?;
    Ok(SimReport {
        kernel: kernel.name.clone(),
        config: checked.config.name.clone(),
        config_hash: checked.hash(),
        scheduler: serde_json::to_value(checked.config.scheduler.policy)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        ipc: stats.warp_instructions as f64 / stats.cycles.max(1) as f64,
        launch: (Grid::of(kernel) != Grid::of(declared))
            .then(|| Launch { declared: Grid::of(declared), launched: Grid::of(kernel) }),
        stats,
        energy,
        baseline,
        compression,
        rfc,
        orf,
        rename,
        timing,
    })
}

#[cfg(test)]
mod tests {
    use crate::func::{self, default_word};
    use crate::kernel::library;
    use crate::sm::Sm;

    /// Points that differ only in a part's fields share their variant without it: one design,
    /// one memoized run.
    #[test]
    fn a_variant_without_a_part_is_the_same_design_whatever_the_part_was() {
        use super::{Part, without};
        use rfgen_gen::config::{check, preset};
        let variant = |name: &str, part: Part, edit: &dyn Fn(&mut rfgen_gen::config::Config)| {
            let mut c = preset(name).unwrap().config;
            edit(&mut c);
            check(without(&c, part)).unwrap().hash()
        };
        let same = |name: &str,
                    part: Part,
                    a: &dyn Fn(&mut rfgen_gen::config::Config),
                    b: &dyn Fn(&mut rfgen_gen::config::Config)| {
            assert_eq!(variant(name, part, a), variant(name, part, b), "{name}");
        };
        same("isca11-rfc", Part::Rfc, &|c| c.rfc.entries = 1, &|c| c.rfc.entries = 8);
        same("micro11-orf-lrf", Part::Orf, &|c| c.orf.entries = 1, &|c| c.orf.lrf = rfgen_gen::config::LrfKind::None);
        same("isca15-bdi", Part::Compression, &|_| {}, &|c| c.compression.wakeup_cycles = 0);
        same("tfet-hybrid", Part::Rename, &|c| c.rename.thr_acc = 10, &|c| c.rename.thr_acc = 420);
        // And the part is off in it.
        let c = check(without(&preset("micro11-orf-lrf").unwrap().config, Part::Orf)).unwrap();
        assert!(c.orf.is_none() && !c.config.orf.enabled);
    }

    #[test]
    fn vecadd_runs_to_the_functional_result() {
        let c = rfgen_gen::config::preset("baseline").unwrap();
        let k = library::find("vecadd").unwrap().parse().unwrap();
        let mut sm = Sm::new(&c, &k).unwrap();
        sm.run(10_000_000, &mut |_| {}).unwrap();
        let f = func::run(&k, 32).unwrap();
        let s = sm.stats();
        assert_eq!(s.operand_mismatches, 0, "{:?}", s.mismatch_examples);
        assert_eq!(s.warp_instructions, f.warp_instructions);
        assert_eq!(s.thread_instructions, f.thread_instructions);
        for i in 0..8192u32 {
            let want = default_word(0x100000 + 4 * i).wrapping_add(default_word(0x200000 + 4 * i));
            assert_eq!(sm.memory().read(0x300000 + 4 * i), want, "c[{i}]");
        }
        assert!(s.cycles > 400 && s.warp_instructions as f64 / (s.cycles as f64) <= 1.0);
    }
}
