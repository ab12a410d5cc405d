//! Shrinking a failing kernel: when a kernel-driven lockstep run of any block
//! ([`crate::kernel::run_block`]) finds an RTL/model mismatch, [`shrink`] reduces the kernel to a small one that still fails, so the
//! engineer debugs a handful of instructions instead of a whole kernel.
//!
//! The algorithm works on the kernel's source text, one line at a time, and is deterministic:
//!
//! 1. Run the original. If it does not fail (`fails` says no), there is nothing to shrink and
//!    [`shrink`] returns `None`. Then run it on the golden model alone (no RTL, within
//!    `opts.max_cycles`) to learn whether, and in how many cycles, it finishes. A candidate gets
//!    `4 × cycles + 10,000` cycles (the longer of the two runs), so one that loops forever (its
//!    loop exit was removed) stops.
//! 2. Drop comment-only and blank lines (they do not change what runs; the reduced run is still
//!    checked).
//! 3. Shrink the grid by rewriting the `.grid BLOCKS THREADS` line: first fewer blocks (one,
//!    then halving from the current count while that still fails), then fewer threads per block
//!    (one warp of `geometry.lanes` threads, then halving, never below one warp).
//! 4. Delta debugging over the instruction lines (every line but the directives `.kernel`,
//!    `.grid`, `.shared`, `.const`, `.data` and `.fill`, kept here): remove chunks of half the
//!    lines, then quarters, and so on down to single lines, sweeping each chunk size from the
//!    top of the kernel and keeping every removal that still fails.
//! 5. Try removing each `.const`, `.shared`, `.data` and `.fill` line on its own: once the
//!    code has shrunk, most name nothing it still uses.
//! 6. Repeat 3 to 5 until a whole round shrinks nothing, or the budget of [`MAX_TRIES`]
//!    candidate runs is spent (then the smallest failing kernel found so far is returned).
//!
//! A candidate counts only if it parses (so a label is removed only when no branch names it any
//! more, and the kernel still ends with `exit` or `bra`), launches on the SM ([`launch`]: with
//! its own block, or scaled as `rfgen sim` and `rfgen cosim` would run it; the grid steps
//! shrink from the launched one), its
//! lockstep run stops without a fault or hitting the cycle bound (`outcome.error` is `None`)
//! and `fails`, and — when the original finishes on the golden model alone — it finishes there
//! too, within the bound and without a fault. A lockstep run stops at the first mismatch, so
//! without that last check a kernel whose loop can no longer exit would count, and the reduced
//! kernel would hang instead of passing once the RTL is fixed. When the original reads no
//! register before its warp writes it, neither may a candidate: removing the writes leaves
//! reads of undefined values, and under renaming of undefined physical registers, whose banks
//! the RTL and the model place apart; such a kernel fails on correct RTL too (a renamed top's
//! `min r11, r11, r9; exit` did). Candidates that were rejected once are remembered and not run
//! again.

use crate::blocks::{self, KernelRun};
use crate::kernel::{KernelOptions, KernelOutcome};
use crate::verilator::RtlLib;
use anyhow::Result;
use rfgen_gen::{Block, Checked};
use rfgen_model::kernel::{Kernel, parse};
use rfgen_model::sm::{Sm, launch};
use std::collections::HashSet;
use std::sync::Arc;

/// Candidate kernels one [`shrink`] may try (each is parsed, checked to fit and, if it does,
/// run); generous, since a small kernel runs in milliseconds.
pub const MAX_TRIES: u32 = 2_000;

/// The reduced kernel and its failing run.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The reduced kernel's source text (parses with `rfgen_model::kernel::parse`).
    pub text: String,
    pub kernel: Kernel,
    /// Its failing run.
    pub outcome: KernelOutcome,
    /// Candidate kernels tried.
    pub tries: u32,
}

/// Static instructions of a kernel (what the CLI reports before and after shrinking).
pub fn instruction_count(kernel: &Kernel) -> usize {
    kernel.code.len()
}

