//! Runs Yosys on a script; a missing Yosys or a failed run becomes an error that says what
//! happened and where the log is.

use anyhow::{Result, bail};
use std::path::Path;
use std::process::Command;

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
    let log_path = dir.join(log);
    let out = match Command::new("yosys").current_dir(dir).args(["-q", "-l", log, "-s", script]).output() {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("{NOT_FOUND}; the script to run is {}", dir.join(script).display())
        }
        Err(e) => bail!("cannot run Yosys on {}: {e}", dir.join(script).display()),
    };
    if out.status.success() {
        return Ok(());
    }
    // Yosys writes its ERROR line to the log (and to stderr when the log cannot be opened).
    let log_text = std::fs::read_to_string(&log_path).unwrap_or_default();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let error = log_text.lines().chain(stderr.lines()).find(|l| l.contains("ERROR")).unwrap_or("no ERROR line");
    bail!("Yosys failed ({}): {}\n  log: {}", out.status, error.trim(), log_path.display())
}
