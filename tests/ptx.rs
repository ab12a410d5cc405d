//! The PTX front end end to end (docs/ptx.md): the committed PTX is what clang-14 makes of the
//! CUDA C in workloads/, every workload computes what its Rust reference does, `rfgen sim` and
//! `rfgen cosim` run them, and PTX outside the subset is refused with file and line.

mod common;

use common::*;
use rfgen_model::kernel::ptx::{self, PtxKernel, launch};
use std::path::{Path, PathBuf};
use std::process::Command;

const WORKLOADS: [&str; 15] = [
    "vecadd",
    "saxpy",
    "sgemm",
    "reduction",
    "mriq",
    "nbody",
    "blackscholes",
    "spmv",
    "bfs",
    "hotspot",
    "pathfinder",
    "nw",
    "histogram",
    "collatz",
    "srad",
];

/// The command line docs/ptx.md gives, from `NAME.cu` to `out`.
fn clang(source: &Path, out: &Path) -> std::process::Output {
    Command::new("clang-14")
        .args(["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_70", "-O2", "-S"])
        .arg(source)
        .arg("-o")
        .arg(out)
        .output()
        .expect("clang-14 is installed (scripts/test installs it)")
}

/// Small kernels in tests/data/ptx/ exercising one PTX feature each, with their CUDA C beside them.
const FEATURE_KERNELS: [&str; 6] = ["constants", "calls", "local", "vectors", "structs", "doubles"];

#[test]
fn the_committed_ptx_is_what_clang_makes_of_the_cuda_sources() {
    let dir = tempfile::tempdir().unwrap();
    let workloads = WORKLOADS.map(|name| format!("workloads/{name}"));
    let features = FEATURE_KERNELS.map(|name| format!("tests/data/ptx/{name}"));
    for stem in workloads.iter().chain(&features) {
        let out = dir.path().join("out.ptx");
        let run = clang(&root().join(format!("{stem}.cu")), &out);
        assert!(run.status.success(), "{stem}: {}", String::from_utf8_lossy(&run.stderr));
        let committed = std::fs::read_to_string(root().join(format!("{stem}.ptx"))).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), committed, "{stem}.ptx is stale: regenerate it");
    }
}

/// The test's small launch of a workload, loaded and run on the functional executor (32 lanes).
fn run(name: &str) -> (PtxKernel, rfgen_model::func::GlobalMemory) {
    let launch_path: PathBuf = root().join(format!("tests/data/ptx/{name}.toml"));
    let launch = launch::parse(&std::fs::read_to_string(&launch_path).unwrap()).unwrap();
    let ptx_path = launch_path.parent().unwrap().join(launch.ptx.as_ref().unwrap());
    let k = ptx::load(&std::fs::read_to_string(ptx_path).unwrap(), &launch).unwrap_or_else(|e| panic!("{name}: {e}"));
    let memory = rfgen_model::func::run(&k.kernel, 32).unwrap_or_else(|e| panic!("{name}: {e}")).memory;
    (k, memory)
}

fn input(k: &PtxKernel, buffer: &str) -> Vec<f32> {
    k.buffer(buffer).unwrap().words.iter().map(|&w| f32::from_bits(w)).collect()
}

fn output(k: &PtxKernel, m: &rfgen_model::func::GlobalMemory, buffer: &str) -> Vec<u32> {
    let b = k.buffer(buffer).unwrap();
    (0..b.words.len() as u32).map(|i| m.read(b.addr + 4 * i)).collect()
}

fn words(k: &PtxKernel, buffer: &str) -> Vec<u32> {
    k.buffer(buffer).unwrap().words.clone()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn vecadd_adds_the_first_n_elements_and_leaves_the_rest() {
    let (k, m) = run("vecadd");
    let (a, b) = (input(&k, "a"), input(&k, "b"));
    let mut want = input(&k, "c");
    for i in 0..a.len() {
        want[i] = a[i] + b[i];
    }
    assert_eq!(output(&k, &m, "c"), bits(&want));
}

#[test]
fn saxpy_is_a_fused_multiply_add_per_element() {
    let (k, m) = run("saxpy");
    let (x, y) = (input(&k, "x"), input(&k, "y"));
    // clang contracts `a * x[i] + y[i]` into one fma, rounded once.
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| x.mul_add(-1.5, *y)).collect();
    assert_eq!(output(&k, &m, "y"), bits(&want));
}

