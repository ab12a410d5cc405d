//! Spilling (docs/ptx.md, *Register allocation*): a PTX kernel that needs more registers than
//! `sm.registers_per_thread` moves values to per-thread local memory until it fits, and computes
//! exactly what it computes unspilled.

mod common;

use common::*;
use rfgen_model::kernel::ptx::{self, PtxKernel, launch, regalloc};

/// Every committed workload that has a small test launch, by name.
fn workloads() -> Vec<String> {
    let names: Vec<String> = workload_names()
        .into_iter()
        .filter(|name| root().join(format!("tests/data/ptx/{name}.toml")).exists())
        .collect();
    assert!(!names.is_empty(), "no workload with a launch in tests/data/ptx");
    names
}

fn load(name: &str, max_registers: u32) -> Result<PtxKernel, ptx::LoadError> {
    let text = std::fs::read_to_string(root().join(format!("workloads/{name}.ptx"))).unwrap();
    let launch_text = std::fs::read_to_string(root().join(format!("tests/data/ptx/{name}.toml"))).unwrap();
    ptx::load_within(&text, &launch::parse(&launch_text).unwrap(), max_registers)
}

/// Every buffer's words after a functional run.
fn outputs(k: &PtxKernel) -> Vec<Vec<u32>> {
    let memory = rfgen_model::func::run(&k.kernel, 32).unwrap_or_else(|e| panic!("{}: {e}", k.kernel.name)).memory;
    k.buffers.iter().map(|b| (0..b.words.len() as u32).map(|i| memory.read(b.addr + 4 * i)).collect()).collect()
}

#[test]
fn a_spilled_workload_fits_its_registers_and_computes_what_it_computes_unspilled() {
    for name in workloads() {
        let whole = load(&name, regalloc::MAX_REGISTERS).unwrap();
        assert_eq!(whole.spilled, 0, "{name}: nothing to spill within 256 registers");
        let want = outputs(&whole);
        for limit in [16, 8] {
            let k = load(&name, limit).unwrap_or_else(|e| panic!("{name} within {limit}: {e}"));
            assert!(k.kernel.regs <= limit, "{name}: {} registers within {limit}", k.kernel.regs);
            assert_eq!(k.spilled > 0, whole.kernel.regs > limit, "{name} within {limit}: spills only when it must");
            assert_eq!(outputs(&k), want, "{name} within {limit} registers ({} values spilled)", k.spilled);
        }
    }
}

