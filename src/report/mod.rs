//! `rfgen report`: every seed's headline experiment that rfgen models, run on the SM model, as
//! claims (the paper's figure beside ours and the command that reproduces ours) and plots.
//! Ours is measured on each kernel set: the library's application kernels (heartwall, seed
//! 002's hazard pattern, is left out as in the README's tables), the CUDA C suite compiled to
//! PTX (`workloads/`) and the README's synthetic kernels, unless the caller narrows them.

mod chart;
pub mod page;

use anyhow::{Result, anyhow, bail};
use rayon::prelude::*;
use rfgen_gen::Checked;
use rfgen_gen::config::{self, Config, LrfKind, SchedulerPolicy, WarPolicy};
use rfgen_model::kernel::Kernel;
use rfgen_model::sim::{self, SimReport};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

const MAX_CYCLES: u64 = 200_000_000;

/// One figure of a paper beside ours, one per kernel set (in [`Report::sets`]' order).
pub struct Claim {
    pub claim: String,
    pub paper: String,
    pub ours: Vec<String>,
}

/// A seed's claims and the command that reproduces ours.
pub struct Group {
    pub seed: &'static str,
    pub command: String,
    pub claims: Vec<Claim>,
}

pub struct Plot {
    /// File stem: `<name>.svg`.
    pub name: String,
    pub caption: String,
    pub svg: String,
}

pub struct Report {
    pub sets: Vec<KernelSet>,
    pub groups: Vec<Group>,
    pub plots: Vec<Plot>,
}

/// The kernels one column of ours is measured on.
#[derive(Clone)]
pub struct KernelSet {
    /// [`LIBRARY`], [`SUITE`] or [`SYNTHETIC`]: the column's name, and the suffix of its plots'
    /// files (the library's have none).
    pub name: &'static str,
    /// Kernel names as `--kernel` takes them.
    pub kernels: Vec<String>,
}

/// The library's application kernels.
pub const LIBRARY: &str = "library";
/// The CUDA C suite's workloads, compiled to PTX (`ptx:NAME`).
pub const SUITE: &str = "suite";
/// Kernels drawn with SPEC §7's operand statistics (`synthetic:KNOBS`).
pub const SYNTHETIC: &str = "synthetic";
/// The synthetic kernels the README's tables run.
pub const SYNTHETIC_KERNELS: [&str; 4] =
    ["synthetic:seed=1", "synthetic:seed=2", "synthetic:seed=3,long_latency=0.1", "synthetic:seed=4,divergence=0.3"];

/// A configuration the report runs every kernel on.
struct Point {
    key: String,
    checked: Checked,
}

fn point(key: impl Into<String>, preset: &str, edit: impl FnOnce(&mut Config)) -> Point {
    let mut c = config::preset(preset).expect("presets are valid").config;
    edit(&mut c);
    Point { key: key.into(), checked: config::check(c).expect("the report's variations are valid") }
}

const WARPBOARDS: [WarPolicy; 6] = [
    WarPolicy::None,
    WarPolicy::ReleaseOnCommit,
    WarPolicy::ReleaseOnRead,
    WarPolicy::Bloom1,
    WarPolicy::Bloom2,
    WarPolicy::BloomUnbounded,
];

/// Seed 002's worst cases are over every scheduler it ran, so ours are too.
const SCHEDULERS: [SchedulerPolicy; 3] = [SchedulerPolicy::Lrr, SchedulerPolicy::Gto, SchedulerPolicy::TwoLevel];

