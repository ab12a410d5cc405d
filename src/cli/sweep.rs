//! `rfgen sweep`: measure every point of a cross product of config parameters.

use super::backend::{BackendFlags, task_args};
use super::synth::{PnrFlags, SynthFlags, pool, table};
use super::{ConfigSource, bad_input, claim_folder};
use crate::slurm::Task;
use crate::sweep::{CosimSettings, Job, KernelSettings, Param, Row, SimKernel, Status, points, show, write_results};
use crate::synth::Target;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use rfgen_cosim::verilator::default_cache_dir;
use sha2::Digest as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Sweep configuration parameters: synthesize, cosimulate and run kernels on every point, tabulate and plot
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen sweep --param mrf.collectors=2,4,8 --synth --out sweep/
  rfgen sweep --param mrf.banks=16,32,64 --param mrf.collectors=2,4,8 --synth --target ice40 --out banks/
  rfgen sweep --preset small --param mrf.entries=64,128 --synth --cosim 20000 --jobs 2 --out small/
  rfgen sweep --preset isca11-rfc --param rfc.entries=1,2,4,6,8 --kernel all --out rfc/
  rfgen sweep --preset small --param mrf.collectors=2,4 --synth --target ecp5 --pnr --out fmax/
  rfgen sweep --param sm.warps=16,32,64 --out check/     # only validate and list the points
  rfgen sweep --preset small --param mrf.entries=32,64 --kernel all --backend slurm --partition short --out shared/s/

