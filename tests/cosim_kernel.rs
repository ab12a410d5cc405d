//! Kernel-driven lockstep: the SM model runs real kernels with the MRF's RTL in place of its
//! model, on the full-size presets `baseline` and `isca15-bdi`; every output is compared every
//! cycle and every operand is checked against the kernel's functional values. Also the CLI.

mod common;

use common::*;
use rfgen_cosim::session::{CosimOptions, cosim_kernel};
use rfgen_gen::{Checked, SramKind};
use rfgen_model::kernel::library::KERNELS;
use rfgen_model::sm::{SimError, Sm};

fn options() -> CosimOptions {
    CosimOptions {
        block: rfgen_gen::Block::Mrf,
        cycles: 5_000_000,
        seed: 0,
        x_seed: 1,
        trace: None,
        fail_wave_dir: None,
        cache: cache_dir(),
    }
}

/// Every library kernel that fits the preset passes; one that does not is refused as such.
fn every_library_kernel(checked: &Checked) -> Vec<&'static str> {
    let design = rfgen_gen::generate(checked, SramKind::Behavioural);
    let mut ran = Vec::new();
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        if let Err(e) = Sm::new(checked, &k) {
            assert!(matches!(e, SimError::DoesNotFit(_)), "{}: {e}", k.name);
            continue;
        }
        let r = cosim_kernel(checked, &design, &k, &options(), &mut |_| {}).unwrap();
        assert!(r.passed(), "{} on {}: {:?} {:?}", k.name, checked.config.name, r.mismatch, r.kernel_error);
        let dispatched = r.stats.iter().find(|(n, _)| *n == "instructions dispatched").unwrap().1;
        assert!(dispatched > 1000, "{}: only {dispatched} instructions went through the RTL", k.name);
        ran.push(lib.name);
    }
    ran
}

#[test]
fn every_library_kernel_passes_on_the_baseline_rtl() {
    let ran = every_library_kernel(&baseline());
    assert_eq!(ran.len(), KERNELS.len(), "every library kernel fits the baseline SM: {ran:?}");
}

/// isca15-bdi is register-limited (48 warps of 32 registers need 384 rows of 256): every
/// library kernel runs, matmul (28 registers, 7 rows per warp) on the 36 warp slots that have
/// rows, through the RTL's `rows_per_warp` port.
#[test]
fn every_library_kernel_passes_on_the_compressed_rtl() {
    let ran = every_library_kernel(&isca15_bdi());
    assert_eq!(ran.len(), KERNELS.len(), "every library kernel runs on isca15-bdi: {ran:?}");
}

