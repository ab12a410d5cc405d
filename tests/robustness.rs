//! The fuzzer: rfgen gives a result or a clear error, never a panic, whatever it is handed.
//!
//! - Random configurations draw every section, each present or left at its defaults, with
//!   values at, inside and past their limits, so every pair of sections meets. Every accepted
//!   config generates every block it has (the others give a result or an error), and runs short
//!   kernels on the SM model, which finishes with every operand right (without a warpboard,
//!   wrong only by write-after-read hazards) or says the kernel does not fit.
//! - Synthetic-kernel knobs, at and past their limits, and library kernels mutated line by line
//!   and character by character, on three configs.
//! - Random bytes and random TOML into the config and kernel parsers.
//! - A few small random configs run a short lockstep cosim of their RTL.
//!
//! CI runs a sample; `RFGEN_FUZZ_CASES=N` scales every campaign (docs/cosim.md, *Fuzzing*).

mod common;

use common::fuzz::{cases, runner};
use common::*;
use proptest::prelude::*;
use rfgen_cosim::session::{CosimOptions, cosim};
use rfgen_gen::config::WarPolicy;
use rfgen_gen::registry::BLOCKS;
use rfgen_gen::{Checked, SramKind};
use rfgen_model::kernel::{self, Kernel, library, synthetic};
use rfgen_model::sim::simulate;
use rfgen_model::sm::SimError;

/// A section's text, or nothing (its defaults) half the time.
fn maybe(section: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    prop::option::of(section).prop_map(Option::unwrap_or_default)
}

/// A value inside `lo..=hi` most of the time, else at or just past either edge.
fn around(lo: u32, hi: u32) -> impl Strategy<Value = u32> {
    prop_oneof![6 => lo..=hi, 1 => Just(lo), 1 => Just(hi), 1 => Just(lo.saturating_sub(1)), 1 => Just(hi + 1)]
}

