//! The whole-SM golden model: library kernels against their plain-Rust references under every
//! scheduler, invariants, scheduler behaviour on hand-built scenarios, kernel errors, the CLI.

mod common;

use common::kernels::check;
use common::*;
use rfgen_gen::Checked;
use rfgen_model::func;
use rfgen_model::kernel::{self, library::KERNELS, synthetic};
use rfgen_model::sm::{Sm, fits, launch};

fn config(toml: &str) -> Checked {
    rfgen_gen::config::parse(toml).unwrap()
}

fn two_level(active: u32) -> Checked {
    config(&format!("name = \"tl\"\n[scheduler]\npolicy = \"two_level\"\nactive_warps = {active}\n"))
}

fn run<'k>(c: &Checked, k: &'k kernel::Kernel) -> Sm<'k> {
    let mut sm = Sm::new(c, k).unwrap();
    sm.record_issues();
    sm.run(50_000_000, &mut |_| {}).unwrap();
    sm
}

#[test]
fn library_kernels_match_their_references_under_every_scheduler() {
    let configs = [
        baseline(),
        config("name = \"lrr\"\n[scheduler]\npolicy = \"lrr\"\n"),
        two_level(8),
        // A small SM: 8 warp slots, 2 collectors, 64-row banks.
        config("name = \"small_sm\"\n[sm]\nwarps = 8\n[mrf]\nentries = 64\ncollectors = 2\n"),
    ];
    for c in &configs {
        for lk in KERNELS {
            let k = lk.parse().unwrap();
            if k.warps_per_block(32) > c.geometry.warps {
                continue;
            }
            let sm = run(c, &k);
            let s = sm.stats();
            let what = format!("{} on {}", lk.name, c.config.name);
            check(lk.name, &k, &sm.memory()).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(s.operand_mismatches, 0, "{what}: {:?}", s.mismatch_examples);
            assert_eq!(s.undefined_reads, 0, "{what}");
            let f = func::run(&k, 32).unwrap();
            assert_eq!(s.warp_instructions, f.warp_instructions, "{what}: dynamic instruction count");
            assert_eq!(s.thread_instructions, f.thread_instructions, "{what}");
            assert!(s.warp_instructions <= s.cycles, "{what}: IPC above the issue width");
            let st = &s.stalls;
            let slots = st.issued + st.collector_full + st.scoreboard + st.barrier + st.descheduled + st.no_warp;
            assert_eq!(slots, s.cycles, "{what}: one issue-slot outcome per cycle");
            assert_eq!(st.issued, s.warp_instructions, "{what}");
            // Every register write is one value, closed when overwritten or when its warp ends.
            assert_eq!(s.mrf.writes, s.values.reads_per_value.total(), "{what}");
            assert!(s.mrf.reads > 0 && s.mrf.writes > 0, "{what}");
            // Fig. 2b's histogram holds exactly the values read once; its first three bins are
            // those read within 3 instructions.
            let once = &s.values.read_once_lifetime;
            assert_eq!(once.total(), s.values.reads_per_value.counts[1], "{what}");
            assert_eq!(once.counts[..3].iter().sum::<u64>(), s.values.read_once_within_3, "{what}");
        }
    }
}

/// The `small` preset (8 warps of 8 lanes) holds no library kernel's own block: each launches
/// with blocks of 64 threads and runs through the whole SM model with every operand delivered
/// right and every output word equal to the reference's for that launch.
#[test]
fn every_library_kernel_runs_scaled_on_the_small_preset() {
    let c = rfgen_gen::config::preset("small").unwrap();
    for lk in KERNELS {
        let k = lk.parse().unwrap();
        assert!(fits(&c, &k).is_err(), "{}: its own block fits the small SM", k.name);
        let launched = launch(&c, &k).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        assert_eq!(launched.threads, 64, "{}", k.name);
        let sm = run(&c, &launched);
        let s = sm.stats();
        check(lk.name, &launched, &sm.memory()).unwrap_or_else(|e| panic!("{} on small: {e}", k.name));
        assert_eq!(s.operand_mismatches, 0, "{}: {:?}", k.name, s.mismatch_examples);
        assert_eq!(s.undefined_reads, 0, "{}", k.name);
        let f = func::run(&launched, 8).unwrap();
        assert_eq!(s.warp_instructions, f.warp_instructions, "{}: dynamic instruction count", k.name);
        // One block of 8 warps fills the SM.
        assert_eq!(s.occupancy.peak_warps, 8, "{}", k.name);
    }
}

