//! Occupancy limited by registers: when not every warp slot has rows at the most registers per
//! thread, the MRF takes the kernel's rows per warp on its `rows_per_warp` port and the SM
//! launches only the warps whose rows exist. Random lockstep at every stride on a plain and a
//! compressed MRF, seeded bugs in the stride, the SM on preset isca15-bdi, and the CLI.

mod common;

use common::*;
use rfgen_cosim::blocks::mrf::{Knobs, RandomStimulus};
use rfgen_cosim::glue::Stimulus;
use rfgen_gen::SramKind;
use rfgen_model::blocks::mrf::{Mrf, MrfIn, MrfOut};
use rfgen_model::kernel::library::KERNELS;
use rfgen_model::sm::Sm;

const CYCLES: u64 = 10_000;

/// The same shape, compressed, 4 warps in 8 rows (16 needed).
const COMPRESSED: &str = "name = \"lcomp\"\n[sm]\nwarps = 4\nlanes = 8\nclusters = 4\nregisters_per_thread = 8\n\
                          [mrf]\nbanks = 8\nentries = 8\ncollectors = 2\ntag_bits = 3\n\
                          [compression]\nenabled = true\nwakeup_cycles = 2\n";

/// Records the stride the stimulus drives and the highest warp it names.
struct Observed<S> {
    inner: S,
    stride: u32,
    top_warp: u32,
}

impl<S: Stimulus<Mrf>> Stimulus<Mrf> for Observed<S> {
    fn next(&mut self, cycle: u64, out: &MrfOut, inp: &mut MrfIn) {
        self.inner.next(cycle, out, inp);
        self.stride = inp.rows_per_warp;
        if inp.issue_valid {
            self.top_warp = self.top_warp.max(inp.issue_warp);
        }
        if inp.wb_valid {
            self.top_warp = self.top_warp.max(inp.wb_warp);
        }
    }
}

/// Every stride from 1 to R/G, each with the warps it leaves rows for, agrees with the RTL.
#[test]
fn random_runs_agree_at_every_stride() {
    for text in [OCCUPANCY_PLAIN, COMPRESSED] {
        let checked = rfgen_gen::config::parse(text).unwrap();
        let g = &checked.geometry;
        assert!(g.register_limited, "{text}");
        let lib = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
        let mut strides = std::collections::BTreeSet::new();
        for seed in 0..12 {
            let inner = RandomStimulus::new(g, seed, Knobs::for_config(&checked));
            let mut stimulus = Observed { inner, stride: 0, top_warp: 0 };
            let r = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, CYCLES, 3);
            let name = &checked.config.name;
            assert!(r.mismatch.is_none(), "{name} seed {seed}: {}", r.mismatch.unwrap());
            let s = stimulus.stride;
            assert_eq!(
                stimulus.top_warp + 1,
                g.resident_warps(s * g.groups),
                "{name}: stride {s} uses every warp with rows"
            );
            assert!(r.block.model().stats().dispatched > CYCLES / 10, "{name} seed {seed}");
            strides.insert(s);
        }
        assert_eq!(strides.into_iter().collect::<Vec<_>>(), (1..=g.registers / g.groups).collect::<Vec<_>>());
    }
}

/// Seeded bugs in the stride, each caught by a random run below the largest stride.
#[test]
fn lockstep_catches_stride_bugs() {
    let checked = rfgen_gen::config::parse(OCCUPANCY_PLAIN).unwrap();
    let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
    // Seed 0 draws stride 1 (checked): rows of different warps overlap under every bug.
    for bug in mutants::STRIDE {
        let lib = build(&bug.apply(&design));
        let name = bug.name;
        let inner = RandomStimulus::new(&checked.geometry, 0, Knobs::for_config(&checked));
        let mut stimulus = Observed { inner, stride: 0, top_warp: 0 };
        let r = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, CYCLES, 3);
        assert!(stimulus.stride < 4, "{name}: stride {}", stimulus.stride);
        let m = r.mismatch.unwrap_or_else(|| panic!("`{name}` was not caught"));
        eprintln!("{name}: caught at cycle {} on {}", m.cycle, m.ports[0].port);
    }
}

