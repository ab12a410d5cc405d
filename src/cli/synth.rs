//! `rfgen synth`: Yosys area of every module of a design, as a text table, CSV or JSON.

use super::progress::Progress;
use super::{ConfigSource, bad_input, path_error};
use crate::synth::pnr::{PnrSettings, Router};
use crate::synth::{FAKERAM45_UM2_PER_BIT, Liberty, ModuleArea, Options, Pnr, SramModel, Synth, Target};
use clap::{Args, ValueEnum};
use rayon::prelude::*;
use rfgen_gen::Block;
use std::path::PathBuf;
use std::process::ExitCode;

/// Synthesize the generated RTL with Yosys and report its area
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen synth                                    # every module of the default SM, generic gates
  rfgen synth --target ice40 --format csv        # LUTs, FFs, block RAM on a Lattice iCE40
  rfgen synth --module baseline_mrf_bank_group --format json
  rfgen synth --liberty sky130hd_tt.lib.gz       # µm² of logic, SRAM from the per-bit model
  rfgen synth --config my.toml --sram-um2-per-bit 0.3 --sram-um2-per-macro 2000
  rfgen synth --block warpboard --preset war-warpboard
  rfgen synth --preset small --target ecp5 --pnr  # place and route: Fmax, LUTs, FFs, DP16KD
  rfgen synth --target ecp5 --pnr --router router2  # the default SM's MRF: too congested for router1

