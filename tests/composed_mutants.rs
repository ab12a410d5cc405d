//! Composing the blocks must not hide a bug of one of them: every seeded RTL bug of the blocks'
//! own tests (tests/common/mutants.rs, but for the compressed random stimulus' corners) is
//! re-run inside the composed top (`<prefix>_sm_rf` of the mutant's design point) under kernel
//! traffic on the SM model, and must be caught — but
//! for the few listed in `KERNEL_ESCAPES`, with the reason no kernel reaches them (random
//! stimulus of the block alone catches those, in the block's own test).
//!
//! Each mutant is a Verilator build of a whole top, so CI runs an even sample of them;
//! `RFGEN_MUTANTS=all cargo test --test composed_mutants -- --nocapture` runs every one
//! (docs/sm-rf.md has its table), `RFGEN_MUTANTS=csmall` those of one design point.

mod common;

use common::mutants::{Family, Mutant, families};
use common::*;
use rfgen_cosim::session::{CosimOptions, cosim_kernel};
use rfgen_gen::{Checked, Design, SramKind};
use rfgen_model::kernel::Kernel;

/// How many mutants CI runs, spread evenly over the list.
const SAMPLE: usize = 5;

/// Mutants no kernel's traffic reaches in the composed top, and why (random stimulus of the
/// block alone catches each, in its own test; random programs as traffic here are the next step).
const KERNEL_ESCAPES: &[(&str, &str)] = &[
    (
        "write-first bank instead of read-first",
        "a same-cycle read and full-mask write of one row needs a WAR pair the scoreboard and \
         collectors never let through together",
    ),
    (
        "dispatch offer not held while refused",
        "the SM's units never refuse a dispatch while another collector is ready",
    ),
    (
        "bloom counter saturating early (bloom2 at 2)",
        "it differs only once a bin holds three unread sources of one warp while a write to that \
         bin waits; the kernels never combine the two on this design point",
    ),
    (
        "control instructions wait for a collector",
        "it differs only when a branch, exit or barrier is eligible while every collector is busy; \
         in these kernels a warp's control instruction waits on its own predicate's write-back, \
         and no cycle had one eligible with the three collectors full",
    ),
    (
        "launch not learnt (GTO age stays slot order)",
        "it differs only when warps launch out of slot order; on this design point every kernel's \
         warps launch in slot order, the order the mutant keeps",
    ),
    (
        "long-latency bit never released",
        "the long-latency bits steer only the two-level scheduler's descheduling; this design point \
         schedules GTO, so no output reads them",
    ),
    (
        "bloom2 counter saturating early (at 2)",
        "as in the issue stage: a bin with three unread sources of one warp while a write to it \
         waits was not reached",
    ),
    (
        "bloomN drops the third source of an instruction",
        "it differs only when a third source alone guards its bin while a write to that bin waits; \
         not reached by the kernels here",
    ),
    (
        "read hits do not refresh the LRU order",
        "the order decides only which of a slot's entries is evicted; on this design point the \
         kernels' reuse never made the two orders pick different victims",
    ),
    (
        "the eviction buffer empties although the write port refused it",
        "it needs an eviction refused by the compressed write port (busy with a dummy MOV or a \
         stalled stage); the kernels here never made one",
    ),
    (
        "Eq. (1) shift off by one",
        "it moves the stall threshold at which a warp's destinations ask for TFET registers; no \
         warp's counters on this design point's kernels fall between the two thresholds",
    ),
    (
        "a TFET allocation takes 1",
        "it changes how far a TFET allocation lowers a warp's MEM_RA counter; with these kernels \
         no counter crosses the threshold either way",
    ),
    (
        "the counter wraps at its top",
        "it differs only once a warp waits 2,048 cycles for one memory access; the model's global \
         loads on this design point complete in a few hundred",
    ),
    ("the last warp's counter wraps at its top", "as the first warp's: no access of these kernels waits 2,048 cycles"),
    (
        "a prediction of bit 7 alone requests no TFET register",
        "it differs only when a warp's prediction is 128 or 129 cycles and that warp renames a \
         destination at the very next edge; the kernels' completions never give that pair",
    ),
    (
        "stale entry across a strand",
        "the compiler's allocation never places a read of an ORF value across a strand boundary, \
         so only random stimulus of the ORF/LRF reads a stale entry",
    ),
    (
        "constant stride (the most rows per warp)",
        "it differs only for kernels needing fewer rows per warp than the most; every kernel that \
         launches on this design point needs the most",
    ),
    (
        "wrong mode priority: <8,0> no longer wins over <4,1>",
        "only a register whose lanes alternate between two values less than 128 apart fits both \
         modes; no kernel writes one",
    ),
];

