//! The generated scoreboard in lockstep with the model the SM runs: random issue traffic that
//! respects the scoreboard, every library kernel driving the RTL from the SM (two-level for the
//! long-latency bits, the compressed MRF for late commits), and seeded RTL bugs caught.

mod common;

use common::*;
use rfgen_cosim::session::cosim_kernel;
use rfgen_gen::config;
use rfgen_model::blocks::scoreboard::Scoreboard;
use rfgen_model::kernel::library;

#[test]
fn scoreboard_rtl_agrees_with_its_model() {
    // isca11-rfc's RTL is also the kernel-driven test's: one Verilator build for both.
    for checked in [isca11_rfc(), config::parse(SCOREBOARD_SMALL).unwrap()] {
        let design = rfgen_gen::emit::generate_scoreboard(&checked);
        let (mismatch, stats) = random_lockstep::<Scoreboard>(&checked, &design, 30_000, 9, 2);
        assert!(mismatch.is_none(), "{}: {}", checked.config.name, mismatch.unwrap());
        let stat = |n: &str| stats.iter().find(|s| s.0 == n).unwrap().1;
        assert!(
            stat("instructions issued") > 10_000
                && stat("issues the scoreboard stalled") > 1_000
                && stat("resets in the run") > 10,
            "{stats:?}"
        );
    }
}

#[test]
fn every_library_kernel_drives_the_scoreboard_rtl() {
    let opts = kernel_options(rfgen_gen::Block::Scoreboard);
    for checked in [isca11_rfc(), config::preset("isca15-bdi").unwrap()] {
        let design = rfgen_gen::emit::generate_scoreboard(&checked);
        for lib in library::KERNELS {
            let k = lib.parse().unwrap();
            if k.regs > checked.geometry.registers {
                continue; // matmul does not fit isca15-bdi's 20 registers
            }
            let r = cosim_kernel(&checked, &design, &k, &opts, &mut |_| {}).unwrap();
            assert!(r.passed(), "{} {}: {:?} {:?}", checked.config.name, k.name, r.mismatch, r.kernel_error);
        }
    }
}

#[test]
fn lockstep_catches_every_scoreboard_mutation() {
    let checked = config::parse(SCOREBOARD_SMALL).unwrap();
    let design = rfgen_gen::emit::generate_scoreboard(&checked);
    for m in mutants::SCOREBOARD {
        let (mismatch, _) = random_lockstep::<Scoreboard>(&checked, &m.apply(&design), 20_000, 9, 2);
        let mismatch = mismatch.unwrap_or_else(|| panic!("mutation `{}` was not detected", m.name));
        eprintln!("{} -> cycle {} port {}", m.name, mismatch.cycle, mismatch.ports[0].port);
    }
}
