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
        block: "mrf".into(),
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

#[test]
fn every_library_kernel_passes_on_the_compressed_rtl() {
    let ran = every_library_kernel(&isca15_bdi());
    // matmul needs 28 registers per thread; isca15-bdi has 20 (48 warps in 256 rows).
    assert_eq!(ran.len(), KERNELS.len() - 1, "all but matmul: {ran:?}");
    assert!(!ran.contains(&"matmul"));
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
    let cases: &[(&[&str], &str)] = &[
        (
            &["cosim", "--block", "bdi", "--kernel", "saxpy"],
            "--kernel: the SM model does not drive block `bdi` (kernel-driven blocks: mrf)",
        ),
        (&["cosim", "--kernel", "nope"], "`nope` is neither a library kernel"),
        (
            &["cosim", "--kernel", big.to_str().unwrap()],
            "kernel big uses 201 registers but sm.registers_per_thread = 32",
        ),
        (
            &["cosim", "--preset", "isca15-bdi", "--kernel", "matmul"],
            "kernel matmul uses 28 registers but sm.registers_per_thread = 20",
        ),
        (&["cosim", "--kernel", "saxpy", "--seed", "3"], "cannot be used with"),
    ];
    for (args, message) in cases {
        let out = rfgen(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: expected {message:?} in {}", stderr(&out));
    }
}
