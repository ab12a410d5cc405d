//! `--kernel FILE.ptx` (with its launch file `FILE.toml` beside it), `--kernel LAUNCH.toml`
//! (naming its PTX) or `--kernel ptx:NAME` (a workload of `workloads/`, built in): a kernel
//! compiled from CUDA C (docs/ptx.md).

use super::bad_input;
use rfgen_gen::input::{Input, read_text};
use rfgen_model::kernel::ptx::{self, LoadError, PtxKernel, launch, suite};
use std::path::{Path, PathBuf};

/// How `--kernel` names a built-in PTX workload: `ptx:sgemm`.
pub const WORKLOAD_PREFIX: &str = "ptx:";

/// Whether `--kernel` names a PTX kernel rather than a kernel-IR file.
pub fn names_ptx(name: &str) -> bool {
    name.starts_with(WORKLOAD_PREFIX) || name.ends_with(".ptx") || name.ends_with(".toml")
}

/// `--kernel` of every built-in PTX workload.
pub fn workload_specs() -> impl Iterator<Item = String> {
    suite::WORKLOADS.iter().map(|w| format!("{WORKLOAD_PREFIX}{}", w.name))
}

/// The kernel `name` names, and its source (PTX and launch file) to identify its results,
/// spilling to local memory beyond `max_registers` per thread.
pub fn load_within(name: &str, max_registers: u32) -> anyhow::Result<(PtxKernel, String)> {
    if let Some(short) = name.strip_prefix(WORKLOAD_PREFIX) {
        return load_workload(short, max_registers);
    }
    let given = PathBuf::from(name);
    let launch_path = if name.ends_with(".ptx") { given.with_extension("toml") } else { given.clone() };
    let read = |path: &Path| read_text(path, Input::Kernel).map_err(|e| bad_input(e.to_string()));
    let launch_text = read(&launch_path).map_err(|e| {
        if name.ends_with(".ptx") && !launch_path.exists() {
            bad_input(format!("{name}: its launch file {} is missing (docs/ptx.md)", launch_path.display()))
        } else {
            e
        }
    })?;
    let in_launch = |e: &dyn std::fmt::Display| bad_input(format!("{}: {e}", launch_path.display()));
    let launch = launch::parse(&launch_text).map_err(|e| in_launch(&e))?;
    let ptx_path = match (&launch.ptx, name.ends_with(".ptx")) {
        (_, true) => given,
        (Some(p), false) => launch_path.parent().unwrap_or(Path::new("")).join(p),
        (None, false) => launch_path.with_extension("ptx"),
    };
    let text = read(&ptx_path)?;
    let kernel = ptx::load_within(&text, &launch, max_registers).map_err(|e| match e {
        LoadError::Ptx(e) => bad_input(format!("{}:{e}", ptx_path.display())),
        LoadError::Launch(e) => in_launch(&e),
    })?;
    Ok((kernel, format!("{text}\n{launch_text}")))
}

/// The built-in workload `name` (`workloads/<name>.ptx` and its launch file).
fn load_workload(name: &str, max_registers: u32) -> anyhow::Result<(PtxKernel, String)> {
    let Some(w) = suite::find(name) else {
        let names: Vec<&str> = suite::WORKLOADS.iter().map(|w| w.name).collect();
        return Err(bad_input(format!(
            "--kernel {WORKLOAD_PREFIX}{name}: no such PTX workload (built in: {})",
            names.join(", ")
        )));
    };
    // The shipped files are tested to load; what can fail here is spilling into too few registers.
    let launch = launch::parse(w.launch).map_err(|e| anyhow::anyhow!("workloads/{name}.toml: {e}"))?;
    let kernel = ptx::load_within(w.ptx, &launch, max_registers)
        .map_err(|e| bad_input(format!("{WORKLOAD_PREFIX}{name} (workloads/{name}.ptx): {e}")))?;
    Ok((kernel, format!("{}\n{}", w.ptx, w.launch)))
}

/// One line on what register allocation gave.
pub fn allocation_summary(k: &PtxKernel) -> String {
    let plural = if k.predicates == 1 { "" } else { "s" };
    let spilled = if k.spilled > 0 { format!(", {} spilled to local memory", k.spilled) } else { String::new() };
    format!(
        "{} per thread, allocated from {} PTX registers ({} predicate{plural}){spilled}",
        k.kernel.regs, k.virtual_registers, k.predicates
    )
}
