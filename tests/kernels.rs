//! The kernel library against its plain-Rust references (`common::kernels::check`): every
//! library kernel runs on the functional executor and must produce the reference result, fit
//! the default SM, and (for the irregular kernels) really diverge.

mod common;

use common::kernels::check;
use rfgen_model::func::{GlobalMemory, Values, Warp, initial_memory, run};
use rfgen_model::kernel::library::{KERNELS, find};
use rfgen_model::kernel::{Kernel, Op};

/// Lanes of the default SM.
const LANES: u32 = 32;

fn kernel(name: &str) -> Kernel {
    find(name).unwrap_or_else(|| panic!("no library kernel `{name}`")).parse().unwrap()
}

fn final_memory(k: &Kernel) -> GlobalMemory {
    run(k, LANES).unwrap_or_else(|e| panic!("{}: {e}", k.name)).memory
}

#[test]
fn every_library_kernel_matches_its_reference() {
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        let first = run(&k, LANES).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        check(lib.name, &k, &first.memory).unwrap();

        let warps = u64::from(k.blocks * k.warps_per_block(LANES));
        assert!(first.warp_instructions >= warps, "{}: every warp executes", k.name);
        assert!(
            first.warp_instructions <= 100_000,
            "{}: {} warp instructions is too long",
            k.name,
            first.warp_instructions
        );
        assert!(
            first.thread_instructions > 0 && first.thread_instructions <= u64::from(LANES) * first.warp_instructions
        );
        let second = run(&k, LANES).unwrap();
        assert_eq!(
            (first.warp_instructions, first.thread_instructions),
            (second.warp_instructions, second.thread_instructions),
            "{}: a second run executes the same instructions",
            k.name
        );
    }
}

/// Every block size the launch rule can give a library kernel: its own, then halved while it
/// halves evenly and stays at or above its `.min_threads`.
fn block_sizes(k: &Kernel) -> Vec<u32> {
    let mut sizes = vec![k.threads];
    let mut t = k.threads;
    while t.is_multiple_of(2) && t / 2 >= k.min_threads {
        t /= 2;
        sizes.push(t);
    }
    sizes
}

#[test]
fn every_library_kernel_matches_its_reference_at_every_scaled_block_size() {
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        let sizes = block_sizes(&k);
        // At least down to the 64 threads of the small preset's 8 warps of 8 lanes.
        assert!(sizes.contains(&64), "{}: {sizes:?}", k.name);
        let total = k.blocks * k.threads;
        for &threads in &sizes {
            let launched = k.with_threads(threads).unwrap_or_else(|e| panic!("{} at {threads}: {e}", k.name));
            assert_eq!((launched.threads, launched.blocks_y), (threads, k.blocks_y), "{}", k.name);
            if lib.name != "pathfinder" {
                assert_eq!(launched.blocks * threads, total, "{} at {threads}: the same threads in all", k.name);
            }
            // Whole warps of the default SM and the small preset's partial ones.
            for lanes in [LANES, 8] {
                let memory = run(&launched, lanes).unwrap_or_else(|e| panic!("{} at {threads}: {e}", k.name)).memory;
                check(lib.name, &launched, &memory)
                    .unwrap_or_else(|e| panic!("at {threads} threads, {lanes} lanes: {e}"));
            }
        }
    }
}

#[test]
fn scaled_launches_recompute_what_depends_on_the_block_size() {
    // Pathfinder takes its grid from its derived constant: ceil(1700 / (threads - 32)) blocks.
    let k = kernel("pathfinder");
    let blocks: Vec<u32> = [256, 128, 64].iter().map(|&t| k.with_threads(t).unwrap().blocks).collect();
    assert_eq!(blocks, [8, 18, 54]);
    // Below its `.min_threads` a kernel cannot launch, whatever the rule asks.
    assert_eq!(k.with_threads(32).unwrap_err(), "it needs at least 33 threads per block (.min_threads)");
    assert_eq!(kernel("matmul").with_threads(32).unwrap_err(), "it needs at least 64 threads per block (.min_threads)");
    // Stencil's grid is 1 x 16 blocks: a smaller block adds blocks along x only.
    let s = kernel("stencil").with_threads(32).unwrap();
    assert_eq!((s.blocks_x(), s.blocks_y, s.threads), (4, 16, 32));
    // Reduction's tree starts at half the block: its immediates follow.
    let r = kernel("reduction");
    let first_step = |k: &Kernel| k.code.iter().find(|i| i.op == Op::Mov && i.dst == Some(6)).unwrap().srcs[0];
    assert_eq!(first_step(&r), rfgen_model::kernel::Src::Imm(128));
    assert_eq!(first_step(&r.with_threads(64).unwrap()), rfgen_model::kernel::Src::Imm(32));
    // A constant that should follow the block size but does not is caught at a scaled size.
    let fixed = find("matmul").unwrap().source.replacen(".const ROWS %ntid / 16", ".const ROWS 16", 1);
    let fixed = rfgen_model::kernel::parse(&fixed).unwrap();
    check("matmul", &fixed, &final_memory(&fixed)).unwrap();
    let small = fixed.with_threads(64).unwrap();
    assert!(check("matmul", &small, &final_memory(&small)).unwrap_err().starts_with("matmul: output word "));
    // The same total threads must split evenly into the new blocks.
    let odd = rfgen_model::kernel::parse(".kernel odd\n.grid 3 48\n  exit\n").unwrap();
    assert_eq!(odd.with_threads(32).unwrap_err(), "144 threads along x do not split into blocks of 32");
    assert_eq!(odd.with_threads(24).unwrap().blocks, 6);
}

