//! `rfgen`: generate GPU register-file RTL, cosimulate it against the golden model, measure it.

mod cli;
mod sweep;
mod synth;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            let code = if e.downcast_ref::<cli::BadInput>().is_some() { 2 } else { 1 };
            eprintln!("error: {e:#}");
            ExitCode::from(code)
        }
    }
}
