//! Runs Yosys on a script; a missing Yosys or a failed run becomes an error that says what
//! happened and where the log is.

use anyhow::{Result, bail};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const NOT_FOUND: &str =
    "cannot run Yosys: `yosys` is not on PATH (install Yosys 0.23 or newer, e.g. `apt-get install yosys`)";

/// The installed Yosys, e.g. `Yosys 0.23 (git sha1 7ce5011c24b)`.
pub fn version() -> Result<String> {
    match Command::new("yosys").arg("-V").output() {
        Ok(out) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout).trim().to_string()),
        Ok(out) => bail!("`yosys -V` failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).trim()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!("{NOT_FOUND}"),
        Err(e) => bail!("cannot run Yosys: {e}"),
    }
}

/// Runs `yosys -s script` inside `dir`, logging to `log` (file names relative to `dir`).
pub fn run(dir: &Path, script: &str, log: &str) -> Result<()> {
    run_for(dir, script, log, None)?.expect("a run without a limit finishes")
}

/// [`run`] stopped after `limit`: `Ok(None)` when it was, else the run's own result.
pub fn run_for(dir: &Path, script: &str, log: &str, limit: Option<Duration>) -> Result<Option<Result<()>>> {
    let log_path = dir.join(log);
    // Warnings and errors go to a file: a pipe nobody reads while waiting could fill and block.
    let stderr_path = dir.join(format!("{log}.stderr"));
    let stderr_file = std::fs::File::create(&stderr_path)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", stderr_path.display()))?;
    let mut command = Command::new("yosys");
    command.current_dir(dir).args(["-q", "-l", log, "-s", script]).stdout(Stdio::null()).stderr(stderr_file);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("{NOT_FOUND}; the script to run is {}", dir.join(script).display())
        }
        Err(e) => bail!("cannot run Yosys on {}: {e}", dir.join(script).display()),
    };
    let _running = Running::start();
    let _watched = crate::children::Child::watch(child.id());
    let start = Instant::now();
    let mut polls = 0u32;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if limit.is_some_and(|l| start.elapsed() > l) {
            crate::children::kill_tree(child.id());
            let _ = child.wait();
            return Ok(None);
        }
        // A long equivalence search grows to tens of GiB; stopped here, it fails alone, where
        // the system's out-of-memory killer could take any process of the machine.
        polls += 1;
        if polls.is_multiple_of(20)
            && let Some(why) = memory_stop(child.id())
        {
            crate::children::kill_tree(child.id());
            let _ = child.wait();
            bail!("Yosys stopped: {why}\n  log: {}", log_path.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    if status.success() {
        return Ok(Some(Ok(())));
    }
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    // Yosys writes its ERROR line to the log (and to stderr when the log cannot be opened).
    let log_text = std::fs::read_to_string(&log_path).unwrap_or_default();
    // A SIGKILL we did not send is the system's: out of memory, most likely (a long equivalence
    // search grows to tens of GiB).
    let killed = std::os::unix::process::ExitStatusExt::signal(&status) == Some(9);
    let fallback = if killed { "killed by the system, out of memory most likely" } else { "no ERROR line" };
    let error = log_text.lines().chain(stderr.lines()).find(|l| l.contains("ERROR")).unwrap_or(fallback);
    Ok(Some(Err(anyhow::anyhow!("Yosys failed ({status}): {}\n  log: {}", error.trim(), log_path.display()))))
}

/// Memory a Yosys run leaves the rest of the machine: below it, the run is stopped.
const MEMORY_RESERVE: u64 = 1 << 30;

/// Yosys runs of this process running now (`run_for`), side by side in a pool of jobs.
static RUNNING: AtomicU64 = AtomicU64::new(0);

/// One run counted in [`RUNNING`] while it lives.
struct Running;

impl Running {
    fn start() -> Self {
        RUNNING.fetch_add(1, Ordering::Relaxed);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Why the run of process `pid` must stop for memory, if it must ([`must_stop`]).
fn memory_stop(pid: u32) -> Option<String> {
    let (available, total) = (memory_available()?, meminfo("MemTotal")?);
    let running = RUNNING.load(Ordering::Relaxed);
    // A process that has just ended has no resident memory to count.
    let resident = resident(pid).unwrap_or(0);
    must_stop(available, resident, total, running).then(|| {
        let floor = format!("the machine's available memory fell below {} GiB", MEMORY_RESERVE >> 30);
        match running {
            0 | 1 => floor,
            _ => format!("{floor}, this run holding {} MiB beside {} other runs", resident >> 20, running - 1),
        }
    })
}

/// Whether a run holding `resident` bytes of a machine of `total`, `available` left and
/// `running` runs side by side, must stop: when less than [`MEMORY_RESERVE`] is left. Beside
/// other runs, only one holding more than its equal share stops, unless half the reserve is gone
/// too: the search that never fits, not whichever run looks next (an induction of under 1 GiB
/// beside a search of a whole MRF growing past 20 GiB).
fn must_stop(available: u64, resident: u64, total: u64, running: u64) -> bool {
    available < MEMORY_RESERVE && (running <= 1 || available < MEMORY_RESERVE / 2 || resident > total / running)
}

/// The machine's available memory in bytes; `None` where the system does not say.
fn memory_available() -> Option<u64> {
    meminfo("MemAvailable")
}

/// The resident memory of process `pid` in bytes; `None` where the system does not say.
fn resident(pid: u32) -> Option<u64> {
    kilobytes(&format!("/proc/{pid}/status"), "VmRSS")
}

/// A `field` of `/proc/meminfo` in bytes.
fn meminfo(field: &str) -> Option<u64> {
    kilobytes("/proc/meminfo", field)
}

/// A `field: N kB` line of the file at `path`, in bytes.
fn kilobytes(path: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let value = text.lines().find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))?;
    Some(value.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()? * 1024)
}

#[cfg(test)]
mod tests {
    /// The guard reads the machine's memory, or the long searches run unguarded.
    #[test]
    fn the_available_memory_is_read_and_is_at_most_the_total() {
        let available = super::memory_available().expect("/proc/meminfo has MemAvailable");
        let total = super::meminfo("MemTotal").expect("/proc/meminfo has MemTotal");
        assert!(available > 0 && available <= total, "{available} of {total} bytes");
    }

    /// A run's share is compared with its process' resident memory: here this test's own.
    #[test]
    fn a_process_resident_memory_is_read_and_is_at_most_the_total() {
        let resident = super::resident(std::process::id()).expect("/proc/self/status has VmRSS");
        let total = super::meminfo("MemTotal").unwrap();
        assert!(resident > 0 && resident < total, "{resident} of {total} bytes");
    }

    /// With memory left a run goes on; alone it stops below the reserve; beside another, only
    /// past half the machine, or below half the reserve.
    #[test]
    fn a_run_stops_for_memory_only_when_short_and_past_its_share() {
        let (total, gib) = (24u64 << 30, 1u64 << 30);
        assert!(!super::must_stop(2 * gib, 23 * gib, total, 1));
        assert!(super::must_stop(gib - 1, gib, total, 1));
        assert!(!super::must_stop(gib - 1, gib, total, 2));
        assert!(!super::must_stop(gib - 1, 12 * gib, total, 2));
        assert!(super::must_stop(gib - 1, 12 * gib + 1, total, 2));
        assert!(super::must_stop(gib / 2 - 1, gib, total, 2));
        assert!(super::must_stop(gib - 1, 7 * gib, total, 4));
    }
}
