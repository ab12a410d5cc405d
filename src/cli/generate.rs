//! `rfgen gen`: emit the RTL of a configuration.

use super::{ConfigSource, bad_input};
use clap::{Args, ValueEnum};
use rfgen_gen::{Block, SramKind};
use std::path::PathBuf;
use std::process::ExitCode;

/// Generate the Verilog of a configuration
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen gen                                   # default SM's composed top into rtl-out/baseline/
  rfgen gen --preset baseline --out build/rtl
  rfgen gen --block mrf                       # the operand path alone into rtl-out/baseline-mrf/
  rfgen gen --config my.toml --sram blackbox  # SRAM leaves as stubs for a macro flow
  rfgen gen --preset small --sram ecp5         # SRAM leaves in ECP5 block RAMs
  rfgen gen --force                           # also replace rtl-out/baseline after hand edits
  rfgen gen --preset war-warpboard --block issue   # issue stage into rtl-out/war-warpboard-issue/

--out replaces only a folder rfgen wrote (recognized by its manifest.json); a file, a link or a
folder with other content is refused and left untouched.")]
pub struct GenArgs {
    #[command(flatten)]
    source: ConfigSource,
    /// Block to generate (as `rfgen cosim --list` names them) [default: sm, the composed top with
    /// every part as a sub-module; mrf for a config with renaming, which the top does not hold yet]
    #[arg(long, value_parser = Block::parse)]
    block: Option<Block>,
    /// Output folder (default: rtl-out/<name>, rtl-out/<name>-<block> with --block): created, or
    /// replaced atomically when rfgen wrote it
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Also replace an rfgen output folder whose files were edited since (never anything else)
    #[arg(long)]
    force: bool,
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
    /// ECP5 DP16KD block RAMs, their output registers used (FPGA; a model of them for simulation)
    Ecp5,
}

pub fn run(args: GenArgs) -> anyhow::Result<ExitCode> {
    let checked = args.source.load()?;
    let kind = match args.sram {
        Sram::Behavioural => SramKind::Behavioural,
        Sram::Blackbox => SramKind::Blackbox,
        Sram::Ecp5 => SramKind::Ecp5,
    };
    let block = args.block.unwrap_or(Block::Sm);
    if kind != SramKind::Behavioural && !block.has_sram() {
        let name = args.sram.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
        return Err(bad_input(format!("--sram {name}: only the mrf and sm blocks have SRAM leaves (--block {block})")));
    }
    if let Some(why) = kind.refuses(checked.config.mrf.entries) {
        return Err(bad_input(format!("--sram ecp5: {why}; use --sram behavioural, which Yosys maps to any depth")));
    }
    let design = block.generate(&checked, kind).map_err(|e| bad_input(e.to_string()))?;
    let folder = match args.block {
        None => checked.config.name.clone(),
        Some(b) => format!("{}-{b}", checked.config.name),
    };
    let out = args.out.unwrap_or_else(|| PathBuf::from("rtl-out").join(folder));
    design.write(&out, args.force).map_err(|e| if e.is_input_error() { bad_input(e.to_string()) } else { e.into() })?;
    println!(
        "wrote {} files to {} (top {}, config hash {})",
        design.files.len(),
        out.display(),
        design.manifest.top,
        design.manifest.config_hash
    );
    if block == Block::Mrf && checked.config.warpboard.policy != rfgen_gen::config::WarPolicy::None {
        // The operand path does not contain the warpboard: say where it is.
        eprintln!("note: the warpboard is in the issue stage, a design of its own: rfgen gen --block issue");
    }
    Ok(ExitCode::SUCCESS)
}
