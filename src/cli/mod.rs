//! Command-line interface: argument definitions and one module per subcommand.

mod backend;
mod bench;
mod config;
pub mod cosim;
mod generate;
mod mutate;
mod progress;
mod prove;
mod ptx;
mod regress;
mod report;
mod sim;
mod sweep;
mod synth;

use clap::{Args, Parser, Subcommand};
use rfgen_gen::config::{self as cfg, Checked};
use rfgen_gen::input::{Input, read_text};
use std::path::PathBuf;
use std::process::ExitCode;

/// Bad user input (config, flag, kernel file): exit code 2.
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

pub fn bad_input(msg: impl Into<String>) -> anyhow::Error {
    BadInput(msg.into()).into()
}

/// Longest run a cycle count or limit may ask for.
const MAX_CYCLES: u64 = 10_000_000_000;

/// A cycle count or limit flag (`--cycles`, `--max-cycles`): one rule for every command.
fn cycles(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|c| (1..=MAX_CYCLES).contains(c))
        .ok_or_else(|| format!("allowed 1 to {MAX_CYCLES} (a billion cycles take about an hour)"))
}

/// Most x-seeds one stimulus runs under: each is a whole run of it.
pub const MAX_X_SEEDS: u32 = 100;

/// `--x-seeds N` (`rfgen cosim`, `rfgen mutate`): how many x-seeds each stimulus runs under.
/// `--x-seed`: Verilator takes 0 as "draw a seed from the system", which no run can repeat.
fn x_seed(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|&x| x != 0)
        .ok_or_else(|| format!("allowed 1 to {}: 0 would make Verilator draw the power-up state from the system, and the run could not be repeated", u32::MAX))
}

fn x_seed_count(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_X_SEEDS).contains(n))
        .ok_or_else(|| format!("allowed 1 to {MAX_X_SEEDS}: how many x-seeds, each a whole run of the stimulus"))
}

/// An I/O error on a folder or file the user named with `flag`: bad input when the path is at
/// fault (not a folder, no permission, read-only), a failure otherwise.
pub fn path_error(flag: &str, path: &std::path::Path, e: std::io::Error) -> anyhow::Error {
    let message = format!("{flag} {}: {e}", path.display());
    if rfgen_gen::input::path_at_fault(&e) { bad_input(message) } else { anyhow::anyhow!(message) }
}

/// Creates the output folder of `rfgen <command>`, or accepts an existing one that is empty or
/// that command's (it holds the marker `.rfgen-<command>`); refuses any other folder or file
/// before anything is written.
pub fn claim_folder(out: &std::path::Path, command: &str, reuse: &str) -> anyhow::Result<()> {
    use anyhow::Context;
    let marker = out.join(format!(".rfgen-{command}"));
    if out.exists() {
        if !out.is_dir() {
            return Err(bad_input(format!("--out {}: is not a folder", out.display())));
        }
        let empty = std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))?.next().is_none();
        if !empty && !marker.is_file() {
            return Err(bad_input(format!(
                "--out {}: a folder with other content; a {command} writes only into a new or empty folder or one an earlier {command} wrote",
                out.display()
            )));
        }
    }
    std::fs::create_dir_all(out).map_err(|e| path_error("--out", out, e))?;
    std::fs::write(&marker, format!("written by rfgen {command}; {reuse}\n"))
        .map_err(|e| path_error("--out", out, e))?;
    Ok(())
}

#[derive(Parser)]
#[command(name = "rfgen", version, about = "Generate, cosimulate and measure GPU register-file RTL", long_about = None)]
// Without a subcommand: an `error:` line and the usage, not the whole help (likewise below).
#[command(arg_required_else_help = false, subcommand_required = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Gen(generate::GenArgs),
    Config(config::ConfigArgs),
    Cosim(cosim::CosimArgs),
    #[command(
        after_help = "Examples:\n  rfgen bench sim --kernel matmul                  # SM model cycles/s\n  rfgen bench cosim --preset baseline              # lockstep, RTL alone, model alone"
    )]
    Bench(bench::BenchArgs),
    Synth(synth::SynthArgs),
    Sweep(sweep::SweepArgs),
    Sim(sim::SimArgs),
    Regress(regress::RegressArgs),
    Report(report::ReportArgs),
    Prove(prove::ProveArgs),
    Mutate(mutate::MutateArgs),
}

