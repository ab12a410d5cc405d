//! `rfgen regress`: every block a config generates (the composed top `sm` among them) under
//! random stimulus with several seeds and under every library kernel and PTX workload, in
//! parallel, each case run by `rfgen cosim`'s own code; one summary table, a JUnit report.

use super::backend::{BackendFlags, task_args, task_key};
use super::cosim::{
    KERNEL_CYCLE_LIMIT, Stimulus, failure_details, failure_summary, launched_kernel, reproducer, run_session,
    writable_file, writable_folder,
};
use super::progress::Progress;
use super::{BadInput, ConfigSource, bad_input, claim_folder};
use crate::regress::{self, Case, CaseResult, Totals, Verdict, junit};
use crate::slurm::{self, Task};
use clap::Args;
use rayon::prelude::*;
use rfgen_cosim::blocks;
use rfgen_cosim::session::{self, CosimOptions, Event};
use rfgen_cosim::user_rtl::{self, UserRtlError};
use rfgen_cosim::verilator::{TraceKind, default_cache_dir};
use rfgen_gen::{Block, Checked, Design, SramKind};
use rfgen_model::kernel::Kernel;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Cosimulate every block of a config under random stimulus and kernels, in parallel
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen regress --preset small                    # every block, 2 seeds, every kernel
  rfgen regress --preset small --junit report.xml --jobs 2
  rfgen regress --config my.toml --rtl my-rtl/ --junit report.xml
  rfgen regress --preset small --block mrf --kernel matmul --kernel ptx:sgemm --seeds 4
  rfgen regress --preset small --kernel none --cycles 100000   # random stimulus only
  rfgen regress --preset small --x-seeds 4        # every case from 4 power-up states

Cases: each block the config generates (rfgen cosim --list; --block to choose) under random
stimulus with --seeds seeds, fixed per block and index so every run repeats them, and, for the
blocks the SM model drives, under every library kernel and built-in PTX workload (--kernel to
choose). A kernel that does not fit the config's SM is reported as skipped with the reason. The
composed top's random stimulus is a random program, run to its end like a kernel. With
--x-seeds N each of these runs again from N-1 more power-up states of the registers without a
reset, each its own case (named with its x-seed). Each failed case is reported with the rfgen
cosim command that repeats it.

With --rtl, each block's top is taken from DIR (its filelist <top>.f, else every .v/.sv file)
and its ports must match the block's interface; blocks whose top module DIR does not define
are skipped. Verilator builds are cached by RTL hash ($RFGEN_CACHE_DIR), one per block.

Exit status: 0 when every case that ran passed, 1 on a mismatch or failure, 2 on bad input.")]
pub struct RegressArgs {
    #[command(flatten)]
    source: ConfigSource,
    /// Check the RTL in DIR (a user's copy, as rfgen gen writes it) instead of generating it
    #[arg(long, value_name = "DIR")]
    rtl: Option<PathBuf>,
    /// Only this block (repeat for several; default: every block the config generates)
    #[arg(long = "block", value_name = "NAME", value_parser = Block::parse)]
    blocks: Vec<Block>,
    /// Only this kernel (repeat for several): a library kernel, ptx:NAME (rfgen sim
    /// --list-kernels) or a .kir/.ptx file; `none` for random stimulus only (default: every
    /// library kernel and PTX workload)
    #[arg(long = "kernel", value_name = "NAME|FILE")]
    kernels: Vec<String>,
    /// Random stimulus: cycles per seed (the composed top's random programs run to their end)
    #[arg(long, default_value_t = 20_000, value_parser = super::cycles)]
    cycles: u64,
    /// Random-stimulus seeds per block, 0 to 1000
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=1000))]
    seeds: u32,
    /// Run every case under N power-up states of the registers without a reset: its default
    /// x-seed and the N-1 after it (as rfgen cosim --x-seeds), each its own case; 1 to 100
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    x_seeds: u32,
    /// Cases run in parallel (default: number of cores)
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Write a JUnit XML report (for GitLab, Jenkins, GitHub test reporters)
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write the waveform of each mismatch into DIR/<block>-<case>/ (default: none written)
    #[arg(long, value_name = "DIR")]
    wave_dir: Option<PathBuf>,
    /// Verilator build cache (default: $RFGEN_CACHE_DIR or ~/.cache/rfgen)
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    #[command(flatten)]
    backend: BackendFlags,
    /// With --backend slurm: a folder every node shares, for the tasks' results and logs (new,
    /// empty, or one an earlier regress wrote: a rerun of the same command keeps what finished)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write the cases' results as JSON to FILE (one task of the Slurm backend)
    #[arg(long, hide = true, value_name = "FILE")]
    case_results: Option<PathBuf>,
}