/// A configuration with every section drawn at random inside (and near) its limits.
/// `small` keeps the geometry small enough for a quick Verilator build.
fn config(small: bool) -> impl Strategy<Value = String> {
    let max_shift = if small { 3 } else { 6 };
    let geometry = (0u32..=max_shift, 0u32..=max_shift, 0u32..=if small { 2 } else { 5 }, 1u32..=4)
        .prop_flat_map(move |(lanes, clusters, groups, regs_mult)| {
            let lanes = 1u32 << lanes;
            let clusters = 1u32 << clusters.min(lanes.trailing_zeros());
            let groups = 1u32 << groups;
            let registers = (groups * regs_mult).clamp(2, 256).next_multiple_of(groups);
            (Just((lanes, clusters, groups, registers)), 2u32..=if small { 6 } else { 64 }, 0u32..=1)
        })
        .prop_map(|((lanes, clusters, groups, registers), warps, spare)| {
            let entries = (warps * registers / groups).next_power_of_two().max(2) << spare;
            format!(
                "[sm]\nwarps = {warps}\nlanes = {lanes}\nclusters = {clusters}\nregisters_per_thread = {registers}\n\
                 [mrf]\nbanks = {}\nentries = {entries}\n",
                groups * clusters
            )
        });
    let collectors =
        (1u32..=if small { 4 } else { 16 }, 1u32..=6).prop_map(|(n, t)| format!("collectors = {n}\ntag_bits = {t}\n"));
    let count = prop_oneof![3 => Just(1u32), 1 => 2u32..=4].prop_map(|n| format!("[sm]\ncount = {n}\n"));
    let scheduler = (prop::sample::select(vec!["lrr", "gto", "two_level"]), around(1, 3))
        .prop_map(|(p, a)| format!("[scheduler]\npolicy = \"{p}\"\nactive_warps = {a}\n"));
    let policies = vec!["none", "release_on_commit", "release_on_read", "bloom1", "bloom2", "bloom_unbounded"];
    let warpboard = prop::sample::select(policies).prop_map(|p| format!("[warpboard]\npolicy = \"{p}\"\n"));
    let cache = (any::<bool>(), around(1, 8), any::<bool>(), any::<bool>()).prop_map(|(on, entries, lru, live)| {
        let replacement = if lru { "lru" } else { "fifo" };
        format!("[rfc]\nenabled = {on}\nentries = {entries}\nreplacement = \"{replacement}\"\nliveness = {live}\n")
    });
    let orf = (any::<bool>(), around(1, 8), prop::sample::select(vec!["none", "unified", "split"]))
        .prop_map(|(on, entries, lrf)| format!("[orf]\nenabled = {on}\nentries = {entries}\nlrf = \"{lrf}\"\n"));
    let modes = vec!["4,0", "4,1", "4,2", "8,0", "8,1", "8,2", "8,4"];
    let compression = (
        any::<bool>(),
        prop::sample::subsequence(modes, 1..=3),
        (around(1, 3), around(1, 2), around(1, 4), around(1, 4)),
        (around(0, 12), around(0, 3)),
    )
        .prop_map(|(on, modes, (lc, ld, nc, nd), (wake, delay))| {
            let modes: Vec<String> = modes.iter().map(|m| format!("\"{m}\"")).collect();
            format!(
                "[compression]\nenabled = {on}\nmodes = [{}]\ncompress_latency = {lc}\ndecompress_latency = {ld}\n\
                 compressors = {nc}\ndecompressors = {nd}\nwakeup_cycles = {wake}\ngate_delay = {delay}\n",
                modes.join(", ")
            )
        });
    let rarely = || prop::bool::weighted(0.2);
    let rename = (any::<bool>(), around(0, 64), around(0, 2047), 0u32..=10, rarely(), rarely()).prop_map(
        |(on, cmos, thr, ref_shift, trws, tuba)| {
            format!(
                "[rename]\nenabled = {on}\ncmos_rows = {cmos}\nthr_acc = {thr}\nref_acc = {}\ntrws = {trws}\ntuba = {tuba}\n",
                1u32 << ref_shift
            )
        },
    );
    let timing = (1u32..=30, 1u32..=40, 1u32..=500, 1u32..=64, 1u32..=64, 1u32..=64).prop_map(
        |(alu, sfu, dram, talu, tsfu, bw)| {
            format!(
                "[latency]\nalu = {alu}\nsfu = {sfu}\nshared = {sfu}\ntexture = {dram}\ndram = {dram}\n\
                 [throughput]\nalu = {talu}\nsfu = {tsfu}\ntexture = {tsfu}\n\
                 [memory]\nshared_bytes_per_cycle = {bw}\ndram_bytes_per_cycle = {bw}\n"
            )
        },
    );
    let segment = (1u32..=12).prop_map(|s| format!("[memory]\nsegment_bytes = {}\n", 1u32 << s));
    let energy = (0.0f64..50.0, 0.0f64..2.0, 0.0f64..1.0).prop_map(|(pj, mm, ratio)| {
        format!(
            "[energy]\nmrf_read_pj = {pj}\nmrf_write_pj = {pj}\nmrf_wire_mm = {mm}\nclock_ghz = {}\ntfet_leakage_ratio = {ratio}\n",
            mm + 0.1
        )
    });
    // Sections given twice are a TOML error: the geometry's [sm]/[mrf] take the count and
    // collectors in, and [memory] is either the timing's or the segment's.
    let sections = (
        (geometry, collectors, maybe(count)),
        (maybe(scheduler), maybe(warpboard), maybe(cache), maybe(orf)),
        (maybe(compression), maybe(rename), prop_oneof![timing, segment, Just(String::new())], maybe(energy)),
    );
    sections.prop_map(|((g, c, n), (s, w, r, o), (z, ren, t, e))| {
        let g = g.replacen("[mrf]\n", &format!("[mrf]\n{c}"), 1);
        let g = if n.is_empty() { g } else { g.replacen("[sm]\n", &n, 1) };
        format!("name = \"rnd\"\n{g}{s}{w}{r}{o}{z}{ren}{t}{e}")
    })
}

/// A short kernel with loads, divergence, a predicate and two registers, so it fits any SM.
const TWO_REGISTERS: &str = ".kernel two\n.grid 3 48\n  mov r0, %gtid\n  shl r1, r0, 2\n  ld.global r0, [r1 + 0x1000]\n\
                             setp.ltu p0, r0, 0x80000000\n@p0 add r0, r0, r1\n  st.global [r1 + 0x8000], r0\n  exit\n";

/// Runs `k` as `rfgen sim` does: a finished run with every operand right (without a warpboard,
/// wrong only by write-after-read hazards), or a kernel that does not fit.
fn run_kernel(checked: &Checked, k: &Kernel) -> Result<(), TestCaseError> {
    match simulate(checked, k, 2_000_000, &mut |_| {}) {
        Ok(r) if checked.config.warpboard.policy == WarPolicy::None => {
            prop_assert_eq!(
                r.stats.operand_mismatches,
                r.stats.war_hazards,
                "{}: {:?}",
                k.name,
                r.stats.mismatch_examples
            )
        }
        Ok(r) => prop_assert_eq!(r.stats.operand_mismatches, 0, "{}: {:?}", k.name, r.stats.mismatch_examples),
        Err(SimError::DoesNotFit(_)) => {}
        Err(e) => return Err(TestCaseError::fail(format!("{}: {e}", k.name))),
    }
    Ok(())
}