#[test]
fn two_dimensional_grids_number_blocks_along_x_first() {
    let k = kernel::parse(
        ".kernel grid2\n.grid 3 2 4\n\
         shl r0, %gtid, 4\n\
         st.global [r0], %ctaid.x\n st.global [r0 + 4], %ctaid.y\n\
         st.global [r0 + 8], %nctaid.x\n st.global [r0 + 12], %nctaid.y\n exit\n",
    )
    .unwrap();
    assert_eq!((k.blocks, k.blocks_x(), k.blocks_y), (6, 3, 2));
    let m = func::run(&k, 4).unwrap().memory;
    for block in 0..6u32 {
        let at = |i: u32| m.read(16 * 4 * block + 4 * i);
        assert_eq!([at(0), at(1), at(2), at(3)], [block % 3, block / 3, 3, 2], "block {block}");
    }
    // A smaller block doubles the blocks along x only.
    let half = k.with_threads(2).unwrap();
    assert_eq!((half.blocks_x(), half.blocks_y), (6, 2));
}

/// Every warp of one block loads, then consumes the load.
const LOAD_USE: &str = ".kernel load_use\n.grid 1 256\n\
    mov r0, %gtid\n\
    shl r1, r0, 2\n\
    ld.global r2, [r1 + 0x1000]\n\
    add r3, r2, 1\n\
    st.global [r1 + 0x8000], r3\n\
    exit\n";

fn first_issue(sm: &Sm, warp: u32, pc: u32) -> u64 {
    sm.issues().iter().find(|&&(_, w, p)| w == warp && p == pc).map(|&(c, _, _)| c).expect("the warp issued it")
}

#[test]
fn two_level_deschedules_on_long_latency_consumers_and_refills_round_robin() {
    let k = kernel::parse(LOAD_USE).unwrap();
    assert!(k.notes[3].long_latency_consumer);
    let sm = run(&two_level(2), &k);
    let s = sm.stats();
    assert_eq!(s.operand_mismatches, 0);
    assert!(s.deschedules >= 8, "every warp leaves the active set at its consumer: {}", s.deschedules);
    // Warps start in slot order, two at a time: warp w + 2 only starts once warp w has issued
    // its load and been descheduled.
    let mut starts: Vec<(u64, u32)> = (0..8).map(|w| (first_issue(&sm, w, 0), w)).collect();
    starts.sort();
    assert_eq!(starts.iter().map(|&(_, w)| w).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5, 6, 7]);
    for w in 0..6 {
        assert!(first_issue(&sm, w + 2, 0) > first_issue(&sm, w, 2), "warp {} started before warp {w} left", w + 2);
    }
    // Consumers issue after the 400-cycle load, refilled round-robin in slot order.
    let mut uses: Vec<(u64, u32)> = (0..8).map(|w| (first_issue(&sm, w, 3), w)).collect();
    for &(c, w) in &uses {
        assert!(c >= first_issue(&sm, w, 2) + 400, "warp {w} consumed its load early");
    }
    uses.sort();
    assert_eq!(uses.iter().map(|&(_, w)| w).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5, 6, 7]);

    // Without two-level scheduling nobody is descheduled and all loads issue before any use.
    let gto = run(&baseline(), &k);
    assert_eq!(gto.stats().deschedules, 0);
    let last_load = (0..8).map(|w| first_issue(&gto, w, 2)).max().unwrap();
    assert!((0..8).all(|w| first_issue(&gto, w, 3) > last_load));
}