/// Reduces `source` (a kernel whose kernel-driven run of `block` on `lib` fails) to the smallest kernel
/// that still fails the same way: `fails` says whether an outcome counts (the CLI passes "has an
/// RTL mismatch"). Returns `None` when `source` itself does not fail. Every run uses
/// `opts.x_seed`; the original runs for at most `opts.max_cycles` (in lockstep, then on the model
/// alone), candidates for the bound derived from it (module doc). No run writes a waveform
/// (`opts.waveform` is ignored: replay [`Shrunk::kernel`] with one). `progress` gets one short
/// line per accepted reduction.
///
/// Errors: `source` does not parse or does not fit the SM (bad input, reported as such), or the
/// lockstep machinery itself fails.
pub fn shrink(
    block: Block,
    checked: &Checked,
    lib: &Arc<RtlLib>,
    source: &str,
    opts: &KernelOptions,
    fails: &dyn Fn(&KernelOutcome) -> bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Option<Shrunk>> {
    let declared = parse(source).map_err(|e| anyhow::anyhow!("{e}"))?;
    let kernel = launch(checked, &declared).map_err(|e| anyhow::anyhow!("{e}"))?.into_owned();
    let first = KernelOptions { waveform: None, ..opts.clone() };
    let run = blocks::kernel_mode(block).map_err(anyhow::Error::msg)?.run;
    let outcome = run(checked, lib, &kernel, &first, &mut |_| {})?;
    if !fails(&outcome) {
        return Ok(None);
    }
    let finished = model_cycles(checked, &kernel, opts.max_cycles);
    let longest = finished.unwrap_or(0).max(outcome.cycles);
    let max_cycles = longest.saturating_mul(4).saturating_add(10_000);
    let mut s = Shrinker {
        run,
        checked,
        lib,
        opts: KernelOptions { x_seed: opts.x_seed, max_cycles, waveform: None },
        must_finish: finished.is_some(),
        must_define: outcome.sim.undefined_reads == 0,
        fails,
        progress,
        best: Best { lines: source.lines().map(str::to_owned).collect(), kernel, outcome },
        rejected: HashSet::new(),
        tries: 0,
    };

    let code: Vec<String> = s.best.lines.iter().filter(|l| !is_comment(l)).cloned().collect();
    if code.len() < s.best.lines.len() {
        s.attempt(code, "dropped comments")?;
    }
    loop {
        let before = s.best.lines.len();
        let grid = (s.best.kernel.blocks, s.best.kernel.threads);
        s.shrink_grid()?;
        s.ddmin()?;
        s.sweep(optional_directives, 1)?;
        let shrank = s.best.lines.len() < before || (s.best.kernel.blocks, s.best.kernel.threads) != grid;
        if !shrank || s.out_of_budget() {
            break;
        }
    }

    let Best { lines, kernel, outcome } = s.best;
    Ok(Some(Shrunk { text: join(&lines), kernel, outcome, tries: s.tries }))
}

/// The smallest failing kernel so far.
struct Best {
    lines: Vec<String>,
    kernel: Kernel,
    outcome: KernelOutcome,
}

struct Shrinker<'a> {
    /// The block's kernel-driven run.
    run: KernelRun,
    checked: &'a Checked,
    lib: &'a Arc<RtlLib>,
    /// Options of every candidate run (the cycle bound derived from the original).
    opts: KernelOptions,
    /// Candidates must finish on the model alone (the original does).
    must_finish: bool,
    /// Candidates must read only registers their warp wrote (the original does).
    must_define: bool,
    fails: &'a dyn Fn(&KernelOutcome) -> bool,
    progress: &'a mut dyn FnMut(&str),
    best: Best,
    /// Candidate texts already rejected, so a later round does not run them again.
    rejected: HashSet<String>,
    tries: u32,
}

