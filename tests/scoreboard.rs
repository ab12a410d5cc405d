//! The generated scoreboard in lockstep with the model the SM runs: random issue traffic that
//! respects the scoreboard, every library kernel driving the RTL from the SM (two-level for the
//! long-latency bits, the compressed MRF for late commits), and seeded RTL bugs caught.

mod common;

use common::*;
use rfgen_cosim::glue::CosimBlock;
use rfgen_cosim::random::{self, RunOptions};
use rfgen_cosim::session::{CosimOptions, cosim_kernel};
use rfgen_gen::{Checked, Design, config};
use rfgen_model::blocks::scoreboard::Scoreboard;
use rfgen_model::kernel::library;

const SMALL: &str = "name = \"ssmall\"\n[sm]\nwarps = 6\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 2\nentries = 64\ncollectors = 3\ntag_bits = 2\n";

fn lockstep(
    checked: &Checked,
    design: &Design,
    cycles: u64,
) -> (Option<rfgen_cosim::lockstep::Mismatch>, Vec<(&'static str, u64)>) {
    let lib = build(design);
    let model = Scoreboard::model(checked).unwrap();
    let mut stimulus = Scoreboard::stimulus(checked, 9);
    let idle = model.idle();
    let opts = RunOptions { cycles, x_seed: 2, waveform: None };
    let r = random::run(&lib, model, &mut stimulus, idle, &opts, &mut |_| {}).unwrap();
    let stats = r.block.model().summary(&stimulus);
    (r.mismatch, stats)
}

#[test]
fn scoreboard_rtl_agrees_with_its_model() {
    // isca11-rfc's RTL is also the kernel-driven test's: one Verilator build for both.
    for checked in [isca11_rfc(), config::parse(SMALL).unwrap()] {
        let design = rfgen_gen::emit::generate_scoreboard(&checked);
        let (mismatch, stats) = lockstep(&checked, &design, 30_000);
        assert!(mismatch.is_none(), "{}: {}", checked.config.name, mismatch.unwrap());
        let stat = |n: &str| stats.iter().find(|s| s.0 == n).unwrap().1;
        assert!(stat("instructions issued") > 10_000 && stat("issues the scoreboard stalled") > 1_000, "{stats:?}");
    }
}

#[test]
fn every_library_kernel_drives_the_scoreboard_rtl() {
    let opts = CosimOptions {
        block: "scoreboard".into(),
        cycles: 5_000_000,
        seed: 0,
        x_seed: 1,
        trace: None,
        fail_wave_dir: None,
        cache: cache_dir(),
    };
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

/// A seeded bug of the generated scoreboard: every occurrence of `from` becomes `to`.
struct Mutation {
    name: &'static str,
    from: &'static str,
    to: &'static str,
}

const MUTATIONS: &[Mutation] = &[
    Mutation {
        name: "scoreboard bit lost: a reservation made while a release commits is dropped",
        from: "pending <= (pending & ~clr_regs) | set_regs;",
        to: "pending <= clr_valid ? (pending & ~clr_regs) : (pending | set_regs);",
    },
    Mutation { name: "a register released by another warp's write-back", from: "clr_warp} * ", to: "set_warp} * " },
    Mutation {
        name: "long-latency bit never released",
        from: "long_pending <= (long_pending & ~clr_regs) | set_longs;",
        to: "long_pending <= long_pending | set_longs;",
    },
    Mutation {
        name: "predicate results never released",
        from: "pending_preds <= (pending_preds & ~clr_preds) | set_preds;",
        to: "pending_preds <= pending_preds | set_preds;",
    },
];

#[test]
fn lockstep_catches_every_scoreboard_mutation() {
    let checked = config::parse(SMALL).unwrap();
    for m in MUTATIONS {
        let mut design = rfgen_gen::emit::generate_scoreboard(&checked);
        let (_, text) = design.files.iter_mut().find(|(n, _)| n == "ssmall_scoreboard.v").unwrap();
        assert!(text.contains(m.from), "mutation `{}` does not apply", m.name);
        *text = text.replace(m.from, m.to);
        let (mismatch, _) = lockstep(&checked, &design, 20_000);
        let mismatch = mismatch.unwrap_or_else(|| panic!("mutation `{}` was not detected", m.name));
        eprintln!("{} -> cycle {} port {}", m.name, mismatch.cycle, mismatch.ports[0].port);
    }
}