#[test]
fn gto_keeps_the_greedy_warp_and_lrr_rotates() {
    let mut src = String::from(".kernel independent\n.grid 1 128\n");
    for r in 0..8 {
        src += &format!("    mov r{r}, {r}\n");
    }
    src += "    exit\n";
    let k = kernel::parse(&src).unwrap();
    let gto = run(&baseline(), &k);
    let first: Vec<u32> = gto.issues().iter().take(9).map(|&(_, w, _)| w).collect();
    assert_eq!(first, [0; 9], "GTO issues warp 0 until it finishes");
    let lrr = run(&config("name = \"lrr\"\n[scheduler]\npolicy = \"lrr\"\n"), &k);
    let first: Vec<u32> = lrr.issues().iter().take(8).map(|&(_, w, _)| w).collect();
    assert_eq!(first, [0, 1, 2, 3, 0, 1, 2, 3], "LRR rotates every cycle");
}

#[test]
fn a_dependent_instruction_waits_for_the_alu_latency() {
    let k = kernel::parse(".kernel dep\n.grid 1 32\n    mov r0, 1\n    add r1, r0, 1\n    exit\n").unwrap();
    for alu in [4, 8, 13] {
        let c = config(&format!("name = \"lat\"\n[latency]\nalu = {alu}\n"));
        let sm = run(&c, &k);
        let gap = first_issue(&sm, 0, 1) - first_issue(&sm, 0, 0);
        // Issued in t, offered by its collector and dispatched in t+1 (no sources to read),
        // written back in t+1+alu, scoreboard released for issue in t+2+alu.
        assert_eq!(gap, alu as u64 + 2, "alu latency {alu}");
    }
}

/// `(kernel text, exact error)`.
const BAD_KERNELS: &[(&str, &str)] = &[
    ("mov r0, 1\nexit\n", "1:1: missing `.kernel NAME`"),
    (".kernel k\nexit\n", "1:1: missing `.grid BLOCKS THREADS`"),
    (".kernel k\n.grid 1 32\n  add r1, r2\n  exit\n", "3:13: expected `,`"),
    (".kernel k\n.grid 1 32\n  bra NOWHERE\n  exit\n", "3:7: unknown label `NOWHERE`"),
    (".kernel k\n.grid 1 32\n  mov r300, 1\n  exit\n", "3:7: expected a register r0..r255, found `r300`"),
    (".kernel k\n.grid 1 32\n  mov r1, 0xZZ\n  exit\n", "3:11: bad number `0xZZ` (decimal or 0x hex, at most 32 bits)"),
    (
        ".kernel k\n.grid 1 32\n  ld.global r1, [r2 + r3]\n  exit\n",
        "3:23: expected a number or a constant, found register `r3`",
    ),
    (
        ".kernel k\n.grid 1 32\n  mov r1, 2\n",
        "3:3: control can run past the last instruction: end the kernel with `exit` or `bra`",
    ),
    (".kernel k\n.grid 0 32\n  exit\n", "2:7: blocks in the grid 0 is out of range (allowed: 1 to 4096)"),
    (".kernel k\n.grid 4097 32\n  exit\n", "2:7: blocks in the grid 4097 is out of range (allowed: 1 to 4096)"),
    (".kernel k\n.grid -1 32\n  exit\n", "2:7: blocks in the grid cannot be negative (allowed: 1 to 4096)"),
    (".kernel k\n.grid 1 5000\n  exit\n", "2:9: threads per block 5000 is out of range (allowed: 1 to 4096)"),
    (
        ".kernel k\n.grid 1 32\n.fill 0 0xFFFFFFFF 7\n  exit\n",
        "3:9: the word count 4294967295 is out of range (allowed: 1 to 4194304)",
    ),
    (
        ".kernel k\n.grid 1 32\n.fill 0 4000000 7\n.fill 0x1000000 200000 7\n  exit\n",
        "4:17: more than 4194304 initialized words in the kernel (`.data` and `.fill` together; 4000000 before this line)",
    ),
    (
        ".kernel k\n.grid 1 32\n.data 0xFFFFFFFC 1 2\n  exit\n",
        "3:1: the words run past the end of the 4 GiB address space",
    ),
    (".kernel k\n.kernel j\n.grid 1 32\n  exit\n", "2:1: `.kernel` is given twice (first on line 1)"),
    (".kernel k\n.const N 1\n.const N 2\n.grid 1 32\n  exit\n", "3:8: constant `N` is already defined on line 2"),
    (".kernel k\n.grid 1 32\n  mov r1, \0\n  exit\n", "3:11: unexpected character `\\u{0}`"),
    (".kernel k\n.grid 1 32\n@p9 add r1, r1, 1\n  exit\n", "3:2: expected a predicate p0..p7, found `p9`"),
    (".kernel k\n.grid 1 32\nA:\nA:\n  exit\n", "4:1: label `A` is already defined on line 3"),
    (".kernel k\n.grid 1 32\n.shared 6\n  exit\n", "3:1: shared memory must be a multiple of 4 bytes"),
    (
        ".kernel k\n.grid 1 32\n.shared 0x200000\n  exit\n",
        "3:9: shared memory bytes 2097152 is out of range (allowed: 0 to 1048576)",
    ),
    (".kernel k\n.grid 1 32\n  mov r1, $3\n  exit\n", "3:11: unexpected character `$`"),
    (".kernel k\n.grid 1 32\n  mov r1, UNDEF\n  exit\n", "3:11: unknown constant `UNDEF` (define it with .const)"),
    (
        ".kernel k\n.grid 1 32\n  mov r1, %foo\n  exit\n",
        "3:11: unknown special register `%foo` (allowed: %tid %ntid %ctaid %nctaid %ctaid.x %ctaid.y %nctaid.x %nctaid.y %lane %warp %gtid)",
    ),
    (
        ".kernel k\n.grid 1 32\n.warp 3\n  exit\n",
        "3:1: unknown directive `.warp` (allowed: .kernel .grid .min_threads .shared .const .data .fill)",
    ),
    (
        ".kernel k\n.grid 1 32\n.shared %ntid\n  exit\n",
        "3:9: this value depends on the threads per block (%ntid): only instruction operands and the blocks of `.grid` may",
    ),
    (".kernel k\n.const Z 1 / 0\n.grid 1 32\n  exit\n", "2:12: division by zero"),
    (
        ".kernel k\n.grid 1 32\n.min_threads 64\n  exit\n",
        "3:1: `.min_threads` 64 is more than the 32 threads per block of `.grid`",
    ),
    (
        ".kernel k\n.const B 64 / %ntid\n.grid B 128\n  exit\n",
        "3:7: blocks in the grid 0 (at %ntid = 128) is out of range (allowed: 1 to 4096; a division by zero gives 0)",
    ),
    (
        ".kernel k\n.const D 1 / %ntid\n.const E 1 / D\n.grid 1 32\n  mov r1, E\n  exit\n",
        "5:3: a constant divides by zero at %ntid = 32",
    ),
    (".kernel k\n.grid 64 65 32\n  exit\n", "2:7: the grid has 4160 blocks (allowed: 1 to 4096)"),
    (".kernel k\n.grid 1 0 32\n  exit\n", "2:9: blocks along y 0 is out of range (allowed: 1 to 4096)"),
    (".kernel k\n.grid 1 32\n  mov r1, 1 2\n  exit\n", "3:13: unexpected text at the end of the line"),
];

