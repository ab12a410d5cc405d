//! Runs Yosys on a script; a missing Yosys or a failed run becomes an error that says what
//! happened and where the log is.

use anyhow::{Result, bail};
use rfgen_cosim::children::Waited;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

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
    // A long equivalence search grows to tens of GiB: stopped for memory, it fails alone.
    let status = match rfgen_cosim::children::wait(&mut child, limit)? {
        Waited::Exited(status) => status,
        Waited::TimedOut => return Ok(None),
        Waited::OutOfMemory(why) => bail!("Yosys stopped: {why}\n  log: {}", log_path.display()),
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
