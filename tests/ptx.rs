//! The PTX front end end to end (docs/ptx.md): the committed PTX is what clang-14 makes of the
//! CUDA C in workloads/, every workload computes what its Rust reference does, `rfgen sim` and
//! `rfgen cosim` run them, and PTX outside the subset is refused with file and line.

mod common;

use common::*;
use rfgen_model::kernel::ptx::{self, PtxKernel, launch};
use std::path::{Path, PathBuf};
use std::process::Command;

const WORKLOADS: [&str; 5] = ["vecadd", "saxpy", "sgemm", "reduction", "mriq"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The command line docs/ptx.md gives, from `NAME.cu` to `out`.
fn clang(source: &Path, out: &Path) -> std::process::Output {
    Command::new("clang-14")
        .args(["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_70", "-O2", "-S"])
        .arg(source)
        .arg("-o")
        .arg(out)
        .output()
        .expect("clang-14 is installed (.ci/run installs it)")
}

#[test]
fn the_committed_ptx_is_what_clang_makes_of_the_cuda_sources() {
    let dir = tempfile::tempdir().unwrap();
    for name in WORKLOADS {
        let out = dir.path().join(format!("{name}.ptx"));
        let run = clang(&root().join(format!("workloads/{name}.cu")), &out);
        assert!(run.status.success(), "{name}: {}", String::from_utf8_lossy(&run.stderr));
        let committed = std::fs::read_to_string(root().join(format!("workloads/{name}.ptx"))).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), committed, "workloads/{name}.ptx is stale: regenerate it");
    }
}

/// The test's small launch of a workload, loaded and run on the functional executor (32 lanes).
fn run(name: &str) -> (PtxKernel, rfgen_model::func::GlobalMemory) {
    let launch_path: PathBuf = root().join(format!("tests/data/ptx/{name}.toml"));
    let launch = launch::parse(&std::fs::read_to_string(&launch_path).unwrap()).unwrap();
    let ptx_path = launch_path.parent().unwrap().join(launch.ptx.as_ref().unwrap());
    let k = ptx::load(&std::fs::read_to_string(ptx_path).unwrap(), &launch).unwrap_or_else(|e| panic!("{name}: {e}"));
    let memory = rfgen_model::func::run(&k.kernel, 32).unwrap_or_else(|e| panic!("{name}: {e}")).memory;
    (k, memory)
}

fn input(k: &PtxKernel, buffer: &str) -> Vec<f32> {
    k.buffer(buffer).unwrap().words.iter().map(|&w| f32::from_bits(w)).collect()
}

fn output(k: &PtxKernel, m: &rfgen_model::func::GlobalMemory, buffer: &str) -> Vec<u32> {
    let b = k.buffer(buffer).unwrap();
    (0..b.words.len() as u32).map(|i| m.read(b.addr + 4 * i)).collect()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn vecadd_adds_the_first_n_elements_and_leaves_the_rest() {
    let (k, m) = run("vecadd");
    let (a, b) = (input(&k, "a"), input(&k, "b"));
    let mut want = input(&k, "c");
    for i in 0..a.len() {
        want[i] = a[i] + b[i];
    }
    assert_eq!(output(&k, &m, "c"), bits(&want));
}

#[test]
fn saxpy_is_a_fused_multiply_add_per_element() {
    let (k, m) = run("saxpy");
    let (x, y) = (input(&k, "x"), input(&k, "y"));
    // clang contracts `a * x[i] + y[i]` into one fma, rounded once.
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| x.mul_add(-1.5, *y)).collect();
    assert_eq!(output(&k, &m, "y"), bits(&want));
}

#[test]
fn sgemm_equals_the_dot_products_accumulated_in_order() {
    let (k, m) = run("sgemm");
    let (a, b, n) = (input(&k, "a"), input(&k, "b"), 16);
    let mut want = vec![0f32; n * n];
    for r in 0..n {
        for c in 0..n {
            want[r * n + c] = (0..n).fold(0.0, |acc, i| a[r * n + i].mul_add(b[i * n + c], acc));
        }
    }
    assert_eq!(output(&k, &m, "c"), bits(&want));
}

#[test]
fn reduction_adds_every_word_to_the_output() {
    let (k, m) = run("reduction");
    let sum = k.buffer("in").unwrap().words.iter().fold(5u32, |s, &w| s.wrapping_add(w));
    assert_eq!(output(&k, &m, "out"), vec![sum]);
}