impl Shrinker<'_> {
    fn out_of_budget(&self) -> bool {
        self.tries >= MAX_TRIES
    }

    /// Tries `lines` as the new kernel; keeps it (and reports `what`) if it still fails.
    fn attempt(&mut self, lines: Vec<String>, what: &str) -> Result<bool> {
        let text = join(&lines);
        if self.out_of_budget() || self.rejected.contains(&text) {
            return Ok(false);
        }
        self.tries += 1;
        match self.run(&text)? {
            Some((kernel, outcome)) => {
                let at = match &outcome.mismatch {
                    Some(m) => format!("mismatch at cycle {}", m.cycle),
                    None => format!("fails after {} cycles", outcome.cycles),
                };
                (self.progress)(&format!(
                    "{what}: {} instructions, grid {}x{}, {at}",
                    instruction_count(&kernel),
                    kernel.blocks,
                    kernel.threads
                ));
                self.best = Best { lines, kernel, outcome };
                Ok(true)
            }
            None => {
                self.rejected.insert(text);
                Ok(false)
            }
        }
    }

    /// The candidate's kernel and run if it counts: parses, fits, stops cleanly and fails, and
    /// finishes on the model alone if it must.
    fn run(&self, text: &str) -> Result<Option<(Kernel, KernelOutcome)>> {
        let Ok(declared) = parse(text) else { return Ok(None) };
        let Ok(kernel) = launch(self.checked, &declared) else { return Ok(None) };
        let kernel = kernel.into_owned();
        let outcome = (self.run)(self.checked, self.lib, &kernel, &self.opts, &mut |_| {})?;
        // The model-only run comes last: most candidates are rejected before it.
        let counts = outcome.error.is_none()
            && (self.fails)(&outcome)
            && (!self.must_define || outcome.sim.undefined_reads == 0)
            && (!self.must_finish || model_cycles(self.checked, &kernel, self.opts.max_cycles).is_some());
        Ok(counts.then_some((kernel, outcome)))
    }

    /// Fewer blocks, then fewer threads per block.
    fn shrink_grid(&mut self) -> Result<()> {
        let lanes = self.checked.geometry.lanes.max(1);
        self.shrink_dimension(1, |k| k.blocks, |k, b| (b, k.threads))?;
        self.shrink_dimension(lanes, |k| k.threads, |k, t| (k.blocks, t))?;
        Ok(())
    }

    /// Tries `floor` first, then halving the current value (never below `floor`) while that
    /// still fails.
    fn shrink_dimension(
        &mut self,
        floor: u32,
        get: fn(&Kernel) -> u32,
        grid: fn(&Kernel, u32) -> (u32, u32),
    ) -> Result<()> {
        if get(&self.best.kernel) <= floor {
            return Ok(());
        }
        if self.try_grid(grid(&self.best.kernel, floor))? {
            return Ok(());
        }
        loop {
            let current = get(&self.best.kernel);
            let half = (current / 2).max(floor);
            if half >= current || !self.try_grid(grid(&self.best.kernel, half))? {
                return Ok(());
            }
        }
    }

    fn try_grid(&mut self, (blocks, threads): (u32, u32)) -> Result<bool> {
        let Some(at) = self.best.lines.iter().position(|l| directive(l) == Some(".grid")) else {
            return Ok(false);
        };
        let mut lines = self.best.lines.clone();
        // The line's comment would describe the old grid, so it goes. A two-dimensional grid
        // keeps its blocks along y and gives up blocks along x.
        let y = self.best.kernel.blocks_y;
        lines[at] = match y {
            1 => format!(".grid {blocks} {threads}"),
            _ => format!(".grid {} {y} {threads}", (blocks / y).max(1)),
        };
        if lines[at] == self.best.lines[at] {
            return Ok(false);
        }
        let (b, t) = (self.best.kernel.blocks, self.best.kernel.threads);
        self.attempt(lines, &format!("grid {b}x{t} to {blocks}x{threads}"))
    }

    /// Removes chunks of instruction lines: halves, quarters, ... single lines.
    fn ddmin(&mut self) -> Result<()> {
        let mut chunk = instruction_lines(&self.best.lines).len().div_ceil(2);
        while chunk > 0 && !self.out_of_budget() {
            self.sweep(instruction_lines, chunk)?;
            chunk /= 2;
        }
        Ok(())
    }

    /// Tries removing each chunk of `chunk` consecutive lines of those `select` picks, from the
    /// top, keeping every removal that still fails.
    fn sweep(&mut self, select: fn(&[String]) -> Vec<usize>, chunk: usize) -> Result<()> {
        let mut start = 0;
        while !self.out_of_budget() {
            let lines = select(&self.best.lines);
            if start >= lines.len() {
                break;
            }
            let gone = &lines[start..(start + chunk).min(lines.len())];
            let candidate =
                self.best.lines.iter().enumerate().filter(|(i, _)| !gone.contains(i)).map(|(_, l)| l.clone()).collect();
            let what = match gone {
                [one] => format!("removed `{}`", short(self.best.lines[*one].trim())),
                _ => format!("removed {} lines", gone.len()),
            };
            // On success the next chunk has moved up into `start`; on failure, step over this one.
            if !self.attempt(candidate, &what)? {
                start += chunk;
            }
        }
        Ok(())
    }
}

