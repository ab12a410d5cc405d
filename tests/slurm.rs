//! The Slurm backend against a real one-node cluster started here (tests/common/slurm.rs): a
//! sweep's results equal the local backend's byte for byte, a rerun resumes without submitting,
//! a task cancelled mid-run is reported and retried once, Ctrl-C cancels the array, and a
//! regression gives the local backend's verdicts.

mod common;

use common::slurm::Cluster;
use common::*;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const POINTS: [&str; 4] = ["--param", "mrf.entries=32,64", "--param", "mrf.collectors=2,4"];

fn sweep(cluster: &Cluster, out: &Path, extra: &[&str]) -> Command {
    let (k, v) = cluster.conf();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rfgen"));
    cmd.args(["sweep", "--preset", "small"]).args(extra).arg("--out").arg(out);
    cmd.env(k, v).env("RFGEN_CACHE_DIR", cache_dir());
    cmd
}

fn run(mut cmd: Command) -> Output {
    cmd.output().unwrap()
}

/// Waits for a task of the array to run its command; its `<job>_<index>`. Running in the
/// queue is not yet launched on the node, and a task cancelled in between may still run to its
/// end: the task's log, which the node creates as it starts the batch script, says it started.
fn running_task(cluster: &Cluster, child: &mut Child, logs: &Path) -> String {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(120) {
        let queue = cluster.command("squeue", &["-h", "-o", "%i %T"]);
        let running = queue.lines().filter_map(|l| l.strip_suffix(" RUNNING"));
        if let Some(task) = running.into_iter().find(|t| logs.join(format!("sweep-{t}.log")).exists()) {
            return task.to_string();
        }
        assert!(child.try_wait().unwrap().is_none(), "the sweep ended before any task ran");
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no task of the array ran within two minutes");
}

/// Cancels `task`, which must take: a cancel that Slurm refuses is said, not passed over.
fn cancel(cluster: &Cluster, task: &str) {
    let (k, v) = cluster.conf();
    let out = Command::new("scancel").arg(task).env(k, v).output().unwrap();
    assert!(out.status.success(), "scancel {task}: {}", stderr(&out));
}

fn finish(child: Child) -> Output {
    child.wait_with_output().unwrap()
}

#[test]
fn slurm_backend_on_a_one_node_cluster() {
    let cluster = Cluster::start();
    let work = tempfile::tempdir().unwrap();

    // Four points on both backends: the same results, byte for byte.
    let (slurm, local) = (work.path().join("slurm"), work.path().join("local"));
    let kernel = ["--kernel", "vecadd"];
    let on_slurm = run(sweep(&cluster, &slurm, &[&POINTS[..], &kernel, &["--backend", "slurm"]].concat()));
    assert_eq!(on_slurm.status.code(), Some(0), "{}", stderr(&on_slurm));
    assert!(stderr(&on_slurm).contains("submitted Slurm job"), "{}", stderr(&on_slurm));
    let on_local = run(sweep(&cluster, &local, &[&POINTS[..], &kernel].concat()));
    assert_eq!(on_local.status.code(), Some(0), "{}", stderr(&on_local));
    for file in ["results.csv", "results.json", "mrf.entries.svg", "mrf.collectors.svg"] {
        let (a, b) = (std::fs::read(slurm.join(file)).unwrap(), std::fs::read(local.join(file)).unwrap());
        assert!(a == b, "{file} differs between the backends");
    }
    let csv = std::fs::read_to_string(slurm.join("results.csv")).unwrap();
    assert_eq!(csv.lines().filter(|l| l.contains(",ok,")).count(), 4, "{csv}");
    // Every task wrote its log beside the batch script.
    let logs = std::fs::read_dir(slurm.join("slurm"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".log"));
    assert_eq!(logs.count(), 4);

    // A rerun finds every point done and submits nothing.
    let again = run(sweep(&cluster, &slurm, &[&POINTS[..], &kernel, &["--backend", "slurm"]].concat()));
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(stderr(&again).contains("0 to measure, 4 done earlier"), "{}", stderr(&again));
    assert!(!stderr(&again).contains("submitted"), "{}", stderr(&again));

    // A task cancelled while it runs is reported and retried once; the sweep completes. Each
    // point runs a kernel of some 30 M cycles (about 7 s), so `scancel` reaches the task while
    // it runs: the library kernels took under a second, and a task could end before its cancel.
    let retried = work.path().join("retried");
    let kernel = "synthetic:iterations=48";
    let long = ["--param", "mrf.entries=64,128", "--kernel", kernel, "--backend", "slurm", "--max-jobs", "1"];
    let mut child = sweep(&cluster, &retried, &long).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let task = running_task(&cluster, &mut child, &retried.join("slurm"));
    cancel(&cluster, &task);
    let out = finish(child);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let state = cluster.command("scontrol", &["show", "job", &task]);
    assert!(err.contains("ended CANCELLED") && err.contains("retrying it once"), "{err}\n{task}: {state}");
    let csv = std::fs::read_to_string(retried.join("results.csv")).unwrap();
    assert_eq!(csv.lines().filter(|l| l.contains(",ok,")).count(), 2, "{csv}");

    // Ctrl-C cancels the whole array: nothing of it is left in the queue.
    let interrupted = work.path().join("interrupted");
    let mut child = sweep(&cluster, &interrupted, &long).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let task = running_task(&cluster, &mut child, &interrupted.join("slurm"));
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = finish(child);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted: Slurm job"), "{}", stderr(&out));
    let job = task.split('_').next().unwrap();
    let start = Instant::now();
    while !cluster.command("squeue", &["-h", "-j", job]).trim().is_empty() {
        assert!(start.elapsed() < Duration::from_secs(30), "the array was not cancelled");
        std::thread::sleep(Duration::from_millis(100));
    }

    // A small regression on both backends: the same cases, verdicts and cycles; the JUnit
    // report is written by the command, not by its tasks.
    let regress = |extra: &[&str]| {
        let (k, v) = cluster.conf();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rfgen"));
        cmd.args(["regress", "--preset", "small", "--block", "scoreboard", "--block", "scheduler"])
            .args(["--kernel", "vecadd", "--seeds", "1", "--cycles", "2000"])
            .args(extra)
            .env(k, v)
            .env("RFGEN_CACHE_DIR", cache_dir());
        run(cmd)
    };
    // Block, stimulus, result and cycles of every case: the table without its times.
    let cases = |o: &Output| -> Vec<String> {
        let text = stdout(o);
        // Case lines end in their time (`0.4 s`); without it.
        let timed = text.lines().filter(|l| l.ends_with(" s") && !l.starts_with("  "));
        timed.map(|l| l.rsplitn(3, ' ').nth(2).unwrap().trim_end().to_string()).collect()
    };
    let junit = work.path().join("r.xml");
    let dir = work.path().join("regress");
    let on_slurm = regress(&["--backend", "slurm", "--out", dir.to_str().unwrap(), "--junit", junit.to_str().unwrap()]);
    assert_eq!(on_slurm.status.code(), Some(0), "{}{}", stdout(&on_slurm), stderr(&on_slurm));
    let on_local = regress(&[]);
    assert_eq!(on_local.status.code(), Some(0), "{}", stderr(&on_local));
    assert_eq!(cases(&on_slurm), cases(&on_local));
    assert_eq!(cases(&on_local).len(), 4, "{}", stdout(&on_local));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), 4, "{xml}");
    // Rerun: both blocks' results are found, nothing is submitted.
    let again = regress(&["--backend", "slurm", "--out", dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(!stderr(&again).contains("submitted"), "{}", stderr(&again));
    assert_eq!(cases(&again), cases(&on_local));
    let no_out = regress(&["--backend", "slurm"]);
    assert_eq!(no_out.status.code(), Some(2), "{}", stderr(&no_out));
    assert!(stderr(&no_out).contains("needs --out DIR"), "{}", stderr(&no_out));

    // Bad Slurm flags are bad input.
    let bad = run(sweep(&cluster, &work.path().join("bad"), &[&POINTS[..], &["--time", "1h"]].concat()));
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("need --backend slurm"), "{}", stderr(&bad));
    let bad = run(sweep(
        &cluster,
        &work.path().join("bad"),
        &[&POINTS[..], &["--backend", "slurm", "--time", "1h"]].concat(),
    ));
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("MINUTES, MM:SS"), "{}", stderr(&bad));
}