#[test]
fn random_configs_generate_every_block_they_have_and_simulate() {
    let small =
        synthetic::Knobs { length: 30, iterations: 2, blocks: 2, threads: 64, registers: 14, ..Default::default() };
    let kernels = [kernel::parse(TWO_REGISTERS).unwrap(), synthetic::generate(&small)];
    let (valid, renamed, bloom_renamed) = (std::cell::Cell::new(0), std::cell::Cell::new(0), std::cell::Cell::new(0));
    runner(300)
        .run(&config(false), |text| {
            let Ok(checked) = rfgen_gen::config::parse(&text) else { return Ok(()) };
            valid.set(valid.get() + 1);
            let c = &checked.config;
            renamed.set(renamed.get() + c.rename.enabled as u32);
            let bloom = matches!(c.warpboard.policy, WarPolicy::Bloom1 | WarPolicy::Bloom2 | WarPolicy::BloomUnbounded);
            bloom_renamed.set(bloom_renamed.get() + (c.rename.enabled && bloom) as u32);
            let design = rfgen_gen::generate(&checked, SramKind::Blackbox);
            prop_assert!(design.files.iter().any(|(f, _)| f == "manifest.json"));
            for block in BLOCKS {
                let design = block.generate(&checked, SramKind::Behavioural);
                prop_assert!(
                    design.is_ok() || !block.in_config(&checked),
                    "{}: {:#}\n{text}",
                    block,
                    design.unwrap_err()
                );
            }
            kernels.iter().try_for_each(|k| run_kernel(&checked, k))
        })
        .unwrap();
    // The campaign reaches what it is for: valid configs, renaming, and renaming beside a
    // bloomboard (the pair that once panicked).
    let n = cases(300);
    eprintln!(
        "{} of {n} random configs valid, {} renamed, {} renamed beside a bloomboard",
        valid.get(),
        renamed.get(),
        bloom_renamed.get()
    );
    assert!(valid.get() >= n / 5, "only {} of {n} random configs were valid", valid.get());
    assert!(
        renamed.get() >= n / 100 && bloom_renamed.get() >= 1,
        "{} renamed, {} with a bloomboard",
        renamed.get(),
        bloom_renamed.get()
    );
}

/// Knob lists for `--synthetic`: every knob, inside, at and past its limits, some malformed.
fn knobs() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        (0u32..=300).prop_map(|v| v.to_string()),
        (0.0f64..=4.0).prop_map(|v| format!("{v:.2}")),
        Just("-1".to_string()),
        Just("1e9".to_string()),
        Just(String::new()),
        Just("x".to_string()),
    ];
    let keys = vec![
        "length",
        "iterations",
        "blocks",
        "threads",
        "reads",
        "lifetime",
        "long_latency",
        "sfu",
        "divergence",
        "noise",
        "prefer_unread",
        "hot",
        "ilp",
        "registers",
        "seed",
        "bogus",
    ];
    prop::collection::vec((prop::sample::select(keys), value), 0..6).prop_map(|kv| {
        let mut kv: Vec<String> = kv.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
        // Keep the kernels short: the campaign is about the knobs, not about long runs.
        kv.extend(["length=24".into(), "iterations=1".into(), "blocks=1".into(), "threads=32".into()]);
        kv.join(",")
    })
}

#[test]
fn synthetic_knobs_give_a_kernel_or_a_clear_error() {
    let wide = rfgen_gen::config::parse("[sm]\nregisters_per_thread = 256\n[mrf]\nentries = 2048\n").unwrap();
    runner(60)
        .run(&knobs(), |text| {
            // Later duplicates of the four length knobs are an error, said as such.
            match synthetic::Knobs::parse(&text) {
                Err(e) => prop_assert!(!e.is_empty()),
                Ok(k) => {
                    let kernel =
                        kernel::parse(&synthetic::source(&k)).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    prop_assert_eq!(kernel.regs, k.registers);
                    run_kernel(&wide, &kernel)?;
                }
            }
            Ok(())
        })
        .unwrap();
}