#[test]
fn rfgen_sim_spills_to_the_configs_registers_per_thread_and_refuses_too_few() {
    let dir = tempfile::tempdir().unwrap();
    let config = |n: u32| {
        let path = dir.path().join(format!("r{n}.toml"));
        std::fs::write(&path, format!("name = \"r{n}\"\n[sm]\nregisters_per_thread = {n}\n")).unwrap();
        path.to_str().unwrap().to_string()
    };
    let eight = config(8);
    let out = rfgen(&["sim", "--config", &eight, "--kernel", "tests/data/ptx/sgemm.toml", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(json["ptx"]["registers"].as_u64().unwrap() <= 8, "{}", json["ptx"]);
    assert!(json["ptx"]["spilled"].as_u64().unwrap() > 0, "{}", json["ptx"]);
    assert_eq!(json["stats"]["operand_mismatches"], 0);
    let text = rfgen(&["sim", "--config", &eight, "--kernel", "tests/data/ptx/sgemm.toml"]);
    assert!(stdout(&text).contains("spilled to local memory"), "{}", stdout(&text));

    let four = config(4);
    let out = rfgen(&["sim", "--config", &four, "--kernel", "tests/data/ptx/sgemm.toml"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("sgemm.ptx:") && stderr(&out).contains("sm.registers_per_thread = 4 is too few"),
        "{}",
        stderr(&out)
    );
}

/// A value overwritten under a guard while others are live: spilled, the lanes the guard leaves
/// must keep it (loaded before the guarded write, stored back after).
const GUARDED: &str = "\
.version 6.0
.target sm_70
.address_size 64
.visible .entry g(.param .u64 g_param_0)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<20>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [g_param_0];
	mov.u32 	%r1, %tid.x;
	add.s32 	%r2, %r1, 100;
	add.s32 	%r3, %r1, 1;
	add.s32 	%r4, %r1, 2;
	add.s32 	%r5, %r1, 3;
	add.s32 	%r6, %r1, 4;
	add.s32 	%r7, %r1, 5;
	add.s32 	%r8, %r1, 6;
	add.s32 	%r9, %r1, 7;
	add.s32 	%r10, %r1, 8;
	setp.lt.u32 	%p1, %r1, 16;
	@%p1 mov.u32 	%r2, 7;
	add.s32 	%r11, %r3, %r4;
	add.s32 	%r12, %r5, %r6;
	add.s32 	%r13, %r7, %r8;
	add.s32 	%r14, %r9, %r10;
	add.s32 	%r15, %r11, %r12;
	add.s32 	%r16, %r13, %r14;
	add.s32 	%r17, %r15, %r16;
	add.s32 	%r10, %r17, %r2;
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r10;
	ret;
}
";

#[test]
fn a_value_written_under_a_guard_keeps_its_other_lanes_when_spilled() {
    let launch = launch::parse("grid = 2\nblock = 64\nparams = [{ buffer = \"out\" }]\n[buffers.out]\ntype = \"u32\"\ncount = 64\ninit = \"zero\"\n").unwrap();
    let whole = ptx::load(GUARDED, &launch).unwrap();
    let k = ptx::load_within(GUARDED, &launch, 8).unwrap();
    assert!(
        k.spilled > 0 && k.kernel.regs <= 8,
        "{} spilled, {} registers (unspilled {})",
        k.spilled,
        k.kernel.regs,
        whole.kernel.regs
    );
    // Both blocks write word `%tid.x`.
    let want: Vec<u32> = (0..64u32)
        .map(|t| {
            let kept = if t < 16 { 7 } else { t + 100 };
            (1..=8).map(|d| t + d).sum::<u32>() + kept
        })
        .collect();
    assert_eq!(outputs(&whole), vec![want.clone()], "unspilled");
    assert_eq!(outputs(&k), vec![want], "spilled");
}

/// Doubles are register pairs: spilled, a pair takes two slots, and a pass of a double
/// operation keeps its words in registers. `rfgen cosim` and `rfgen bench` allocate within the
/// config's registers as `rfgen sim` does.
#[test]
fn spilled_doubles_compute_what_they_compute_unspilled_and_cosimulate() {
    let dir = root().join("tests/data/ptx");
    let text = std::fs::read_to_string(dir.join("doubles.ptx")).unwrap();
    let launch = launch::parse(&std::fs::read_to_string(dir.join("doubles.toml")).unwrap()).unwrap();
    let whole = ptx::load_within(&text, &launch, regalloc::MAX_REGISTERS).unwrap();
    let spilled = ptx::load_within(&text, &launch, 8).unwrap();
    assert!(whole.kernel.regs > 8 && spilled.kernel.regs <= 8 && spilled.spilled > 0);
    assert_eq!(outputs(&spilled), outputs(&whole));

    let small = std::fs::read_to_string(root().join("configs/small.toml")).unwrap();
    let config = tempfile::tempdir().unwrap();
    let eight = config.path().join("small-r8.toml");
    std::fs::write(&eight, small.replacen("[sm]\n", "[sm]\nregisters_per_thread = 8\n", 1)).unwrap();
    let out = rfgen(&["cosim", "--config", eight.to_str().unwrap(), "--kernel", "tests/data/ptx/doubles.toml"]);
    assert!(out.status.success() && stdout(&out).contains("PASS"), "{}{}", stdout(&out), stderr(&out));
    let doubles = "tests/data/ptx/doubles.toml";
    let out = rfgen(&["bench", "sim", "--config", eight.to_str().unwrap(), "--kernel", doubles, "--seconds", "0"]);
    assert!(out.status.success() && stdout(&out).contains("simulated cycles/s"), "{}{}", stdout(&out), stderr(&out));
}

/// `rfgen sweep` loads a PTX kernel within each point's registers per thread: a point with too
/// few for the unspilled allocation runs it spilled instead of refusing it.
#[test]
fn a_sweep_over_registers_per_thread_spills_where_a_point_has_too_few() {
    let out = tempfile::tempdir().unwrap();
    let results = out.path().join("sweep");
    let o = rfgen(&[
        "sweep",
        "--preset",
        "small",
        "--param",
        "sm.registers_per_thread=8,64",
        "--kernel",
        "tests/data/ptx/sgemm.toml",
        "--out",
        results.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(results.join("results.json")).unwrap()).unwrap();
    let run = |registers: u64| {
        let point =
            json["points"].as_array().unwrap().iter().find(|p| p["params"]["sm.registers_per_thread"] == registers);
        let point = point.unwrap_or_else(|| panic!("no point with {registers} registers: {json}"));
        assert_eq!(point["status"], "ok", "{point}");
        let sim = &point["sim"][0];
        assert!(sim["error"].is_null(), "{sim}");
        sim.clone()
    };
    let (eight, plenty) = (run(8), run(64));
    // Spilled values go to local memory and come back through extra instructions.
    assert!(eight["cycles"].as_u64() > plenty["cycles"].as_u64(), "{eight} vs {plenty}");
}