#[test]
fn sgemm_equals_the_dot_products_accumulated_in_order() {
    let (k, m) = run("sgemm");
    let (a, b, n) = (input(&k, "a"), input(&k, "b"), 16);
    let mut want = vec![0f32; n * n];
    for r in 0..n {
        for c in 0..n {
            want[r * n + c] = (0..n).fold(0.0, |acc, i| a[r * n + i].mul_add(b[i * n + c], acc));
        }
    }
    assert_eq!(output(&k, &m, "c"), bits(&want));
}

#[test]
fn reduction_adds_every_word_to_the_output() {
    let (k, m) = run("reduction");
    let sum = k.buffer("in").unwrap().words.iter().fold(5u32, |s, &w| s.wrapping_add(w));
    assert_eq!(output(&k, &m, "out"), vec![sum]);
}

#[test]
fn mriq_sums_the_sines_and_cosines_of_every_k() {
    let (k, m) = run("mriq");
    let (kx, mag, x) = (input(&k, "kx"), input(&k, "mag"), input(&k, "x"));
    let (qr, qi) = (output(&k, &m, "qr"), output(&k, &m, "qi"));
    for i in 0..x.len() {
        let arg = |j: usize| std::f64::consts::TAU * f64::from(kx[j]) * f64::from(x[i]);
        let re: f64 = (0..kx.len()).map(|j| f64::from(mag[j]) * arg(j).cos()).sum();
        let im: f64 = (0..kx.len()).map(|j| f64::from(mag[j]) * arg(j).sin()).sum();
        // f32 arguments up to 25 rad: a few 1e-6 per term.
        for (got, want) in [(qr[i], re), (qi[i], im)] {
            let got = f64::from(f32::from_bits(got));
            assert!((got - want).abs() < 1e-3, "sample {i}: {got} against {want}");
        }
    }
}

#[test]
fn nbody_sums_every_pull_in_order_with_correctly_rounded_square_roots() {
    let (k, m) = run("nbody");
    let body = input(&k, "body");
    let n = body.len() / 4;
    let softening = 0.01f32;
    let mut want = vec![0f32; 3 * n];
    for i in 0..n {
        let (xi, yi, zi) = (body[4 * i], body[4 * i + 1], body[4 * i + 2]);
        let mut sum = [0f32; 3];
        for b in body.chunks(4) {
            let (dx, dy, dz) = (b[0] - xi, b[1] - yi, b[2] - zi);
            // As clang contracts and reassociates it: fma(dz, dz, fma(dx, dx, dy dy)) + softening.
            let d2 = dz.mul_add(dz, dx.mul_add(dx, dy * dy)) + softening;
            let inv = 1.0 / d2.sqrt();
            let s = inv * (inv * (b[3] * inv));
            for (acc, d) in sum.iter_mut().zip([dx, dy, dz]) {
                *acc = d.mul_add(s, *acc);
            }
        }
        want[3 * i..3 * i + 3].copy_from_slice(&sum);
    }
    assert_eq!(output(&k, &m, "accel"), bits(&want));
}

/// The Abramowitz-Stegun cumulative normal distribution the kernel uses, in f64.
fn cnd(d: f64) -> f64 {
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
    let c = 0.3989422804 * (-0.5 * d * d).exp() * poly;
    if d > 0.0 { 1.0 - c } else { c }
}