Each module is synthesized with everything below it (flattened). In the ASIC view (generic,
--liberty) SRAM leaves are black boxes costed by a per-bit model; FPGA targets infer RAM, but
on ECP5 the leaves are DP16KD block RAMs instantiated with their output registers
(`rfgen gen --sram ecp5`, for banks of up to 512 rows). With
--pnr the top is placed and routed by nextpnr-ecp5 (LFE5U-85F) or nextpnr-ice40 (HX8K) inside a
wrapper whose inputs come from a shift register and whose outputs are XOR-reduced to one pin.
Method and meaning of every figure: docs/area.md.")]
pub struct SynthArgs {
    #[command(flatten)]
    source: ConfigSource,
    /// Block whose design to synthesize (as `rfgen cosim --list` names them)
    #[arg(long, default_value = "mrf", value_parser = Block::parse)]
    block: Block,
    /// Only this module (default: every module of the design, leaves first)
    #[arg(long, value_name = "NAME")]
    module: Option<String>,
    #[command(flatten)]
    flags: SynthFlags,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Yosys runs in parallel (default: number of cores)
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Folder for the RTL, Yosys scripts and logs (default: rfgen-synth-<name>-<hash>-<process id>
    /// in the system temporary folder)
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
    #[command(flatten)]
    pnr: PnrFlags,
}

/// Synthesis settings shared by `rfgen synth` and `rfgen sweep --synth`.
#[derive(Args, Clone, Debug)]
pub struct SynthFlags {
    /// Synthesis target
    #[arg(long, value_enum, default_value_t = Target::Generic)]
    pub target: Target,
    /// Liberty file (.lib or .lib.gz): map the generic gates to its cells and report µm²
    #[arg(long, value_name = "FILE")]
    pub liberty: Option<PathBuf>,
    /// SRAM model: µm² per bit of a black-boxed memory leaf (FakeRAM45, 45 nm: docs/area.md)
    #[arg(long, value_name = "UM2", default_value_t = FAKERAM45_UM2_PER_BIT)]
    pub sram_um2_per_bit: f64,
    /// SRAM model: µm² added per memory macro (periphery)
    #[arg(long, value_name = "UM2", default_value_t = 0.0)]
    pub sram_um2_per_macro: f64,
}

impl SynthFlags {
    /// Checks the flags and opens the Liberty file (every problem there is bad input), then
    /// asks Yosys for its version.
    pub fn options(&self) -> anyhow::Result<Options> {
        if self.liberty.is_some() && self.target.is_fpga() {
            return Err(bad_input(format!(
                "--liberty applies to --target generic (the ASIC view), not {}; FPGA targets report LUTs, FFs and RAM blocks",
                self.target.name()
            )));
        }
        for (flag, v) in
            [("--sram-um2-per-bit", self.sram_um2_per_bit), ("--sram-um2-per-macro", self.sram_um2_per_macro)]
        {
            if !(v.is_finite() && v >= 0.0) {
                return Err(bad_input(format!("{flag} {v}: must be a finite number, 0 or more")));
            }
        }
        let liberty = self.liberty.as_deref().map(Liberty::open).transpose().map_err(bad_input)?;
        let sram = SramModel { um2_per_bit: self.sram_um2_per_bit, um2_per_macro: self.sram_um2_per_macro };
        Ok(Options { target: self.target, liberty, sram, flow: crate::synth::flow()? })
    }
}

/// Place-and-route settings shared by `rfgen synth` and `rfgen sweep --synth`.
#[derive(Args, Clone, Debug)]
pub struct PnrFlags {
    /// Also place and route the top on the FPGA (--target ecp5 or ice40) with nextpnr: Fmax,
    /// resources used, critical path
    #[arg(long)]
    pub pnr: bool,
    /// Clock the place and route aims at
    #[arg(long, value_name = "MHZ", default_value_t = 100.0, requires = "pnr")]
    pub freq: f64,
    /// nextpnr's router: router1 (nextpnr's default; the better Fmax where it routes) or
    /// router2 (routes designs too congested for router1, such as the default SM's MRF on ECP5)
    #[arg(long, value_enum, default_value_t = Router::Router1, requires = "pnr")]
    pub router: Router,
    /// Placements to try, keeping the fastest: nextpnr's default seed, then --seed 2 … N, one
    /// after another (a design's Fmax varies with the placement by 10 % or more)
    #[arg(long, value_name = "N", default_value_t = 1, requires = "pnr",
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub seeds: u32,
}

impl PnrFlags {
    /// The checked settings for `target`; none without --pnr.
    pub fn settings(&self, target: Target) -> anyhow::Result<Option<PnrSettings>> {
        if !self.pnr {
            return Ok(None);
        }
        if !matches!(target, Target::Ecp5 | Target::Ice40) {
            return Err(bad_input(format!("--pnr places on --target ecp5 or ice40, not {}", target.name())));
        }
        if !(self.freq.is_finite() && self.freq > 0.0) {
            return Err(bad_input(format!("--freq {}: must be a positive number of MHz", self.freq)));
        }
        Ok(Some(PnrSettings { freq_mhz: self.freq, router: self.router, seeds: self.seeds }))
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Csv,
    Json,
}

/// A bounded pool of workers: `--jobs`, or one per core.
pub fn pool(jobs: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    if jobs == Some(0) {
        return Err(bad_input("--jobs must be at least 1"));
    }
    let n = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    Ok(rayon::ThreadPoolBuilder::new().num_threads(n).build()?)
}

pub fn run(args: SynthArgs) -> anyhow::Result<ExitCode> {
    let checked = args.source.load()?;
    let opts = args.flags.options()?;
    let pnr_settings = args.pnr.settings(opts.target)?;
    let pool = pool(args.jobs)?;
    let sram = opts.target.sram_kind(checked.config.mrf.entries);
    let design = args.block.generate(&checked, sram).map_err(|e| bad_input(e.to_string()))?;
    let names: Vec<&str> = design.manifest.modules.iter().map(|m| m.name.as_str()).collect();
    let modules = match &args.module {
        None => names.clone(),
        Some(m) if names.contains(&m.as_str()) => vec![m.as_str()],
        Some(m) => return Err(bad_input(format!("unknown module `{m}` (allowed: {})", names.join(", ")))),
    };
    let work = args.work_dir.clone().unwrap_or_else(|| {
        // One per process: two syntheses of the same config at once must not rewrite each
        // other's RTL under Yosys.
        let run = format!("rfgen-synth-{}-{}-{}", checked.config.name, checked.hash(), std::process::id());
        std::env::temp_dir().join(run)
    });
    if work.exists() && !work.is_dir() {
        return Err(bad_input(format!("--work-dir {}: is not a folder", work.display())));
    }
    std::fs::create_dir_all(&work).map_err(|e| path_error("--work-dir", &work, e))?;
    let synth = Synth::new(&design, &opts, &work)?;

    let progress = Progress::new(Some(modules.len() as u64), "{bar:40} {pos}/{len} modules {elapsed} {msg}");
    progress.line(&format!("synthesizing {} modules with Yosys ({})", modules.len(), synth.dir().display()));
    // The largest modules come last in the manifest: start them first.
    let mut areas: Vec<ModuleArea> = pool.install(|| {
        modules
            .par_iter()
            .rev()
            .map(|m| {
                progress.bar().set_message(format!("{m} ..."));
                let started = std::time::Instant::now();
                let area = synth.module(m);
                let outcome = if area.is_ok() { "done" } else { "failed" };
                let secs = started.elapsed().as_secs_f64();
                progress.line(&format!("  {m}: {outcome} in {secs:.1} s ({:.0} s so far)", progress.elapsed()));
                progress.bar().inc(1);
                area
            })
            .collect::<anyhow::Result<_>>()
    })?;
    areas.reverse();
    let pnr = if let Some(settings) = pnr_settings {
        progress.bar().set_message("place and route ...");
        let started = std::time::Instant::now();
        let p = synth.place_and_route(settings)?;
        progress.line(&format!("  place and route: done in {:.1} s", started.elapsed().as_secs_f64()));
        Some(p)
    } else {
        None
    };
    progress.finish();

    match args.format {
        Format::Text => {
            println!(
                "synth {} (config hash {}), target {}{}",
                checked.config.name,
                checked.hash(),
                args.flags.target.name(),
                opts.liberty.as_ref().map(|_| ", Liberty mapped").unwrap_or("")
            );
            if !opts.target.is_fpga() {
                println!(
                    "SRAM leaves black-boxed: {} µm²/bit + {} µm²/macro (docs/area.md)",
                    opts.sram.um2_per_bit, opts.sram.um2_per_macro
                );
            }
            print!("{}", text(&areas));
            if let Some(p) = &pnr {
                print!("{}", pnr_text(p));
            }
            println!("Yosys scripts and logs: {}", synth.dir().display());
        }
        Format::Csv => {
            print!("{}", csv(&areas)?);
            if let Some(p) = &pnr {
                print!("{}", pnr_csv(p)?);
            }
        }
        Format::Json => {
            let report = JsonReport {
                config: &checked.config.name,
                config_hash: checked.hash(),
                flow: &opts.flow,
                target: opts.target,
                liberty: args.flags.liberty.as_deref(),
                sram_model: (!opts.target.is_fpga()).then_some(opts.sram),
                modules: &areas,
                pnr: pnr.as_ref(),
            };
            println!("{}", serde_json::to_string_pretty(&report)?);
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(serde::Serialize)]
struct JsonReport<'a> {
    config: &'a str,
    config_hash: String,
    flow: &'a str,
    target: Target,
    liberty: Option<&'a std::path::Path>,
    sram_model: Option<SramModel>,
    modules: &'a [ModuleArea],
    #[serde(skip_serializing_if = "Option::is_none")]
    pnr: Option<&'a Pnr>,
}

fn pnr_text(p: &Pnr) -> String {
    let used: Vec<String> = p.utilization.iter().map(|(k, u, a)| format!("{k} {u}/{a}")).collect();
    let seeds = if p.fmax_by_seed.len() > 1 {
        let each: Vec<String> = p.fmax_by_seed.iter().map(|f| format!("{f:.1}")).collect();
        format!(", the fastest of {} placements: seed {} (by seed: {} MHz)", each.len(), p.seed, each.join(", "))
    } else {
        String::new()
    };
    format!(
        "place and route ({} {}, {}; the top in a wrapper: {}):\n  Fmax {:.1} MHz for clock {} (target {:.0} MHz){}\n  used: {}\n  critical path: {} -> {}, {:.2} ns\n",
        p.tool,
        p.router.name(),
        p.device,
        p.wrapper,
        p.fmax_mhz,
        p.clock,
        p.constraint_mhz,
        seeds,
        used.join(", "),
        p.critical_from,
        p.critical_to,
        p.critical_ns
    )
}

/// A second table after the modules': one row per resource, and Fmax.
fn pnr_csv(p: &Pnr) -> anyhow::Result<String> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(["pnr", "used", "available"])?;
    w.write_record(["fmax_mhz".to_string(), format!("{:.1}", p.fmax_mhz), format!("{:.0}", p.constraint_mhz)])?;
    if p.fmax_by_seed.len() > 1 {
        w.write_record(["seed".to_string(), p.seed.to_string(), p.fmax_by_seed.len().to_string()])?;
    }
    for (k, u, a) in &p.utilization {
        w.write_record([k.clone(), u.to_string(), a.to_string()])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The summary table, then each module's cells by type, most used first.
fn text(areas: &[ModuleArea]) -> String {
    let Some(first) = areas.first() else { return String::new() };
    let mut header = vec!["module".to_string()];
    header.extend(first.metrics().iter().map(|m| m.label.to_string()));
    let rows: Vec<Vec<String>> = areas
        .iter()
        .map(|a| std::iter::once(a.module.clone()).chain(a.metrics().iter().map(|m| m.format())).collect())
        .collect();
    let mut out = table(&header, &rows);
    out += "\ncells by type:\n";
    for a in areas {
        let mut cells: Vec<_> = a.cells_by_type.iter().collect();
        cells.sort_by(|x, y| y.1.cmp(x.1).then(x.0.cmp(y.0)));
        let list: Vec<String> = cells.iter().map(|(c, n)| format!("{c} {n}")).collect();
        out += &format!("  {}: {}\n", a.module, if list.is_empty() { "none".into() } else { list.join(", ") });
    }
    out
}

fn csv(areas: &[ModuleArea]) -> anyhow::Result<String> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    if let Some(first) = areas.first() {
        w.write_record(std::iter::once("module").chain(first.metrics().iter().map(|m| m.key)))?;
    }
    for a in areas {
        w.write_record(std::iter::once(a.module.clone()).chain(a.metrics().iter().map(|m| m.format())))?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// Left-aligned first column, right-aligned numbers.
pub fn table(header: &[String], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..header.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).chain([header[i].chars().count()]).max().unwrap_or(0))
        .collect();
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = " ".repeat(widths[i] - c.chars().count());
            s += &if i == 0 { format!("{c}{pad}") } else { format!("  {pad}{c}") };
        }
        s.trim_end().to_string() + "\n"
    };
    std::iter::once(line(header)).chain(rows.iter().map(|r| line(r))).collect()
}
