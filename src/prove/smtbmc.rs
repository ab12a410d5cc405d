//! Runs `yosys-smtbmc` with z3 on a model Yosys wrote, and reads its verdict.

use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// What one solver run found.
#[derive(Debug)]
pub enum Verdict {
    Passed,
    /// An assertion fails; the line names it (`file:line` of the harness).
    Failed {
        assertion: String,
    },
}

/// One run: bounded model checking of `depth` steps, or with `induction` k-induction of
/// `depth` steps. On a failed bounded check the trace is written to `vcd` and, as a Verilog
/// test bench, to `testbench` (file names relative to `dir`).
pub struct Run<'a> {
    pub model: &'a str,
    pub depth: u32,
    pub induction: bool,
    pub vcd: Option<&'a str>,
    pub testbench: Option<&'a str>,
    pub log: &'a str,
}

const NOT_FOUND: &str = "`yosys-smtbmc` is not on PATH (it comes with Yosys: `apt-get install yosys`)";

/// Runs `r`; `None` when it was still running after `limit` (it is then stopped).
pub fn run(dir: &Path, r: &Run, limit: Duration) -> Result<Option<Verdict>> {
    let mut cmd = Command::new("yosys-smtbmc");
    // `--unroll` gives z3 the unrolled steps instead of a state function applied step by step:
    // the 12-requester fairness check went from minutes per step to under a second.
    cmd.current_dir(dir).args(["-s", "z3", "--unroll", "--noprogress", "-t", &r.depth.to_string()]);
    if r.induction {
        cmd.arg("-i");
    }
    if let Some(vcd) = r.vcd {
        cmd.args(["--dump-vcd", vcd]);
    }
    if let Some(tb) = r.testbench {
        cmd.args(["--dump-vlogtb", tb]);
    }
    cmd.arg(r.model);
    // Output to files: a pipe nobody reads while waiting could fill and block the solver.
    let (out_path, err_path) = (dir.join(format!("{}.out", r.log)), dir.join(format!("{}.err", r.log)));
    let file = |p: &Path| std::fs::File::create(p).with_context(|| format!("cannot write {}", p.display()));
    cmd.stdout(file(&out_path)?).stderr(file(&err_path)?);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!("cannot run the prover: {NOT_FOUND}"),
        Err(e) => bail!("cannot run yosys-smtbmc in {}: {e}", dir.display()),
    };
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = std::process::Output {
        status,
        stdout: std::fs::read(&out_path).unwrap_or_default(),
        stderr: std::fs::read(&err_path).unwrap_or_default(),
    };
    let _ = (std::fs::remove_file(&out_path), std::fs::remove_file(&err_path));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let log = dir.join(r.log);
    std::fs::write(&log, format!("{stdout}{}", String::from_utf8_lossy(&out.stderr)))?;
    let status = stdout.lines().rev().find_map(|l| l.split("Status: ").nth(1)).map(str::trim);
    match status {
        Some("PASSED") => Ok(Some(Verdict::Passed)),
        Some("FAILED") => {
            let assertion = stdout
                .lines()
                .find_map(|l| l.split("Assert failed in ").nth(1))
                .map_or_else(|| "an assertion".to_string(), |a| a.trim().to_string());
            Ok(Some(Verdict::Failed { assertion }))
        }
        _ => {
            let why = stdout
                .lines()
                .chain(String::from_utf8_lossy(&out.stderr).lines())
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no output")
                .trim()
                .to_string();
            bail!("yosys-smtbmc gave no verdict ({}): {why}\n  log: {}", out.status, log.display())
        }
    }
}