/// A policy as the configuration spells it.
fn policy_name(p: impl Serialize) -> String {
    serde_json::to_value(p).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn war_key(s: SchedulerPolicy, p: WarPolicy) -> String {
    format!("war-{}-{}", policy_name(s), policy_name(p))
}

fn points() -> Vec<Point> {
    let mut v = vec![point("bdi", "baseline", |c| c.compression.enabled = true)];
    // The same with banks that wake at once: what waiting for wake-ups costs.
    v.push(point("bdi-nowake", "baseline", |c| {
        c.compression.enabled = true;
        c.compression.wakeup_cycles = 0;
    }));
    for n in 1..=8 {
        v.push(point(format!("rfc-{n}"), "isca11-rfc", |c| c.rfc.entries = n));
        v.push(point(format!("orf-{n}"), "micro11-orf-lrf", |c| c.orf.entries = n));
    }
    v.push(point("orf-3-no-lrf", "micro11-orf-lrf", |c| c.orf.lrf = LrfKind::None));
    for s in SCHEDULERS {
        for p in WARPBOARDS {
            v.push(point(war_key(s, p), "baseline", |c| {
                c.scheduler.policy = s;
                c.warpboard.policy = p;
            }));
        }
    }
    // MEM_RA at the paper's `thr_acc` (10 cycles, its machine's uncontended latency) and at
    // ours (about 420).
    for (key, thr_acc) in [("", 10), ("-420", 420)] {
        v.push(point(format!("tfet{key}"), "tfet-hybrid", |c| c.rename.thr_acc = thr_acc));
        v.push(point(format!("tfet-4sm{key}"), "tfet-hybrid", |c| {
            c.sm.count = 4;
            (c.rename.trws, c.rename.tuba) = (true, true);
            c.rename.thr_acc = thr_acc;
        }));
    }
    v
}

/// Register file cache sizes the area sweep synthesizes, on the `small` preset (Yosys takes
/// minutes per full-size design; `rfgen sweep --synth` measures those, README "Area").
const AREA_RFC_ENTRIES: [u32; 3] = [1, 2, 4];

fn area_points() -> Vec<Point> {
    let mut points = vec![point("area-plain", "small", |_| {})];
    points.extend(AREA_RFC_ENTRIES.map(|n| {
        point(format!("area-rfc-{n}"), "small", |c| {
            c.rfc.enabled = true;
            c.rfc.entries = n;
        })
    }));
    points
}

/// What one run measured: a kernel on the SM model of a point, or the logic of one design.
#[derive(Serialize, Deserialize)]
pub enum Measurement {
    Sim(Box<SimReport>),
    Area { transistors: f64 },
}

/// Every run the report needs, numbered: each point on each kernel, then each area design. The
/// runs are independent, so any backend may measure them in any order and place.
pub struct Plan {
    kernels: Vec<Kernel>,
    sets: Vec<KernelSet>,
    points: Vec<Point>,
    area: Vec<Point>,
}

impl Plan {
    /// `kernels` in their sets (by name, each set once, in the order given); each kernel's name
    /// is unique and as `--kernel` takes it. Without `synth`, the area sweep (the only runs that
    /// need Yosys) is left out.
    pub fn new(kernels: Vec<(&'static str, Kernel)>, synth: bool) -> Plan {
        let mut sets: Vec<KernelSet> = Vec::new();
        for (set, k) in &kernels {
            match sets.iter_mut().find(|s| s.name == *set) {
                Some(s) => s.kernels.push(k.name.clone()),
                None => sets.push(KernelSet { name: set, kernels: vec![k.name.clone()] }),
            }
        }
        let kernels = kernels.into_iter().map(|(_, k)| k).collect();
        Plan { kernels, sets, points: points(), area: if synth { area_points() } else { Vec::new() } }
    }

    pub fn kernels(&self) -> usize {
        self.kernels.len()
    }

    pub fn runs(&self) -> usize {
        self.points.len() * self.kernels.len() + self.area.len()
    }

    /// Run `i` as a point and, for a simulation, a kernel.
    fn run(&self, i: usize) -> (&Point, Option<&Kernel>) {
        let sims = self.points.len() * self.kernels.len();
        match i.checked_sub(sims) {
            None => (&self.points[i / self.kernels.len()], Some(&self.kernels[i % self.kernels.len()])),
            Some(a) => (&self.area[a], None),
        }
    }

    /// A rough cost of run `i`, to start the long ones first: a synthesis outweighs any
    /// simulation; a simulation costs its SMs times the runs its point makes (the run itself,
    /// and with a part beside the MRF the same SM without it, and seed 003's designs when
    /// renaming).
    fn weight(&self, i: usize) -> u32 {
        let (p, kernel) = self.run(i);
        if kernel.is_none() {
            return u32::MAX;
        }
        let c = &p.checked.config;
        let variants =
            if c.rename.enabled { 4 } else { u32::from(c.rfc.enabled || c.orf.enabled || c.compression.enabled) };
        c.sm.count * (1 + variants)
    }

    pub fn label(&self, i: usize) -> String {
        match self.run(i) {
            (p, Some(k)) => format!("{} on {}", p.key, k.name),
            (p, None) => format!("{} synthesis", p.key),
        }
    }

    /// Measures run `i` (Yosys scripts and logs of an area run in `work/<point>`).
    pub fn measure(&self, i: usize, work: &Path) -> Result<Measurement> {
        match self.run(i) {
            (p, Some(k)) => {
                let r = sim::simulate(&p.checked, k, MAX_CYCLES, &mut |_| {})
                    .map_err(|e| anyhow!("{} on {}: {e}", k.name, p.key))?;
                if r.stats.operand_mismatches > 0 {
                    bail!("{} on {}: {} wrong operands", k.name, p.key, r.stats.operand_mismatches);
                }
                Ok(Measurement::Sim(Box::new(r)))
            }
            (p, None) => {
                use crate::synth::{FAKERAM45_UM2_PER_BIT, Options, SramModel, Synth, Target};
                let sram = SramModel { um2_per_bit: FAKERAM45_UM2_PER_BIT, um2_per_macro: 0.0 };
                let opts = Options { target: Target::Generic, liberty: None, sram, flow: crate::synth::flow()? };
                let design = rfgen_gen::generate(&p.checked, rfgen_gen::SramKind::Behavioural);
                let top = design.manifest.top.clone();
                let synth = Synth::new(&design, &opts, &work.join(&p.key))?;
                Ok(Measurement::Area { transistors: synth.module(&top)?.transistors.unwrap_or(0) as f64 })
            }
        }
    }

    /// The report from every run's measurement, in run order.
    pub fn assemble(&self, measured: Vec<Measurement>) -> Result<Report> {
        if measured.len() != self.runs() {
            bail!("{} measurements for {} runs", measured.len(), self.runs());
        }
        let mut at = HashMap::new();
        let mut transistors = Vec::new();
        for (i, m) in measured.into_iter().enumerate() {
            match (self.run(i), m) {
                ((p, Some(k)), Measurement::Sim(r)) => {
                    at.insert((p.key.clone(), k.name.clone()), *r);
                }
                ((_, None), Measurement::Area { transistors: t }) => transistors.push(t),
                _ => bail!("run {} ({}) holds the other kind of measurement", i, self.label(i)),
            }
        }
        let mut groups: Vec<Group> = Vec::new();
        let mut plots = Vec::new();
        // One command reproduces every set's column (a sweep's results hold each kernel's).
        let kf: String = self.kernels.iter().map(|k| format!(" --kernel {}", k.name)).collect();
        for set in &self.sets {
            let m = Measured { at: &at, kernels: &set.kernels };
            let mut drawn = Vec::new();
            let measured = vec![
                bdi(&m, &kf, &mut drawn)?,
                rfc(&m, &kf, &mut drawn)?,
                orf(&m, &kf, &mut drawn)?,
                warpboards(&m, &kf, &mut drawn)?,
                tfet(&m, &kf, &mut drawn)?,
            ];
            // The library's plots keep their names; another set's are its own files.
            if set.name != LIBRARY {
                for p in &mut drawn {
                    p.name = format!("{}-{}", p.name, set.name);
                    p.caption = format!("{} ({} kernels)", p.caption, set.name);
                }
            }
            plots.extend(drawn);
            if groups.is_empty() {
                groups = measured;
                continue;
            }
            for (g, more) in groups.iter_mut().zip(measured) {
                for (c, more) in g.claims.iter_mut().zip(more.claims) {
                    c.ours.extend(more.ours);
                }
            }
        }
        if !transistors.is_empty() {
            groups.push(area(&transistors, &mut plots)?);
        }
        Ok(Report { sets: self.sets.clone(), groups, plots })
    }
}

/// Measures every run of `plan` on the current rayon pool and assembles the report; `done` is
/// called after each run with the runs finished and the total.
///
/// The runs are handed out one at a time, longest first, so that no core is left idle at the end
/// behind a long one: the syntheses, then the points by `Plan::weight`. Each point takes the
/// kernels in turn, so the threads are on different kernels and seldom wait for the same
/// memoized run (a point's baseline or its variant without its part).
pub fn run(plan: &Plan, work: &Path, done: &(dyn Fn(usize, usize) + Sync)) -> Result<Report> {
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let mut order: Vec<usize> = (0..plan.runs()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(plan.weight(i)));
    let mut measured = order
        .into_iter()
        .par_bridge()
        .map(|i| {
            let m = plan.measure(i, work)?;
            done(finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, plan.runs());
            Ok((i, m))
        })
        .collect::<Result<Vec<_>>>()?;
    measured.sort_by_key(|&(i, _)| i);
    plan.assemble(measured.into_iter().map(|(_, m)| m).collect())
}

/// The area group from the transistors of [`area_points`], in their order.
fn area(transistors: &[f64], plots: &mut Vec<Plot>) -> Result<Group> {
    let plain = transistors[0];
    let series: Vec<(u32, f64)> = AREA_RFC_ENTRIES.iter().zip(&transistors[1..]).map(|(&n, &t)| (n, t / 1e3)).collect();
    plots.push(plot(
        "area-rfc",
        format!(
            "Area: logic of the small preset's MRF top (Yosys generic gates, SRAM black-boxed) against register file cache entries; without the cache {:.0}k transistors",
            plain / 1e3
        ),
        chart::lines("MRF top with RFC: logic transistors (thousands)", "rfc.entries", "k transistors", &[("small + RFC".into(), series)]),
    )?);
    // Seed 003 §4.1.2.3: the rename table and free lists against the register file, by bits.
    let paper = config::preset("tfet-hybrid").expect("presets are valid");
    let l = rfgen_gen::layout::rename::RenameLayout::new(&paper.geometry, &paper.config.rename, &paper.config.timing);
    let g = &paper.geometry;
    let ids = u64::from(l.phys_bits());
    let places: u32 = rfgen_gen::blocks::rename::free_lists(&l)
        .iter()
        .map(|f| rfgen_gen::blocks::rename::FREE_BANKS * rfgen_gen::blocks::rename::bank_words(f.n))
        .sum();
    let entry = ids + u64::from(l.keeps_kind());
    let table_and_lists = u64::from(l.warps * l.registers) * entry + u64::from(places) * ids;
    let counters = u64::from(l.warps * rfgen_gen::layout::rename::COUNTER_BITS);
    let mrf = u64::from(g.physical_registers()) * u64::from(g.warp_reg_bits());
    let share = |bits: u64| format!("{:.2} % of the MRF's bits", 100.0 * bits as f64 / mrf as f64);
    let claims = vec![
        claim("rename table and free lists against the register file", "≈ 1 % of its area", share(table_and_lists)),
        claim("with the MEM_RA counters", "≈ 2 %", share(table_and_lists + counters)),
    ];
    let command = "rfgen sweep --preset small --param rfc.enabled=true --param rfc.entries=1,2,4 --synth --out area/\n\
                   rfgen synth --preset tfet-hybrid --block rename"
        .to_string();
    Ok(Group { seed: "003 area, and area against parameters", command, claims })
}

/// The runs, by (point, kernel).
struct Measured<'a> {
    at: &'a HashMap<(String, String), SimReport>,
    kernels: &'a [String],
}

impl Measured<'_> {
    fn report(&self, point: &str, kernel: &str) -> &SimReport {
        &self.at[&(point.to_string(), kernel.to_string())]
    }

    /// Mean over the kernels of `f` on `point` (kernels where `f` has no value left out).
    fn mean(&self, point: &str, f: impl Fn(&SimReport) -> Option<f64>) -> Option<f64> {
        let v: Vec<f64> = self.kernels.iter().filter_map(|k| f(self.report(point, k))).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }
}

