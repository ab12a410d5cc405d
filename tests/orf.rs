//! The ORF/LRF beside the MRF (seed 001 ch. 6) in lockstep with its model: long random runs
//! over small configs that must exercise every rule, every library kernel driving the paper's
//! design (preset micro11-orf-lrf) from the SM model with the compiler's allocation, seeded RTL
//! bugs that lockstep catches, and the CLI's report.

mod common;

use rfgen_cosim::lockstep::stops_after;

use common::*;
use rfgen_cosim::blocks::mrf::{Knobs, RandomStimulus};
use rfgen_cosim::session::cosim_kernel;
use rfgen_gen::SramKind;
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::kernel::library::KERNELS;

/// Long random runs agree with the RTL and exercise every rule: reads of both levels, fills that
/// wait for the write port, write-backs that skip the MRF.
#[test]
fn random_runs_exercise_every_rule() {
    for (name, _) in UPPER {
        let checked = upper(name);
        let lib = build(&rfgen_gen::generate(&checked, SramKind::Behavioural));
        let mut stimulus = RandomStimulus::new(&checked.geometry, 3, Knobs::for_config(&checked));
        let result = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, 60_000, 7);
        assert!(result.mismatch.is_none(), "{name}: {}", result.mismatch.unwrap());
        let s = result.block.model().stats();
        let o = &s.orf;
        assert!(o.orf_reads > 2_000 && o.orf_writes > 2_000 && o.fills > 1_000, "{name}: {o:?}");
        assert!(o.fill_waits > 100 && o.mrf_writes_skipped > 1_000, "{name}: {o:?}");
        let has_lrf = checked.config.orf.lrf != rfgen_gen::config::LrfKind::None;
        assert_eq!(o.lrf_reads > 2_000, has_lrf, "{name}: {o:?}");
        assert!(s.mrf_writes < s.writes, "{name}: some write-backs skip the MRF");
        // Two-level: warps take and lose slots, and a warp without one has its writes dropped.
        let mapped = checked.orf.as_ref().unwrap().mapped;
        assert_eq!(
            o.slots_taken > 1_000 && o.slots_released > 1_000 && o.slotless_writes > 1_000,
            mapped,
            "{name}: {o:?}"
        );
    }
}

/// The SM model drives the paper's design with every library kernel: RTL and model agree,
/// every operand is right, and every kernel reads the ORF.
#[test]
fn every_library_kernel_passes_on_the_paper_orf_lrf() {
    let checked = rfgen_gen::config::preset("micro11-orf-lrf").unwrap();
    let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
    let mut filling = 0;
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        let r = cosim_kernel(&checked, &design, &k, &kernel_options(rfgen_gen::Block::Mrf), &mut |_| {}).unwrap();
        assert!(r.passed(), "{}: {:?} {:?}", k.name, r.mismatch, r.kernel_error);
        let stat = |name: &str| r.stats.iter().find(|(n, _)| *n == name).unwrap().1;
        assert!(stat("ORF reads") > 100 && stat("write-backs skipping MRF") > 100, "{}: {:?}", k.name, r.stats);
        filling += (stat("fills from MRF reads") > 0) as usize;
    }
    // vecadd and scan read no register twice in a block before writing it: nothing to fill.
    assert_eq!(filling, KERNELS.len() - 2);
}

/// Seeded bugs in the ORF/LRF and around it, each caught by a random run with its cycle.
#[test]
fn lockstep_catches_orf_bugs() {
    let checked = upper("osmall");
    let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
    for bug in mutants::ORF {
        let lib = build(&bug.apply(&design));
        let mut stimulus = RandomStimulus::new(&checked.geometry, 3, Knobs::for_config(&checked));
        let result = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, 60_000, 7);
        let name = bug.name;
        let m = result.mismatch.unwrap_or_else(|| panic!("`{name}` was not caught"));
        assert_eq!(result.cycles, stops_after(m.cycle), "{name}: the run stops where the lockstep learns of it");
        eprintln!("{name}: caught at cycle {} on {}", m.cycle, m.ports[0].port);
    }
}