/// Mutants whose design point no kernel launches on, and why.
const NOT_RUN: &[(&str, &str)] = &[(
    "gating delay one edge short",
    "its design point (conegroup) holds two registers per thread, fewer than any kernel needs",
)];

/// The kernels tried in turn until one catches the mutant: three sources per instruction and
/// bank conflicts first, then the library kernels (barriers, divergence, long-latency loads)
/// that launch on the design point (blocks scaled to its warp slots, as `rfgen cosim` does).
fn kernels(checked: &Checked) -> Vec<Kernel> {
    let mut k = vec![rfgen_model::kernel::parse(include_str!("data/operand_stress.kir")).unwrap()];
    for lib in rfgen_model::kernel::library::KERNELS {
        k.push(lib.parse().unwrap());
    }
    let launched = |k: Kernel| rfgen_model::sm::launch(checked, &k).ok().map(|l| l.into_owned());
    let k: Vec<Kernel> = k.into_iter().filter_map(launched).collect();
    assert!(!k.is_empty(), "{}: no kernel fits", checked.config.name);
    k
}

fn options() -> CosimOptions {
    CosimOptions { fail_wave_dir: None, ..kernel_options(rfgen_gen::Block::Sm) }
}

/// The first kernel whose lockstep on `design` fails: its name, the port and the cycle.
fn caught_by(checked: &Checked, design: &Design, kernels: &[Kernel]) -> Option<String> {
    kernels.iter().find_map(|k| {
        let run = cosim_kernel(checked, design, k, &options(), &mut |_| {}).unwrap();
        assert!(run.kernel_error.is_none() || run.mismatch.is_some(), "{}: {:?}", k.name, run.kernel_error);
        run.mismatch.map(|m| format!("{} on {} at cycle {}", k.name, m.ports[0].port, m.cycle))
    })
}

/// `SAMPLE` mutants evenly spread; with `RFGEN_MUTANTS=all` every one, with
/// `RFGEN_MUTANTS=NAME` those of design point NAME. Those in `NOT_RUN` are left out.
fn chosen(families: &[Family]) -> Vec<(usize, &Mutant)> {
    let all: Vec<(usize, &Mutant)> =
        families.iter().enumerate().flat_map(|(i, f)| f.mutants.iter().map(move |m| (i, m))).collect();
    let n = all.len();
    let chosen: Vec<(usize, &Mutant)> = match std::env::var("RFGEN_MUTANTS").ok().as_deref() {
        None => (0..SAMPLE).map(|k| all[k * n / SAMPLE]).collect(),
        Some("all") => all.clone(),
        Some(point) => all.iter().copied().filter(|(i, _)| (families[*i].config)().config.name == point).collect(),
    };
    let runnable = |m: &Mutant| !NOT_RUN.iter().any(|(name, _)| *name == m.name);
    let chosen: Vec<(usize, &Mutant)> = chosen.into_iter().filter(|(_, m)| runnable(m)).collect();
    assert!(!chosen.is_empty(), "RFGEN_MUTANTS: `all` or a design point of tests/common/mutants.rs");
    eprintln!("{} of {n} mutants (RFGEN_MUTANTS=all runs every one); not run: {NOT_RUN:?}", chosen.len());
    chosen
}

#[test]
fn every_block_mutant_is_caught_in_the_composed_top() {
    let families = families();
    let mut tops: Vec<Option<(Checked, Design, Vec<Kernel>)>> = (0..families.len()).map(|_| None).collect();
    let mut wrong = Vec::new();
    for (i, m) in chosen(&families) {
        let (checked, top, kernels) = tops[i].get_or_insert_with(|| {
            let checked = (families[i].config)();
            let top = rfgen_gen::emit::generate_sm_rf(&checked, SramKind::Behavioural);
            let kernels = kernels(&checked);
            // A catch means something only if the unmutated top passes the same traffic.
            assert_eq!(caught_by(&checked, &top, &kernels), None, "{}: the unmutated top fails", checked.config.name);
            (checked, top, kernels)
        });
        let caught = caught_by(checked, &m.apply(top), kernels);
        let name = &checked.config.name;
        let row = format!("{:<10} {name:<8} {:<76} {}", families[i].block, m.name, caught.as_deref().unwrap_or("-"));
        eprintln!("{row}");
        let escapes = KERNEL_ESCAPES.iter().any(|(e, _)| *e == m.name);
        if caught.is_none() != escapes {
            wrong.push(format!("{row}   (expected {})", if escapes { "to escape" } else { "to be caught" }));
        }
    }
    assert!(wrong.is_empty(), "mutants whose outcome differs from KERNEL_ESCAPES:\n{}", wrong.join("\n"));
}