#[test]
fn blackscholes_prices_every_option_as_the_closed_form_does() {
    let (k, m) = run("blackscholes");
    let (spot, strike, years) = (input(&k, "spot"), input(&k, "strike"), input(&k, "years"));
    let (call, put) = (output(&k, &m, "call"), output(&k, &m, "put"));
    let (rate, volatility) = (f64::from(0.02f32), f64::from(0.30f32));
    for i in 0..spot.len() {
        let (s, x, t) = (f64::from(spot[i]), f64::from(strike[i]), f64::from(years[i]));
        let d1 = ((s / x).ln() + (rate + 0.5 * volatility * volatility) * t) / (volatility * t.sqrt());
        let d2 = d1 - volatility * t.sqrt();
        let discounted = x * (-rate * t).exp();
        let want_call = s * cnd(d1) - discounted * cnd(d2);
        let want_put = discounted * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1));
        // Every f32 step rounds (prices up to 100 agree within about 1e-5 on the model), and
        // ex2/lg2 stand for the SFU's approximations, a few ulp off on hardware: 2e-4 holds both.
        for (got, want) in [(call[i], want_call), (put[i], want_put)] {
            let got = f64::from(f32::from_bits(got));
            assert!((got - want).abs() < 2e-4, "option {i}: {got} against {want}");
        }
    }
}

#[test]
fn spmv_multiplies_each_csr_row_in_order() {
    let (k, m) = run("spmv");
    let (start, col) = (words(&k, "row_start"), words(&k, "col"));
    let (val, x) = (input(&k, "val"), input(&k, "x"));
    let want: Vec<f32> = (0..start.len() - 1)
        .map(|r| (start[r]..start[r + 1]).fold(0.0, |sum, e| val[e as usize].mul_add(x[col[e as usize] as usize], sum)))
        .collect();
    assert!(start.windows(2).any(|w| w[0] == w[1]), "an empty row is covered");
    assert_eq!(output(&k, &m, "y"), bits(&want));
}

