//! `rfgen gen`: emit the RTL of a configuration.

use super::ConfigSource;
use clap::{Args, ValueEnum};
use rfgen_gen::SramKind;
use std::path::PathBuf;
use std::process::ExitCode;

/// Generate the Verilog of a configuration
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen gen                                   # default SM into rtl-out/baseline/
  rfgen gen --preset baseline --out build/rtl
  rfgen gen --config my.toml --sram blackbox  # SRAM leaves as stubs for a macro flow")]
pub struct GenArgs {
    #[command(flatten)]
    source: ConfigSource,
    /// Output folder (default: rtl-out/<name>); replaced atomically
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// How memory leaves are emitted
    #[arg(long, value_enum, default_value_t = Sram::Behavioural)]
    sram: Sram,
}

#[derive(Clone, Copy, ValueEnum)]
enum Sram {
    /// behavioural array (simulation, FPGA)
    Behavioural,
    /// port-compatible stub to replace with an SRAM macro (ASIC)
    Blackbox,
}

pub fn run(args: GenArgs) -> anyhow::Result<ExitCode> {
    let checked = args.source.load()?;
    let kind = match args.sram {
        Sram::Behavioural => SramKind::Behavioural,
        Sram::Blackbox => SramKind::Blackbox,
    };
    let design = rfgen_gen::generate(&checked, kind);
    let out = args.out.unwrap_or_else(|| PathBuf::from("rtl-out").join(&checked.config.name));
    design.write(&out).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
    println!(
        "wrote {} files to {} (top {}, config hash {})",
        design.files.len(),
        out.display(),
        design.manifest.top,
        design.manifest.config_hash
    );
    Ok(ExitCode::SUCCESS)
}