/// A share as a signed percentage, with a true minus sign like the papers'.
fn pct(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |v| format!("{:+.1} %", 100.0 * v).replace('-', "−"))
}

fn claim(claim: &str, paper: &str, ours: String) -> Claim {
    Claim { claim: claim.into(), paper: paper.into(), ours: vec![ours] }
}

fn plot(name: &str, caption: String, svg: Result<String, Box<dyn std::error::Error>>) -> Result<Plot> {
    Ok(Plot { name: name.into(), caption, svg: svg.map_err(|e| anyhow!("cannot draw {name}: {e}"))? })
}

fn bdi(m: &Measured, kf: &str, plots: &mut Vec<Plot>) -> Result<Group> {
    let c = |r: &SimReport| r.compression.as_ref().expect("a compressed run has its report").clone();
    let cmd = format!(
        "printf 'name = \"bdi\"\\n[compression]\\nenabled = true\\n' > bdi.toml && rfgen sweep --config bdi.toml --param compression.enabled=true{kf} --out bdi/"
    );
    let seed = "004 Warped-Compression";
    let mut claims = Vec::new();
    let ratio = m.mean("bdi", |r| c(r).bit_ratio_non_divergent);
    claims.push(claim(
        "compression ratio of full-mask writes, by bits",
        "2.5",
        ratio.map_or("n/a".into(), |v| format!("{v:.2}")),
    ));
    claims.push(claim("register-file energy, Table 3 terms", "−25 %", pct(m.mean("bdi", |r| Some(-c(r).reduction)))));
    claims.push(claim("of it dynamic", "−35 %", pct(m.mean("bdi", |r| Some(-c(r).dynamic_reduction)))));
    claims.push(claim("of it leakage (bank gating)", "−10 %", pct(m.mean("bdi", |r| Some(-c(r).leakage_reduction)))));
    let gated = m.mean("bdi", |r| Some(c(r).gated_share));
    claims.push(claim(
        "bank-cycles power-gated",
        "Fig. 10",
        gated.map_or("n/a".into(), |v| format!("{:.1} %", 100.0 * v)),
    ));
    let movs = m.mean("bdi", |r| Some(c(r).dummy_mov_share));
    claims.push(claim(
        "dummy MOVs per instruction",
        "< 2 %",
        movs.map_or("n/a".into(), |v| format!("{:.1} %", 100.0 * v)),
    ));
    let slowdown = |r: &SimReport| Some(r.stats.cycles as f64 / c(r).uncompressed_cycles as f64 - 1.0);
    claims.push(claim("slowdown", "+0.1 %", pct(m.mean("bdi", slowdown))));
    let waiting = m.mean("bdi", slowdown).zip(m.mean("bdi-nowake", slowdown)).map(|(a, b)| a - b);
    claims.push(claim("of it waiting for bank wake-ups (docs/bdi.md)", "—", pct(waiting)));
    let bars: Vec<(String, f64)> =
        m.kernels.iter().map(|k| (k.clone(), -100.0 * c(m.report("bdi", k)).reduction)).collect();
    plots.push(plot(
        "bdi-energy",
        "Seed 004: register-file energy change with compression per kernel (Table 3 terms); the red line is the paper's mean".into(),
        chart::bars("BDI: RF energy change (%)", "%", &bars, Some(("seed 004 mean", -25.0))),
    )?);
    Ok(Group { seed, command: cmd, claims })
}