#[test]
fn bfs_gives_every_reached_vertex_its_distance_from_the_source() {
    let (k, m) = run("bfs");
    let (start, edges) = (words(&k, "edge_start"), words(&k, "edges"));
    let mut want = vec![-1i32; start.len() - 1];
    let mut frontier = vec![5usize];
    want[5] = 0;
    for depth in 1.. {
        let mut next = Vec::new();
        for v in frontier {
            for &u in &edges[start[v] as usize..start[v + 1] as usize] {
                if want[u as usize] < 0 {
                    want[u as usize] = depth;
                    next.push(u as usize);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    assert!(want.iter().any(|&l| l < 0) && want.iter().any(|&l| l > 3), "{want:?}");
    assert_eq!(output(&k, &m, "level"), want.iter().map(|&l| l as u32).collect::<Vec<_>>());
}

#[test]
fn hotspot_steps_every_cell_from_its_clamped_neighbours() {
    let (k, m) = run("hotspot");
    let (temp, power, size) = (input(&k, "temp"), input(&k, "power"), 24usize);
    let (cap_inv, rx, ry, rz, ambient) = (0.5f32, 0.1f32, 0.1f32, 0.02f32, 300.0f32);
    let at = |r: usize, c: usize| temp[r * size + c];
    let mut want = vec![0f32; size * size];
    for r in 0..size {
        for c in 0..size {
            let t = at(r, c);
            let (n, s) = (at(r.saturating_sub(1), c), at((r + 1).min(size - 1), c));
            let (w, e) = (at(r, c.saturating_sub(1)), at(r, (c + 1).min(size - 1)));
            // clang's contraction of power + (n + s - 2t) ry + (e + w - 2t) rx + (ambient - t) rz.
            let delta = t.mul_add(-2.0, n + s).mul_add(ry, power[r * size + c]);
            let delta = t.mul_add(-2.0, w + e).mul_add(rx, delta);
            let delta = (ambient - t).mul_add(rz, delta);
            want[r * size + c] = delta.mul_add(cap_inv, t);
        }
    }
    assert_eq!(output(&k, &m, "out"), bits(&want));
}

#[test]
fn pathfinder_finds_the_cheapest_path_to_every_bottom_cell() {
    let (k, m) = run("pathfinder");
    let (cost, rows, cols) = (words(&k, "cost"), 20, 64);
    let mut want = Vec::new();
    for grid in cost.chunks(rows * cols).take(2) {
        let mut best: Vec<i32> = grid[..cols].iter().map(|&c| c as i32).collect();
        for r in 1..rows {
            best = (0..cols)
                .map(|c| {
                    let above = best[c.saturating_sub(1)..=(c + 1).min(cols - 1)].iter().min().unwrap();
                    above + grid[r * cols + c] as i32
                })
                .collect();
        }
        want.extend(best.iter().map(|&b| b as u32));
    }
    assert_eq!(output(&k, &m, "result"), want);
}

#[test]
fn nw_scores_every_alignment_as_the_recurrence_does() {
    let (k, m) = run("nw");
    let (similarity, n, penalty) = (words(&k, "similarity"), 24, 10);
    let w = n + 1;
    let mut want = words(&k, "score");
    for (pair, sim) in similarity.chunks(w * w).enumerate().take(2) {
        let s = &mut want[pair * w * w..][..w * w];
        for i in 0..w {
            s[i * w] = (-(i as i32) * penalty) as u32;
            s[i] = (-(i as i32) * penalty) as u32;
        }
        for i in 1..w {
            for j in 1..w {
                let at = |r: usize, c: usize| s[r * w + c] as i32;
                let diagonal = at(i - 1, j - 1) + sim[i * w + j] as i32;
                s[i * w + j] = diagonal.max(at(i - 1, j) - penalty).max(at(i, j - 1) - penalty) as u32;
            }
        }
    }
    assert_eq!(output(&k, &m, "score"), want);
}

#[test]
fn histogram_counts_every_byte_onto_the_bins() {
    let (k, m) = run("histogram");
    let mut want = words(&k, "bins");
    for w in words(&k, "data") {
        for b in w.to_le_bytes() {
            want[b as usize] += 1;
        }
    }
    assert_eq!(output(&k, &m, "bins"), want);
}

#[test]
fn collatz_counts_the_steps_of_every_value_up_to_the_limit() {
    let (k, m) = run("collatz");
    let limit = 40;
    // The steps, and whether the limit stopped them.
    let steps = |mut v: u32| {
        let mut count = 0;
        for _ in 0..limit {
            while v != 0 && v & 1 == 0 {
                v /= 2;
                count += 1;
            }
            if v <= 1 {
                return (count, false);
            }
            v = v.wrapping_mul(3).wrapping_add(1);
            count += 1;
        }
        (count, true)
    };
    let (want, stopped): (Vec<u32>, Vec<bool>) = words(&k, "start").into_iter().map(steps).unzip();
    assert!(stopped.contains(&true) && stopped.contains(&false), "both ends are covered");
    assert_eq!(output(&k, &m, "steps"), want);
}

#[test]
fn srad_diffuses_every_cell_by_its_and_its_neighbours_coefficients() {
    let (k, m) = run("srad");
    let (image, size) = (input(&k, "image"), 24i64);
    let (q0sqr, lambda) = (0.05f32, 0.5f32);
    let at = |r: i64, c: i64| image[(r.clamp(0, size - 1) * size + c.clamp(0, size - 1)) as usize];
    // The differences to north, south, west and east.
    let differences = |r: i64, c: i64| {
        let j = at(r, c);
        (j, [at(r - 1, c) - j, at(r + 1, c) - j, at(r, c - 1) - j, at(r, c + 1) - j])
    };
    // In the order clang's contractions leave the kernel's arithmetic.
    let coefficient = |r: i64, c: i64| {
        let (j, [dn, ds, dw, de]) = differences(r, c);
        let g2 = de.mul_add(de, dw.mul_add(dw, dn.mul_add(dn, ds * ds))) / (j * j);
        let l = (dn + ds + dw + de) / j;
        let num = g2.mul_add(0.5, l * (l * -0.0625));
        let den = l.mul_add(0.25, 1.0);
        let qsqr = num / (den * den);
        let coefficient = 1.0 / ((qsqr - q0sqr) / ((q0sqr + 1.0) * q0sqr) + 1.0);
        // The kernel's two selects; a NaN stays NaN either way.
        coefficient.clamp(0.0, 1.0)
    };
    let mut want = Vec::new();
    for r in 0..size {
        for c in 0..size {
            let (j, [dn, ds, dw, de]) = differences(r, c);
            let here = coefficient(r, c);
            let (south, east) = (coefficient((r + 1).min(size - 1), c), coefficient(r, (c + 1).min(size - 1)));
            let d = de.mul_add(east, here.mul_add(dw, here.mul_add(dn, ds * south)));
            want.push((lambda * 0.25).mul_add(d, j));
        }
    }
    assert_eq!(output(&k, &m, "out"), bits(&want));
}

#[test]
fn constant_data_is_read_through_ld_const() {
    let (k, m) = run("constants");
    let x = input(&k, "x");
    let (weights, table) = ([0.25f32, 0.5, -1.0, 2.0], [3u32, 1, 4, 1, 5]);
    let (mut y, mut z) = (input(&k, "y"), words(&k, "z"));
    for (i, x) in x.iter().enumerate() {
        // clang contracts `x[i] * weights[i & 3] + weights[2]` into one fma.
        y[i] = x.mul_add(weights[i & 3], weights[2]);
        z[i] = table[i % 5] * 7;
    }
    assert_eq!(output(&k, &m, "y"), bits(&y));
    assert_eq!(output(&k, &m, "z"), z);
}

#[test]
fn local_arrays_and_generic_addresses_hold_each_threads_own_values() {
    let (k, m) = run("local");
    let (input, size) = (words(&k, "in"), 32i32);
    let mut want = vec![0u32; 1024];
    for row in 0..size {
        for col in 0..size {
            let mut v: Vec<u32> = (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (dy, dx)))
                .map(|(dy, dx)| input[((row + dy).clamp(0, size - 1) * size + (col + dx).clamp(0, size - 1)) as usize])
                .collect();
            v.sort_unstable();
            want[(row * size + col) as usize] = v[4];
        }
    }
    assert_eq!(output(&k, &m, "out"), want);
    // Each thread sorted its own array, in its own window (36 bytes in a window of 64): thread t
    // of the first block is pixel (t / 8, t % 8), and its median is word 4 of its window.
    for t in 0..64u32 {
        let at = rfgen_model::kernel::ptx::lower::LOCAL_WINDOWS + 64 * t + 4 * 4;
        assert_eq!(m.read(at), want[(t / 8 * 32 + t % 8) as usize], "thread {t}");
    }
}

#[test]
fn vector_loads_and_stores_move_every_element() {
    let (k, m) = run("vectors");
    let (x, mut out, mut pairs) = (input(&k, "in"), input(&k, "out"), words(&k, "pairs"));
    for i in 0..100 {
        let v = &x[4 * i..4 * i + 4];
        out[4 * i..4 * i + 4].copy_from_slice(&[v[3], v[2] * 2.0, v[1] + 1.0, v[0] - v[1]]);
        let (a, b) = (pairs[2 * i], pairs[2 * i + 1]);
        pairs[2 * i..2 * i + 2].copy_from_slice(&[b ^ a, a.wrapping_add(3)]);
    }
    assert_eq!(output(&k, &m, "out"), bits(&out));
    assert_eq!(output(&k, &m, "pairs"), pairs);
}

#[test]
fn a_struct_passed_by_value_reaches_the_kernel_field_by_field() {
    let (k, m) = run("structs");
    let (src, mut out) = (input(&k, "src"), input(&k, "out"));
    for i in 0..100 {
        // clang contracts `src[i] * scale + bias` into one fma.
        out[i] = src[i].mul_add(1.5, -0.25);
    }
    assert_eq!(output(&k, &m, "out"), bits(&out));
}

/// A buffer of doubles, two words each.
fn doubles(words: &[u32]) -> Vec<f64> {
    words.chunks(2).map(|w| f64::from_bits(u64::from(w[0]) | u64::from(w[1]) << 32)).collect()
}

#[test]
fn double_precision_is_computed_as_ieee_doubles() {
    let (k, m) = run("doubles");
    let (x, w) = (input(&k, "x"), doubles(&words(&k, "w")));
    let (mut y, mut acc_out, mut steps) = (input(&k, "y"), doubles(&words(&k, "acc")), words(&k, "steps"));
    let scale = 3.5;
    let mut diverged = false;
    for i in 0..100 {
        let v = f64::from(x[i]);
        // In the order clang leaves it: `acc * 1.0001 + v / (k + 1)` contracted into one fma.
        let mut acc = w[i];
        for k in 0..8 {
            acc = acc.mul_add(1.0001, v / f64::from(k + 1));
        }
        let mut s = 0;
        while acc > scale && s < 20 {
            acc = acc.mul_add(0.75, -0.125);
            s += 1;
        }
        diverged |= s != 0 && s != 20;
        let acc = acc.abs().min(100.0) + f64::from(i as u32).max(3.0);
        y[i] = v.mul_add(0.5, 1.25) as f32 + acc as f32;
        acc_out[i] = acc.sqrt() + 1.0 / (acc + 1.0);
        steps[i] = (s + (acc * 10.0) as i32) as u32;
    }
    assert!(diverged, "the loop's trip count differs between lanes");
    assert_eq!(output(&k, &m, "y"), bits(&y));
    let acc_bits = |v: &[f64]| v.iter().map(|d| d.to_bits()).collect::<Vec<_>>();
    assert_eq!(acc_bits(&doubles(&output(&k, &m, "acc"))), acc_bits(&acc_out), "the last 28 are left at 9.0");
    assert_eq!(output(&k, &m, "steps"), steps);
}

#[test]
fn device_functions_are_inlined_at_every_call() {
    let (k, m) = run("calls");
    let (x, y) = (input(&k, "x"), input(&k, "y"));
    let halved = |v: f32, limit: f32| {
        if v < 0.0 {
            return 0.0;
        }
        let mut v = v;
        for _ in 0..8 {
            if v <= limit {
                break;
            }
            v *= 0.5;
        }
        v
    };
    // clang contracts `v * (float)k + 1.0f` into one fma.
    let scale = |v: f32, k: i32| (k as f32).mul_add(v, 1.0);
    let mut want = input(&k, "out");
    for i in 0..x.len() {
        want[i] = (halved(scale(x[i], i as i32 & 7), 2.0) + y[i]) - halved(y[i], 0.5);
    }
    assert_eq!(output(&k, &m, "out"), bits(&want));
}

#[test]
fn rfgen_sim_runs_every_workload_on_the_sm_model_and_reports_its_registers() {
    for name in WORKLOADS.iter().chain(&FEATURE_KERNELS) {
        let launch = format!("tests/data/ptx/{name}.toml");
        let out = rfgen(&["sim", "--preset", "small", "--kernel", &launch, "--format", "json"]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(json["stats"]["operand_mismatches"], 0, "{name}");
        let (k, _) = run(name);
        assert_eq!(json["ptx"]["registers"], k.kernel.regs, "{name}");
        assert!(json["stats"]["warp_instructions"].as_u64().unwrap() > 0, "{name}");
    }
}

#[test]
fn the_kernel_driven_cosim_runs_ptx_kernels() {
    // Global atomics, shared atomics, divergent loops on lowered predicate logic, local arrays,
    // doubles in passes.
    for name in ["reduction", "histogram", "collatz", "local", "doubles"] {
        let launch = format!("tests/data/ptx/{name}.toml");
        let out = rfgen(&["cosim", "--preset", "small", "--kernel", &launch]);
        assert!(out.status.success(), "{name}: {}{}", stdout(&out), stderr(&out));
        assert!(stdout(&out).contains("PASS"), "{name}: {}", stdout(&out));
    }
}

/// Exit 2 with one error line holding `what`.
fn refused(args: &[&str], what: &str) {
    let out = rfgen(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.lines().next().is_some_and(|l| l.starts_with("error: ") && l.contains(what)), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn ptx_outside_the_subset_is_refused_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = std::fs::read_to_string(root().join("workloads/vecadd.ptx")).unwrap();
    let launch = std::fs::read_to_string(root().join("tests/data/ptx/vecadd.toml")).unwrap();
    let launch = launch.lines().filter(|l| !l.starts_with("ptx =")).collect::<Vec<_>>().join("\n");
    let cases = [
        ("add.f32", "add.ftz.f32", "unsupported instruction `add.ftz.f32`"),
        ("add.f32", "div.s32", "unsupported instruction `div.s32`"),
        ("st.global.f32", "st.param.f32", "unsupported state space `.param`"),
        // A generic address is a global or local one: shared memory has no generic window.
        ("cvta.to.global.u64", "cvta.shared.u64", "unsupported instruction `cvta.shared.u64`"),
        ("ld.global.f32", "tex.1d.v4.f32.s32", "unsupported instruction `tex.1d.v4.f32.s32`"),
    ];
    for (i, (from, to, what)) in cases.into_iter().enumerate() {
        let edited: String = ptx.replacen(from, to, 1);
        let line = edited.lines().position(|l| l.contains(to)).unwrap() + 1;
        let file = dir.path().join(format!("k{i}.ptx"));
        std::fs::write(&file, edited).unwrap();
        std::fs::write(file.with_extension("toml"), &launch).unwrap();
        refused(&["sim", "--kernel", file.to_str().unwrap()], &format!("k{i}.ptx:{line}: {what}"));
    }
    let file = dir.path().join("short.ptx");
    std::fs::write(&file, &ptx).unwrap();
    std::fs::write(file.with_extension("toml"), launch.replace("{ value = 250 }", "")).unwrap();
    refused(&["sim", "--kernel", file.to_str().unwrap()], "params: `vecadd` has 4 parameters, the launch file gives 3");
    std::fs::write(file.with_extension("toml"), launch.replace("{ value = 250 }", "{ value = 2.5 }")).unwrap();
    refused(&["sim", "--kernel", file.to_str().unwrap()], "params[3] (`vecadd_param_3`, .u32): 2.5 does not fit");
    std::fs::remove_file(file.with_extension("toml")).unwrap();
    refused(&["sim", "--kernel", file.to_str().unwrap()], "its launch file");

    // `.local` windows: a thread's beyond 64 KiB, and all of a grid's beyond the 1 GiB the model
    // keeps for them.
    let ptx = std::fs::read_to_string(root().join("tests/data/ptx/local.ptx")).unwrap();
    let launch = std::fs::read_to_string(root().join("tests/data/ptx/local.toml")).unwrap();
    let launch = launch.lines().filter(|l| !l.starts_with("ptx =")).collect::<Vec<_>>().join("\n");
    let file = dir.path().join("local.ptx");
    std::fs::write(&file, ptx.replace("__local_depot1[36]", "__local_depot1[65537]")).unwrap();
    std::fs::write(file.with_extension("toml"), &launch).unwrap();
    refused(&["sim", "--kernel", file.to_str().unwrap()], "local memory exceeds 65536 bytes at `__local_depot1`");
    std::fs::write(&file, ptx.replace("__local_depot1[36]", "__local_depot1[65536]")).unwrap();
    std::fs::write(file.with_extension("toml"), launch.replace("grid = [4, 4]", "grid = [64, 64]")).unwrap();
    refused(&["sim", "--kernel", file.to_str().unwrap()], "262144 threads need 17179869184 bytes");
}
