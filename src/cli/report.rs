//! `rfgen report`: every seed's headline experiment, ours beside the paper's, as Markdown and a
//! self-contained HTML page with SVG plots.

use super::progress::Progress;
use super::synth::pool;
use super::{bad_input, claim_folder};
use crate::report::{self, page};
use crate::sweep::write_atomic;
use clap::Args;
use rfgen_model::kernel::{Kernel, library};
use std::path::PathBuf;
use std::process::ExitCode;

/// Run every paper's headline experiment rfgen models and write the comparison page
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen report                         # all application kernels into report/
  rfgen report --out paper-check/ --jobs 2
  rfgen report --kernel vecadd --kernel bfs --out quick/

Runs, on the SM model, seed 000's register file cache (isca11-rfc, 1 to 8 entries), seed 001's
ORF/LRF (micro11-orf-lrf, 1 to 8 entries), seed 002's warpboards, seed 003's hybrid CMOS/TFET
designs (tfet-hybrid, one SM and four) and seed 004's compression, on the library's application
kernels (heartwall, seed 002's hazard pattern, is left out as in the README), and synthesizes the
small preset's MRF with 1, 2 and 4 register file cache entries (Yosys logs in DIR/work/). Writes
DIR/report.md with one SVG per plot beside it, and DIR/report.html with the plots inline; each
claim names the command that reproduces it.

Exit status: 0 when every run finished with every operand right, 1 otherwise, 2 on bad input.")]
pub struct ReportArgs {
    /// Output folder: new, empty, or one an earlier report wrote
    #[arg(long, default_value = "report")]
    out: PathBuf,
    /// Kernel to run (library name; repeat; default: every application kernel)
    #[arg(long = "kernel")]
    kernels: Vec<String>,
    /// Runs at once (default: one per core)
    #[arg(long)]
    jobs: Option<usize>,
}

pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let names: Vec<&str> = if args.kernels.is_empty() {
        library::KERNELS.iter().map(|k| k.name).filter(|&n| n != "heartwall").collect()
    } else {
        args.kernels.iter().map(String::as_str).collect()
    };
    let kernels: Vec<Kernel> = names
        .iter()
        .map(|&n| {
            let lib = library::find(n).ok_or_else(|| {
                let all: Vec<&str> = library::KERNELS.iter().map(|k| k.name).collect();
                bad_input(format!("--kernel {n}: not a library kernel (allowed: {})", all.join(", ")))
            })?;
            lib.parse().map_err(|e| anyhow::anyhow!("{n}: {e}"))
        })
        .collect::<anyhow::Result<_>>()?;
    let pool = pool(args.jobs)?;
    claim_folder(&args.out, "report", "a later report replaces its files")?;
    let progress = Progress::new(Some(0), "{bar:40} {pos}/{len} runs {elapsed} eta {eta}");
    progress.line(&format!("report: {} kernels, on {} threads", kernels.len(), pool.current_num_threads()));
    let report = pool.install(|| {
        report::run(&kernels, &args.out.join("work"), &|done, total| {
            progress.bar().set_length(total as u64);
            progress.set_position(done as u64, |d| format!("{d} of {total} runs"));
        })
    });
    progress.finish();
    let report = report?;
    for p in &report.plots {
        write_atomic(&args.out.join(format!("{}.svg", p.name)), p.svg.as_bytes())?;
    }
    write_atomic(&args.out.join("report.md"), page::markdown(&report).as_bytes())?;
    write_atomic(&args.out.join("report.html"), page::html(&report).as_bytes())?;
    // The claims, without the plots.
    print!("{}", page::markdown(&report).split("## Plots").next().unwrap_or_default());
    println!("\nwrote {}/report.md, report.html and {} plots", args.out.display(), report.plots.len());
    Ok(ExitCode::SUCCESS)
}
