//! `rfgen`: generate GPU register-file RTL, cosimulate it against the golden model, measure it.

mod cli;
mod mutate;
mod prove;
mod regress;
mod report;
mod slurm;
mod sweep;
mod synth;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Output piped into `head` and the like ends quietly when the reader goes away, as for
    // other command-line tools, instead of panicking on the failed write.
    #[cfg(unix)]
    // SAFETY: restoring the default action of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
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
