//! Register allocation of PTX kernels (docs/ptx.md, *Register allocation*) against the
//! reference compiler, and the bank conflicts its numbering gives: every `workloads/*.ptx` (so
//! kernels added later are covered) needs within 1.5 times the registers `ptxas -arch=sm_70`
//! uses, and the allocator's numbering is compared with one register per virtual register.

mod common;

use common::{root, workload_names};
use rfgen_model::kernel::ptx::{self, Numbering, launch};
use std::path::{Path, PathBuf};
use std::process::Command;

const INSTALL: &str = "install it with `python3 -m pip install nvidia-cuda-nvcc-cu12` (the PyPI wheel holding \
                       CUDA's ptxas; scripts/test installs it) or put a CUDA toolkit's ptxas on PATH";

/// ptxas: on PATH, else inside the PyPI wheel `nvidia-cuda-nvcc-cu12`.
fn ptxas() -> PathBuf {
    if Command::new("ptxas").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return PathBuf::from("ptxas");
    }
    let find = "import importlib.metadata as m\n\
                d = m.distribution('nvidia-cuda-nvcc-cu12')\n\
                print(next(d.locate_file(f) for f in d.files if str(f).endswith('bin/ptxas')))";
    let out = Command::new("python3").args(["-c", find]).output();
    match out {
        Ok(o) if o.status.success() => {
            let path = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            assert!(
                path.is_file(),
                "ptxas is listed by nvidia-cuda-nvcc-cu12 at {} but missing: {INSTALL}",
                path.display()
            );
            path
        }
        Ok(o) => {
            let stderr = String::from_utf8_lossy(&o.stderr);
            panic!("ptxas not found ({}): {INSTALL}", stderr.trim().lines().last().unwrap_or_default())
        }
        Err(e) => panic!("ptxas not found (python3: {e}): {INSTALL}"),
    }
}

/// "Used N registers" of `ptxas -v` for `file`.
fn ptxas_registers(ptxas: &Path, file: &Path) -> u32 {
    let out = Command::new(ptxas)
        .args(["-arch=sm_70", "-v", "-o", "/dev/null"])
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("{} does not run ({e}): {INSTALL}", ptxas.display()));
    let text = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "ptxas refused {}: {text}", file.display());
    let used = text.split("Used ").nth(1).and_then(|rest| rest.split(' ').next()).and_then(|n| n.parse().ok());
    used.unwrap_or_else(|| panic!("no \"Used N registers\" in ptxas' output for {}: {text}", file.display()))
}

/// The workload `name` loaded with `launch_file` (relative to the workspace), numbered as asked.
fn load(name: &str, launch_file: &str, numbering: Numbering) -> ptx::PtxKernel {
    let text = std::fs::read_to_string(root().join(format!("workloads/{name}.ptx"))).unwrap();
    let launch_text = std::fs::read_to_string(root().join(launch_file))
        .unwrap_or_else(|e| panic!("{name}: its launch file {launch_file}: {e}"));
    let launch = launch::parse(&launch_text).unwrap_or_else(|e| panic!("{launch_file}: {e}"));
    ptx::load_numbered(&text, &launch, numbering).unwrap_or_else(|e| panic!("workloads/{name}.ptx: {e}"))
}

#[test]
fn every_workload_needs_within_one_and_a_half_times_the_registers_ptxas_uses() {
    let ptxas = ptxas();
    let mut report = Vec::new();
    let mut outside = Vec::new();
    for name in workload_names() {
        let theirs = ptxas_registers(&ptxas, &root().join(format!("workloads/{name}.ptx")));
        let ours = load(&name, &format!("workloads/{name}.toml"), Numbering::Allocated).kernel.regs;
        let line = format!("{name}: rfgen {ours} registers, ptxas {theirs}");
        if f64::from(ours) > 1.5 * f64::from(theirs) || f64::from(theirs) > 1.5 * f64::from(ours) {
            outside.push(line.clone());
        }
        report.push(line);
    }
    println!("{}", report.join("\n"));
    assert!(outside.is_empty(), "more than 1.5 times apart: {}\n(all: {})", outside.join("; "), report.join("; "));
}

/// Bank conflicts per register read of the workload's small launch (its default one when the
/// tests have none) on a config whose 256 registers per thread hold either numbering (so both
/// run with the same warps resident).
fn conflict_rate(name: &str, numbering: Numbering) -> (f64, u64, u64, u32) {
    let small = format!("tests/data/ptx/{name}.toml");
    let launch = if root().join(&small).exists() { small } else { format!("workloads/{name}.toml") };
    let k = load(name, &launch, numbering);
    let config = "name = \"regalloc\"\n[sm]\nregisters_per_thread = 256\n[mrf]\nentries = 2048\n";
    let checked = rfgen_gen::config::parse(config).expect("a valid config");
    let stats = rfgen_model::sim::run(&checked, &k.kernel, 50_000_000, &mut |_| {})
        .unwrap_or_else(|e| panic!("{name} ({numbering:?}): {e}"))
        .0;
    assert_eq!(stats.operand_mismatches, 0, "{name} ({numbering:?})");
    let (conflicts, reads) = (stats.mrf.bank_conflicts, stats.mrf.reads);
    (conflicts as f64 / reads.max(1) as f64, conflicts, reads, k.kernel.regs)
}

#[test]
fn the_allocators_numbering_conflicts_on_banks_no_more_than_virtual_register_order() {
    let (mut ours_total, mut naive_total, mut reads_total) = (0, 0, 0);
    let mut report = Vec::new();
    for name in workload_names() {
        let (ours, ours_conflicts, reads, ours_regs) = conflict_rate(&name, Numbering::Allocated);
        let (naive, naive_conflicts, naive_reads, naive_regs) = conflict_rate(&name, Numbering::VirtualOrder);
        assert_eq!(reads, naive_reads, "{name}: both numberings run the same instructions");
        report.push(format!(
            "{name}: allocator {:.1} % ({ours_conflicts} of {reads} reads, {ours_regs} registers), virtual order {:.1} % ({naive_conflicts}, {naive_regs} registers)",
            100.0 * ours,
            100.0 * naive
        ));
        ours_total += ours_conflicts;
        naive_total += naive_conflicts;
        reads_total += reads;
    }
    println!("{}", report.join("\n"));
    println!(
        "all: allocator {:.1} %, virtual order {:.1} % of {reads_total} reads",
        100.0 * ours_total as f64 / reads_total as f64,
        100.0 * naive_total as f64 / reads_total as f64
    );
    assert!(
        ours_total <= naive_total,
        "the allocator's numbering conflicts more than virtual-register order:\n{}",
        report.join("\n")
    );
}