fn rfc(m: &Measured, kf: &str, plots: &mut Vec<Plot>) -> Result<Group> {
    let c = |r: &SimReport| r.rfc.as_ref().expect("an RFC run has its report").clone();
    let cmd = format!("rfgen sweep --preset isca11-rfc --param rfc.entries=1,2,3,4,5,6,7,8{kf} --out rfc/");
    let seed = "000 register file cache";
    let mut claims = Vec::new();
    claims.push(claim(
        "MRF reads saved, 6 entries, two-level",
        "−40 to −60 %",
        pct(m.mean("rfc-6", |r| Some(-c(r).read_reduction))),
    ));
    claims.push(claim(
        "MRF writes saved, 6 entries",
        "−40 to −80 %",
        pct(m.mean("rfc-6", |r| Some(-c(r).write_reduction))),
    ));
    let table5 = m.mean("rfc-6", |r| c(r).table5.get(2).map(|t| t.energy_ratio));
    claims.push(claim(
        "RF energy, MRF 1 mm / RFC 0.2 mm (Table 5)",
        "0.65×",
        table5.map_or("n/a".into(), |v| format!("{v:.2}×")),
    ));
    let curve = |f: fn(&rfgen_model::sim::RfcReport) -> f64| -> Vec<(u32, f64)> {
        (1..=8).filter_map(|n| Some((n, 100.0 * m.mean(&format!("rfc-{n}"), |r| r.rfc.as_ref().map(f))?))).collect()
    };
    let series = vec![
        ("MRF reads saved".to_string(), curve(|r| r.read_reduction)),
        ("MRF writes saved".to_string(), curve(|r| r.write_reduction)),
    ];
    plots.push(plot(
        "rfc-traffic",
        "Seed 000: MRF traffic the register file cache saves against its entries per warp (mean over the kernels)"
            .into(),
        chart::lines("RFC: MRF traffic saved (%)", "rfc.entries", "%", &series),
    )?);
    Ok(Group { seed, command: cmd, claims })
}

