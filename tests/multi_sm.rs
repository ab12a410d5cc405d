//! Several SMs on one kernel (`sm.count`, a model feature): every library kernel still computes
//! its reference result with every operand right, the SMs share the kernel's blocks and the DRAM
//! channel, and TUBA moves the SMs' block limits on the paper's design.

mod common;

use common::kernels::check;
use common::*;
use rfgen_model::kernel::library::{self, KERNELS};
use rfgen_model::sm::gpu::Gpu;

fn config(text: &str) -> rfgen_gen::Checked {
    rfgen_gen::config::parse(text).unwrap()
}

#[test]
fn library_kernels_on_several_sms_match_their_references() {
    for c in
        [config("[sm]\ncount = 4\n"), config("[sm]\ncount = 3\n[rename]\nenabled = true\ntrws = true\ntuba = true\n")]
    {
        for lk in KERNELS {
            let k = lk.parse().unwrap();
            let mut gpu = Gpu::new(&c, &k).unwrap();
            gpu.run(50_000_000, &mut |_| {}).unwrap();
            let what = format!("{} on {} SMs", lk.name, c.config.sm.count);
            check(lk.name, &k, &gpu.sms()[0].memory()).unwrap_or_else(|e| panic!("{what}: {e}"));
            let s = gpu.stats();
            assert_eq!(s.operand_mismatches, 0, "{what}: {:?}", s.mismatch_examples);
            assert_eq!(s.sms, c.config.sm.count, "{what}");
            let f = rfgen_model::func::run(&k, 32).unwrap();
            assert_eq!(s.warp_instructions, f.warp_instructions, "{what}: every instruction ran once");
            // Blocks spread: with more blocks than SMs, every SM ran some.
            if k.blocks as usize >= gpu.sms().len() {
                assert!(gpu.sms().iter().all(|sm| sm.stats().warp_instructions > 0), "{what}: an SM stayed idle");
            }
            if let Some(r) = &s.rename {
                assert_eq!(r.releases, r.renames, "{what}: every register freed");
            }
        }
    }
}

/// The DRAM channel is shared: a memory-bound kernel gains little from more SMs, a compute-bound
/// one a lot.
#[test]
fn sms_share_the_dram_channel() {
    let speedup = |name: &str| {
        let k = library::find(name).unwrap().parse().unwrap();
        let cycles = |count: u32| {
            let mut gpu = Gpu::new(&config(&format!("[sm]\ncount = {count}\n")), &k).unwrap();
            gpu.run(50_000_000, &mut |_| {}).unwrap();
            gpu.stats().cycles as f64
        };
        cycles(1) / cycles(4)
    };
    let (memory_bound, compute_bound) = (speedup("bfs"), speedup("matmul"));
    assert!(memory_bound < 1.5 && compute_bound > 3.0, "bfs {memory_bound:.2}x, matmul {compute_bound:.2}x");
}

/// TUBA lowers and raises block limits on matmul over four SMs of the paper's design, and the
/// report shows it.
#[test]
fn tuba_moves_block_limits_and_sim_reports_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gpu.toml");
    std::fs::write(&file, "name = \"gpu\"\n[sm]\ncount = 4\n[rename]\nenabled = true\ntrws = true\ntuba = true\n")
        .unwrap();
    let o = rfgen(&["sim", "--config", file.to_str().unwrap(), "--kernel", "matmul", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let t = &j["stats"]["tuba"];
    assert!(t["lowered"].as_u64().unwrap() > 0 && t["raised"].as_u64().unwrap() > 0, "{t}");
    let names: Vec<&str> =
        j["rename"]["designs"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["all-CMOS", "all-TFET", "CMOS_RA", "MEM_RA", "MEM_RA+TRWS+TUBA"]);
}
