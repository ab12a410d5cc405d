//! Runs Yosys on a script; a missing Yosys or a failed run becomes an error that says what
//! happened and where the log is.

use anyhow::{Result, bail};
use std::path::Path;
use std::process::{Command, Stdio};
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
    let start = Instant::now();
    let mut polls = 0u32;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if limit.is_some_and(|l| start.elapsed() > l) {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        // A long equivalence search grows to tens of GiB; stopped here, it fails alone, where
        // the system's out-of-memory killer could take any process of the machine.
        polls += 1;
        if polls.is_multiple_of(20) && memory_available().is_some_and(|bytes| bytes < MEMORY_RESERVE) {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "Yosys stopped: the machine's available memory fell below {} GiB\n  log: {}",
                MEMORY_RESERVE >> 30,
                log_path.display()
            );
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

/// The machine's available memory in bytes; `None` where the system does not say.
fn memory_available() -> Option<u64> {
    meminfo("MemAvailable")
}

/// A `field` of `/proc/meminfo` in bytes.
fn meminfo(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
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
}