/// On isca15-bdi (48 warps of up to 32 registers, 256 rows per bank group) every library kernel
/// runs with correct values; matmul's 28 registers leave 36 warp slots, of which its blocks of
/// 8 warps fill 32; kernels of up to 20 registers keep all 48. Every warp's registers are freed.
#[test]
fn every_library_kernel_runs_on_isca15_bdi() {
    let checked = isca15_bdi();
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        let mut sm = Sm::new(&checked, &k).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        sm.run(50_000_000, &mut |_| {}).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        let s = sm.stats();
        assert_eq!(s.operand_mismatches, 0, "{}", k.name);
        let warps = k.blocks * k.warps_per_block(32);
        assert_eq!(sm.mrf().stats().warps_freed, warps as u64, "{}", k.name);
        let o = &s.occupancy;
        let rows = k.regs.div_ceil(4);
        assert_eq!((o.warp_slots, o.rows_per_warp), (48, rows), "{}", k.name);
        assert_eq!(o.usable_slots, 48.min(256 / rows), "{}", k.name);
        assert!(o.peak_warps <= o.usable_slots && o.peak_warps > 0, "{}: {o:?}", k.name);
        // The grids are larger than the SM: it fills with whole blocks.
        let per_block = k.warps_per_block(32);
        assert_eq!(o.peak_warps, o.usable_slots / per_block * per_block, "{}", k.name);
        if k.name == "matmul" {
            assert_eq!(o.usable_slots, 36);
        }
    }
}

/// The launch rule: a kernel keeps its own block wherever it fits; one whose block needs more
/// warps than the slots with register rows runs with halved blocks; when no block the rule
/// allows fits, it is refused and told why.
#[test]
fn blocks_that_do_not_fit_are_halved_until_they_do() {
    use rfgen_model::kernel::parse;
    use rfgen_model::sm::{SimError, launch};
    use std::borrow::Cow;
    for preset in ["baseline", "isca11-rfc", "isca15-bdi", "micro11-orf-lrf", "war-warpboard", "tfet-hybrid"] {
        let c = rfgen_gen::config::preset(preset).unwrap();
        for lib in KERNELS {
            let k = lib.parse().unwrap();
            assert!(matches!(launch(&c, &k), Ok(Cow::Borrowed(_))), "{} on {preset}: its own block", k.name);
        }
    }
    // isca15-bdi has rows for 32 warps at 32 registers: 48 warps per block become 24.
    let c = isca15_bdi();
    let wide = parse(".kernel wide\n.grid 2 1536\n  mov r31, %gtid\n  exit\n").unwrap();
    let k = launch(&c, &wide).unwrap();
    assert_eq!((k.blocks, k.threads), (4, 768));
    let mut sm = Sm::new(&c, &k).unwrap();
    sm.run(1_000_000, &mut |_| {}).unwrap();
    assert_eq!(sm.stats().occupancy.peak_warps, 24);
    assert_eq!(sm.mrf().stats().warps_freed, 4 * 24);

    let refused = |text: &str| match launch(&c, &parse(text).unwrap()) {
        Err(SimError::DoesNotFit(m)) => m,
        other => panic!("{text}: {:?}", other.map(|k| (k.blocks, k.threads))),
    };
    // Registers per thread are the same in any block.
    assert_eq!(
        refused(".kernel big\n.grid 1 32\n  mov r40, 1\n  exit\n"),
        "kernel big uses 41 registers but sm.registers_per_thread = 32"
    );
    assert_eq!(
        refused(".kernel k\n.grid 1 2048\n.min_threads 2048\n  mov r31, 1\n  exit\n"),
        "kernel k has 64 warps per block but the SM has 48 warp slots; halving the threads per block stops at 2048 (64 warps): the kernel needs at least 2048 threads per block (.min_threads)"
    );
    // 2250 threads halve once, to 1125 (36 warps, more than the 32 with rows), and no further.
    assert!(refused(".kernel k\n.grid 1 2250\n  mov r31, 1\n  exit\n").ends_with(
        "halving the threads per block stops at 1125 (36 warps): an odd number of threads cannot be halved"
    ));
    // A grid derived from the block size that breaks at the size that would fit.
    let m = refused(".kernel k\n.const W %ntid - 1024\n.const B 4000 / W\n.grid B 2048\n  mov r31, 1\n  exit\n");
    assert!(
        m.ends_with(
            "at 1024 threads per block, which would fit, the grid's block count divides by zero at %ntid = 1024"
        ),
        "{m}"
    );
}

#[test]
fn cli_sim_reports_occupancy() {
    let out = rfgen(&["sim", "--preset", "isca15-bdi", "--kernel", "matmul"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("occupancy                    peak 32 warps resident of 48 warp slots, 36 with register rows (7 rows per warp)"),
        "{text}"
    );
    let out = rfgen(&["sim", "--preset", "isca15-bdi", "--kernel", "matmul", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &json["stats"]["occupancy"];
    assert_eq!((o["usable_slots"].as_u64(), o["peak_warps"].as_u64()), (Some(36), Some(32)), "{o}");
}
