//! Reference results of the library kernels (`kernels/*.kir`), computed in plain Rust from the
//! kernels' inputs without the kernel IR or its executor, so a model that runs a kernel can be
//! checked against an independent statement of the same algorithm.
//!
//! Each reference restates the memory layout of the kernel's header comment (addresses, sizes,
//! how inputs derive from `default_word`) for the block size the kernel was launched with (its
//! own, or a scaled launch's: docs/kernel-ir.md). The grid is checked too, so a kernel whose
//! shape was edited without its reference fails instead of being compared against the wrong
//! layout.

use rfgen_model::func::{GlobalMemory, default_word};
use rfgen_model::kernel::Kernel;

/// Compares every output word of library kernel `name` in `memory`, the global memory after
/// `kernel` (as launched) ran to completion (by any model), against the plain-Rust result. `Err` names the
/// kernel and, for a wrong word, its index in the output array, its address, the expected and
/// the actual value. A kernel without a reference is an error.
pub fn check(name: &str, kernel: &Kernel, memory: &GlobalMemory) -> Result<(), String> {
    let reference = match name {
        "vecadd" => vecadd,
        "saxpy" => saxpy,
        "matmul" => matmul,
        "reduction" => reduction,
        "scan" => scan,
        "pathfinder" => pathfinder,
        "bfs" => bfs,
        "stencil" => stencil,
        "heartwall" => heartwall,
        _ => return Err(format!("{name}: no reference check for this kernel")),
    };
    let expected = reference(&Input { kernel, threads: kernel.threads as usize });
    if (kernel.blocks, kernel.threads) != expected.grid {
        return Err(format!(
            "{name}: the reference assumes a grid of {} blocks of {} threads, the kernel has {} of {}",
            expected.grid.0, expected.grid.1, kernel.blocks, kernel.threads
        ));
    }
    for (i, &want) in expected.words.iter().enumerate() {
        let addr = expected.base + 4 * i as u32;
        let got = memory.read(addr);
        if got != want {
            return Err(format!(
                "{name}: output word {i} (address 0x{addr:08x}) is {got} (0x{got:08x}), expected {want} (0x{want:08x})"
            ));
        }
    }
    Ok(())
}

/// What a kernel must leave in memory: `words` from byte address `base`, when launched with
/// `grid` (blocks, threads per block).
struct Expected {
    grid: (u32, u32),
    base: u32,
    words: Vec<u32>,
}

/// The kernel's initial global memory (its `.data`/`.fill` words, else `default_word`) and the
/// threads per block it was launched with.
struct Input<'a> {
    kernel: &'a Kernel,
    threads: usize,
}

impl Input<'_> {
    fn word(&self, addr: u32) -> u32 {
        // Later sections override earlier ones, as when the executor applies them in order.
        let mut value = default_word(addr);
        for d in &self.kernel.data {
            let offset = addr.wrapping_sub(d.addr) as usize / 4;
            if addr >= d.addr && offset < d.words.len() {
                value = d.words[offset];
            }
        }
        value
    }

    /// Word `i` of the array at `base`.
    fn at(&self, base: u32, i: usize) -> u32 {
        self.word(base + 4 * i as u32)
    }

    /// The grid of a kernel whose launches keep `total` threads, at this launch's block size.
    fn grid(&self, total: usize) -> (u32, u32) {
        ((total / self.threads) as u32, self.threads as u32)
    }
}

fn vecadd(m: &Input) -> Expected {
    let (n, a, b, c) = (8192, 0x10_0000, 0x20_0000, 0x30_0000);
    let words = (0..n).map(|i| m.at(a, i).wrapping_add(m.at(b, i))).collect();
    Expected { grid: m.grid(8192), base: c, words }
}

fn saxpy(m: &Input) -> Expected {
    let (n, alpha, x, y) = (16384, 3u32, 0x10_0000, 0x20_0000);
    let words = (0..n).map(|i| alpha.wrapping_mul(m.at(x, i)).wrapping_add(m.at(y, i))).collect();
    Expected { grid: m.grid(4096), base: y, words }
}

fn matmul(m: &Input) -> Expected {
    const N: usize = 64;
    let (a, b, c) = (0x10_0000, 0x20_0000, 0x30_0000);
    let load = |base, r: usize, col: usize| m.at(base, N * r + col) & 0xFF;
    let mut words = vec![0u32; N * N];
    for r in 0..N {
        for col in 0..N {
            words[N * r + col] =
                (0..N).fold(0u32, |acc, k| acc.wrapping_add(load(a, r, k).wrapping_mul(load(b, k, col))));
        }
    }
    Expected { grid: m.grid(4096), base: c, words }
}

