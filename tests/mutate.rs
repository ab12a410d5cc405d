//! `rfgen mutate`: a sampled campaign on the `small` warp scheduler catches most of its mutants, names each
//! mutant's edit and where it came from, and writes the same as JSON; a weakened stimulus scores
//! lower and fails `--min-score`; the scoreboard's stimulus keeps the score it gained from a
//! campaign's escapes; more x-seeds catch a mutant only some power-up states show; survivors in
//! the MRF's banks are proved equivalent in their module; bad input is refused. Needs Yosys and Verilator.

mod common;

use common::*;
use std::process::Command;

fn mutate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rfgen"))
        .args(["mutate", "--preset", "small", "--block", "scheduler", "--count", "12", "--seed", "3"])
        // 8 cycles from reset tell these mutants apart as 20 (the default) do, in a quarter of the time.
        .args(["--kernel", "none", "--equiv-depth", "8"])
        .args(args)
        .env("RFGEN_CACHE_DIR", cache_dir())
        .output()
        .unwrap()
}

/// `--only` runs the drawn mutants it names and no other: the same edits, the score over them.
#[test]
fn only_the_named_mutants_of_a_draw_are_run() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("campaign.json");
    let o = mutate(&["--only", "5,2", "--json", json.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let c: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let indices: Vec<u64> = c["mutants"].as_array().unwrap().iter().map(|m| m["index"].as_u64().unwrap()).collect();
    assert_eq!(indices, [2, 5], "{c}");
}

#[test]
fn a_sampled_campaign_on_the_small_scheduler_scores_and_a_weak_stimulus_fails_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("campaign.json");
    let o = mutate(&["--json", json.to_str().unwrap(), "--min-score", "70"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let c: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let mutants = c["mutants"].as_array().unwrap();
    assert_eq!(mutants.len(), 12);
    let caught = mutants.iter().filter(|m| m["verdict"] == "caught").count();
    assert_eq!(c["caught"].as_u64().unwrap() as usize, caught);
    assert_eq!(c["survived"].as_u64().unwrap() as usize, 12 - caught);
    // Every survivor was checked for equivalence; some of this sample are (edits of a bit the
    // grant's encoder never reads), and they leave the score. This draw's first two survivors
    // are proved equivalent by induction.
    let survivors: Vec<&serde_json::Value> = mutants.iter().filter(|m| m["verdict"] == "survived").collect();
    assert!(survivors.iter().all(|m| m["equivalence"].is_string()), "{c}");
    // Proved by induction, or no difference within the bound.
    let equivalent =
        survivors.iter().filter(|m| m["equivalence"] == "proved" || m["equivalence"] == "equivalent").count();
    assert!(equivalent >= 1 && c["equivalent"].as_u64().unwrap() as usize == equivalent, "{c}");
    assert!(survivors.iter().take(2).all(|m| m["equivalence"] == "proved"), "{c}");
    let score = c["score_percent"].as_f64().unwrap();
    assert!((score - 100.0 * caught as f64 / (12 - equivalent) as f64).abs() < 1e-9 && score >= 70.0, "{c}");
    for m in mutants {
        // Every edit is one of Yosys' modes, at a line of the generated Verilog.
        assert!(["inv", "const0", "const1", "cnot0", "cnot1"].contains(&m["mode"].as_str().unwrap()), "{m}");
        assert!(m["src"].as_array().unwrap().iter().any(|s| s.as_str().unwrap().starts_with("small_")), "{m}");
        if m["verdict"] == "caught" {
            assert!(m["by"].as_str().unwrap().starts_with("random seed "), "{m}");
            assert!(!m["output"].as_str().unwrap().is_empty(), "{m}");
        }
    }
    // The table: one line per mutant, its verdict, and the score.
    let out = stdout(&o);
    assert_eq!(out.lines().filter(|l| l.contains("caught by random seed")).count(), caught, "{out}");
    assert!(
        out.contains(&format!("small_scheduler: {caught} of {} non-equivalent mutants caught", 12 - equivalent)),
        "{out}"
    );

    // Three cycles of stimulus reach almost nothing: the score drops and the gate fails.
    // The equivalence check agrees with the lockstep: every mutant the full stimulus caught is
    // shown to differ when the weak stimulus misses it, and the equivalent ones stay equivalent.
    let weak_json = dir.path().join("weak.json");
    let weak = mutate(&["--seeds", "1", "--cycles", "3", "--min-score", "70", "--json", weak_json.to_str().unwrap()]);
    assert_eq!(weak.status.code(), Some(1), "{}{}", stdout(&weak), stderr(&weak));
    assert!(stderr(&weak).contains("is below --min-score 70"), "{}", stderr(&weak));
    let w: serde_json::Value = serde_json::from_slice(&std::fs::read(&weak_json).unwrap()).unwrap();
    let weak_mutants = w["mutants"].as_array().unwrap();
    assert!(w["caught"].as_u64().unwrap() < caught as u64, "{w}");
    for (strong, weak) in mutants.iter().zip(weak_mutants) {
        if weak["verdict"] == "survived" {
            let want = if strong["verdict"] == "caught" { "differs" } else { strong["equivalence"].as_str().unwrap() };
            assert_eq!(weak["equivalence"], want, "mutant {}: {weak}", weak["index"]);
        }
    }
}

/// The scoreboard's random stimulus once aimed at the first four warps and eight registers only;
/// this campaign scored 60 % then (12 of 20), its survivors edits of one-hot decode bits of the
/// other warps and registers. With the moving window it must stay at 80 % or more.
#[test]
fn the_scoreboards_random_stimulus_reaches_every_warp_and_register() {
    let o = Command::new(env!("CARGO_BIN_EXE_rfgen"))
        .args(["mutate", "--preset", "small", "--block", "scoreboard", "--count", "20", "--seed", "1"])
        .args(["--kernel", "none", "--equiv-depth", "0", "--min-score", "80"])
        .env("RFGEN_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// Each random seed runs from its own power-up state, and `--x-seeds N` from N of them. This
/// draw holds a mutant that shows only from some: the reset of one launch-order bit of the
/// scheduler stuck off, so the bit powers up as the x-seed draws it (Yosys 0.23, Verilator 5.006).
/// The runs are short (100 cycles), as the scheduler's stimulus also resets it in the middle of
/// a run, after which the bit holds what the run left there and longer runs catch the mutant
/// from any power-up state. One x-seed per seed misses it; eight catch it, and the campaign
/// names the x-seed.
#[test]
fn more_x_seeds_catch_a_mutant_only_some_power_up_states_show() {
    let dir = tempfile::tempdir().unwrap();
    let campaign = |x_seeds: &str| {
        let json = dir.path().join(format!("x{x_seeds}.json"));
        let o = Command::new(env!("CARGO_BIN_EXE_rfgen"))
            .args(["mutate", "--preset", "small", "--block", "scheduler", "--count", "20", "--seed", "60"])
            .args(["--kernel", "none", "--equiv-depth", "8", "--cycles", "100", "--x-seeds", x_seeds])
            .args(["--json", json.to_str().unwrap()])
            .env("RFGEN_CACHE_DIR", cache_dir())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        let c: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        (c, stdout(&o))
    };
    let (one, _) = campaign("1");
    let (eight, out) = campaign("8");
    assert_eq!((one["x_seeds"].as_u64(), eight["x_seeds"].as_u64()), (Some(1), Some(8)));
    assert!(out.contains("stimulus: 2 random seeds × 100 cycles, each under 8 x-seeds"), "{out}");
    // Random seed s of K runs under x-seeds s, s + K, s + 2K, ...: one x-seed each is its own.
    let seed_of =
        |m: &serde_json::Value| m["by"].as_str().unwrap().strip_prefix("random seed ").unwrap().parse::<u64>().unwrap();
    for m in one["mutants"].as_array().unwrap().iter().filter(|m| m["verdict"] == "caught") {
        assert_eq!(m["x_seed"].as_u64(), Some(seed_of(m)), "{m}");
    }
    let mut late = 0;
    for (a, b) in one["mutants"].as_array().unwrap().iter().zip(eight["mutants"].as_array().unwrap()) {
        if b["verdict"] != "caught" {
            assert_eq!(a["verdict"], "survived", "more x-seeds never lose a mutant: {a}");
            continue;
        }
        let x = b["x_seed"].as_u64().unwrap();
        assert!(x % 2 == seed_of(b) % 2 && x <= 16, "seed {} runs odd or even x-seeds up to 16: {b}", seed_of(b));
        let line = format!("caught by random seed {}, x-seed {x}, at cycle {}", seed_of(b), b["cycle"]);
        assert!(out.contains(&line), "{line}\n{out}");
        if a["verdict"] == "survived" {
            // Missed from each seed's own power-up state, caught from another; and reachable at
            // the ports, so the one-x-seed campaign called it an escape, not an equivalent.
            assert!(x > 2, "{b}");
            assert_eq!(a["equivalence"], "differs", "{a}");
            late += 1;
        }
    }
    assert!(late >= 1, "a mutant is caught only under more x-seeds:\n{out}");
    assert!(eight["caught"].as_u64() > one["caught"].as_u64());
}

#[test]
fn survivors_in_the_mrfs_banks_are_proved_equivalent_in_their_module() {
    // The `small` MRF flattened is 65,536 flip-flops of banks to the solver, beyond the check's
    // time; the bank (SRAM leaf) an edit sits in is one eighth of that. This draw's survivor
    // inverts a bit in a bank's logic that the logic after it masks, proved in the logic
    // between flip-flops around it (the draw follows the RTL's text:
    // a change of the MRF's RTL may call for another seed whose survivors sit in the banks).
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("mrf.json");
    let o = Command::new(env!("CARGO_BIN_EXE_rfgen"))
        .args(["mutate", "--preset", "small", "--count", "12", "--seed", "13", "--kernel", "none"])
        .args(["--equiv-depth", "2", "--equiv-time", "90", "--json", json.to_str().unwrap()])
        .env("RFGEN_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let c: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!((c["equiv_depth"].as_u64(), c["equiv_time"].as_u64()), (Some(2), Some(90)), "{c}");
    let survivors: Vec<&serde_json::Value> =
        c["mutants"].as_array().unwrap().iter().filter(|m| m["verdict"] == "survived").collect();
    assert!(!survivors.is_empty(), "{c}");
    for m in &survivors {
        assert_eq!(m["equivalence"], "proved", "{m}");
        assert_eq!(m["module"], "small_sram_1r1w_64x128_r2", "{m}");
        assert!(m["cell"].as_str().unwrap().starts_with("$flatten\\u_group"), "{m}");
    }
    assert_eq!(c["equivalent"].as_u64().unwrap() as usize, survivors.len());
    assert_eq!(c["score_percent"].as_f64().unwrap(), 100.0, "{c}");
    // In the leaf: on the edited cell alone, lifted out of the leaf's memories, or in the leaf.
    let proved = stdout(&o)
        .lines()
        .filter(|l| {
            l.contains("survived: equivalent (proved by induction in ") && l.contains("small_sram_1r1w_64x128_r2")
        })
        .count();
    assert_eq!(proved, survivors.len(), "{}", stdout(&o));
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    for (args, message) in [
        (&["--min-score", "150"][..], "--min-score 150: a percentage from 0 to 100"),
        (&["--seeds", "0"][..], "nothing would run the mutants"),
        (&["--count", "0"][..], "--count"),
        (&["--x-seeds", "0"][..], "invalid value '0' for '--x-seeds <N>': allowed 1 to 100"),
        (&["--x-seeds", "1,2"][..], "invalid value '1,2' for '--x-seeds <N>': allowed 1 to 100"),
        (&["--equiv-time", "0"][..], "invalid value '0' for '--equiv-time <SECONDS>': 0 is not in 1..=86400"),
        (&["--only", "3,13"][..], "--only 13: no such mutant among the 12 drawn (numbers 1 to 12"),
    ] {
        let o = mutate(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
    let o = rfgen(&["mutate", "--block", "nope"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("nope"), "{}", stderr(&o));
    let o = rfgen(&["mutate", "--preset", "isca15-bdi", "--block", "bdi", "--kernel", "vecadd"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("the SM model does not drive block"), "{}", stderr(&o));
}