/// Seed 001 Table 6.1: MRF reads per warp instruction with 1 to 8 ORF entries.
const TABLE_6_1: [f64; 8] = [0.57, 0.48, 0.41, 0.37, 0.36, 0.35, 0.38, 0.38];

fn orf(m: &Measured, kf: &str, plots: &mut Vec<Plot>) -> Result<Group> {
    let o = |r: &SimReport| r.orf.as_ref().expect("an ORF run has its report").clone();
    let cmd = format!(
        "rfgen sweep --preset micro11-orf-lrf --param orf.entries=1,2,3,4,5,6,7,8{kf} --out orf/\n\
         rfgen sweep --preset micro11-orf-lrf --param orf.lrf=none{kf} --out orf-no-lrf/"
    );
    let seed = "001 ORF/LRF";
    let mut claims = Vec::new();
    let reads = |n: u32| m.mean(&format!("orf-{n}"), |r| Some(o(r).reads_per_instruction[0]));
    claims.push(claim(
        "MRF reads per instruction, all in MRF",
        "1.23",
        m.mean("orf-3", |r| Some(o(r).plain_reads_per_instruction)).map_or("n/a".into(), |v| format!("{v:.2}")),
    ));
    claims.push(claim(
        "MRF reads per instruction, 3 ORF entries + split LRF",
        "0.41",
        reads(3).map_or("n/a".into(), |v| format!("{v:.2}")),
    ));
    claims.push(claim(
        "RF energy, 3 entries + split LRF",
        "−54 %",
        pct(m.mean("orf-3", |r| Some(o(r).energy_ratio - 1.0))),
    ));
    claims.push(claim(
        "RF energy, hardware RFC instead",
        "−34 %",
        pct(m.mean("orf-3", |r| Some(o(r).rfc_energy_ratio - 1.0))),
    ));
    claims.push(claim(
        "RF energy, 3 entries and no LRF (orf.lrf = \"none\")",
        "—",
        pct(m.mean("orf-3-no-lrf", |r| Some(o(r).energy_ratio - 1.0))),
    ));
    let ours: Vec<(u32, f64)> = (1..=8).filter_map(|n| Some((n, reads(n)?))).collect();
    let paper: Vec<(u32, f64)> = (1..=8).map(|n| (n, TABLE_6_1[n as usize - 1])).collect();
    plots.push(plot(
        "orf-reads",
        "Seed 001: MRF reads per warp instruction against ORF entries per thread, ours (mean over the kernels) and Table 6.1"
            .into(),
        chart::lines(
            "ORF/LRF: MRF reads per instruction",
            "orf.entries",
            "reads",
            &[("rfgen".into(), ours), ("Table 6.1".into(), paper)],
        ),
    )?);
    Ok(Group { seed, command: cmd, claims })
}