/// A library kernel with random edits: lines dropped, doubled or swapped, characters replaced.
fn mutated_kernel() -> impl Strategy<Value = String> {
    let sources: Vec<&'static str> = library::KERNELS.iter().map(|k| k.source).collect();
    let edits =
        prop::collection::vec((0u8..5, any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<u8>()), 1..6);
    (prop::sample::select(sources), edits).prop_map(|(source, edits)| {
        let mut lines: Vec<String> = source.lines().map(String::from).collect();
        for (kind, at, other, byte) in edits {
            let (i, j) = (at.index(lines.len()), other.index(lines.len()));
            match kind {
                0 => drop(lines.remove(i)),
                1 => lines.insert(i, lines[j].clone()),
                2 => lines.swap(i, j),
                _ => {
                    let mut chars: Vec<char> = lines[i].chars().collect();
                    let alphabet = b" ,[]+-@%:.0123456789abcdefghijklmnoprstuvwxyz!#;\t\x7f";
                    let c = alphabet[byte as usize % alphabet.len()] as char;
                    let k = other.index(chars.len() + 1);
                    if kind == 3 || k == chars.len() {
                        chars.insert(k, c)
                    } else {
                        chars[k] = c
                    }
                    lines[i] = chars.into_iter().collect();
                }
            }
            if lines.is_empty() {
                lines.push(String::new());
            }
        }
        lines.join("\n")
    })
}

#[test]
fn mutated_kernel_files_run_or_get_a_clear_error() {
    let configs = [baseline(), small("odd"), rfgen_gen::config::preset("war-warpboard").unwrap()];
    let parsed = std::cell::Cell::new(0);
    runner(150)
        .run(&mutated_kernel(), |text| {
            let Ok(k) = kernel::parse(&text) else { return Ok(()) };
            parsed.set(parsed.get() + 1);
            for c in &configs {
                // A mutated kernel may fault or loop: any error, but a said one.
                match simulate(c, &k, 200_000, &mut |_| {}) {
                    Ok(r) if c.config.warpboard.policy == WarPolicy::None => {
                        prop_assert_eq!(r.stats.operand_mismatches, r.stats.war_hazards)
                    }
                    Ok(r) => prop_assert_eq!(r.stats.operand_mismatches, 0),
                    Err(e) => prop_assert!(!e.to_string().is_empty()),
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(parsed.get() >= cases(150) / 10, "only {} mutated kernels parsed", parsed.get());
}

#[test]
fn random_bytes_and_tables_into_the_parsers_give_errors_not_panics() {
    let bytes = prop::collection::vec(any::<u8>(), 0..400).prop_map(|b| String::from_utf8_lossy(&b).into_owned());
    // Text made of the parsers' own words, more likely to get deep into them than raw bytes.
    let words = vec![
        "[sm]",
        "[mrf]",
        "[rfc]",
        "[rename]",
        "[energy]",
        "banks",
        "entries",
        "=",
        "\"fifo\"",
        "{",
        "}",
        "[",
        "]",
        "1",
        "0x10",
        "-1",
        "1e999",
        "true",
        "\n",
        ".kernel",
        ".grid",
        ".fill",
        ".data",
        "r0",
        "p0",
        "@p0",
        "bra",
        "ld.global",
        "[r1 + 4]",
        ",",
        "L:",
        "exit",
        "%tid",
        "%ntid",
        "%ctaid.y",
        ".const N",
        ".min_threads",
        "+",
        "-",
        "*",
        "/",
        "4294967295",
        "99999999999999999999",
    ];
    let tokens = prop::collection::vec(prop::sample::select(words), 0..60).prop_map(|t| t.join(" "));
    runner(300)
        .run(&prop_oneof![bytes, tokens], |text| {
            let _ = rfgen_gen::config::parse(&text).map_err(|e| e.to_string());
            let _ = kernel::parse(&text).map_err(|e| e.to_string());
            Ok(())
        })
        .unwrap();
}

#[test]
fn random_small_configs_pass_a_short_cosim() {
    runner(6)
        .run(&config(true).prop_filter("valid", |t| rfgen_gen::config::parse(t).is_ok()), |text| {
            let checked = rfgen_gen::config::parse(&text).unwrap();
            let opts = CosimOptions {
                block: rfgen_gen::Block::Mrf,
                cycles: 3_000,
                seed: 1,
                x_seed: 1,
                trace: None,
                fail_wave_dir: None,
                cache: cache_dir(),
            };
            let report = cosim(&checked, &opts, &mut |_| {}).map_err(|e| TestCaseError::fail(format!("{e:#}")))?;
            prop_assert!(report.mismatch.is_none(), "{text}\n{}", report.mismatch.unwrap());
            Ok(())
        })
        .unwrap();
}
