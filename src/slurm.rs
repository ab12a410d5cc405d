//! The Slurm backend: a list of tasks (each one `rfgen` command line) run as one Slurm job array
//! through `sbatch`, followed with `squeue` until every task has left the queue, a task that
//! ended without its result retried once, and the array cancelled with `scancel` on Ctrl-C.
//!
//! Whether a task succeeded is decided by the caller (`done`): its result is on the shared
//! folder, never an exit code read back from Slurm (accounting may be off: without `slurmdbd`
//! `sacct` has nothing). Why a task failed comes from `scontrol show job` (kept `MinJobAge`
//! seconds) and from its log.

use anyhow::{Context, Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Where and how the array runs (`--partition`, `--time`, `--max-jobs`).
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub partition: Option<String>,
    pub time: Option<String>,
    /// Tasks running at once (the array's `%N` throttle).
    pub max_jobs: Option<usize>,
}

/// One task: what it is (for messages) and the arguments of `rfgen` that run it.
pub struct Task {
    pub label: String,
    pub args: Vec<OsString>,
}

/// A task that ended without its result, after its retry.
pub struct Failure {
    pub index: usize,
    pub message: String,
}

/// Seconds between two looks at the queue.
const POLL: Duration = Duration::from_millis(1000);

/// Runs `tasks` as a job array named `name`, writing the batch script and the logs into
/// `folder`; `done(i)` tells whether task `i` has left its result. Returns the tasks that
/// failed twice.
pub fn run_array(
    name: &str,
    folder: &Path,
    settings: &Settings,
    tasks: &[Task],
    done: &dyn Fn(usize) -> bool,
) -> Result<Vec<Failure>> {
    std::fs::create_dir_all(folder).with_context(|| format!("cannot create {}", folder.display()))?;
    // Ctrl-C cancels the array instead of leaving it to run.
    let _polling = rfgen_cosim::children::Polling::start();
    let exe = std::env::current_exe().context("cannot find the rfgen binary to run on the cluster")?;
    let script = folder.join(format!("{name}.sh"));
    write_script(&script, &exe, tasks)?;

    let bar = ProgressBar::new(tasks.len() as u64);
    bar.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} tasks {elapsed} {msg}").expect("valid template"));
    let mut todo: Vec<usize> = (0..tasks.len()).filter(|&i| !done(i)).collect();
    let mut failures = Vec::new();
    for attempt in 0..2 {
        if todo.is_empty() {
            break;
        }
        let job = submit(name, folder, settings, &script, &todo)?;
        bar.suspend(|| {
            eprintln!("submitted Slurm job {job}: {} task(s) of {name} (logs in {})", todo.len(), folder.display())
        });
        follow(&job, &bar, tasks.len(), done)?;
        let mut again = Vec::new();
        for &i in &todo {
            if done(i) {
                continue;
            }
            let why = task_state(&job, i);
            let log = log_path(folder, name, &job, i);
            let tail = log_tail(&log);
            let what = format!(
                "task {i} ({}) of Slurm job {job} ended {why} without its result; log {}",
                tasks[i].label,
                log.display()
            );
            if attempt == 0 {
                bar.suspend(|| eprintln!("{what}; retrying it once{tail}"));
                again.push(i);
            } else {
                failures.push(Failure { index: i, message: format!("{what}{tail}") });
            }
        }
        todo = again;
    }
    bar.finish_and_clear();
    Ok(failures)
}

/// The batch script: the array index picks one task's command line.
fn write_script(path: &Path, exe: &Path, tasks: &[Task]) -> Result<()> {
    let mut s = String::from(
        "#!/bin/sh\n# Written by rfgen: one task of the job array per line below.\ncase \"$SLURM_ARRAY_TASK_ID\" in\n",
    );
    for (i, t) in tasks.iter().enumerate() {
        let words: Vec<String> =
            std::iter::once(exe.as_os_str()).chain(t.args.iter().map(|a| a.as_os_str())).map(quote).collect();
        s += &format!("  {i}) exec {} ;;\n", words.join(" "));
    }
    s += "  *) echo \"no task $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\nesac\n";
    crate::sweep::write_atomic(path, s.as_bytes())
}