/// Cycles the golden model alone takes to finish `kernel`; `None` if it does not fit, faults or
/// is still running after `max_cycles`.
fn model_cycles(checked: &Checked, kernel: &Kernel, max_cycles: u64) -> Option<u64> {
    let mut sm = Sm::new(checked, kernel).ok()?;
    sm.run(max_cycles, &mut |_| {}).ok()?;
    Some(sm.cycle())
}

/// Indices of the lines delta debugging may remove: all but the directives.
fn instruction_lines(lines: &[String]) -> Vec<usize> {
    lines.iter().enumerate().filter(|(_, l)| directive(l).is_none()).map(|(i, _)| i).collect()
}

/// Indices of the directives a kernel may do without once its code has shrunk: a `.const`
/// nothing names any more (the parser rejects the removal of one still used), or memory
/// (`.shared`, `.data`, `.fill`) the remaining code does not need to fail.
fn optional_directives(lines: &[String]) -> Vec<usize> {
    let optional = |l: &String| matches!(directive(l), Some(".const" | ".shared" | ".data" | ".fill"));
    lines.iter().enumerate().filter(|(_, l)| optional(l)).map(|(i, _)| i).collect()
}

/// The directive a line holds (`.grid`, ...), if any.
fn directive(line: &str) -> Option<&str> {
    line.split_whitespace().next().filter(|w| w.starts_with('.'))
}

/// Blank or only a comment.
fn is_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with(';') || t.starts_with("//")
}

fn join(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// A kernel line as a progress message shows it: at most 60 characters (a `.data` line can hold
/// thousands).
fn short(line: &str) -> String {
    match line.char_indices().nth(60) {
        Some((at, _)) => format!("{} ...", &line[..at]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_told_apart() {
        let lines: Vec<String> =
            [".kernel k", "  .grid 2 64 ; two blocks", "; note", "L:", "  mov r0, 1", "  exit", ".const N 4"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        assert_eq!(instruction_lines(&lines), vec![2, 3, 4, 5]);
        assert_eq!(optional_directives(&lines), vec![6]);
        assert!(is_comment("; note") && is_comment("   // c") && is_comment("  "));
        assert!(!is_comment("  mov r0, 1 ; c"));
        assert_eq!(directive("  .grid 2 64 ; two blocks"), Some(".grid"));
    }

    #[test]
    fn progress_shows_long_lines_cut() {
        assert_eq!(short("add r1, r2, 3"), "add r1, r2, 3");
        let data = format!(".data 0x100 {}", "1000 ".repeat(100));
        assert_eq!(short(&data), format!("{} ...", &data[..60]));
    }
}