/// `rfgen sim` on the paper's design: the allocation, the measured traffic at each level, the
/// energy against the same SM without it and with the hardware RFC, and no wrong operand.
#[test]
fn sim_reports_the_orf_lrf_against_the_rfc() {
    let out = rfgen(&["sim", "--preset", "micro11-orf-lrf", "--kernel", "saxpy", "--show-allocation"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    for want in [
        "operand register file and last result file (seed 001 ch. 6",
        "reads per instruction        MRF ",
        "energy vs no ORF/LRF",
        "hardware RFC instead",
        "ORF access",
        "operand mismatches           0",
        "allocation ([orf] entries = 3, lrf = split",
    ] {
        assert!(text.contains(want), "missing `{want}`:\n{text}");
    }
    let out = rfgen(&["sim", "--preset", "micro11-orf-lrf", "--kernel", "saxpy", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let orf = &v["orf"];
    let (with, without) =
        (orf["reads_per_instruction"][0].as_f64().unwrap(), orf["plain_reads_per_instruction"].as_f64().unwrap());
    assert!(with < without, "the ORF/LRF takes MRF reads: {orf}");
    assert!(orf["energy_ratio"].as_f64().unwrap() < 1.0, "{orf}");
    assert!(v["stats"]["orf"]["orf_reads"].as_u64().unwrap() > 0, "{}", v["stats"]);
}

/// Bits of the storage arrays a generated ORF/LRF module declares: `reg [n:0] name_data [0:m];`,
/// each inside the loop over lanes (`lane < L`), so declared L times.
fn declared_storage_bits(design: &rfgen_gen::emit::Design, module: &str) -> u64 {
    let (_, text) = design.files.iter().find(|(f, _)| f == &format!("{module}.v")).expect("the ORF/LRF module");
    let bound = |s: &str| s.trim().parse::<u64>().unwrap();
    let lanes =
        text.split_once("lane < ").map(|(_, r)| bound(r.split_once(';').unwrap().0)).expect("a loop over lanes");
    let per_lane: u64 = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("reg"))
        .filter(|l| l.contains("_data ["))
        .map(|l| {
            let (word, rest) = l.trim().strip_prefix('[').unwrap().split_once(":0]").unwrap();
            let depth = rest.split_once("[0:").unwrap().1.split_once(']').unwrap().0;
            (bound(word) + 1) * (bound(depth) + 1)
        })
        .sum();
    lanes * per_lane
}

/// The ORF/LRF's storage is per active warp of the two-level scheduler, not per resident warp:
/// at 32 warps, 4, 8 and 16 active warps declare 4, 8 and 16 warps' entries (LRR, every warp).
#[test]
fn orf_storage_scales_with_active_warps() {
    let per_warp = 6 * 32 * 32; // 3 ORF + 3 LRF entries of 32 lanes x 32 bits
    let base = "[sm]\nwarps = 32\n[orf]\nenabled = true\nentries = 3\nlrf = \"split\"\n";
    for (policy, active, slots) in [("two_level", 4, 4), ("two_level", 8, 8), ("two_level", 16, 16), ("lrr", 8, 32)] {
        let text =
            format!("name = \"ot{active}\"\n{base}[scheduler]\npolicy = \"{policy}\"\nactive_warps = {active}\n");
        let checked = rfgen_gen::config::parse(&text).unwrap();
        let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
        let bits = declared_storage_bits(&design, &format!("{}_orf", checked.prefix()));
        assert_eq!(bits, slots * per_warp, "{policy}, {active} active warps");
    }
}

/// An ORF beside a register file cache or a compressed MRF is refused, naming both fields.
#[test]
fn orf_does_not_compose_with_rfc_or_compression() {
    for other in ["rfc", "compression"] {
        let text = format!("[orf]\nenabled = true\n[{other}]\nenabled = true\n");
        let e = rfgen_gen::config::parse(&text).unwrap_err().to_string();
        assert!(e.contains("orf.enabled") && e.contains(&format!("{other}.enabled")), "{e}");
    }
}
