//! `rfgen regress`: the cases of a regression (each block under random stimulus with several
//! seeds and under kernels), their results, the summary table and the exit status. Running a
//! case is `rfgen cosim`'s own code (`crate::cli::cosim`); the JUnit report is in [`junit`].

pub mod junit;

use crate::cli::cosim::Stimulus;
use rfgen_gen::Block;
use std::fmt::Write as _;

/// One block under one stimulus.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Case {
    pub block: Block,
    pub stimulus: Stimulus,
    /// Random stimulus: the cycles to run; a kernel: the cycle limit.
    pub cycles: u64,
    pub x_seed: u32,
    /// The `rfgen cosim` command line that repeats this case alone.
    pub reproducer: String,
    /// Why the case is not run (the kernel does not fit the SM, the block is not in `--rtl`).
    pub skip: Option<String>,
}

impl Case {
    /// `random seed 815734`, `kernel matmul`, and `, x-seed N` past the stimulus' own x-seed:
    /// unique within a block and the same in every run, so CI history follows a case across runs.
    pub fn name(&self) -> String {
        let stimulus = match &self.stimulus {
            Stimulus::Random { seed } => format!("random seed {seed}"),
            Stimulus::Kernel(spec) => format!("kernel {spec}"),
        };
        if self.x_seed == self.stimulus.default_x_seed() {
            stimulus
        } else {
            format!("{stimulus}, x-seed {}", self.x_seed)
        }
    }
}

/// How a case ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Verdict {
    Pass,
    /// RTL and model differ or an operand is wrong (`mismatch`), or the kernel faulted or ran
    /// out of cycles: `summary` says which in a line, `details` is the report.
    Fail {
        mismatch: bool,
        summary: String,
        details: String,
    },
    /// The run itself failed (a Verilator build, a file that cannot be written).
    Error(String),
    Skipped(String),
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail { mismatch: true, .. } => "MISMATCH",
            Verdict::Fail { mismatch: false, .. } => "FAIL",
            Verdict::Error(_) => "error",
            Verdict::Skipped(_) => "skipped",
        }
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CaseResult {
    pub case: Case,
    pub verdict: Verdict,
    /// Cycles run (0 when not run).
    pub cycles: u64,
    pub seconds: f64,
    /// The waveform of a mismatch, when one was written.
    pub waveform: Option<std::path::PathBuf>,
}

impl CaseResult {
    pub fn skipped(case: Case) -> CaseResult {
        let reason = case.skip.clone().unwrap_or_default();
        CaseResult { case, verdict: Verdict::Skipped(reason), cycles: 0, seconds: 0.0, waveform: None }
    }

    pub fn failed(&self) -> bool {
        matches!(self.verdict, Verdict::Fail { .. } | Verdict::Error(_))
    }
}

/// Random stimulus seed of `block`'s `index`-th random case: the same in every run and on every
/// machine (it depends on the block's name, not on the order of blocks), below 10^9 so that it
/// reads like the seeds `rfgen cosim` draws.
pub fn seed(block: Block, index: u32) -> u64 {
    // FNV-1a over the name, then SplitMix64's finalizer to spread neighbouring indices.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in block.name().bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = h.wrapping_add((index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % 1_000_000_000
}

/// Counts of a finished regression.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    pub skipped: usize,
}

impl Totals {
    pub fn of<'a>(results: impl IntoIterator<Item = &'a CaseResult>) -> Totals {
        let mut t = Totals::default();
        for r in results {
            match r.verdict {
                Verdict::Pass => t.passed += 1,
                Verdict::Fail { .. } => t.failed += 1,
                Verdict::Error(_) => t.errors += 1,
                Verdict::Skipped(_) => t.skipped += 1,
            }
        }
        t
    }

    pub fn cases(&self) -> usize {
        self.passed + self.failed + self.errors + self.skipped
    }
}