#[test]
fn mriq_sums_the_sines_and_cosines_of_every_k() {
    let (k, m) = run("mriq");
    let (kx, mag, x) = (input(&k, "kx"), input(&k, "mag"), input(&k, "x"));
    let (qr, qi) = (output(&k, &m, "qr"), output(&k, &m, "qi"));
    for i in 0..x.len() {
        let arg = |j: usize| std::f64::consts::TAU * f64::from(kx[j]) * f64::from(x[i]);
        let re: f64 = (0..kx.len()).map(|j| f64::from(mag[j]) * arg(j).cos()).sum();
        let im: f64 = (0..kx.len()).map(|j| f64::from(mag[j]) * arg(j).sin()).sum();
        // f32 arguments up to 25 rad: a few 1e-6 per term.
        for (got, want) in [(qr[i], re), (qi[i], im)] {
            let got = f64::from(f32::from_bits(got));
            assert!((got - want).abs() < 1e-3, "sample {i}: {got} against {want}");
        }
    }
}

#[test]
fn rfgen_sim_runs_every_workload_on_the_sm_model_and_reports_its_registers() {
    for name in WORKLOADS {
        let launch = format!("tests/data/ptx/{name}.toml");
        let out = rfgen(&["sim", "--preset", "small", "--kernel", &launch, "--format", "json"]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(json["stats"]["operand_mismatches"], 0, "{name}");
        let (k, _) = run(name);
        assert_eq!(json["ptx"]["registers"], k.kernel.regs, "{name}");
        assert!(json["stats"]["warp_instructions"].as_u64().unwrap() > 0, "{name}");
    }
}

#[test]
fn the_kernel_driven_cosim_runs_a_ptx_kernel() {
    let out = rfgen(&["cosim", "--preset", "small", "--kernel", "tests/data/ptx/reduction.toml"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("PASS"), "{}", stdout(&out));
}

/// Exit 2 with one error line holding `what`.
fn refused(args: &[&str], what: &str) {
    let out = rfgen(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.lines().next().is_some_and(|l| l.starts_with("error: ") && l.contains(what)), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn ptx_outside_the_subset_is_refused_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = std::fs::read_to_string(root().join("workloads/vecadd.ptx")).unwrap();
    let launch = std::fs::read_to_string(root().join("tests/data/ptx/vecadd.toml")).unwrap();
    let launch = launch.lines().filter(|l| !l.starts_with("ptx =")).collect::<Vec<_>>().join("\n");
    let cases = [
        ("add.f32", "add.ftz.f32", "unsupported instruction `add.ftz.f32`"),
        ("add.f32", "div.s32", "unsupported instruction `div.s32`"),
        ("ld.global.f32", "ld.local.f32", "unsupported state space `.local`"),
        ("ld.global.f32", "tex.1d.v4.f32.s32", "unsupported instruction `tex.1d.v4.f32.s32`"),
    ];
    for (i, (from, to, what)) in cases.into_iter().enumerate() {
        let edited: String = ptx.replacen(from, to, 1);
        let line = edited.lines().position(|l| l.contains(to)).unwrap() + 1;
        let file = dir.path().join(format!("k{i}.ptx"));
        std::fs::write(&file, edited).unwrap();
        std::fs::write(file.with_extension("toml"), &launch).unwrap();
        refused(&["sim", "--kernel", file.to_str().unwrap()], &format!("k{i}.ptx:{line}: {what}"));
    }
    let file = dir.path().join("short.ptx");
    std::fs::write(&file, &ptx).unwrap();
    std::fs::write(file.with_extension("toml"), launch.replace("{ value = 250 }", "")).unwrap();
    refused(&["sim", "--kernel", file.to_str().unwrap()], "params: `vecadd` has 4 parameters, the launch file gives 3");
    std::fs::write(file.with_extension("toml"), launch.replace("{ value = 250 }", "{ value = 2.5 }")).unwrap();
    refused(&["sim", "--kernel", file.to_str().unwrap()], "params[3] (`vecadd_param_3`, .u32): 2.5 does not fit");
    std::fs::remove_file(file.with_extension("toml")).unwrap();
    refused(&["sim", "--kernel", file.to_str().unwrap()], "its launch file");
}