#[test]
fn every_library_kernel_fits_the_default_sm() {
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        assert!(k.regs <= 32, "{}: {} registers per thread", k.name, k.regs);
        assert!(k.threads <= 1024, "{}: {} threads per block", k.name, k.threads);
        assert!(k.shared_bytes <= 16 * 1024, "{}: {} bytes of shared memory", k.name, k.shared_bytes);
    }
}

/// Counts of a run driven warp by warp through `Warp::execute`, with the block-at-a-time
/// barrier discipline of `func::run`.
#[derive(Debug, Default, PartialEq)]
struct Profile {
    warp_instructions: u64,
    /// Guarded branches whose active lanes disagreed, splitting the warp.
    divergent_branches: u64,
    /// Instructions issued with only part of the warp's live lanes on its SIMT stack top.
    partial_issues: u64,
    /// Source operands read in an active lane whose register the warp never wrote there.
    undefined_reads: u64,
}

fn profile(k: &Kernel) -> Profile {
    let mut p = Profile::default();
    let mut memory = initial_memory(k);
    let mut vals = Values::new(LANES as usize);
    for block in 0..k.blocks {
        let mut shared = vec![0u32; k.shared_bytes as usize / 4];
        let mut warps: Vec<Warp> = (0..k.warps_per_block(LANES)).map(|w| Warp::new(k, block, w, LANES)).collect();
        // Lanes still running per warp: exited lanes do not count as divergence.
        let mut live: Vec<u64> = warps.iter().map(|w| w.next().unwrap().1).collect();
        while warps.iter().any(|w| !w.done()) {
            for (w, live) in warps.iter_mut().zip(&mut live) {
                while let Some((pc, mask)) = w.next() {
                    let e = w.execute(k, &mut memory, &mut shared, &mut vals).unwrap();
                    let ins = &k.code[pc as usize];
                    let op = ins.op;
                    for (slot, _) in ins.src_regs() {
                        p.undefined_reads += u64::from(e.mask & !vals.src_defined[slot] != 0);
                    }
                    p.warp_instructions += 1;
                    p.partial_issues += u64::from(mask != *live);
                    p.divergent_branches += u64::from(op == Op::Bra && e.mask != 0 && e.mask != mask);
                    if op == Op::Exit {
                        *live &= !e.mask;
                    }
                    if op == Op::Bar {
                        break;
                    }
                }
            }
        }
    }
    p
}

#[test]
fn irregular_kernels_diverge_and_regular_ones_do_not() {
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        let p = profile(&k);
        println!(
            "{:<10} {:>6} warp instructions, {} divergent branches, {} partial issues",
            k.name, p.warp_instructions, p.divergent_branches, p.partial_issues
        );
        assert_eq!(p.warp_instructions, run(&k, LANES).unwrap().warp_instructions, "{}", k.name);
        match lib.name {
            "bfs" | "pathfinder" | "reduction" => {
                assert!(p.divergent_branches > 0 && p.partial_issues > 0, "{}: {p:?}", k.name)
            }
            _ => assert_eq!((p.divergent_branches, p.partial_issues), (0, 0), "{}: {p:?}", k.name),
        }
    }
}

#[test]
fn no_kernel_reads_a_register_it_did_not_write() {
    // The executor's registers start at zero, the hardware's hold leftovers: a kernel must
    // not depend on either.
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        assert_eq!(profile(&k).undefined_reads, 0, "{}", k.name);
    }
    // Without its initialization, pathfinder's columns outside the grid read r7 unwritten.
    let source = find("pathfinder").unwrap().source.replacen("mov       r7, 0", "", 1);
    assert!(profile(&rfgen_model::kernel::parse(&source).unwrap()).undefined_reads > 0);
}