/// The summary table: block, stimulus, result, cycles, time, and a skipped case's reason.
pub fn table(results: &[CaseResult]) -> String {
    let stimulus_width = results.iter().map(|r| r.case.name().len()).max().unwrap_or(0).max("stimulus".len());
    let mut out = String::new();
    let _ =
        writeln!(out, "{:<10} {:<stimulus_width$} {:<8} {:>11} {:>9}", "block", "stimulus", "result", "cycles", "time");
    for r in results {
        let (cycles, time) = match r.verdict {
            Verdict::Skipped(_) => ("-".to_string(), "-".to_string()),
            _ => (r.cycles.to_string(), format!("{:.1} s", r.seconds)),
        };
        let mut line = format!(
            "{:<10} {:<stimulus_width$} {:<8} {cycles:>11} {time:>9}",
            r.case.block.name(),
            r.case.name(),
            r.verdict.word()
        );
        if let Verdict::Skipped(reason) = &r.verdict {
            line += &format!("  {reason}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// The report of each failed case: what differed, and the command that repeats it.
pub fn failures(results: &[CaseResult]) -> String {
    let mut out = String::new();
    for r in results.iter().filter(|r| r.failed()) {
        let _ =
            writeln!(out, "{} {}: {}", r.case.block, r.case.name(), failure_text(r).trim_end().replace('\n', "\n  "));
    }
    out
}

/// What a failed case's report says: the details, the reproducer, the waveform.
pub fn failure_text(r: &CaseResult) -> String {
    let mut text = match &r.verdict {
        Verdict::Fail { details, .. } => details.clone(),
        Verdict::Error(message) => format!("{message}\n"),
        _ => String::new(),
    };
    text += &format!("reproduce: {}\n", r.case.reproducer);
    if let Some(w) = &r.waveform {
        text += &format!("waveform: {}\n", w.display());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_by_block_and_index_and_stay_put() {
        let mut seen = std::collections::HashSet::new();
        for b in rfgen_gen::registry::BLOCKS {
            for i in 0..4 {
                let s = seed(b, i);
                assert!(s < 1_000_000_000);
                assert!(seen.insert(s), "{b} {i}");
                assert_eq!(seed(b, i), s);
            }
        }
    }

    fn result(stimulus: Stimulus, verdict: Verdict) -> CaseResult {
        let case = Case {
            block: Block::Mrf,
            x_seed: stimulus.default_x_seed(),
            stimulus,
            cycles: 100,
            reproducer: "rfgen cosim --preset small --block mrf --seed 5 --cycles 100".into(),
            skip: None,
        };
        CaseResult { case, verdict, cycles: 100, seconds: 1.25, waveform: None }
    }

    /// A case under its stimulus' own x-seed keeps its name; another x-seed is named.
    #[test]
    fn a_case_past_its_own_x_seed_is_named_by_it() {
        let mut r = result(Stimulus::Random { seed: 5 }, Verdict::Pass);
        assert_eq!(r.case.name(), "random seed 5");
        r.case.x_seed = 6;
        assert_eq!(r.case.name(), "random seed 5, x-seed 6");
        let k = result(Stimulus::Kernel("matmul".into()), Verdict::Pass);
        assert_eq!(k.case.name(), "kernel matmul");
    }

    #[test]
    fn the_table_lines_up_and_gives_skip_reasons() {
        let results = [
            result(Stimulus::Random { seed: 5 }, Verdict::Pass),
            result(Stimulus::Kernel("ptx:sgemm".into()), Verdict::Skipped("too many warps".into())),
        ];
        assert_eq!(
            table(&results),
            "block      stimulus         result        cycles      time\n\
             mrf        random seed 5    pass             100     1.2 s\n\
             mrf        kernel ptx:sgemm skipped            -         -  too many warps\n"
        );
        assert_eq!(Totals::of(&results), Totals { passed: 1, failed: 0, errors: 0, skipped: 1 });
    }
}
