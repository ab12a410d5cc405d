//! Pipeline-stage options (`[timing]`, docs/config.md): off, a config is today's hardware byte
//! for byte; on, the MRF's RTL agrees with its model under random stimulus on every variant the
//! options compose with, and the issue stage's under random traffic and kernels on every
//! scheduler and warpboard policy (the composed top under kernels and random programs is
//! `small`'s, which turns them on: tests/sm_rf.rs); a pipeline stage the RTL gets wrong is caught.

mod common;

use common::*;
use rfgen_cosim::blocks::mrf::{Knobs, RandomStimulus};
use rfgen_gen::config::{self, SchedulerPolicy, WarPolicy};
use rfgen_gen::{Checked, SramKind};
use rfgen_model::blocks::issue::Issue;
use rfgen_model::blocks::mrf::Mrf;
use rfgen_model::blocks::rename::Rename;

const GRANT: &str = "mrf_registered_grant = true\n";
const ADDRESS: &str = "mrf_registered_address = true\n";
const READ: &str = "mrf_registered_read = true\n";
const DISPATCH: &str = "mrf_registered_dispatch = true\n";

/// `text` (a config without a `[timing]` section) with `options` in one.
fn timed(text: &str, options: &[&str]) -> Checked {
    let text = format!("{text}\n[timing]\n{}", options.concat());
    rfgen_gen::config::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Every preset with every option off, written out or left out: the same config hash and the
/// same files (the committed `rtl-out/` of the presets without options is checked against the
/// generator elsewhere).
#[test]
fn options_off_are_todays_hardware_byte_for_byte() {
    for name in rfgen_gen::config::preset_names() {
        let mut config = rfgen_gen::config::preset(name).unwrap().config;
        config.timing = Default::default();
        let plain = rfgen_gen::config::check(config).unwrap();
        assert!(!plain.to_toml().contains("[timing]"), "{name}: options off are left out of the config");
        let off = [
            "mrf_registered_grant = false\n",
            "mrf_registered_address = false\n",
            "mrf_registered_read = false\n",
            "mrf_registered_dispatch = false\n",
            "bdi_split_compressor = false\n",
            "bdi_registered_fit = false\n",
            "bdi_split_decompressor = false\n",
            "issue_registered_eligibility = false\n",
            "issue_registered_reservation = false\n",
            "rename_registered_prediction = false\n",
        ];
        let explicit = timed(&plain.to_toml(), &off);
        assert_eq!(plain.hash(), explicit.hash(), "{name}: options off leave the config hash");
        let files = |c: &Checked| rfgen_gen::emit::generate_sm_rf(c, SramKind::Behavioural).files;
        assert_eq!(files(&plain), files(&explicit), "{name}: options off leave every file");
    }
}

/// Random lockstep of the MRF with the options on: plain (each option alone), one collector (no
/// dispatch arbiter), with TFET rows, a register file cache and an ORF/LRF (all three), and the
/// compressed MRF (registered dispatch, the one it takes), each with either memory leaf. Each
/// run must also dispatch and conflict, so the stages are exercised.
#[test]
fn every_setting_agrees_with_the_model_in_random_lockstep() {
    let text = |list: &[(&'static str, &'static str)], name: &str| list.iter().find(|(n, _)| *n == name).unwrap().1;
    let runs: [(&str, &str, &[&str]); 12] = [
        ("small", text(SMALL, "small"), &[GRANT]),
        ("small", text(SMALL, "small"), &[GRANT, ADDRESS]),
        ("small", text(SMALL, "small"), &[READ]),
        ("small", text(SMALL, "small"), &[DISPATCH]),
        ("tiny", text(SMALL, "tiny"), &[GRANT, ADDRESS, READ, DISPATCH]),
        ("odd", text(SMALL, "odd"), &[GRANT, READ, DISPATCH]),
        ("odd", text(SMALL, "odd"), &[GRANT, ADDRESS, READ, DISPATCH]),
        ("tmixed", text(RENAMED, "tmixed"), &[GRANT, READ, DISPATCH]),
        ("tmixed", text(RENAMED, "tmixed"), &[GRANT, ADDRESS]),
        ("rsmall", text(CACHED, "rsmall"), &[GRANT, ADDRESS, READ, DISPATCH]),
        ("osmall", text(UPPER, "osmall"), &[GRANT, ADDRESS, READ, DISPATCH]),
        ("csmall", text(COMPRESSED, "csmall"), &[DISPATCH]),
    ];
    // Each with the behavioural memory leaf and the ECP5 one (tests/ecp5_leaf.rs).
    for ((name, text, options), kind) in
        runs.into_iter().flat_map(|r| [SramKind::Behavioural, SramKind::Ecp5].map(|k| (r, k)))
    {
        let checked = timed(text, options);
        let g = &checked.geometry;
        let design = rfgen_gen::generate(&checked, kind);
        let file = |suffix: &str| &design.files.iter().find(|(f, _)| f.ends_with(suffix)).unwrap().1;
        let group = if checked.compression.is_some() { file("_bank_group.v") } else { file("_mrf_bank_group.v") };
        assert_eq!(group.contains("slot_grant <= pick"), g.registered_grant, "{name} {options:?}");
        assert_eq!(group.contains("rd_row <= granted_row"), g.registered_address, "{name} {options:?}");
        // A registered grant keeps the bank arbiter's priority as its last grant.
        let last_grant = design.files.iter().any(|(f, _)| f.ends_with("_last_grant.v"));
        assert_eq!(last_grant, g.registered_grant, "{name} {options:?}");
        let two_cycle_leaf = design.files.iter().any(|(f, _)| f.ends_with("_r2.v"));
        assert_eq!(two_cycle_leaf, g.registered_read, "{name} {options:?}: the read register is the leaf's");
        let top = file("_mrf.v");
        assert_eq!(top.contains("disp_grant <= disp_pick"), g.registered_dispatch, "{name} {options:?}");
        let lib = build(&design);
        let mut stimulus = RandomStimulus::new(g, 7, Knobs::for_config(&checked));
        let result = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, 20_000, 3);
        assert!(result.mismatch.is_none(), "{name} {options:?} {kind:?}: {}", result.mismatch.unwrap());
        let s = result.block.model().stats();
        assert!(s.dispatched > 2_000 && s.bank_conflicts > 500, "{name} {options:?}: {s:?}");
    }
}