#[test]
fn bad_kernels_get_positioned_errors() {
    for (text, message) in BAD_KERNELS {
        let e = kernel::parse(text).expect_err(text);
        assert_eq!(e.to_string(), *message, "for:\n{text}");
    }
    // Constants built from constants share them, and their size is bounded: doubling one 64
    // times is refused when it passes 64 values, not evaluated 2^64 times.
    let mut doubling = String::from(".kernel k\n.const C0 %ntid\n");
    for i in 1..=64 {
        doubling += &format!(".const C{i} C{} + C{}\n", i - 1, i - 1);
    }
    doubling += ".grid 1 32\n  mov r1, C64\n  exit\n";
    let e = kernel::parse(&doubling).unwrap_err();
    assert_eq!(e.to_string(), "9:14: a constant derived from %ntid may combine at most 64 values");
    let e = kernel::parse(".kernel k\n.grid 1 32\n  foo r1, r2\n  exit\n").unwrap_err();
    assert!(e.to_string().starts_with("3:3: unknown instruction `foo` (allowed: add sub"), "{e}");
}

#[test]
fn kernels_that_do_not_fit_or_fault_are_reported() {
    let too_many_regs = kernel::parse(".kernel k\n.grid 1 32\n  mov r40, 1\n  exit\n").unwrap();
    let e = Sm::new(&baseline(), &too_many_regs).err().unwrap();
    assert_eq!(e.to_string(), "kernel k uses 41 registers but sm.registers_per_thread = 32");
    let misaligned = kernel::parse(".kernel k\n.grid 1 32\n  ld.global r1, [r2 + 2]\n  exit\n").unwrap();
    let e = Sm::new(&baseline(), &misaligned).unwrap().run(1000, &mut |_| {}).unwrap_err();
    assert_eq!(e.to_string(), "kernel fault at line 3: misaligned global address 0x00000002 in lane 0");
}