#[test]
fn cli_cosim_kernel_passes_and_refuses_bad_input() {
    let out = rfgen(&["cosim", "--preset", "isca15-bdi", "--kernel", "pathfinder"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    for line in [
        "kernel pathfinder on the SM model",
        "top                        isca15_bdi_mrf",
        "dummy MOVs",
        "mismatches                 0",
        "operand mismatches         0",
        "PASS",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.kir");
    std::fs::write(&big, ".kernel big\n.grid 1 32\n  mov r200, 1\n  exit\n").unwrap();
    let wide = dir.path().join("wide.kir");
    // An odd number of threads: the launch rule cannot halve the block to fit.
    std::fs::write(&wide, ".kernel wide\n.grid 1 1535\n  mov r31, 1\n  exit\n").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["cosim", "--block", "bdi", "--kernel", "saxpy"],
            "--kernel: the SM model does not drive block `bdi` (kernel-driven blocks: sm, mrf, issue, rename, scheduler, scoreboard, warpboard)",
        ),
        (&["cosim", "--kernel", "nope"], "`nope` is neither a library kernel"),
        (
            &["cosim", "--kernel", big.to_str().unwrap()],
            "kernel big uses 201 registers but sm.registers_per_thread = 32",
        ),
        (
            &["cosim", "--preset", "isca15-bdi", "--kernel", wide.to_str().unwrap()],
            "kernel wide has 48 warps per block but at 32 registers per thread (8 rows per warp of 256) the register file holds 32 warps; halving the threads per block stops at 1535 (48 warps): an odd number of threads cannot be halved",
        ),
        (&["cosim", "--kernel", "saxpy", "--seed", "3"], "cannot be used with"),
        (&["cosim", "--block", "rename", "--kernel", "saxpy"], "the SM renames only with `rename.enabled` = true"),
    ];
    for (args, message) in cases {
        let out = rfgen(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: expected {message:?} in {}", stderr(&out));
    }
}

/// On the small preset a library kernel runs with its blocks scaled to 64 threads, as in
/// `rfgen sim`, and the MRF's RTL agrees with the model on every output.
#[test]
fn cli_cosim_runs_a_scaled_kernel_on_the_small_preset() {
    let out = rfgen(&["cosim", "--preset", "small", "--kernel", "reduction"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    for line in [
        "kernel reduction on the SM model",
        "launch                     32 blocks of 64 threads (declared 8 blocks of 256 threads;",
        "mismatches                 0",
        "operand mismatches         0",
        "PASS",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
}

/// `rfgen cosim --rtl DIR` on a copy of the committed `rtl-out/baseline`, as a user re-verifies
/// their edited RTL: the copy passes under a kernel; a port width change is refused (exit 2).
#[test]
fn cli_cosim_rtl_checks_a_users_copy() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("my-rtl");
    std::fs::create_dir(&copy).unwrap();
    for e in std::fs::read_dir("rtl-out/baseline").unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), copy.join(e.file_name())).unwrap();
    }
    let rtl = copy.to_str().unwrap();
    let out = rfgen(&["cosim", "--rtl", rtl, "--kernel", "saxpy"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains(&format!("RTL from {rtl}")) && stdout(&out).contains("PASS"));

    let top = copy.join("baseline_mrf.v");
    let text = std::fs::read_to_string(&top).unwrap();
    std::fs::write(&top, text.replace("input  wire    [4:0] issue_warp", "input  wire    [5:0] issue_warp")).unwrap();
    let out = rfgen(&["cosim", "--rtl", rtl, "--cycles", "1000"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).trim(),
        format!(
            "error: {rtl} does not match the interface of baseline_mrf: port `issue_warp` is 6 bits, the interface needs 5"
        )
    );
}

/// A seeded RTL bug under a kernel: `rfgen cosim --rtl DIR --kernel FILE` reports the mismatch,
/// reduces the kernel to a few instructions that still mismatch, writes it and a waveform with
/// the model's expected outputs, and prints a command that reproduces the reduced run.
#[test]
fn cli_cosim_kernel_shrinks_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("small.toml");
    std::fs::write(&config, SMALL.iter().find(|(n, _)| *n == "small").unwrap().1).unwrap();
    let rtl = dir.path().join("rtl");
    rfgen_gen::generate(&small("small"), SramKind::Behavioural).write(&rtl, false).unwrap();
    let group = rtl.join("small_mrf_bank_group.v");
    let text = std::fs::read_to_string(&group).unwrap();
    std::fs::write(&group, text.replace("(rd_row)", "(rd_row + 4'd1)")).unwrap();
    let (cfg, rtl, wave) = (config.to_str().unwrap(), rtl.to_str().unwrap(), dir.path().to_str().unwrap());
    let kernel = "tests/data/operand_stress.kir";
    let out = rfgen(&["cosim", "--config", cfg, "--rtl", rtl, "--kernel", kernel, "--wave-dir", wave]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains("MISMATCH at cycle") && text.contains("FAIL"), "{text}");
    let reduced = dir.path().join("cosim-mrf-operand_stress-reduced.kir");
    let k = rfgen_model::kernel::parse(&std::fs::read_to_string(&reduced).unwrap()).unwrap();
    assert!(k.code.len() <= 10, "{} instructions:\n{text}", k.code.len());
    assert!(text.contains(&format!("reduced to {} instructions", k.code.len())), "{text}");
    let vcd = std::fs::read_to_string(dir.path().join("cosim-mrf-operand_stress-reduced.vcd")).unwrap();
    assert!(vcd.contains("$scope module rfgen_model $end") && vcd.contains("disp_src0_data_expected"));
    let reproduce = text.lines().rfind(|l| l.contains("reproduce:")).unwrap();
    assert!(
        reproduce.contains(&format!("--kernel {}", reduced.display())) && reproduce.contains("--x-seed 1"),
        "{text}"
    );
    // The reduced kernel fails again on its own, and passes on the generated RTL.
    let again = rfgen(&["cosim", "--config", cfg, "--rtl", rtl, "--kernel", reduced.to_str().unwrap(), "--no-shrink"]);
    assert_eq!(again.status.code(), Some(1));
    let clean = rfgen(&["cosim", "--config", cfg, "--kernel", reduced.to_str().unwrap()]);
    assert!(clean.status.success(), "{}", stdout(&clean));
}