/// Seeded bugs in the stages, each caught by a short random run: a grant the arbiter still
/// sees while its read is issued (the slot is granted twice), a delivery that skips the address
/// register, read data that never leaves the register, a capture enable not registered, and an
/// offer register that drops a refused offer.
#[test]
fn a_wrong_pipeline_stage_is_caught() {
    let text = SMALL.iter().find(|(n, _)| *n == "small").unwrap().1;
    let checked = timed(text, &[GRANT, ADDRESS, READ, DISPATCH]);
    let g = &checked.geometry;
    let group = "small_mrf_bank_group.v";
    let bugs = [
        (group, "assign req = slot_req & ~slot_grant;", "assign req = slot_req;", "grant seen twice"),
        (group, "else arrive <= read_slot;", "else arrive <= slot_grant;", "delivery a cycle early"),
        (
            "small_mrf.v",
            "else slot_deliver <= (group0_arrive",
            "else slot_deliver <= (group1_arrive",
            "group 0 never delivers",
        ),
        (
            "small_sram_1r1w_16x128_r2.v",
            "always @(posedge clk) rd_data <= rd_word;",
            "always @(posedge clk) rd_data <= rd_data;",
            "stale read data",
        ),
        (
            "small_mrf.v",
            "else if (disp_load) disp_grant <= disp_pick;",
            "else disp_grant <= disp_pick;",
            "offer not held",
        ),
    ];
    for (file, from, to, name) in bugs {
        let design = mutated(rfgen_gen::generate(&checked, SramKind::Behavioural), file, from, to, name);
        let lib = build(&design);
        let mut stimulus = RandomStimulus::new(g, 7, Knobs::for_config(&checked));
        let result = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, 5_000, 3);
        assert!(result.mismatch.is_some(), "{name}: not caught");
    }
}

