//! `rfgen config`: print the default, check a file, print a preset.

use super::{bad_input, load_file};
use clap::Args;
use rfgen_gen::config as cfg;
use std::path::PathBuf;
use std::process::ExitCode;

/// Print, check or list configurations
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen config --print-default > my.toml
  rfgen config --check my.toml
  rfgen config --preset baseline
  rfgen config --list-presets")]
#[group(required = true, multiple = false)]
pub struct ConfigArgs {
    /// Print the full default configuration as TOML
    #[arg(long)]
    print_default: bool,
    /// Validate a TOML file; exit 2 with one message naming the broken field
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,
    /// Print a preset in full as TOML
    #[arg(long, value_name = "NAME")]
    preset: Option<String>,
    /// List the presets
    #[arg(long)]
    list_presets: bool,
}

pub fn run(args: ConfigArgs) -> anyhow::Result<ExitCode> {
    if args.print_default {
        print!(
            "# rfgen default configuration (the paper baseline, SPEC section 0); fields: docs/config.md\n{}",
            cfg::default_toml()
        );
    } else if let Some(path) = args.check {
        let checked = load_file(&path)?;
        println!("{}: ok (name {}, config hash {})", path.display(), checked.config.name, checked.hash());
    } else if let Some(name) = args.preset {
        let checked = cfg::preset(&name).map_err(|e| bad_input(e.to_string()))?;
        print!("{}", checked.to_toml());
    } else {
        for name in cfg::preset_names() {
            println!("{name}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