PATH is a key of the configuration (docs/config.md), LIST its comma-separated values; several
--param give their cross product. Invalid points are reported in the results, not fatal. Each
measured point is stored in DIR/points/<config hash>.json: rerunning with the same settings skips
it. --synth measures every module (results.csv: the top's figures, then `<module>.<figure>`);
--kernel records cycles, IPC, register-file energy and MRF traffic per kernel (with a register
file cache also what it saves), `<kernel>.<figure>`, and with several kernels their total energy
and mean ratios, `all.<figure>`. Writes DIR/results.csv, DIR/results.json and, with --synth or
--kernel, DIR/<PATH>.svg per varied parameter; each point is named <base name>-<config hash>
(its first 8 digits), and its Yosys logs are in DIR/work/<config hash>/.

--backend slurm measures the points as one Slurm job array (sbatch), each task one point run by
this rfgen binary on DIR, which every node must share; it follows them with squeue, retries a
task that ended without its record once (its log is in DIR/slurm/), cancels the array on Ctrl-C,
and writes the same results as the local backend. Rerunning resumes: finished points are kept.

Exit status: 0 when every valid point was measured, 1 when a tool failed or cosim found a
mismatch, 2 on bad input.")]
pub struct SweepArgs {
    #[command(flatten)]
    source: ConfigSource,
    /// Parameter to vary: PATH=V1,V2,... (repeat for a cross product)
    #[arg(long = "param", value_name = "PATH=LIST", required = true)]
    params: Vec<String>,
    /// Synthesize the top module of each point with Yosys (settings below)
    #[arg(long)]
    synth: bool,
    #[command(flatten)]
    flags: SynthFlags,
    /// With --synth on --target ecp5 or ice40, --pnr places and routes each point's top with
    /// nextpnr and records its Fmax (`fmax_mhz`)
    #[command(flatten)]
    pnr: PnrFlags,
    /// Cosimulate the MRF of each point against the golden model for CYCLES cycles
    #[arg(long, value_name = "CYCLES")]
    cosim: Option<u64>,
    /// Cosim stimulus seed
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run a kernel on the SM model of each point: library name, .kir or .ptx file, `synthetic:KNOBS`
    /// (as `rfgen sim --synthetic`), or `all` for every library kernel (repeat for several)
    #[arg(long = "kernel", value_name = "NAME|FILE|synthetic:KNOBS|all")]
    kernels: Vec<String>,
    /// Points measured in parallel (default: number of cores)
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Output folder: new, empty, or one an earlier sweep wrote (its done points are skipped)
    #[arg(long, value_name = "DIR", required = true)]
    out: PathBuf,
    /// Verilator build cache (default: $RFGEN_CACHE_DIR or ~/.cache/rfgen)
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    #[command(flatten)]
    backend: BackendFlags,
    /// Measure only the point of this index and store its record (one task of the Slurm backend)
    #[arg(long, hide = true, value_name = "INDEX")]
    point: Option<usize>,
}

pub fn run(args: SweepArgs) -> anyhow::Result<ExitCode> {
    // Every point's kernels are compared with the same baseline runs: make each once.
    rfgen_model::sim::memo::enable();
    let base = args.source.load()?;
    let base_table = base.to_table();
    let params: Vec<Param> =
        args.params.iter().map(|s| Param::parse(s, &base_table)).collect::<Result<_, _>>().map_err(bad_input)?;
    for (i, p) in params.iter().enumerate() {
        if params[..i].iter().any(|q| q.path == p.path) {
            return Err(bad_input(format!("--param {}: given twice; list all its values in one --param", p.path)));
        }
    }
    if !args.synth && (args.flags.liberty.is_some() || args.flags.target != Target::Generic) {
        return Err(bad_input("--target and --liberty need --synth"));
    }
    if args.pnr.pnr && !args.synth {
        return Err(bad_input("--pnr needs --synth with --target ecp5 or ice40"));
    }
    let pnr = args.pnr.settings(args.flags.target)?;
    if args.cosim == Some(0) {
        return Err(bad_input("--cosim must be at least 1 cycle"));
    }
    let job = Job {
        synth: if args.synth { Some(args.flags.options()?) } else { None },
        pnr,
        cosim: args.cosim.map(|cycles| CosimSettings { block: rfgen_gen::Block::Mrf, cycles, seed: args.seed }),
        sim: kernels(&args.kernels)?,
        cache: args.cache_dir.clone().unwrap_or_else(default_cache_dir),
    };
    let pool = pool(args.jobs)?;
    let slurm = args.backend.slurm()?;
    let out = &args.out;
    claim_folder(out, "sweep", "points/ and work/ are reused by later sweeps")?;

    let points = points(&base, &params);
    if let Some(i) = args.point {
        let checked = points.get(i).and_then(|p| p.config.as_ref().ok());
        let checked = checked.ok_or_else(|| bad_input(format!("--point {i}: not a valid point of this sweep")))?;
        if job.done(out, checked).is_none() {
            job.measure(out, checked)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let describe = |values: &[toml::Value]| {
        params.iter().zip(values).map(|(p, v)| format!("{}={}", p.path, show(v))).collect::<Vec<_>>().join(" ")
    };
    let mut rows: Vec<Row> = points
        .iter()
        .map(|p| {
            let (status, message, record) = match &p.config {
                Err(e) => (Status::Invalid, e.clone(), None),
                Ok(c) => (Status::Ok, String::new(), job.done(out, c)),
            };
            Row { values: p.values.clone(), status, message, reused: record.is_some(), record }
        })
        .collect();
    let todo: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].status == Status::Ok && !rows[i].reused).collect();
    eprintln!(
        "sweep of {} ({} points: {} to measure, {} done earlier, {} invalid) into {}",
        base.config.name,
        rows.len(),
        todo.len(),
        rows.iter().filter(|r| r.reused).count(),
        rows.iter().filter(|r| r.status == Status::Invalid).count(),
        out.display()
    );

    let config = |i: usize| points[i].config.as_ref().expect("only valid points are measured");
    let measured: Vec<(usize, anyhow::Result<_>)> = match slurm {
        Some(settings) => {
            let tasks: Vec<Task> = todo
                .iter()
                .map(|&i| Task {
                    label: describe(&points[i].values),
                    args: task_args(&[], &["--point".into(), i.to_string()]),
                })
                .collect();
            let done = |k: usize| job.done(out, config(todo[k])).is_some();
            let failures = crate::slurm::run_array("sweep", &out.join("slurm"), &settings, &tasks, &done)?;
            todo.iter()
                .enumerate()
                .map(|(k, &i)| match failures.iter().find(|f| f.index == k) {
                    Some(f) => (i, Err(anyhow::anyhow!("{}", f.message))),
                    None => (i, job.done(out, config(i)).ok_or_else(|| anyhow::anyhow!("no record was stored"))),
                })
                .collect()
        }
        None => {
            let bar = ProgressBar::new(todo.len() as u64);
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} points {elapsed} eta {eta}")
                    .expect("valid template"),
            );
            let measured = pool.install(|| {
                todo.par_iter()
                    .map(|&i| {
                        let result = job.measure(out, config(i));
                        let outcome = match &result {
                            Ok(_) => "done".to_string(),
                            Err(e) => format!("FAILED: {e:#}"),
                        };
                        bar.suspend(|| {
                            eprintln!("  {} ({}): {outcome}", describe(&points[i].values), config(i).config.name)
                        });
                        bar.inc(1);
                        (i, result)
                    })
                    .collect()
            });
            bar.finish_and_clear();
            measured
        }
    };
    for (i, result) in measured {
        match result {
            Ok(record) => rows[i].record = Some(record),
            Err(e) => (rows[i].status, rows[i].message) = (Status::Failed, format!("{e:#}")),
        }
    }
    for row in &mut rows {
        let unfit: Vec<String> = row
            .record
            .iter()
            .flat_map(|r| &r.sim)
            .filter_map(|s| Some(format!("kernel {}: {}", s.kernel, s.error.as_ref()?)))
            .collect();
        if !unfit.is_empty() {
            row.message = unfit.join("; ");
        }
        if let Some(m) = row.record.as_ref().and_then(|r| r.cosim.as_ref()).and_then(|c| c.mismatch.as_ref()) {
            row.status = Status::Mismatch;
            row.message = format!("RTL and model differ (seed {}): {}", args.seed, m.lines().next().unwrap_or(""));
        }
    }

    let written = write_results(out, &base.config.name, &params, &job.settings(), &rows)?;
    print_summary(&params, &rows);
    let files: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    println!("wrote {}", files.join(", "));
    let bad = rows.iter().filter(|r| matches!(r.status, Status::Failed | Status::Mismatch)).count();
    Ok(if bad == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The kernels of `--kernel`, each with what identifies its results (source hash and rfgen
/// version) and how it is loaded within a point's registers per thread.
fn kernels(names: &[String]) -> anyhow::Result<Vec<SimKernel>> {
    let library: Vec<String> = rfgen_model::kernel::library::KERNELS.iter().map(|k| k.name.to_string()).collect();
    let names = names.iter().flat_map(|n| if n == "all" { library.clone() } else { vec![n.clone()] });
    let mut out: Vec<SimKernel> = Vec::new();
    for name in names {
        // Loaded once here, so that a bad kernel is refused before any point runs.
        let (kernel, source) = super::kernel_with_source(&name)?;
        if out.iter().any(|k| k.settings.kernel == kernel.name) {
            return Err(bad_input(format!("--kernel {name}: a kernel named `{}` is given twice", kernel.name)));
        }
        let hash = sha2::Sha256::digest(source.as_bytes())[..8].iter().map(|b| format!("{b:02x}")).collect();
        let settings =
            KernelSettings { kernel: kernel.name.clone(), source: hash, rfgen: env!("CARGO_PKG_VERSION").to_string() };
        let within = Box::new(move |registers| super::kernel_within(&name, registers).map(|(k, _)| k));
        out.push(SimKernel { settings, within });
    }
    Ok(out)
}

fn print_summary(params: &[Param], rows: &[Row]) {
    let metrics = crate::sweep::columns(rows, true);
    let mut header: Vec<String> = params.iter().map(|p| p.path.clone()).collect();
    header.extend(["name".into(), "status".into()]);
    header.extend(metrics.iter().map(|(_, label)| label.to_string()));
    let cosim = rows.iter().any(|r| r.record.as_ref().is_some_and(|r| r.cosim.is_some()));
    if cosim {
        header.push("cosim".into());
    }
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            let mut line: Vec<String> = row.values.iter().map(show).collect();
            line.push(row.record.as_ref().map(|r| r.name.clone()).unwrap_or_default());
            line.push(row.status.as_str().to_string());
            let figures = row.figures();
            line.extend(metrics.iter().map(|(key, _)| crate::sweep::cell(&figures, key)));
            if cosim {
                line.push(row.cosim().to_string());
            }
            line
        })
        .collect();
    print!("{}", table(&header, &lines));
    for row in rows.iter().filter(|r| !r.message.is_empty()) {
        let values: Vec<String> =
            params.iter().zip(&row.values).map(|(p, v)| format!("{}={}", p.path, show(v))).collect();
        println!("{} {}: {}", row.status.as_str(), values.join(" "), row.message);
    }
}
