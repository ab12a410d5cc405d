//! `rfgen report`: every seed's headline experiment, ours beside the paper's, as Markdown and a
//! self-contained HTML page with SVG plots.

use super::backend::{BackendFlags, task_args, task_key};
use super::progress::Progress;
use super::synth::pool;
use super::{bad_input, claim_folder};
use crate::report::{self, Measurement, Plan, Report, page};
use crate::slurm::{self, Task};
use crate::sweep::write_atomic;
use clap::Args;
use rfgen_model::kernel::{Kernel, library};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Run every paper's headline experiment rfgen models and write the comparison page
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen report                         # the library, the PTX suite and the synthetic kernels
  rfgen report --readme README.md      # and its tables into README.md's report lines
  rfgen report --out paper-check/ --jobs 2
  rfgen report --kernel vecadd --kernel bfs --out quick/
  rfgen report --kernel ptx:sgemm --kernel ptx:nbody --out compute/
  rfgen report --backend slurm --partition short --out shared/report/
  rfgen report --no-synth                  # without the area sweep: no Yosys needed

Runs, on the SM model, seed 000's register file cache (isca11-rfc, 1 to 8 entries), seed 001's
ORF/LRF (micro11-orf-lrf, 1 to 8 entries), seed 002's warpboards, seed 003's hybrid CMOS/TFET
designs (tfet-hybrid, one SM and four) and seed 004's compression, on three kernel sets, each
its own column beside the paper's figure: the library's application kernels (heartwall, seed
002's hazard pattern, is left out as in the README), the CUDA C suite compiled to PTX (ptx:NAME,
rfgen sim --list-kernels) and the README's four synthetic kernels (synthetic:KNOBS); the suite's
and the synthetic kernels' plots end in -suite.svg and -synthetic.svg. --readme FILE also
writes the claims into FILE between its report lines. It synthesizes the
small preset's MRF with 1, 2 and 4 register file cache entries (Yosys logs in DIR/work/). Writes
DIR/report.md with one SVG per plot beside it, and DIR/report.html with the plots inline; each
claim names the command that reproduces it.

--backend slurm runs each simulation and synthesis as one task of a Slurm job array (sbatch) on
DIR, which every node must share; each task stores its measurement in DIR/runs/, a task that
ended without it is retried once (its log is in DIR/slurm/), Ctrl-C cancels the array, and the
page is the one the local backend writes. Rerunning the same command resumes: stored runs are kept.

Exit status: 0 when every run finished with every operand right, 1 otherwise, 2 on bad input.")]
pub struct ReportArgs {
    /// Output folder: new, empty, or one an earlier report wrote
    #[arg(long, default_value = "report")]
    out: PathBuf,
    /// Kernel to run: a library kernel, ptx:NAME or synthetic:KNOBS (repeat; default: every
    /// library application kernel, every PTX workload and the README's synthetic kernels)
    #[arg(long = "kernel")]
    kernels: Vec<String>,
    /// Also write the claims into FILE between its lines `<!-- rfgen report: begin ... -->` and
    /// `<!-- rfgen report: end -->` (the README's tables against the papers)
    #[arg(long, value_name = "FILE")]
    readme: Option<PathBuf>,
    /// Leave out the area sweep (the only part that runs Yosys)
    #[arg(long)]
    no_synth: bool,
    /// Runs at once on this machine (default: one per core)
    #[arg(long)]
    jobs: Option<usize>,
    #[command(flatten)]
    backend: BackendFlags,
    /// Measure only the run of this index and store it in FILE (one task of the Slurm backend)
    #[arg(long, hide = true, requires = "run_result")]
    run: Option<usize>,
    #[arg(long, hide = true, value_name = "FILE", requires = "run")]
    run_result: Option<PathBuf>,
}

/// A library kernel, a built-in PTX workload or a synthetic kernel, named as `--kernel` names it
/// (the suite's workloads share names with library kernels), and the kernel set it belongs to.
fn report_kernel(name: &str) -> anyhow::Result<(&'static str, Kernel)> {
    let set = if name.starts_with("synthetic:") {
        report::SYNTHETIC
    } else if name.starts_with(super::ptx::WORKLOAD_PREFIX) {
        report::SUITE
    } else if library::find(name).is_some() {
        report::LIBRARY
    } else {
        let all: Vec<&str> = library::KERNELS.iter().map(|k| k.name).collect();
        return Err(bad_input(format!(
            "--kernel {name}: not a library kernel (allowed: {}), a PTX workload ptx:NAME (rfgen sim --list-kernels) nor synthetic:KNOBS",
            all.join(", ")
        )));
    };
    let mut kernel = super::kernel(name)?;
    kernel.name = name.to_string();
    Ok((set, kernel))
}

pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    // Every point is compared with the baseline, every cache size with no cache: run each once.
    rfgen_model::sim::memo::enable();
    let names: Vec<String> = if args.kernels.is_empty() {
        let library = library::KERNELS.iter().map(|k| k.name).filter(|&n| n != "heartwall").map(String::from);
        let synthetic = report::SYNTHETIC_KERNELS.map(String::from);
        library.chain(super::ptx::workload_specs()).chain(synthetic).collect()
    } else {
        args.kernels.clone()
    };
    let kernels = names.iter().map(|n| report_kernel(n)).collect::<anyhow::Result<_>>()?;
    let pool = pool(args.jobs)?;
    let slurm = args.backend.slurm()?;
    let plan = Plan::new(kernels, !args.no_synth);
    let work = args.out.join("work");
    if let (Some(i), Some(file)) = (args.run, &args.run_result) {
        if i >= plan.runs() {
            return Err(bad_input(format!("--run {i}: this report has {} runs", plan.runs())));
        }
        let m = pool.install(|| plan.measure(i, &work))?;
        write_atomic(file, &serde_json::to_vec(&m)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    // A README without its report lines is refused before anything runs.
    let readme = match &args.readme {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| bad_input(format!("--readme {}: cannot read it: {e}", path.display())))?;
            let begin = text.find(page::README_BEGIN);
            if begin.is_none() || begin >= text.find(page::README_END) {
                return Err(bad_input(format!(
                    "--readme {}: it has no line `{}` followed by a line `{}` to write between",
                    path.display(),
                    page::README_BEGIN,
                    page::README_END
                )));
            }
            Some((path, text))
        }
        None => None,
    };
    claim_folder(&args.out, "report", "a later report replaces its files; runs/ is reused by the same command")?;
    let report = match slurm {
        Some(settings) => on_slurm(&settings, &args.out, &plan)?,
        None => {
            let progress = Progress::new(Some(0), "{bar:40} {pos}/{len} runs {elapsed} eta {eta}");
            let threads = pool.current_num_threads();
            progress.line(&format!(
                "report: {} runs over {} kernels, on {threads} threads",
                plan.runs(),
                plan.kernels()
            ));
            let report = pool.install(|| {
                report::run(&plan, &work, &|done, total| {
                    progress.bar().set_length(total as u64);
                    progress.set_position(done as u64, |d| format!("{d} of {total} runs"));
                })
            });
            progress.finish();
            report?
        }
    };
    for p in &report.plots {
        write_atomic(&args.out.join(format!("{}.svg", p.name)), p.svg.as_bytes())?;
    }
    write_atomic(&args.out.join("report.md"), page::markdown(&report).as_bytes())?;
    write_atomic(&args.out.join("report.html"), page::html(&report).as_bytes())?;
    if let Some((path, text)) = readme {
        let written = page::into_readme(&text, &report).expect("its lines were checked before the runs");
        write_atomic(path, written.as_bytes())?;
        println!("wrote the claims into {}", path.display());
    }
    // The claims, without the plots.
    print!("{}", page::markdown(&report).split("## Plots").next().unwrap_or_default());
    println!("\nwrote {}/report.md, report.html and {} plots", args.out.display(), report.plots.len());
    Ok(ExitCode::SUCCESS)
}

/// Measures the runs as a Slurm job array, one task per run, each storing its measurement in
/// `out/runs/`, and assembles the report from them.
fn on_slurm(settings: &slurm::Settings, out: &Path, plan: &Plan) -> anyhow::Result<Report> {
    std::fs::create_dir_all(out.join("runs"))?;
    let (tasks, files): (Vec<Task>, Vec<PathBuf>) = (0..plan.runs())
        .map(|i| {
            let mut args = task_args(&[], &["--run".into(), i.to_string()]);
            let file = out.join("runs").join(format!("{i}-{}.json", task_key(&args)));
            args.extend(["--run-result".into(), file.clone().into_os_string()]);
            (Task { label: plan.label(i), args }, file)
        })
        .unzip();
    let failures = slurm::run_array("report", &out.join("slurm"), settings, &tasks, &|i| files[i].is_file())?;
    if !failures.is_empty() {
        let lines: Vec<String> =
            failures.iter().map(|f| format!("  {}: {}", tasks[f.index].label, f.message)).collect();
        anyhow::bail!("{} of {} runs failed twice on Slurm:\n{}", failures.len(), plan.runs(), lines.join("\n"));
    }
    let measured = files
        .iter()
        .map(|file| {
            let text = std::fs::read(file)?;
            serde_json::from_slice::<Measurement>(&text)
                .map_err(|e| anyhow::anyhow!("{}: not the measurement of a report task: {e}", file.display()))
        })
        .collect::<anyhow::Result<_>>()?;
    plan.assemble(measured)
}