fn warpboards(m: &Measured, kf: &str, plots: &mut Vec<Plot>) -> Result<Group> {
    let cmd = format!(
        "rfgen sweep --preset baseline --param scheduler.policy=lrr,gto,two_level --param warpboard.policy=none,release_on_commit,release_on_read,bloom1,bloom2,bloom_unbounded{kf} --out war/"
    );
    let seed = "002 warpboards (LRR, GTO and two-level scheduling)";
    let mut claims = Vec::new();
    // Slowdowns against no warpboard under the same scheduler, with the kernel and scheduler.
    let slowdowns = |p: WarPolicy| -> Vec<(f64, String)> {
        let mut v = Vec::new();
        for s in SCHEDULERS {
            for k in m.kernels {
                let cycles = |p| m.report(&war_key(s, p), k).stats.cycles as f64;
                v.push((cycles(p) / cycles(WarPolicy::None) - 1.0, format!("{k}, {}", policy_name(s))));
            }
        }
        v
    };
    let worst =
        |p: WarPolicy| slowdowns(p).into_iter().fold((f64::MIN, String::new()), |a, b| if b.0 > a.0 { b } else { a });
    let mean = |p: WarPolicy| {
        let v = slowdowns(p);
        v.iter().map(|(d, _)| d).sum::<f64>() / v.len() as f64
    };
    let (w, k) = worst(WarPolicy::ReleaseOnCommit);
    claims.push(claim(
        "release-on-commit slowdown, worst kernel and scheduler",
        "up to +88 %",
        format!("{} ({k})", pct(Some(w))),
    ));
    let (w, k) = worst(WarPolicy::ReleaseOnRead);
    claims.push(claim(
        "release-on-read slowdown, worst kernel and scheduler",
        "about +12 % at most",
        format!("{} ({k})", pct(Some(w))),
    ));
    claims.push(claim(
        "bloom2 against bloomN, mean",
        "within 1 %",
        pct(Some(mean(WarPolicy::Bloom2) - mean(WarPolicy::BloomUnbounded))),
    ));
    claims.push(claim(
        "bloom1 against bloom2, mean",
        "within about 5 %",
        pct(Some(mean(WarPolicy::Bloom1) - mean(WarPolicy::Bloom2))),
    ));
    let bars: Vec<(String, f64)> = WARPBOARDS[1..].iter().map(|&p| (policy_name(p), 100.0 * mean(p))).collect();
    plots.push(plot(
        "war-slowdown",
        "Seed 002: mean slowdown of each warpboard against none, over the kernels and the three schedulers".into(),
        chart::bars("Warpboards: slowdown vs none (%)", "%", &bars, None),
    )?);
    Ok(Group { seed, command: cmd, claims })
}