/// One block's RTL, or why its cases do not run.
struct BlockRtl {
    block: Block,
    top: String,
    design: Result<Design, String>,
}

/// A case and what running it needs.
struct Job {
    case: Case,
    /// The block's entry in the list of [`BlockRtl`].
    rtl: usize,
    /// The kernel as launched (kernels and the composed top's random programs).
    kernel: Option<Kernel>,
    /// Known before running: skipped, or an error preparing it.
    settled: Option<Verdict>,
}

pub fn run(args: RegressArgs) -> anyhow::Result<ExitCode> {
    // Every input is checked before anything runs.
    let pool = super::synth::pool(args.jobs)?;
    let slurm = args.backend.slurm()?;
    match (&slurm, &args.out) {
        (Some(_), None) => {
            return Err(bad_input(
                "--backend slurm needs --out DIR, a folder every node shares, for the tasks' results",
            ));
        }
        (None, Some(_)) => return Err(bad_input("--out is the Slurm backend's folder: it needs --backend slurm")),
        _ => {}
    }
    if let Some(path) = &args.junit {
        writable_file("--junit", path)?;
    }
    if let Some(dir) = &args.wave_dir {
        writable_folder("--wave-dir", dir)?;
    }
    if let Some(dir) = &args.rtl
        && !dir.is_dir()
    {
        let why = if dir.exists() { "not a folder" } else { "no such folder" };
        return Err(bad_input(format!("--rtl {}: {why}", dir.display())));
    }
    let checked = args.source.load()?;
    let kernels = kernel_specs(&args.kernels)?;
    let rtls = block_rtls(&args, &checked)?;
    let jobs = plan(&args, &checked, &rtls, &kernels);
    let to_run = jobs.iter().filter(|j| j.settled.is_none()).count();
    if to_run == 0 {
        let mut reasons: Vec<String> = Vec::new();
        for why in jobs.iter().filter_map(|j| j.case.skip.clone()) {
            if !reasons.contains(&why) {
                reasons.push(why);
            }
        }
        let why = if reasons.is_empty() { "no case (--seeds 0 and no kernel)".to_string() } else { reasons.join("; ") };
        return Err(bad_input(format!("nothing to run: {why}")));
    }

    let cache = args.cache_dir.clone().unwrap_or_else(default_cache_dir);
    let rtl_note = args.rtl.as_ref().map_or("generated RTL".to_string(), |d| format!("RTL from {}", d.display()));
    println!(
        "regress of config {} (hash {}), {rtl_note}: {} cases over {} blocks ({} skipped), {} jobs",
        checked.config.name,
        checked.hash(),
        jobs.len(),
        rtls.len(),
        jobs.len() - to_run,
        pool.current_num_threads()
    );
    let results = match (&slurm, &args.out) {
        (Some(settings), Some(out)) => on_slurm(settings, out, &rtls, &jobs)?,
        _ => run_here(&args, &checked, &rtls, &jobs, &cache, &pool),
    };
    if let Some(path) = &args.case_results {
        let json = serde_json::to_vec_pretty(&results)?;
        crate::sweep::write_atomic(path, &json)?;
    }

    print!("{}", regress::table(&results));
    let failures = regress::failures(&results);
    if !failures.is_empty() {
        println!("\nfailed cases:\n{failures}");
    }
    if let Some(path) = &args.junit {
        let tops: Vec<(Block, String)> = rtls.iter().map(|r| (r.block, r.top.clone())).collect();
        let hash = checked.hash().to_string();
        let info =
            junit::RunInfo { config: &checked.config.name, config_hash: &hash, rtl: args.rtl.as_deref(), tops: &tops };
        junit::write(path, &junit::render(&info, &results))
            .map_err(|e| anyhow::anyhow!("cannot write the JUnit report {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    let t = Totals::of(&results);
    if t.failed + t.errors == 0 {
        println!("PASS: {} cases passed, {} skipped", t.passed, t.skipped);
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "FAIL: {} cases failed ({} mismatched, {} could not run), {} passed, {} skipped",
            t.failed + t.errors,
            t.failed,
            t.errors,
            t.passed,
            t.skipped
        );
        Ok(ExitCode::from(1))
    }
}

/// Flags a task does not repeat: the controller writes the JUnit report, and a task runs one
/// block on this machine.
const DROPPED: &[&str] = &["--junit", "--block", "--out"];

/// Runs the cases as a Slurm job array, one task per block with cases to run (each builds its
/// block once, as here), and merges the tasks' results in the order of `jobs`.
fn on_slurm(
    settings: &slurm::Settings,
    out: &Path,
    rtls: &[BlockRtl],
    jobs: &[Job],
) -> anyhow::Result<Vec<CaseResult>> {
    claim_folder(out, "regress", "results/ and slurm/ are reused by a rerun of the same command")?;
    let runs = |rtl: usize| jobs.iter().any(|j| j.rtl == rtl && j.settled.is_none());
    let blocks: Vec<usize> = (0..rtls.len()).filter(|&i| runs(i)).collect();
    std::fs::create_dir_all(out.join("results"))?;
    let (tasks, files): (Vec<Task>, Vec<PathBuf>) = blocks
        .iter()
        .map(|&i| {
            let block = rtls[i].block;
            let mut args = task_args(DROPPED, &["--block".into(), block.name().into()]);
            let file = out.join("results").join(format!("{}-{}.json", block.name(), task_key(&args)));
            args.extend(["--case-results".into(), file.clone().into_os_string()]);
            (Task { label: format!("block {block}"), args }, file)
        })
        .unzip();
    let failures = slurm::run_array("regress", &out.join("slurm"), settings, &tasks, &|k| files[k].is_file())?;
    let mut finished: std::collections::HashMap<(usize, String), CaseResult> = Default::default();
    for (k, &i) in blocks.iter().enumerate() {
        if failures.iter().any(|f| f.index == k) {
            continue;
        }
        let text = std::fs::read(&files[k])?;
        let results: Vec<CaseResult> = serde_json::from_slice(&text)
            .map_err(|e| anyhow::anyhow!("{}: not the results of a regress task: {e}", files[k].display()))?;
        finished.extend(results.into_iter().map(|r| ((i, r.case.name()), r)));
    }
    let failed_task = |rtl: usize| {
        let k = blocks.iter().position(|&i| i == rtl)?;
        failures.iter().find(|f| f.index == k).map(|f| f.message.clone())
    };
    Ok(jobs
        .iter()
        .map(|job| {
            if job.settled.is_some() {
                return settled(job);
            }
            if let Some(why) = failed_task(job.rtl) {
                return CaseResult { verdict: Verdict::Error(why), ..CaseResult::skipped(job.case.clone()) };
            }
            match finished.remove(&(job.rtl, job.case.name())) {
                Some(r) => r,
                None => {
                    let why = "the Slurm task's results do not list this case".to_string();
                    CaseResult { verdict: Verdict::Error(why), ..CaseResult::skipped(job.case.clone()) }
                }
            }
        })
        .collect())
}

/// Runs the cases on this machine's cores.
fn run_here(
    args: &RegressArgs,
    checked: &Checked,
    rtls: &[BlockRtl],
    jobs: &[Job],
    cache: &Path,
    pool: &rayon::ThreadPool,
) -> Vec<CaseResult> {
    let progress = Progress::new(Some(jobs.len() as u64), "{bar:40} {pos}/{len} cases {elapsed} eta {eta}");
    let built = build_all(rtls, cache, &progress);
    let results: Vec<CaseResult> = pool.install(|| {
        jobs.par_iter()
            .map(|job| {
                let result = match (&job.settled, &built[job.rtl]) {
                    (Some(_), _) => settled(job),
                    (None, Err(e)) => {
                        CaseResult { verdict: Verdict::Error(e.clone()), ..CaseResult::skipped(job.case.clone()) }
                    }
                    (None, Ok(design)) => run_case(checked, design, job, cache, args.wave_dir.as_deref(), &progress),
                };
                progress.line(&format!(
                    "  {} {}: {}",
                    result.case.block,
                    result.case.name(),
                    match &result.verdict {
                        Verdict::Skipped(why) => format!("skipped ({why})"),
                        v => format!("{} ({} cycles, {:.1} s)", v.word(), result.cycles, result.seconds),
                    }
                ));
                progress.bar().inc(1);
                result
            })
            .collect()
    });
    progress.finish();
    results
}
/// The `--kernel` arguments, each checked to load; by default every library kernel and PTX
/// workload. `none` alone: no kernel.
fn kernel_specs(given: &[String]) -> anyhow::Result<Vec<String>> {
    if super::no_kernels(given)? {
        return Ok(Vec::new());
    }
    if given.is_empty() {
        let library = rfgen_model::kernel::library::KERNELS.iter().map(|k| k.name.to_string());
        return Ok(library.chain(super::ptx::workload_specs()).collect());
    }
    let mut specs: Vec<String> = Vec::new();
    for spec in given {
        super::kernel_with_source(spec)?; // its errors name the kernel

        if !specs.contains(spec) {
            specs.push(spec.clone());
        }
    }
    Ok(specs)
}

/// The blocks to check, each with its RTL: generated, or the user's copy in `--rtl`.
fn block_rtls(args: &RegressArgs, checked: &Checked) -> anyhow::Result<Vec<BlockRtl>> {
    let mut chosen: Vec<Block> = Vec::new();
    for b in &args.blocks {
        if !chosen.contains(b) {
            chosen.push(*b);
        }
    }
    if chosen.is_empty() {
        chosen = rfgen_gen::registry::BLOCKS.into_iter().filter(|b| b.in_config(checked)).collect();
    }
    let mut rtls = Vec::new();
    for block in chosen {
        let generated = block
            .generate(checked, SramKind::Behavioural)
            .map_err(|e| bad_input(format!("{} --block {block}: {e}", args.source.flags())))?;
        let top = generated.manifest.top.clone();
        let design = match &args.rtl {
            None => Ok(generated),
            Some(dir) => match user_rtl::load(dir, &generated) {
                Ok(d) => Ok(d),
                Err(UserRtlError::TopMissing { .. }) => Err(format!("{} defines no module {top}", dir.display())),
                Err(e) if e.is_input_error() => return Err(bad_input(format!("--rtl, block {block}: {e}"))),
                Err(e) => return Err(e.into()),
            },
        };
        rtls.push(BlockRtl { block, top, design });
    }
    if let Some(dir) = &args.rtl
        && rtls.iter().all(|r| r.design.is_err())
    {
        let tops: Vec<&str> = rtls.iter().map(|r| r.top.as_str()).collect();
        return Err(bad_input(format!(
            "--rtl {}: defines none of the tops of the blocks to check ({})",
            dir.display(),
            tops.join(", ")
        )));
    }
    Ok(rtls)
}

/// Every case, in table order: per block, its random seeds, then its kernels.
fn plan(args: &RegressArgs, checked: &Checked, rtls: &[BlockRtl], kernels: &[String]) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (i, rtl) in rtls.iter().enumerate() {
        let block = rtl.block;
        let mut stimuli: Vec<Stimulus> =
            (0..args.seeds).map(|n| Stimulus::Random { seed: regress::seed(block, n) }).collect();
        let mode = blocks::find(block).kernel.as_ref();
        if mode.is_some() {
            stimuli.extend(kernels.iter().map(|k| Stimulus::Kernel(k.clone())));
        }
        let missing = mode.and_then(|m| (m.missing)(checked));
        let cases = stimuli.into_iter().flat_map(|s| s.x_seeds(args.x_seeds).into_iter().map(move |x| (s.clone(), x)));
        for (stimulus, x_seed) in cases {
            // A random run's cycles are the flag's; a kernel (the composed top's random program
            // too) runs to its end.
            let random_cycles = matches!(stimulus, Stimulus::Random { .. }) && block != Block::Sm;
            let cycles = if random_cycles { args.cycles } else { KERNEL_CYCLE_LIMIT };
            let other_x_seed = (x_seed != stimulus.default_x_seed()).then_some(x_seed);
            let command = reproducer(
                &args.source,
                block,
                &stimulus,
                random_cycles.then_some(cycles),
                other_x_seed,
                args.rtl.as_deref(),
            );
            let mut job = Job {
                case: Case { block, x_seed, stimulus, cycles, reproducer: command, skip: None },
                rtl: i,
                kernel: None,
                settled: None,
            };
            let skip = match (&rtl.design, &job.case.stimulus, &missing) {
                (Err(why), _, _) => Some(why.clone()),
                (Ok(_), Stimulus::Kernel(_), Some(why)) => Some(why.clone()),
                _ => None,
            };
            if let Some(why) = skip {
                job.settled = Some(Verdict::Skipped(why.clone()));
                job.case.skip = Some(why);
            } else if let Some(spec) = job.case.stimulus.kernel_spec(block, checked) {
                match launched_kernel(block, checked, &spec, &job.case.stimulus, &args.source) {
                    Ok(k) => job.kernel = Some(k.kernel),
                    // The kernels load (checked above): what is left is a kernel the SM cannot hold.
                    Err(e) if e.downcast_ref::<BadInput>().is_some() => {
                        job.case.skip = Some(e.to_string());
                        job.settled = Some(Verdict::Skipped(e.to_string()));
                    }
                    Err(e) => job.settled = Some(Verdict::Error(format!("{e:#}"))),
                }
            }
            jobs.push(job);
        }
    }
    jobs
}

/// The result of a case settled before running.
fn settled(job: &Job) -> CaseResult {
    let verdict = job.settled.clone().unwrap_or(Verdict::Skipped(String::new()));
    CaseResult { verdict, ..CaseResult::skipped(job.case.clone()) }
}

/// Builds (or finds in the cache) each block's Verilator model once, before its cases run in
/// parallel; a block whose build fails has that as its cases' error.
fn build_all(rtls: &[BlockRtl], cache: &Path, progress: &Progress) -> Vec<Result<Design, String>> {
    rtls.iter()
        .map(|rtl| {
            let design = rtl.design.as_ref().map_err(Clone::clone)?;
            session::load(design, TraceKind::None, cache, &mut |e| events(e, progress))
                .map_err(|e| format!("{e:#}"))?;
            Ok(design.clone())
        })
        .collect()
}

fn events(e: Event, progress: &Progress) {
    if let Event::Building { top, key } = e {
        progress.line(&format!("building Verilator model of {top} ({key}); later runs reuse it"));
    }
}

/// Runs one case as `rfgen cosim` runs it.
fn run_case(
    checked: &Checked,
    design: &Design,
    job: &Job,
    cache: &Path,
    wave_dir: Option<&Path>,
    progress: &Progress,
) -> CaseResult {
    let case = &job.case;
    let seed = match case.stimulus {
        Stimulus::Random { seed } => seed,
        Stimulus::Kernel(_) => 0,
    };
    // Its own folder, so that two cases' waveforms never share a name; removed when empty.
    let case_waves = wave_dir.map(|d| d.join(slug(&format!("{}-{}", case.block, case.name()))));
    if let Some(d) = &case_waves
        && let Err(e) = std::fs::create_dir_all(d)
    {
        let verdict = Verdict::Error(format!("cannot create the waveform folder {}: {e}", d.display()));
        return CaseResult { verdict, ..CaseResult::skipped(case.clone()) };
    }
    let opts = CosimOptions {
        block: case.block,
        cycles: case.cycles,
        seed,
        x_seed: case.x_seed,
        trace: None,
        fail_wave_dir: case_waves.clone(),
        cache: cache.to_path_buf(),
    };
    let start = Instant::now();
    let report = run_session(checked, design, job.kernel.as_ref(), &opts, &mut |e| events(e, progress));
    let seconds = start.elapsed().as_secs_f64();
    if let Some(d) = &case_waves {
        let _ = std::fs::remove_dir(d); // only if empty: no mismatch waveform in it
    }
    let (verdict, cycles, waveform) = match report {
        Err(e) => (Verdict::Error(format!("{e:#}")), 0, None),
        Ok(r) if r.passed() => (Verdict::Pass, r.cycles, None),
        Ok(r) => {
            let details = failure_details(&r);
            // One line for a CI's list of failures: where and on which ports.
            let summary = failure_summary(&r);
            (
                Verdict::Fail { mismatch: r.mismatch.is_some() || r.operand_mismatches > 0, summary, details },
                r.cycles,
                r.waveform,
            )
        }
    };
    CaseResult { case: case.clone(), verdict, cycles, seconds, waveform }
}

/// `mrf-kernel-ptx-sgemm` from `mrf-kernel ptx:sgemm`: a file name of letters, digits and dashes.
fn slug(name: &str) -> String {
    let dashed: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    dashed.split('-').filter(|p| !p.is_empty()).collect::<Vec<_>>().join("-")
}