#[test]
fn cli_sim_text_json_and_errors() {
    let out = rfgen(&["sim", "--list-kernels"]);
    let names: Vec<String> = stdout(&out).lines().map(|l| l.split_whitespace().next().unwrap().to_string()).collect();
    let mut want: Vec<String> = KERNELS.iter().map(|k| k.name.to_string()).collect();
    want.extend(workload_names().into_iter().map(|w| format!("ptx:{w}")));
    assert_eq!(names, want);

    let out = rfgen(&["sim", "--kernel", "matmul"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    for part in [
        "cycles",
        "IPC",
        "issue slots",
        "bank conflicts",
        "reads per value",
        "lane deltas",
        "MRF wire",
        "operand mismatches           0",
    ] {
        assert!(text.contains(part), "missing {part:?}:\n{text}");
    }

    let two_level = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(two_level.path(), "name = \"tl\"\n[scheduler]\npolicy = \"two_level\"\n").unwrap();
    let out = rfgen(&["sim", "--config", two_level.path().to_str().unwrap(), "--kernel", "saxpy", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["scheduler"], "two_level");
    assert_eq!(json["stats"]["operand_mismatches"], 0);
    let ratio = json["baseline"]["energy_ratio"].as_f64().unwrap();
    assert!(ratio > 0.5 && ratio < 2.0, "normalized to the baseline run of the same kernel: {ratio}");
    let e = &json["energy"];
    let sum = e["mrf_access_pj"].as_f64().unwrap() + e["mrf_wire_pj"].as_f64().unwrap();
    assert!((sum - e["total_pj"].as_f64().unwrap()).abs() < 1e-6);

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.kir");
    std::fs::write(&bad, ".kernel k\n.grid 1 32\n  add r1, r2\n  exit\n").unwrap();
    let cases: &[(&[&str], String)] = &[
        (&["sim", "--kernel", bad.to_str().unwrap()], format!("{}:3:13: expected `,`", bad.display())),
        (&["sim", "--kernel", "nope"], "`nope` is neither a library kernel".into()),
        (&["sim"], "give --kernel NAME|FILE or --synthetic KNOBS".into()),
        (&["sim", "--synthetic", "speed=2"], "--synthetic: unknown knob `speed`".into()),
        (&["sim", "--synthetic", "length=5,length=6"], "--synthetic: knob `length` is given twice".into()),
        (&["sim", "--kernel", "vecadd", "--format", "xml"], "invalid value 'xml'".into()),
    ];
    for (args, message) in cases {
        let out = rfgen(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message.as_str()), "{args:?}: {}", stderr(&out));
    }

    // A fault found while running is a failure (1), not bad input (2).
    let faulty = dir.path().join("faulty.kir");
    std::fs::write(&faulty, ".kernel k\n.grid 1 32\n  ld.global r1, [r2 + 2]\n  exit\n").unwrap();
    let out = rfgen(&["sim", "--kernel", faulty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = format!("kernel k faulted in {} at line 3: misaligned global address", faulty.display());
    assert!(stderr(&out).contains(&said), "{}", stderr(&out));
}

/// `rfgen sim` says when it scaled a launch, in text and JSON, and says nothing of a launch it
/// did not scale; a block the rule cannot make fit is refused as bad input.
#[test]
fn cli_sim_reports_a_scaled_launch() {
    let out = rfgen(&["sim", "--preset", "small", "--kernel", "pathfinder"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(
        text.contains("  launch                       54 blocks of 64 threads (declared 8 blocks of 256 threads; "),
        "{text}"
    );
    assert!(text.contains("operand mismatches           0"), "{text}");
    let out = rfgen(&["sim", "--preset", "small", "--kernel", "stencil"]);
    assert!(
        stdout(&out).contains("2 x 16 blocks of 64 threads (declared 1 x 16 blocks of 128 threads;"),
        "{}",
        stdout(&out)
    );

    let out = rfgen(&["sim", "--preset", "small", "--kernel", "matmul", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let grid = |g: &serde_json::Value| (g["blocks"].as_u64(), g["blocks_y"].as_u64(), g["threads"].as_u64());
    assert_eq!(grid(&json["launch"]["declared"]), (Some(16), Some(1), Some(256)));
    assert_eq!(grid(&json["launch"]["launched"]), (Some(64), Some(1), Some(64)));
    assert_eq!(json["stats"]["operand_mismatches"], 0);
    // The baseline runs matmul's own block: compared, and no launch section.
    assert!(json["baseline"]["cycles"].as_u64().unwrap() > 0);
    let out = rfgen(&["sim", "--preset", "baseline", "--kernel", "matmul", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json.get("launch").is_none(), "{json}");
    let out = rfgen(&["sim", "--preset", "baseline", "--kernel", "matmul"]);
    assert!(!stdout(&out).contains("launch"), "{}", stdout(&out));

    // 33 warps in an odd number of threads cannot be halved into 32 warp slots.
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("odd.kir");
    std::fs::write(&odd, ".kernel odd\n.grid 1 1025\n  exit\n").unwrap();
    let out = rfgen(&["sim", "--kernel", odd.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "kernel odd has 33 warps per block but the SM has 32 warp slots; halving the threads per block stops at 1025 (33 warps): an odd number of threads cannot be halved"
        ),
        "{}",
        stderr(&out)
    );
}

/// The synthetic generator's defaults land near SPEC §7, and each knob moves its statistic.
#[test]
fn synthetic_kernels_follow_their_knobs() {
    let stats = |k: &synthetic::Knobs| run(&baseline(), &synthetic::generate(k)).stats().clone();
    let d = synthetic::Knobs::default();
    let s = stats(&d);
    assert_eq!(s.operand_mismatches, 0);
    let per_instr = s.values.reads as f64 / s.warp_instructions as f64;
    let non_div = 1.0 - s.divergent_instructions as f64 / s.warp_instructions as f64;
    let once = s.values.reads_per_value.percent(1);
    let more_than_twice = s.values.reads_per_value.percent(3);
    let once_within_3 = 100.0 * s.values.read_once_within_3 as f64 / s.values.reads_per_value.total() as f64;
    let similar = s.values.writes_within_2_15 as f64 / s.values.non_divergent_writes as f64;
    let consumed = s.values.reads_by_sfu_mem_tex as f64 / s.values.reads as f64;
    eprintln!(
        "reads/instr {per_instr:.2}, non-divergent {non_div:.2}, read once {once:.1}%, 3+ {more_than_twice:.1}%, once within 3 {once_within_3:.1}%, similar {similar:.2}, SFU/MEM/TEX {consumed:.3}"
    );
    assert!((1.45..=1.75).contains(&per_instr), "SPEC: 1.6 reads per instruction, got {per_instr:.2}");
    assert!((0.72..=0.86).contains(&non_div), "SPEC: 79% non-divergent, got {non_div:.2}");
    assert!((60.0..=70.0).contains(&once), "SPEC: up to 70% read once, got {once:.1}%");
    assert!((7.0..=13.0).contains(&more_than_twice), "SPEC: ~10% read more than twice, got {more_than_twice:.1}%");
    assert!((35.0..=52.0).contains(&once_within_3), "SPEC: up to 40-50% read once within 3, got {once_within_3:.1}%");
    assert!((0.72..=0.88).contains(&similar), "seed 004: 79% within 2^15, got {similar:.2}");
    assert!((0.04..=0.10).contains(&consumed), "SPEC: 7% consumed by SFU/MEM/TEX, got {consumed:.3}");
    // Divergent paths run pairs of neighbouring lanes, so divergent writes have successive
    // active lanes to compare (seed 004 §3's divergent lane deltas).
    assert!(s.values.lane_delta_divergent.total() > 1_000, "{:?}", s.values.lane_delta_divergent);

    let more_div = stats(&synthetic::Knobs { divergence: 0.5, ..d.clone() });
    assert!(
        more_div.divergent_instructions * s.warp_instructions > s.divergent_instructions * more_div.warp_instructions
    );
    let less_similar = stats(&synthetic::Knobs { noise: 0.3, ..d.clone() });
    assert!(
        less_similar.values.writes_within_2_15 * s.values.non_divergent_writes
            < s.values.writes_within_2_15 * less_similar.values.non_divergent_writes
    );
    let more_reads = stats(&synthetic::Knobs { reads: 2.5, ..d.clone() });
    assert!(more_reads.values.reads * s.warp_instructions > s.values.reads * more_reads.warp_instructions);
    let more_loads = stats(&synthetic::Knobs { long_latency: 0.2, ..d.clone() });
    assert!(more_loads.global * s.warp_instructions > s.global * more_loads.warp_instructions);
    let hotter = stats(&synthetic::Knobs { hot: 0.5, ..d.clone() });
    assert!(hotter.values.reads_per_value.percent(1) > once, "more reads of long-lived values, more values read once");
    let serial = stats(&synthetic::Knobs { ilp: 0.0, ..d.clone() });
    assert!(
        serial.values.lifetime.percent(0) > s.values.lifetime.percent(0),
        "without ILP more values are read by the next instruction"
    );
    let longer = stats(&synthetic::Knobs { lifetime: 8.0, ..d.clone() });
    assert!(
        longer.values.lifetime.percent(0) < s.values.lifetime.percent(0),
        "longer lifetimes, fewer 1-instruction values"
    );
}

/// Seed 000 §5.2: with 8 active warps a two-level scheduler performs nearly as well as with all
/// 32 active; on the synthetic default (its instruction-level parallelism, `ilp`) within 8 %,
/// and without that parallelism it falls behind.
#[test]
fn eight_active_warps_keep_up_on_the_synthetic_default() {
    let cycles = |c: &Checked, k: &synthetic::Knobs| run(c, &synthetic::generate(k)).stats().cycles as f64;
    let d = synthetic::Knobs::default();
    let gap = cycles(&two_level(8), &d) / cycles(&two_level(32), &d) - 1.0;
    assert!(gap.abs() < 0.08, "8 active against 32: {:+.1}%", 100.0 * gap);
    let serial = synthetic::Knobs { ilp: 0.0, ..d };
    let serial_gap = cycles(&two_level(8), &serial) / cycles(&two_level(32), &serial) - 1.0;
    assert!(serial_gap > gap, "without ILP 8 active warps fall behind: {:+.1}%", 100.0 * serial_gap);
}

/// With WAR hazards unprotected (`warpboard.policy = "none"`), a younger write landing before an
/// older instruction's operand read is caught by the operand check.
#[test]
fn war_hazards_are_detected_when_left_unhandled() {
    let k = kernel::parse(
        ".kernel war\n.grid 1 32\n\
         mov r1, %tid\n mov r5, 5\n mov r9, 9\n\
         add r20, r1, r5\n\
         mad r2, r1, r5, r9\n\
         mov r9, 77\n\
         shl r3, r1, 2\n st.global [r3 + 0x1000], r2\n exit\n",
    )
    .unwrap();
    // One bank group (every read contends) and a 1-cycle ALU: the mad's third read waits behind
    // the add's and its own, while `mov r9, 77` is already written back.
    let fast = config("name = \"war\"\n[mrf]\nbanks = 8\nentries = 1024\n[latency]\nalu = 1\n");
    let sm = run(&fast, &k);
    let s = sm.stats();
    assert_eq!(s.operand_mismatches, 1, "{:?}", s.mismatch_examples);
    let m = &s.mismatch_examples[0];
    assert_eq!((m.line, m.operand, m.expected, m.actual), (7, 2, 9, 77));
    // The paper latencies leave no such window.
    assert_eq!(run(&baseline(), &k).stats().operand_mismatches, 0);
}

/// The default SM with BDI compression: every library kernel still reaches its reference with
/// the compressed MRF in the loop, and the compression report adds up.
#[test]
fn compressed_mrf_runs_the_library_and_reports_seed_004_figures() {
    let c = config("name = \"bdi\"\n[compression]\nenabled = true\n");
    for lk in KERNELS {
        let k = lk.parse().unwrap();
        let sm = run(&c, &k);
        let s = sm.stats();
        check(lk.name, &k, &sm.memory()).unwrap_or_else(|e| panic!("{} compressed: {e}", lk.name));
        assert_eq!(s.operand_mismatches, 0, "{}: {:?}", lk.name, s.mismatch_examples);
        let z = s.compression.as_ref().expect("compression counters");
        let full: u64 = z.full_writes_by_ri.iter().sum();
        assert_eq!(full + z.partial_writes, s.mrf.writes, "{}: every write commits", lk.name);
        assert!(s.mrf.bank_reads <= s.mrf.reads * 8 + z.dummy_movs * 8, "{}", lk.name);
    }
    let k = KERNELS.iter().find(|k| k.name == "stencil").unwrap().parse().unwrap();
    let r = rfgen_model::sim::simulate(&c, &k, 50_000_000, &mut |_| {}).unwrap();
    let z = r.compression.expect("a compression report");
    let ratio = z.ratio_non_divergent.unwrap();
    assert!(ratio > 1.0 && ratio <= 8.0, "{ratio}");
    // A register takes whole banks, so its bits compress at least as well as its banks.
    let bits = z.bit_ratio_non_divergent.unwrap();
    assert!(bits >= ratio && bits <= 32.0, "{bits} vs {ratio}");
    assert!(z.banks_per_read < 8.0 && z.banks_per_write < 8.0);
    let t = &z.energy;
    let sum = t.dynamic_pj + t.wire_pj + t.leakage_pj + t.compressor_pj + t.decompressor_pj;
    assert!((sum - t.total_pj).abs() < 1e-6);
    assert!(z.reduction > 0.0, "compression saves energy on stencil: {}", z.reduction);
    // Each accounting names its terms; SPEC section 6's has no leakage, so it saves more here.
    assert!(z.table3_terms.contains(&"leakage".to_string()) && !z.spec6_terms.contains(&"leakage".to_string()));
    assert!(z.spec6_reduction > z.reduction, "{} vs {}", z.spec6_reduction, z.reduction);
    // The reference is the same config without compression.
    let plain = run(&baseline(), &k);
    assert_eq!(z.uncompressed_cycles, plain.stats().cycles);
    assert_eq!(z.uncompressed.compressor_pj, 0.0);
}

/// Registers whose lanes are all equal compress to one bank: a ratio of exactly 8.
#[test]
fn uniform_registers_compress_to_one_bank() {
    let k = kernel::parse(".kernel uniform\n.grid 2 256\n mov r1, 5\n add r2, r1, 3\n st.global [0x100], r2\n exit\n")
        .unwrap();
    let c = config("name = \"bdi\"\n[compression]\nenabled = true\n");
    let sm = run(&c, &k);
    let z = sm.stats().compression.clone().unwrap();
    assert_eq!(z.full_writes_by_ri.iter().sum::<u64>(), z.full_writes_by_ri[1], "all <4,0>");
    assert_eq!(z.ratio_non_divergent(), Some(8.0));
    assert_eq!(z.bit_ratio_non_divergent(), Some(32.0), "one 32-bit base for 32 lanes");
    assert_eq!(z.ratio_divergent(), None);
}

/// `--show-allocation` lists each instruction's operand levels and what they save on the run.
#[test]
fn sim_shows_the_orf_lrf_allocation() {
    let out = rfgen(&["sim", "--kernel", "saxpy", "--show-allocation"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("allocation ([orf] entries = 3, lrf = split"), "{text}");
    // The stride lives in the LRF for the shift that reads it in slot 0; the store's value is
    // written to the ORF only.
    assert!(text.contains("mul        r1 -> MRF+LRF0"), "{text}");
    assert!(text.contains("mad        r6 -> ORF0,"), "{text}");
    let out = rfgen(&["sim", "--kernel", "saxpy", "--show-allocation", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let a = &json["allocation"];
    let mrf_reads = a["reads_per_instruction"][0].as_f64().unwrap();
    assert!(mrf_reads < a["baseline_reads_per_instruction"].as_f64().unwrap(), "{a}");
    assert!(a["energy_ratio"].as_f64().unwrap() < 1.0, "{a}");
}