/// Which configuration to use: a TOML file or a named preset (default: `baseline`).
#[derive(Args, Clone, Debug)]
#[group(multiple = false)]
pub struct ConfigSource {
    /// TOML configuration file (see docs/config.md)
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Named preset (`rfgen config --list-presets`)
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
}

impl ConfigSource {
    pub fn load(&self) -> anyhow::Result<Checked> {
        match (&self.config, &self.preset) {
            (Some(path), _) => load_file(path),
            (None, Some(name)) => cfg::preset(name).map_err(|e| bad_input(e.to_string())),
            (None, None) => cfg::preset("baseline").map_err(|e| bad_input(e.to_string())),
        }
    }

    /// The flags that select this config, for reproducer command lines.
    pub fn flags(&self) -> String {
        match (&self.config, &self.preset) {
            (Some(path), _) => format!("--config {}", path.display()),
            (None, Some(name)) => format!("--preset {name}"),
            (None, None) => "--preset baseline".into(),
        }
    }
}

pub fn load_file(path: &std::path::Path) -> anyhow::Result<Checked> {
    let text = read_text(path, Input::Config).map_err(|e| bad_input(e.to_string()))?;
    let checked = cfg::parse(&text).map_err(|e| bad_input(format!("invalid config {}: {e}", path.display())))?;
    for w in &checked.warnings {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(checked)
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Gen(a) => generate::run(a),
        Command::Config(a) => config::run(a),
        Command::Cosim(a) => cosim::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Synth(a) => synth::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Sim(a) => sim::run(a),
        Command::Regress(a) => regress::run(a),
        Command::Report(a) => report::run(a),
        Command::Prove(a) => prove::run(a),
        Command::Mutate(a) => mutate::run(a),
    }
}

/// `--kernel none`, alone, asks for no kernel at all (whether it was given); beside other kernels
/// it is refused.
pub fn no_kernels(given: &[String]) -> anyhow::Result<bool> {
    if !given.iter().any(|k| k == "none") {
        return Ok(false);
    }
    if given.len() > 1 {
        return Err(bad_input("--kernel none: means no kernel at all, so it cannot be given with others"));
    }
    Ok(true)
}

/// A library kernel by name, a kernel file, or a PTX kernel.
pub fn kernel(name: &str) -> anyhow::Result<rfgen_model::kernel::Kernel> {
    kernel_with_source(name).map(|(k, _)| k)
}

/// [`kernel`] and its source text.
pub fn kernel_with_source(name: &str) -> anyhow::Result<(rfgen_model::kernel::Kernel, String)> {
    kernel_within(name, rfgen_model::kernel::ptx::regalloc::MAX_REGISTERS)
}

/// [`kernel_with_source`], a PTX kernel allocated within `max_registers` per thread (spilling
/// the rest to local memory, as `rfgen sim` does for its config).
pub fn kernel_within(name: &str, max_registers: u32) -> anyhow::Result<(rfgen_model::kernel::Kernel, String)> {
    use rfgen_model::kernel::{library, synthetic};
    if let Some(text) = name.strip_prefix("synthetic:") {
        let knobs = synthetic::Knobs::parse(text).map_err(|e| bad_input(format!("--kernel {name}: {e}")))?;
        let source = synthetic::source(&knobs);
        let mut kernel = rfgen_model::kernel::parse(&source).expect("generated kernels parse");
        // Named by its knobs, so that several synthetic kernels have their own columns.
        kernel.name = format!("synthetic({})", text.replace(',', ";"));
        return Ok((kernel, source));
    }
    if ptx::names_ptx(name) {
        return ptx::load_within(name, max_registers).map(|(k, source)| (k.kernel, source));
    }
    if let Some(k) = library::find(name) {
        let kernel = k.parse().map_err(|e| anyhow::anyhow!("library kernel {name}: {e}"))?;
        return Ok((kernel, k.source.to_string()));
    }
    let path = PathBuf::from(name);
    if !path.exists() {
        let names: Vec<&str> = library::KERNELS.iter().map(|k| k.name).collect();
        return Err(bad_input(format!(
            "`{name}` is neither a library kernel ({}), `ptx:WORKLOAD` (rfgen sim --list-kernels), `synthetic:KNOBS` nor a file",
            names.join(", ")
        )));
    }
    let text = read_text(&path, Input::Kernel).map_err(|e| bad_input(e.to_string()))?;
    let kernel = rfgen_model::kernel::parse(&text).map_err(|e| bad_input(format!("{}:{e}", path.display())))?;
    Ok((kernel, text))
}