/// A word for `sh`, single-quoted.
fn quote(word: &std::ffi::OsStr) -> String {
    format!("'{}'", word.to_string_lossy().replace('\'', "'\\''"))
}

fn submit(name: &str, folder: &Path, settings: &Settings, script: &Path, indices: &[usize]) -> Result<String> {
    let list: Vec<String> = indices.iter().map(|i| i.to_string()).collect();
    let mut array = list.join(",");
    if let Some(n) = settings.max_jobs {
        array += &format!("%{n}");
    }
    let mut cmd = Command::new("sbatch");
    cmd.args(["--parsable", "--job-name", &format!("rfgen-{name}"), "--array", &array])
        .arg(format!("--output={}", folder.join(format!("{name}-%A_%a.log")).display()));
    if let Some(p) = &settings.partition {
        cmd.args(["--partition", p]);
    }
    if let Some(t) = &settings.time {
        cmd.args(["--time", t]);
    }
    let out = cmd
        .arg(script)
        .output()
        .map_err(|e| anyhow!("cannot run sbatch ({e}): --backend slurm needs the Slurm client commands on PATH"))?;
    if !out.status.success() {
        bail!("sbatch refused the job array: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    // `--parsable` prints `<job id>[;<cluster>]`.
    let text = String::from_utf8_lossy(&out.stdout);
    let job = text.trim().split(';').next().unwrap_or("").to_string();
    if job.is_empty() || !job.chars().all(|c| c.is_ascii_digit()) {
        bail!("sbatch printed no job id: {text:?}");
    }
    Ok(job)
}

/// Waits until no task of `job` is pending or running; cancels it on Ctrl-C.
fn follow(job: &str, bar: &ProgressBar, total: usize, done: &dyn Fn(usize) -> bool) -> Result<()> {
    loop {
        if rfgen_cosim::children::interrupted() {
            let _ = Command::new("scancel").arg(job).status();
            bar.abandon();
            bail!("interrupted: Slurm job {job} cancelled; the same command resumes (finished tasks are kept)");
        }
        let out = Command::new("squeue").args(["-h", "-j", job, "-o", "%T"]).output().context("cannot run squeue")?;
        let text = String::from_utf8_lossy(&out.stdout);
        // squeue forgets a finished job after MinJobAge and then answers "Invalid job id".
        let states: Vec<&str> = if out.status.success() { text.lines().collect() } else { vec![] };
        bar.set_position((0..total).filter(|&i| done(i)).count() as u64);
        if states.is_empty() {
            return Ok(());
        }
        let running = states.iter().filter(|s| **s == "RUNNING").count();
        bar.set_message(format!("job {job}: {running} running, {} queued", states.len() - running));
        std::thread::sleep(POLL);
    }
}

/// How a task ended, from `scontrol show job` (e.g. `CANCELLED`, `FAILED`, `TIMEOUT`).
fn task_state(job: &str, index: usize) -> String {
    let out = Command::new("scontrol").args(["show", "job", &format!("{job}_{index}")]).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let field = |key: &str| text.split_whitespace().find_map(|w| w.strip_prefix(key)).map(str::to_string);
    match (field("JobState="), field("ExitCode=")) {
        (Some(state), Some(code)) => format!("{state} (exit {code})"),
        (Some(state), None) => state,
        _ => "(state no longer known to Slurm)".to_string(),
    }
}

fn log_path(folder: &Path, name: &str, job: &str, index: usize) -> PathBuf {
    folder.join(format!("{name}-{job}_{index}.log"))
}

/// The last lines of a task's log, indented, for an error message.
fn log_tail(log: &Path) -> String {
    let Ok(text) = std::fs::read_to_string(log) else { return String::new() };
    let lines: Vec<&str> = text.lines().collect();
    let tail = &lines[lines.len().saturating_sub(8)..];
    tail.iter().map(|l| format!("\n    {l}")).collect()
}
