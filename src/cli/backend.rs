//! `--backend local|slurm` and the Slurm settings, shared by the commands that measure many
//! independent points.

use super::bad_input;
use crate::slurm::Settings;
use clap::{Args, ValueEnum};
use std::ffi::OsString;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// This machine's cores
    Local,
    /// One Slurm job array through `sbatch`, each task one point, on a folder every node shares
    Slurm,
}

#[derive(Args, Clone, Debug)]
pub struct BackendFlags {
    /// Where the points run
    #[arg(long, value_enum, default_value_t = Backend::Local)]
    pub backend: Backend,
    /// Slurm partition (default: the cluster's default partition)
    #[arg(long, value_name = "NAME")]
    partition: Option<String>,
    /// Slurm time limit of each task, as `sbatch --time` takes it (MINUTES, HH:MM:SS, D-HH:MM)
    #[arg(long, value_name = "TIME")]
    time: Option<String>,
    /// Slurm tasks running at once (default: as many as the cluster gives)
    #[arg(long, value_name = "N")]
    max_jobs: Option<usize>,
}

/// The flags above, as a task's command line must not repeat them (a task runs locally).
const FLAGS: [&str; 4] = ["--backend", "--partition", "--time", "--max-jobs"];

impl BackendFlags {
    /// The Slurm settings, or `None` for the local backend; the Slurm flags need `--backend slurm`.
    pub fn slurm(&self) -> anyhow::Result<Option<Settings>> {
        let given = self.partition.is_some() || self.time.is_some() || self.max_jobs.is_some();
        if self.backend == Backend::Local {
            if given {
                return Err(bad_input("--partition, --time and --max-jobs need --backend slurm"));
            }
            return Ok(None);
        }
        if self.max_jobs == Some(0) {
            return Err(bad_input("--max-jobs must be at least 1"));
        }
        if let Some(t) = &self.time
            && (t.is_empty() || !t.chars().all(|c| c.is_ascii_digit() || c == ':' || c == '-'))
        {
            return Err(bad_input(format!(
                "--time {t}: a Slurm time limit is MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS"
            )));
        }
        Ok(Some(Settings { partition: self.partition.clone(), time: self.time.clone(), max_jobs: self.max_jobs }))
    }
}

/// This process's arguments without the backend flags and the flags in `drop` (each with its
/// value), followed by `extra`: the command line of one task.
pub fn task_args(drop: &[&str], extra: &[String]) -> Vec<OsString> {
    let dropped: Vec<&str> = FLAGS.iter().chain(drop).copied().collect();
    let mut out = Vec::new();
    let mut skip_value = false;
    for arg in std::env::args_os().skip(1) {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        let text = arg.to_string_lossy();
        if dropped.contains(&text.as_ref()) {
            skip_value = true;
        } else if !dropped.iter().any(|f| text.starts_with(&format!("{f}="))) {
            out.push(arg);
        }
    }
    out.extend(extra.iter().map(OsString::from));
    out
}

/// A short hash of a task's command line: its results' name, so a rerun of the same command finds
/// them and any other command does not.
pub fn task_key(args: &[OsString]) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for a in args {
        h.update(a.as_encoded_bytes());
        h.update([0]);
    }
    h.finalize()[..6].iter().map(|b| format!("{b:02x}")).collect()
}