fn tfet(m: &Measured, kf: &str, plots: &mut Vec<Plot>) -> Result<Group> {
    let design = |name: &'static str| {
        move |r: &SimReport| {
            r.rename
                .as_ref()
                .and_then(|n| n.designs.iter().find(|d| d.name == name))
                .map(|d| (d.energy_reduction, d.slowdown))
        }
    };
    let cmd = format!(
        "rfgen sweep --preset tfet-hybrid --param rename.thr_acc=10,420{kf} --out tfet/\n\
         rfgen sweep --preset tfet-hybrid --param sm.count=4 --param rename.trws=true --param rename.tuba=true --param rename.thr_acc=10,420{kf} --out tfet-4sm/"
    );
    let mut claims = Vec::new();
    let mut bars = Vec::new();
    for (point, name, paper) in [
        ("tfet", "MEM_RA", "−34 %"),
        ("tfet", "CMOS_RA", "−12.3 % / +2.3 %"),
        ("tfet", "all-TFET", "−86 % / +45 %"),
        ("tfet-4sm", "MEM_RA", "−34 %"),
        ("tfet-4sm", "CMOS_RA", "−12.3 % / +2.3 %"),
        ("tfet-4sm", "all-TFET", "−86 % / +45 %"),
        ("tfet-4sm", "MEM_RA+TRWS+TUBA", "−40 %"),
        ("tfet-420", "MEM_RA", "−34 %"),
        ("tfet-4sm-420", "MEM_RA+TRWS+TUBA", "−40 %"),
    ] {
        let f = design(name);
        let energy = m.mean(point, |r| f(r).map(|d| -d.0));
        let slowdown = m.mean(point, |r| f(r).map(|d| d.1));
        let sms = if point.starts_with("tfet-4sm") { ", 4 SMs" } else { "" };
        let thr = if point.ends_with("-420") { ", thr_acc = 420 (our uncontended latency)" } else { "" };
        let what = format!("{name}: RF energy / run time against all-CMOS{sms}{thr}");
        claims.push(claim(&what, paper, format!("{} / {}", pct(energy), pct(slowdown))));
        if thr.is_empty() && (sms.is_empty() || name.contains("TRWS")) {
            bars.push((format!("{name}{sms}"), 100.0 * energy.unwrap_or(0.0)));
        }
    }
    // The figure the paper does not give, labelled with the value it was measured at.
    let assumed = m.kernels.first().and_then(|k| m.report("tfet", k).rename.as_ref());
    claims.push(claim(
        "assumed: a TFET row's leakage against a CMOS row's (energy.tfet_leakage_ratio)",
        "not given (Fig. 2: orders of magnitude lower)",
        assumed.map_or("n/a".into(), |n| format!("{} (leakage counted at {} GHz)", n.tfet_leakage_ratio, n.clock_ghz)),
    ));
    plots.push(plot(
        "tfet-designs",
        "Seed 003: register-file energy change of each design against all-CMOS (mean over the kernels)".into(),
        chart::bars("Hybrid CMOS/TFET: RF energy change (%)", "%", &bars, Some(("seed 003 MEM_RA", -34.0))),
    )?);
    Ok(Group { seed: "003 hybrid CMOS/TFET", command: cmd, claims })
}