fn reduction(m: &Input) -> Expected {
    let (n, input, out) = (16384, 0x10_0000, 0x20_0000);
    let (threads, blocks) = (m.threads, (2048 / m.threads).max(1));
    // Block b owns the elements of every stretch of a block's threads whose index (mod the
    // stretches the grid covers at once) is b.
    let mut words = vec![0u32; blocks];
    for i in 0..n {
        let b = (i / threads) % blocks;
        words[b] = words[b].wrapping_add(m.at(input, i));
    }
    Expected { grid: m.grid(2048), base: out, words }
}

fn scan(m: &Input) -> Expected {
    // Each block scans the segment of its own threads.
    let (n, segment, input, out) = (2048, m.threads, 0x10_0000, 0x20_0000);
    let mut words = Vec::with_capacity(n);
    let mut sum = 0u32;
    for i in 0..n {
        if i % segment == 0 {
            sum = 0;
        }
        sum = sum.wrapping_add(m.at(input, i) & 0xFFFF);
        words.push(sum);
    }
    Expected { grid: m.grid(2048), base: out, words }
}

fn pathfinder(m: &Input) -> Expected {
    const COLS: usize = 1700;
    const ROWS: usize = 17;
    let (wall, out) = (0x10_0000, 0x20_0000);
    // Costs 0..9: the top 16 bits of a 16-bit hash scaled by 10.
    let cost = |r: usize, c: usize| ((m.at(wall, COLS * r + c) & 0xFFFF) * 10) >> 16;
    let mut dist: Vec<u32> = (0..COLS).map(|c| cost(0, c)).collect();
    for r in 1..ROWS {
        dist = (0..COLS)
            .map(|c| {
                let neighbours = &dist[c.saturating_sub(1)..=(c + 1).min(COLS - 1)];
                cost(r, c) + neighbours.iter().min().unwrap()
            })
            .collect();
    }
    // Each block outputs the middle columns of its window, all but 16 on either side.
    let blocks = COLS.div_ceil(m.threads.saturating_sub(32).max(1));
    Expected { grid: (blocks as u32, m.threads as u32), base: out, words: dist }
}

fn bfs(m: &Input) -> Expected {
    const N: usize = 4096;
    let (deg, adj, level, out) = (0x10_0000, 0x20_0000, 0x30_0000, 0x40_0000);
    let level_of = |n: usize| m.at(level, n) & 15;
    let words = (0..N)
        .map(|n| {
            let degree = (m.at(deg, n) & 0x7F).count_ones() as usize;
            let neighbours = (0..degree).map(|j| m.at(adj, 8 * n + j) as usize % N);
            neighbours.map(|v| level_of(v) + 1).fold(level_of(n), u32::min)
        })
        .collect();
    Expected { grid: m.grid(4096), base: out, words }
}

fn heartwall(m: &Input) -> Expected {
    let words = (0..16 * 256u32)
        .map(|t| {
            let (mut r0, r4, r8, mut r5) = (t, t + 3, t + 5, 13u32);
            for _ in 0..16 {
                r0 = r0.wrapping_sub(1);
                let r18 = r5.wrapping_mul(r0);
                let r18 = r5.wrapping_mul(r0).wrapping_add(r18) << 16;
                r5 = r4.wrapping_mul(r0).wrapping_add(r8);
                r0 = r18.wrapping_add(r5.wrapping_add(0x4f + 0x4f) << 2);
            }
            r0
        })
        .collect();
    Expected { grid: m.grid(4096), base: 0x30_0000, words }
}

fn stencil(m: &Input) -> Expected {
    const DIM: usize = 128;
    let (input, out) = (0x10_0000, 0x20_0000);
    // Indices are clamped to the grid: a missing neighbour is the cell itself.
    let cell = |i: isize, j: isize| {
        let clamp = |v: isize| v.clamp(0, DIM as isize - 1) as usize;
        m.at(input, DIM * clamp(i) + clamp(j)) & 0xFF
    };
    let mut words = Vec::with_capacity(DIM * DIM);
    for i in 0..DIM as isize {
        for j in 0..DIM as isize {
            let around = [cell(i - 1, j), cell(i + 1, j), cell(i, j - 1), cell(i, j + 1)];
            words.push(around.iter().fold(cell(i, j).wrapping_mul(4), |acc, &v| acc.wrapping_sub(v)));
        }
    }
    // 16 bands of 8 rows along y; along x, blocks across the 128 columns.
    Expected { grid: m.grid(2048), base: out, words }
}