/// A stage the compressed MRF does not take is refused, naming both fields; so is a registered
/// address without the registered grant whose row it holds.
#[test]
fn options_with_compression_are_refused_naming_both_fields() {
    for option in ["mrf_registered_grant", "mrf_registered_read"] {
        let text = format!("[compression]\nenabled = true\n[timing]\n{option} = true\n");
        let e = rfgen_gen::config::parse(&text).unwrap_err().to_string();
        assert!(e.contains(&format!("timing.{option}")) && e.contains("compression.enabled"), "{e}");
    }
    let e = rfgen_gen::config::parse("[timing]\nmrf_registered_address = true\n").unwrap_err().to_string();
    assert!(e.contains("timing.mrf_registered_address") && e.contains("timing.mrf_registered_grant"), "{e}");
}

/// `rfgen sim` on the `small` preset (both stages on) says what they cost a kernel: its cycles
/// beside those of the same SM without them, which `rfgen sim` of that SM confirms.
#[test]
fn sim_reports_the_cycles_the_stages_cost() {
    let cycles = |text: &str| -> u64 {
        let line = text.lines().find(|l| l.trim_start().starts_with("cycles ")).unwrap_or_else(|| panic!("{text}"));
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let out = rfgen(&["sim", "--preset", "small", "--kernel", "matmul"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    let line = text.lines().find(|l| l.contains("pipeline stages")).unwrap_or_else(|| panic!("{text}"));
    let stages = "mrf_registered_address, mrf_registered_dispatch, mrf_registered_grant, mrf_registered_read: +";
    assert!(line.contains(stages), "{line}");
    let without: u64 = line.rsplit('(').next().unwrap().split_whitespace().next().unwrap().parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = rfgen_gen::config::preset("small").unwrap().config;
    config.timing = Default::default();
    let path = dir.path().join("small-untimed.toml");
    std::fs::write(&path, rfgen_gen::config::check(config).unwrap().to_toml()).unwrap();
    let plain = rfgen(&["sim", "--config", path.to_str().unwrap(), "--kernel", "matmul"]);
    let plain_text = stdout(&plain);
    assert!(!plain_text.contains("pipeline stages"), "{plain_text}");
    assert_eq!(cycles(&plain_text), without, "{plain_text}");
    assert!(cycles(&text) > without, "{text}");
}

/// The BDI compressor with its first stage split, with each value's fit registered, and with
/// both, and the decompressor split, alone (the codec) and in the compressed MRF, agree with
/// their models under random stimulus; the registers really are there.
#[test]
fn a_split_compressor_agrees_alone_and_in_the_compressed_mrf() {
    const SPLIT: &str = "bdi_split_compressor = true\n";
    const FIT: &str = "bdi_registered_fit = true\n";
    const DECOMPRESSOR: &str = "bdi_split_decompressor = true\n";
    for (name, latency) in [("csmall", 2), ("ctiny", 1)] {
        for options in [&[SPLIT][..], &[FIT], &[SPLIT, FIT], &[DECOMPRESSOR], &[SPLIT, FIT, DECOMPRESSOR]] {
            let text = COMPRESSED.iter().find(|(n, _)| *n == name).unwrap().1;
            let checked = timed(text, options);
            let (split, fit) = (options.contains(&SPLIT), options.contains(&FIT));
            let l = checked.compression.as_ref().unwrap();
            assert_eq!((l.split_deltas, l.registered_fit), (split, fit));
            assert_eq!(l.compress_latency, latency + u32::from(split) + u32::from(fit), "{name} {options:?}");
            assert_eq!(checked.config.compression.compress_latency, latency, "{name}");
            let codec = rfgen_gen::emit::generate_bdi_codec(&checked).unwrap();
            let compressor = &codec.files.iter().find(|(f, _)| f.ends_with("_compressor.v")).unwrap().1;
            assert_eq!(compressor.contains("s1_d4 <= s0_d4;"), split, "{name} {options:?}: the differences registered");
            let oks = if split { "s2_ok4_0 <= f_ok4_0;" } else { "s1_ok4_0 <= s0_ok4_0;" };
            assert_eq!(compressor.contains(oks), fit, "{name} {options:?}: each value's fit registered");
            let decompressor = &codec.files.iter().find(|(f, _)| f.ends_with("_decompressor.v")).unwrap().1;
            let split_decompressor = options.contains(&DECOMPRESSOR);
            assert_eq!(decompressor.contains("d1_delta4 <= in_delta4;"), split_decompressor, "{name} {options:?}");
            assert_eq!(
                l.decompress_latency,
                checked.config.compression.decompress_latency + u32::from(split_decompressor)
            );
            let (mismatch, counts) = random_lockstep::<rfgen_model::blocks::bdi::Codec>(&checked, &codec, 20_000, 7, 3);
            assert!(mismatch.is_none(), "{name} {options:?} codec: {}", mismatch.unwrap());
            assert!(counts.iter().any(|(_, n)| *n > 1_000), "{name}: {counts:?}");
            let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
            let (mismatch, _) = random_lockstep::<Mrf>(&checked, &design, 20_000, 7, 3);
            assert!(mismatch.is_none(), "{name} {options:?} MRF: {}", mismatch.unwrap());
            if name == "csmall" && options == [DECOMPRESSOR] {
                // The register's valid bit skipping the delta register: out a cycle early.
                let early =
                    ("assign s0_valid = d1_valid;", "assign s0_valid = in_valid;", "decompressed a cycle early");
                let bad = mutated(codec.clone(), "csmall_decompressor.v", early.0, early.1, early.2);
                let (mismatch, _) = random_lockstep::<rfgen_model::blocks::bdi::Codec>(&checked, &bad, 20_000, 7, 3);
                assert!(mismatch.is_some(), "{}: not caught", early.2);
            }
            if name == "csmall" && split && fit && !split_decompressor {
                // A mode's flag reduced from the fit check before its register: a cycle early.
                let early = ("assign g_fit[0] = &s2_ok4_0;", "assign g_fit[0] = &f_ok4_0;", "fit flag a cycle early");
                let bad = mutated(codec, "csmall_compressor.v", early.0, early.1, early.2);
                let (mismatch, _) = random_lockstep::<rfgen_model::blocks::bdi::Codec>(&checked, &bad, 20_000, 7, 3);
                assert!(mismatch.is_some(), "{}: not caught", early.2);
            }
        }
    }
}

/// The full-size codec (`isca15-bdi`, 32 values of 4 bytes) with every BDI option: the split
/// decompressor registers the base once per 8 values, four copies, and each is the base. A
/// copy loaded from the wrong chunk (value 1's bits: every value from 24 on off) is caught.
#[test]
fn the_split_decompressors_copies_of_the_base_agree_with_the_model() {
    let mut config = config::preset("isca15-bdi").unwrap().config;
    (config.timing.bdi_split_compressor, config.timing.bdi_registered_fit) = (true, true);
    config.timing.bdi_split_decompressor = true;
    let checked = config::check(config).unwrap();
    let codec = rfgen_gen::emit::generate_bdi_codec(&checked).unwrap();
    let decompressor = &codec.files.iter().find(|(f, _)| f.ends_with("_decompressor.v")).unwrap().1;
    for copy in 0..4 {
        assert!(decompressor.contains(&format!(
            "(* keep *) always @(posedge clk) begin\n    if (in_valid) d1_base4_{copy} <= in_chunks[31:0];"
        )));
    }
    assert!(decompressor.contains("assign value4[991:960] = d1_base4_3 + d1_delta4[991:960];"), "{decompressor}");
    let (mismatch, counts) = random_lockstep::<rfgen_model::blocks::bdi::Codec>(&checked, &codec, 20_000, 7, 3);
    assert!(mismatch.is_none(), "{}", mismatch.unwrap());
    assert!(counts.iter().any(|(_, n)| *n > 1_000), "{counts:?}");
    let wrong = (
        "if (in_valid) d1_base4_3 <= in_chunks[31:0];",
        "if (in_valid) d1_base4_3 <= in_chunks[63:32];",
        "the last copy of the base from value 1",
    );
    let bad = mutated(codec, "isca15_bdi_decompressor.v", wrong.0, wrong.1, wrong.2);
    let (mismatch, _) = random_lockstep::<rfgen_model::blocks::bdi::Codec>(&checked, &bad, 20_000, 7, 3);
    assert!(mismatch.is_some(), "{}: not caught", wrong.2);
}

/// The full-size codec with every BDI option: each compressor stage that loads from another
/// loads in groups of at most 128 bits, each group when its own kept copy of that stage's `valid`
/// is set (13, 12 and 9 copies of `s1_valid`, `s2_valid`, `s3_valid`); the codec agrees with
/// the model. A group loaded on a copy of the wrong stage's `valid` is caught.
/// With the options off there are no copies and the compressor and decompressor are the
/// committed `rtl-out/isca15-bdi` files; with only the decompressor split there are none either.
#[test]
fn the_copies_of_a_stages_valid_agree_with_the_model() {
    let file = |design: &rfgen_gen::Design, part: &str| {
        design.files.iter().find(|(f, _)| f.ends_with(&format!("_{part}.v"))).unwrap().1.clone()
    };
    let mut config = config::preset("isca15-bdi").unwrap().config;
    let off = rfgen_gen::emit::generate_bdi_codec(&config::check(config.clone()).unwrap()).unwrap();
    for part in ["compressor", "decompressor"] {
        let text = file(&off, part);
        assert!(!text.contains("valid_0") && !text.contains("(* keep *)"), "{part} with the options off:\n{text}");
        // The codec's file header names `--block bdi`; the rest is the committed module.
        let committed = std::fs::read_to_string(format!("rtl-out/isca15-bdi/isca15_bdi_{part}.v")).unwrap();
        let body = |t: &str| t.lines().filter(|l| !l.starts_with("// Do not edit")).collect::<Vec<_>>().join("\n");
        assert_eq!(body(&text), body(&committed), "{part} with the options off changed");
    }

    config.timing.bdi_split_decompressor = true;
    let only = rfgen_gen::emit::generate_bdi_codec(&config::check(config.clone()).unwrap()).unwrap();
    for part in ["compressor", "decompressor"] {
        assert!(!file(&only, part).contains("valid_0"), "{part}: copies without the compressor's options");
    }

    (config.timing.bdi_split_compressor, config.timing.bdi_registered_fit) = (true, true);
    let checked = config::check(config).unwrap();
    let codec = rfgen_gen::emit::generate_bdi_codec(&checked).unwrap();
    let compressor = file(&codec, "compressor");
    let kept = |name: &str| format!("(* keep *) always @(posedge clk) begin\n    if (rst) {name} <= 1'b0;");
    for (stage, copies) in [("s1_", 13), ("s2_", 12), ("s3_", 9)] {
        for copy in 0..copies {
            let copy = format!("{stage}valid_{copy}");
            assert!(compressor.contains(&kept(&copy)), "{copy}:\n{compressor}");
        }
        assert!(!compressor.contains(&format!("{stage}valid_{copies}")), "{stage}valid: over {copies} copies");
    }
    let group = "if (en & s2_valid_4) begin\n      s3_data[511:384] <= g_data[511:384];";
    assert!(compressor.contains(group), "{compressor}");
    let (mismatch, counts) = random_lockstep::<rfgen_model::blocks::bdi::Codec>(&checked, &codec, 20_000, 7, 3);
    assert!(mismatch.is_none(), "{}", mismatch.unwrap());
    assert!(counts.iter().any(|(_, n)| *n > 1_000), "{counts:?}");
    let wrong = ("if (en & s2_valid_4) begin", "if (en & s1_valid_4) begin", "stage 3's data on a copy of s1_valid");
    let bad = mutated(codec, "isca15_bdi_compressor.v", wrong.0, wrong.1, wrong.2);
    let (mismatch, _) = random_lockstep::<rfgen_model::blocks::bdi::Codec>(&checked, &bad, 20_000, 7, 3);
    assert!(mismatch.is_some(), "{}: not caught", wrong.2);
}

/// The issue stage's two options: the eligibility a cycle ahead, the reservations registered.
#[derive(Clone, Copy, Debug)]
struct IssueStages {
    eligibility: bool,
    reservation: bool,
}

const AHEAD: IssueStages = IssueStages { eligibility: true, reservation: false };
const RESERVED: IssueStages = IssueStages { eligibility: false, reservation: true };
const BOTH: IssueStages = IssueStages { eligibility: true, reservation: true };

/// `checked` with the issue stage's options `stages`.
fn issue_stages(mut checked: Checked, stages: IssueStages) -> Checked {
    checked.config.timing.issue_registered_eligibility = stages.eligibility;
    checked.config.timing.issue_registered_reservation = stages.reservation;
    config::check(checked.config).unwrap()
}

/// The issue stage with its eligibility a cycle ahead, its reservations registered, or both,
/// agrees with its model under random traffic on every scheduler policy, a busy-bit and a bloom
/// warpboard, the ORF/LRF's and the rename stage's stall, and the full-size warpboard preset
/// (each setting on several of them); and under every library kernel on that preset, each
/// setting. The registers are there.
#[test]
fn issue_stage_options_agree_with_the_model() {
    use SchedulerPolicy::*;
    let mut renamed = issue_small(Gto, WarPolicy::None);
    renamed.config.rename = config::Rename { enabled: true, trws: true, cmos_rows: 48, ..Default::default() };
    let points = [
        (issue_small(Lrr, WarPolicy::None), AHEAD),
        (issue_small(Gto, WarPolicy::Bloom2), BOTH),
        (issue_small(TwoLevel, WarPolicy::ReleaseOnRead), RESERVED),
        (issue_small(Lrr, WarPolicy::ReleaseOnCommit), BOTH),
        (issue_small(Gto, WarPolicy::Bloom2), RESERVED),
        (upper("osmall"), BOTH),
        (config::check(renamed.config).unwrap(), AHEAD),
        (config::preset("war-warpboard").unwrap(), BOTH),
    ];
    for (checked, stages) in points {
        let checked = issue_stages(checked, stages);
        let design = rfgen_gen::emit::generate_issue(&checked);
        let top = &design.files.iter().find(|(f, _)| f.ends_with("_issue.v")).unwrap().1;
        let what = format!("{} {:?} {stages:?}", checked.config.name, checked.config.scheduler.policy);
        assert_eq!(top.contains("can_issue_q <= can_issue;"), stages.eligibility, "{what}: the check is registered");
        assert_eq!(
            top.contains("rsv_valid <= to_collector;"),
            stages.reservation,
            "{what}: the reservation is registered"
        );
        let (mismatch, stats) = random_lockstep::<Issue>(&checked, &design, 20_000, 11, 3);
        assert!(mismatch.is_none(), "{what}: {}", mismatch.unwrap());
        let stat = |n: &str| stats.iter().find(|s| s.0 == n).unwrap().1;
        assert!(stat("cycles with a last issuer") > 5_000 && stat("register releases") > 1_000, "{what}: {stats:?}");
    }
    let opts = kernel_options(rfgen_gen::Block::Issue);
    for stages in [AHEAD, RESERVED, BOTH] {
        let checked = issue_stages(config::preset("war-warpboard").unwrap(), stages);
        let design = rfgen_gen::emit::generate_issue(&checked);
        for lib in rfgen_model::kernel::library::KERNELS {
            let k = lib.parse().unwrap();
            let r = rfgen_cosim::session::cosim_kernel(&checked, &design, &k, &opts, &mut |_| {}).unwrap();
            assert!(r.passed(), "{} {stages:?}: {:?} {:?}", k.name, r.mismatch, r.kernel_error);
        }
    }
}

/// The model holds a granted warp back as long as each setting says: with one stage registered
/// no warp is granted in two cycles running, with both none in any three; without either,
/// greedy issue repeats a warp. The options are what the model follows, not a coincidence of
/// the traffic.
#[test]
fn a_granted_warp_sits_out_a_cycle_per_stage() {
    use rfgen_cosim::glue::{RandomBlock, Stimulus};
    use rfgen_model::block::Block;
    use rfgen_model::blocks::issue::IssueBlock;
    // Grants of one warp within `window` cycles of its last.
    let repeats = |checked: &Checked, window: usize| {
        let mut model = Issue::for_config(checked);
        let mut stimulus = Issue::stimulus(checked, 5);
        let (mut i, mut recent, mut repeats) = (model.idle(), std::collections::VecDeque::new(), 0);
        for cycle in 0..5_000 {
            stimulus.next(cycle, &model.outputs(), &mut i);
            let grant = model.decide(&i).sched.grant;
            repeats += (grant.is_some() && recent.contains(&grant)) as u32;
            recent.push_front(grant);
            recent.truncate(window);
            model.tick(&i);
        }
        repeats
    };
    let plain = issue_small(SchedulerPolicy::Gto, WarPolicy::None);
    assert!(repeats(&plain, 1) > 100, "greedy issue repeats a warp without the options");
    assert_eq!(repeats(&issue_stages(plain.clone(), AHEAD), 1), 0);
    assert_eq!(repeats(&issue_stages(plain.clone(), RESERVED), 1), 0);
    assert!(repeats(&issue_stages(plain.clone(), AHEAD), 2) > 100, "one stage holds a warp back one cycle");
    assert_eq!(repeats(&issue_stages(plain, BOTH), 2), 0);
}

/// Seeded bugs in the issue stage's registers, each caught by random traffic: the warp granted
/// last cycle not held back (its unchecked next instruction may issue), the check used as it is
/// computed (no register: the pick sees this cycle's reservations), a warp granted two cycles
/// ago not held back with both options, and the reservation made at once beside its register.
#[test]
fn a_wrong_issue_stage_register_is_caught() {
    let bugs = [
        (AHEAD, "& ~granted_q[w]", "", "granted warp not held"),
        (AHEAD, "& can_issue_q[w] &", "& can_issue[w] &", "check not registered"),
        (BOTH, " & ~granted_qq[w]", "", "warp granted two cycles ago not held"),
        (RESERVED, "rsv_valid <= to_collector;", "rsv_valid <= 1'b0;", "reservation dropped"),
        // Caught only because a reset in the middle of a run holds the inputs of the cycle
        // before (`Glue::RESET_HOLDS_INPUTS`): with every input 0 nothing goes to a collector.
        (RESERVED, "if (rst) rsv_valid <= 1'b0;", "if (1'b0) rsv_valid <= 1'b0;", "reservation not reset"),
    ];
    for (stages, from, to, name) in bugs {
        let checked = issue_stages(issue_small(SchedulerPolicy::Gto, WarPolicy::Bloom2), stages);
        let design = rfgen_gen::emit::generate_issue(&checked);
        let design = mutated(design, "ismall_issue.v", from, to, name);
        let (mismatch, _) = random_lockstep::<Issue>(&checked, &design, 5_000, 11, 3);
        assert!(mismatch.is_some(), "{name}: not caught");
    }
}

/// `rename_registered_prediction` on a small stage with a CMOS/TFET split and on one all TFET.
fn predicted_later(name: &str) -> Checked {
    let mut config = rename_small(name).config;
    config.timing.rename_registered_prediction = true;
    config::check(config).unwrap()
}

/// The rename stage with its prediction registered agrees with the model under random traffic
/// (stalls predicted, TFET registers given on request), and the register is really there: a
/// counter that goes on counting at its completion edge, and a prediction that lands on a warp
/// restarted at its completion edge or at the edge after, are caught.
#[test]
fn a_registered_prediction_agrees_and_a_wrong_one_is_caught() {
    for name in ["nsmall", "ntfet"] {
        let checked = predicted_later(name);
        let design = rfgen_gen::emit::generate_rename(&checked);
        let top = design.files.iter().find(|(f, _)| f.ends_with("_rename.v")).unwrap().1.clone();
        assert!(top.contains("pred_over <= over;"), "{name}: the completion is registered");
        let (mismatch, stats) = random_lockstep::<Rename>(&checked, &design, 40_000, 5, 2);
        assert!(mismatch.is_none(), "{name}: {}", mismatch.unwrap());
        let stat = |n: &str| stats.iter().find(|s| s.0 == n).unwrap().1;
        assert!(stat("stall predictions") > 500 && stat("TFET requests") > 100, "{name}: {stats:?}");
    }
    let checked = predicted_later("nsmall");
    let design = rfgen_gen::emit::generate_rename(&checked);
    let bugs = [
        ("      : completed[0] ? counter_q[10:0]\n", "", "counter counts on at its completion"),
        (" & ~(mem_start_valid & (mem_start_warp == mem_done_warp));", ";", "prediction over a restart"),
        (" & ~(mem_start_valid & (mem_start_warp == pred_warp));", ";", "prediction over a restart on the way"),
    ];
    for (from, to, name) in bugs {
        let bad = mutated(design.clone(), "nsmall_rename.v", from, to, name);
        let (mismatch, _) = random_lockstep::<Rename>(&checked, &bad, 40_000, 5, 2);
        assert!(mismatch.is_some(), "{name}: not caught");
    }
}

/// From the CLI, under the SM model's kernel traffic: the renamed `small` SM with the prediction
/// registered (its rename stage alone and its composed top), and a compressed SM with the three
/// BDI options (its composed top) agree with the model.
#[test]
fn rename_and_bdi_options_agree_on_kernels_in_the_composed_top() {
    let dir = tempfile::tempdir().unwrap();
    let renamed = "name = \"renamed\"\n[sm]\nwarps = 8\nlanes = 8\nclusters = 2\n[mrf]\nbanks = 8\nentries = 64\n\
                   collectors = 2\n[rename]\nenabled = true\ncmos_rows = 12\n[timing]\nrename_registered_prediction = true\n";
    let compressed = COMPRESSED.iter().find(|(n, _)| *n == "csmall").unwrap().1;
    let compressed = format!(
        "{compressed}\n[timing]\nbdi_split_compressor = true\nbdi_registered_fit = true\nbdi_split_decompressor = true\n"
    );
    let runs = [(renamed, "rename", "bfs"), (renamed, "sm", "pathfinder"), (compressed.as_str(), "sm", "bfs")];
    for (i, (text, block, kernel)) in runs.into_iter().enumerate() {
        let path = dir.path().join(format!("c{i}.toml"));
        std::fs::write(&path, text).unwrap();
        let o = rfgen(&["cosim", "--config", path.to_str().unwrap(), "--block", block, "--kernel", kernel]);
        let out = stdout(&o);
        assert!(o.status.success(), "{block} {kernel}: {out}{}", stderr(&o));
        assert!(out.contains("PASS") && out.contains("operand mismatches         0"), "{block} {kernel}: {out}");
    }
}

/// The bank arbiter's form under a registered grant, its priority kept as the requester just
/// below the pointer, grants exactly as the pointer form, for every input sequence: Yosys pairs
/// the two by their common names (the pointer's thermometer `below_ptr` among them) and proves
/// every pair by induction, for every size from 2 to 9 requesters. The same form with a taken
/// grant's winner put below the pointer as a held one's would be is refuted.
#[test]
fn the_last_grant_arbiter_is_the_pointer_arbiter() {
    use rfgen_gen::blocks::mrf::{Priority, rr_arbiter};
    let text = |m: &rfgen_gen::verilog::Module| format!("{}{}endmodule\n", m.declaration(), m.body);
    let prove = |n: u32, edit: Option<(&str, &str)>| -> bool {
        let dir = tempfile::tempdir().unwrap();
        let pointer = rr_arbiter("p", n, Priority::Pointer).module;
        let last = rr_arbiter("p", n, Priority::LastGrant).module;
        let mut last_text = text(&last);
        if let Some((from, to)) = edit {
            assert!(last_text.contains(from), "{last_text}");
            last_text = last_text.replace(from, to);
        }
        std::fs::write(dir.path().join("pointer.v"), text(&pointer)).unwrap();
        std::fs::write(dir.path().join("last.v"), last_text).unwrap();
        let script = format!(
            "read_verilog pointer.v last.v\nproc\nopt_clean\nequiv_make {} {} equiv\nhierarchy -top equiv\n\
             equiv_simple -seq 2\nequiv_induct -seq 2\nequiv_status -assert\n",
            pointer.name, last.name
        );
        let out = std::process::Command::new("yosys")
            .args(["-q", "-p", &script])
            .current_dir(dir.path())
            .output()
            .expect("yosys runs (scripts/install-tools installs it)");
        out.status.success()
    };
    for n in 2..=9 {
        assert!(prove(n, None), "{n} requesters: the forms differ");
    }
    let wrong = ("last_below <= advance ? grant[4:0] : grant[5:1];", "last_below <= grant[5:1];");
    assert!(!prove(6, Some(wrong)), "a taken winner kept at the pointer was proved the same");
}