#[test]
fn a_check_without_a_run_fails_for_every_kernel() {
    for lib in KERNELS {
        let k = lib.parse().unwrap();
        let err = check(lib.name, &k, &initial_memory(&k)).unwrap_err();
        assert!(err.starts_with(&format!("{}: output word ", lib.name)), "{err}");
    }
}

/// Corrupts output word `index` of the array at `base` and expects `check` to name it.
fn assert_corruption_caught(name: &str, base: u32, index: u32) {
    let k = kernel(name);
    let mut memory = final_memory(&k);
    let addr = base + 4 * index;
    let good = memory.read(addr);
    memory.write(addr, good ^ 1);
    let err = check(name, &k, &memory).unwrap_err();
    assert!(err.starts_with(&format!("{name}: output word {index} (address 0x{addr:08x}) is {}", good ^ 1)), "{err}");
    assert!(err.ends_with(&format!("expected {good} (0x{good:08x})")), "{err}");
}

#[test]
fn a_corrupted_output_word_is_named() {
    assert_corruption_caught("matmul", 0x30_0000, 64 * 37 + 5);
    assert_corruption_caught("reduction", 0x20_0000, 7); // the last block's sum
    assert_corruption_caught("pathfinder", 0x20_0000, 1699); // the last column
    assert_corruption_caught("pathfinder", 0x20_0000, 0);
    assert_corruption_caught("bfs", 0x40_0000, 2049);
    assert_corruption_caught("scan", 0x20_0000, 256 * 3 + 255);
    assert_corruption_caught("stencil", 0x20_0000, 128 * 127);
}

#[test]
fn unknown_kernels_and_changed_grids_are_rejected() {
    let mut k = kernel("saxpy");
    let memory = final_memory(&k);
    assert_eq!(check("saxpy2", &k, &memory).unwrap_err(), "saxpy2: no reference check for this kernel");
    k.blocks = 8;
    let err = check("saxpy", &k, &memory).unwrap_err();
    assert!(err.contains("16 blocks of 256 threads, the kernel has 8 of 256"), "{err}");
}

#[test]
fn data_sections_override_default_inputs() {
    // The reference reads inputs as the executor lays them out: .data words, else default_word.
    let source = find("vecadd").unwrap().source.replace(".grid", ".data 0x100004 5 6\n.grid");
    let k = rfgen_model::kernel::parse(&source).unwrap();
    let memory = final_memory(&k);
    check("vecadd", &k, &memory).unwrap();
    assert_ne!(
        memory.read(0x30_0004),
        rfgen_model::func::default_word(0x10_0004).wrapping_add(rfgen_model::func::default_word(0x20_0004))
    );
    let stale = final_memory(&kernel("vecadd"));
    assert!(check("vecadd", &k, &stale).unwrap_err().starts_with("vecadd: output word 1 "));
}

#[test]
fn broken_kernels_fail_their_check() {
    // A bug of each kind the references must catch: wrong arithmetic, a missing barrier (a race
    // that the executor's warp-by-warp order exposes), a missing border clamp, a short tree.
    let mutations = [
        ("vecadd", "add       r4, r2, r3", "sub       r4, r2, r3"),
        ("saxpy", ".const ALPHA 3", ".const ALPHA 5"),
        ("matmul", "    bar                             ; every thread is done", "; no barrier"),
        ("reduction", ".const HALF %ntid / 2", ".const HALF %ntid / 4"),
        ("scan", "    bar                             ; every read of this step", "; no barrier"),
        ("pathfinder", "selp      r4, r3, r4, p1", "mov       r4, r4"),
        ("bfs", "add       r7, r7, 1", "add       r7, r7, 2"),
        ("stencil", "min       r5, r5, LAST", "min       r5, r5, 128"),
        ("heartwall", "add       r0, r1, 0x4f", "add       r0, r1, 0x50"),
    ];
    for lib in KERNELS {
        let (_, from, to) = mutations.iter().find(|m| m.0 == lib.name).expect("every kernel has a mutation here");
        assert!(lib.source.contains(from), "{}: `{from}` is not in the source", lib.name);
        let k = rfgen_model::kernel::parse(&lib.source.replacen(from, to, 1)).unwrap();
        let err = check(lib.name, &k, &final_memory(&k)).unwrap_err();
        assert!(err.starts_with(&format!("{}: output word ", lib.name)), "{err}");
    }
}
