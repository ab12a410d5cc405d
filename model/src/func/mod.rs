//! Functional executor: the architectural state of each warp (registers, predicates, SIMT
//! reconvergence stack) and the semantics of every instruction. The timing model executes a
//! warp's next instruction when it issues it, so memory is seen in timing order and state grows
//! with the warps in flight, never with the kernel's length.
//!
//! SIMT stack: a divergent branch turns the current entry into its reconvergence entry (the
//! branch's immediate post-dominator) and pushes the taken path, then the fall-through path, so
//! the fall-through path runs first. An entry is popped when its lanes reach its reconvergence
//! point or when all of them have exited.

pub mod arith;
pub mod barrier;
pub mod memory;

use crate::kernel::cfg::NO_RECONVERGENCE;
use crate::kernel::{Cmp, DpResult, Instr, Kernel, Op, Special, Src};
pub use memory::{GlobalMemory, default_word};
use std::fmt;

/// A runtime fault of the kernel (not of the model), with its source position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    pub line: u32,
    pub message: String,
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ExecError {}

/// Lane values of one executed instruction: its three sources and its destination.
#[derive(Clone, Debug)]
pub struct Values {
    lanes: usize,
    data: Vec<u32>,
    /// Per source: lanes whose register holds a value the warp wrote (the rest are undefined:
    /// the hardware would deliver whatever the register file holds).
    pub src_defined: [u64; 3],
}

impl Values {
    pub fn new(lanes: usize) -> Values {
        Values { lanes, data: vec![0; 4 * lanes], src_defined: [u64::MAX; 3] }
    }
    pub fn src(&self, slot: usize) -> &[u32] {
        &self.data[slot * self.lanes..][..self.lanes]
    }
    pub fn dst(&self) -> &[u32] {
        &self.data[3 * self.lanes..][..self.lanes]
    }
}

/// What the timing model needs to know about an executed instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exec {
    pub pc: u32,
    /// Lanes that executed it (the guard applied).
    pub mask: u64,
    /// Lanes of the warp's current control-flow path (before the guard): less than the warp's
    /// live lanes under branch divergence.
    pub path_mask: u64,
    /// Distinct 128-byte segments a global or texture access touched.
    pub segments: u32,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    pc: u32,
    mask: u64,
    /// Reconvergence point: the entry is popped when it reaches it.
    rpc: u32,
}

/// One warp's architectural state.
#[derive(Clone, Debug)]
pub struct Warp {
    pub block: u32,
    pub warp_in_block: u32,
    lanes: usize,
    /// The lanes that hold a thread of the block.
    threads: u64,
    regs: Vec<u32>,
    /// Per register: lanes written since the warp started.
    defined: Vec<u64>,
    preds: [u64; 8],
    stack: Vec<Entry>,
    /// Per lane, the double-precision unit's state between the passes of one operation
    /// (`Op::DpOperands`, `Op::Dp`, `Op::DpHigh`): three operand words, then the result's high
    /// word.
    dp: Vec<[u32; 4]>,
}

impl Warp {
    /// Warp `warp_in_block` of block `block`; lanes past the block's thread count never run.
    pub fn new(k: &Kernel, block: u32, warp_in_block: u32, lanes: u32) -> Warp {
        let first = warp_in_block * lanes;
        let live = k.threads.saturating_sub(first).min(lanes);
        let mask = if live >= 64 { u64::MAX } else { (1u64 << live) - 1 };
        let regs = vec![0; k.regs.max(1) as usize * lanes as usize];
        Warp {
            block,
            warp_in_block,
            lanes: lanes as usize,
            threads: mask,
            regs,
            defined: vec![0; k.regs.max(1) as usize],
            preds: [0; 8],
            stack: vec![Entry { pc: 0, mask, rpc: NO_RECONVERGENCE }],
            dp: vec![[0; 4]; lanes as usize],
        }
    }

    /// The next instruction and its lanes, or `None` when the warp has finished.
    pub fn next(&self) -> Option<(u32, u64)> {
        self.stack.last().map(|e| (e.pc, e.mask))
    }

    /// The lanes that execute the next instruction: its path's, with its guard applied.
    pub fn next_active(&self, k: &Kernel) -> Option<u64> {
        self.stack.last().map(|e| e.mask & self.guard(&k.code[e.pc as usize]))
    }

    /// The lanes an instruction's guard predicate lets through, as the predicates are now.
    fn guard(&self, ins: &Instr) -> u64 {
        match ins.guard {
            Some(g) => self.preds[g.pred as usize] ^ if g.negate { u64::MAX } else { 0 },
            None => u64::MAX,
        }
    }

    pub fn done(&self) -> bool {
        self.stack.is_empty()
    }

    /// Register `r` of every lane.
    pub fn reg(&self, r: u8) -> &[u32] {
        &self.regs[r as usize * self.lanes..][..self.lanes]
    }

    fn special(&self, k: &Kernel, s: Special, lane: usize) -> u32 {
        let tid = self.warp_in_block * self.lanes as u32 + lane as u32;
        match s {
            Special::Tid => tid,
            Special::Ntid => k.threads,
            Special::Ctaid => self.block,
            Special::Nctaid => k.blocks,
            Special::CtaidX => self.block % k.blocks_x(),
            Special::CtaidY => self.block / k.blocks_x(),
            Special::NctaidX => k.blocks_x(),
            Special::NctaidY => k.blocks_y,
            Special::Lane => lane as u32,
            Special::Warp => self.warp_in_block,
            Special::Gtid => self.block * k.threads + tid,
        }
    }

    fn load_src(&self, k: &Kernel, src: Src, out: &mut [u32]) {
        match src {
            Src::None => {}
            Src::Reg(r) => out.copy_from_slice(self.reg(r)),
            Src::Imm(v) => out.fill(v),
            Src::Special(s) => out.iter_mut().enumerate().for_each(|(l, o)| *o = self.special(k, s, l)),
        }
    }

    /// Executes the next instruction: updates registers, predicates, memory and the SIMT
    /// stack, and writes the source and destination lane values into `vals`.
    pub fn execute(
        &mut self,
        k: &Kernel,
        global: &mut GlobalMemory,
        shared: &mut [u32],
        vals: &mut Values,
    ) -> Result<Exec, ExecError> {
        let top = *self.stack.last().expect("execute is only called on a live warp");
        let pc = top.pc;
        let ins = &k.code[pc as usize];
        let fault = |message: String| ExecError { line: k.pos[pc as usize].line, message };
        let active = top.mask & self.guard(ins);
        let lanes = self.lanes;
        for s in 0..3 {
            self.load_src(k, ins.srcs[s], &mut vals.data[s * lanes..][..lanes]);
            vals.src_defined[s] = if let Src::Reg(r) = ins.srcs[s] { self.defined[r as usize] } else { u64::MAX };
        }
        let (srcs, dst) = vals.data.split_at_mut(3 * lanes);
        // Every slice `lanes` long, so that the per-lane loops index without bounds checks.
        let dst = &mut dst[..lanes];
        let (a, rest) = srcs.split_at(lanes);
        let (b, c) = rest.split_at(lanes);
        let mut segments = 0;
        let lane_on = |l: usize| active >> l & 1 == 1;

        match ins.op {
            Op::Bra => {
                let taken = active;
                let stay = top.mask & !taken;
                let e = self.stack.last_mut().unwrap();
                if stay == 0 {
                    e.pc = ins.target;
                } else if taken == 0 {
                    e.pc = pc + 1;
                } else {
                    let cur = self.stack.pop().unwrap();
                    let rpc = k.reconverge[pc as usize];
                    let child_rpc = if rpc == NO_RECONVERGENCE {
                        cur.rpc
                    } else {
                        self.stack.push(Entry { pc: rpc, mask: cur.mask, rpc: cur.rpc });
                        rpc
                    };
                    self.stack.push(Entry { pc: ins.target, mask: taken, rpc: child_rpc });
                    self.stack.push(Entry { pc: pc + 1, mask: stay, rpc: child_rpc });
                }
                self.normalize();
                return Ok(Exec { pc, mask: active, path_mask: top.mask, segments });
            }
            Op::Exit => {
                for e in &mut self.stack {
                    e.mask &= !active;
                }
                if let Some(e) = self.stack.last_mut() {
                    e.pc = pc + 1;
                }
                self.normalize();
                return Ok(Exec { pc, mask: active, path_mask: top.mask, segments });
            }
            Op::FSetp(_) | Op::AddCc => {
                // Writes a predicate: the comparison, or the carry out of the add.
                let mut result = 0u64;
                for l in 0..lanes {
                    let t = match ins.op {
                        Op::FSetp(cmp) => arith::compare(cmp, a[l], b[l]),
                        _ => {
                            dst[l] = a[l].wrapping_add(b[l]);
                            dst[l] < a[l]
                        }
                    };
                    result |= (t as u64) << l;
                }
                let p = &mut self.preds[ins.pdst.unwrap() as usize];
                *p = (*p & !active) | (result & active);
            }
            Op::Setp(cmp) => {
                let mut result = 0u64;
                for l in 0..lanes {
                    let (x, y) = (a[l], b[l]);
                    let (sx, sy) = (x as i32, y as i32);
                    let t = match cmp {
                        Cmp::Eq => x == y,
                        Cmp::Ne => x != y,
                        Cmp::Lt => sx < sy,
                        Cmp::Le => sx <= sy,
                        Cmp::Gt => sx > sy,
                        Cmp::Ge => sx >= sy,
                        Cmp::Ltu => x < y,
                        Cmp::Leu => x <= y,
                        Cmp::Gtu => x > y,
                        Cmp::Geu => x >= y,
                    };
                    result |= (t as u64) << l;
                }
                let p = &mut self.preds[ins.pdst.unwrap() as usize];
                *p = (*p & !active) | (result & active);
            }
            Op::LdGlobal | Op::LdTex | Op::StGlobal | Op::AtomAdd | Op::AtomAddF => {
                let mut segs = [u32::MAX; 64];
                for l in (0..lanes).filter(|&l| lane_on(l)) {
                    high_word_is_zero(ins.srcs[2], c[l], l).map_err(fault)?;
                    // Addresses do not wrap: past either end of the 4 GiB space is a fault.
                    let Ok(addr) = u32::try_from(i64::from(a[l]) + i64::from(ins.offset)) else {
                        return Err(fault(format!(
                            "global address 0x{:08x} {} {} in lane {l} is outside the 4 GiB address space",
                            a[l],
                            if ins.offset < 0 { '-' } else { '+' },
                            ins.offset.unsigned_abs()
                        )));
                    };
                    if addr % 4 != 0 {
                        return Err(fault(format!("misaligned global address 0x{addr:08x} in lane {l}")));
                    }
                    match ins.op {
                        Op::StGlobal => global.write(addr, b[l]),
                        Op::AtomAdd | Op::AtomAddF => {
                            dst[l] = global.read(addr);
                            let sum = if ins.op == Op::AtomAdd {
                                dst[l].wrapping_add(b[l])
                            } else {
                                arith::lane(Op::FAdd, dst[l], b[l], 0, false)
                            };
                            global.write(addr, sum);
                        }
                        _ => dst[l] = global.read(addr),
                    }
                    segs[segments as usize] = addr >> 7;
                    segments += 1;
                }
                let touched = &mut segs[..segments as usize];
                touched.sort_unstable();
                segments = 1 + touched.windows(2).filter(|w| w[0] != w[1]).count() as u32;
                if touched.is_empty() {
                    segments = 0;
                }
            }
            Op::LdShared | Op::StShared | Op::AtomAddShared => {
                // Every lane's address is checked at once, in a loop without branches that
                // vectorizes (shared loads are a large share of tiled kernels); only if some lane's
                // is wrong are the active lanes searched for the first to report.
                let offset = ins.offset as u32;
                let high_mask = if matches!(ins.srcs[2], Src::Reg(_)) { u32::MAX } else { 0 };
                let words = u32::try_from(shared.len()).unwrap_or(u32::MAX);
                let wrong = |x: u32, high: u32| {
                    let addr = x.wrapping_add(offset);
                    (high & high_mask) | (addr % 4) | u32::from(addr / 4 >= words)
                };
                if a.iter().zip(c).fold(0, |any, (&x, &high)| any | wrong(x, high)) != 0
                    && let Some(l) = (0..lanes).find(|&l| lane_on(l) && wrong(a[l], c[l]) != 0)
                {
                    high_word_is_zero(ins.srcs[2], c[l], l).map_err(fault)?;
                    return Err(fault(format!(
                        "shared address 0x{:x} in lane {l} is misaligned or outside the {} bytes of .shared",
                        a[l].wrapping_add(offset),
                        shared.len() * 4
                    )));
                }
                let word = |l: usize| (a[l].wrapping_add(offset) / 4) as usize;
                if ins.op == Op::LdShared {
                    each_lane(active, dst, |l| shared[word(l)]);
                } else {
                    // Lanes in ascending order, as atom.global.add (and the highest of lanes
                    // storing to one word wins).
                    let mut m = active;
                    while m != 0 {
                        let l = m.trailing_zeros() as usize;
                        if ins.op == Op::AtomAddShared {
                            dst[l] = shared[word(l)];
                            shared[word(l)] = dst[l].wrapping_add(b[l]);
                        } else {
                            shared[word(l)] = b[l];
                        }
                        m &= m - 1;
                    }
                }
            }
            Op::DpOperands => {
                for l in (0..lanes).filter(|&l| lane_on(l)) {
                    self.dp[l][..3].copy_from_slice(&[a[l], b[l], c[l]]);
                }
            }
            Op::Dp(op) => {
                let mut preds = 0u64;
                let (held, brought) = (op.held(), op.words() - op.held());
                for l in (0..lanes).filter(|&l| lane_on(l)) {
                    let mut words = [0u32; 6];
                    words[..held].copy_from_slice(&self.dp[l][..held]);
                    words[held..held + brought].copy_from_slice(&[a[l], b[l], c[l]][..brought]);
                    let r = arith::double(op, &words[..op.words()]);
                    match op.result() {
                        DpResult::Pred => preds |= (r & 1) << l,
                        DpResult::Word => dst[l] = r as u32,
                        DpResult::Double => (dst[l], self.dp[l][3]) = (r as u32, (r >> 32) as u32),
                    }
                }
                if let Some(p) = ins.pdst {
                    let p = &mut self.preds[p as usize];
                    *p = (*p & !active) | preds;
                }
            }
            Op::DpHigh => {
                for l in (0..lanes).filter(|&l| lane_on(l)) {
                    dst[l] = self.dp[l][3];
                }
            }
            Op::Bar if active != self.threads => {
                return Err(fault(barrier::partial_warp(self.block, self.warp_in_block, active, self.threads)));
            }
            Op::Bar => {}
            op => {
                let sel = ins.psrc.map(|p| self.preds[p as usize]).unwrap_or(0);
                // A loop per operation, so that the operation is decided once, not per lane.
                macro_rules! per_op {
                    ($($o:ident),*) => {
                        match op {
                            Op::FFma => fma_lanes(active, dst, a, b, c),
                            $(Op::$o => each_lane(active, dst, |l| alu(Op::$o, a[l], b[l], c[l], sel >> l & 1 == 1)),)*
                            op => each_lane(active, dst, |l| alu(op, a[l], b[l], c[l], sel >> l & 1 == 1)),
                        }
                    };
                }
                per_op!(
                    Add, Sub, Mul, Mad, And, Or, Xor, Shl, Shr, Sra, Min, Max, Mov, Selp, MulHi, MulHiU, AddX, FAdd,
                    FSub, FMul, FMin, FMax, Bfe, FDiv, FSqrt, FRcp
                );
            }
        }
        if let Some(d) = ins.dst {
            self.defined[d as usize] |= active;
            let reg = &mut self.regs[d as usize * lanes..][..lanes];
            if active == lane_bits(lanes) {
                reg.copy_from_slice(&dst[..lanes]);
            } else {
                each_lane(active, reg, |l| dst[l]);
            }
        }
        self.stack.last_mut().unwrap().pc = pc + 1;
        self.normalize();
        Ok(Exec { pc, mask: active, path_mask: top.mask, segments })
    }

    /// Pops entries that have reconverged or have no live lanes.
    fn normalize(&mut self) {
        while let Some(e) = self.stack.last() {
            if e.mask == 0 || e.pc == e.rpc {
                self.stack.pop();
            } else {
                break;
            }
        }
    }
}

/// A bit for each of `lanes` lanes.
fn lane_bits(lanes: usize) -> u64 {
    if lanes >= 64 { u64::MAX } else { (1u64 << lanes) - 1 }
}

/// `out[l] = f(l)` for each lane `l` set in `mask`.
#[inline(always)]
fn each_lane(mask: u64, out: &mut [u32], f: impl Fn(usize) -> u32) {
    // A whole warp (most operations) in a plain loop, which vectorizes, instead of a bit scan.
    let all = lane_bits(out.len());
    if mask == all {
        for (l, o) in out.iter_mut().enumerate() {
            *o = f(l);
        }
        return;
    }
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        out[l] = f(l);
        m &= m - 1;
    }
}

/// `fma.rn.f32` of the lanes in `mask`: `x * y + z` rounded once, as [`arith::lane`] computes it.
fn fma_lanes(mask: u64, out: &mut [u32], x: &[u32], y: &[u32], z: &[u32]) {
    // The baseline x86-64 target has no FMA instruction: `f32::mul_add` calls the library's
    // `fmaf`, which uses the instruction when the CPU has it, a call per lane. Compiled with
    // the instruction, the loop has none (the same correctly rounded result).
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA (checked just above), the only feature the function enables.
        unsafe { fma_lanes_with_fma(mask, out, x, y, z) };
        return;
    }
    each_lane(mask, out, |l| arith::lane(Op::FFma, x[l], y[l], z[l], false));
}

/// [`fma_lanes`] compiled for a CPU with the FMA instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma_lanes_with_fma(mask: u64, out: &mut [u32], x: &[u32], y: &[u32], z: &[u32]) {
    let fma = |l: usize| arith::lane(Op::FFma, x[l], y[l], z[l], false);
    // A whole 32-lane warp (most): with the length known, the loop is four vector instructions
    // (with `out`'s length, the compiler leaves 32 lanes to the loop's scalar remainder).
    if mask == u64::from(u32::MAX) && out.len() == 32 && x.len().min(y.len()).min(z.len()) >= 32 {
        for (l, o) in out[..32].iter_mut().enumerate() {
            *o = fma(l);
        }
        return;
    }
    each_lane(mask, out, fma);
}

/// One lane of an operation with a register result and no side effect: sources `x, y, z` and
/// the lane's bit of `psrc` (`selp`'s choice, `addc`'s carry).
#[inline(always)]
fn alu(op: Op, x: u32, y: u32, z: u32, sel: bool) -> u32 {
    match op {
        Op::Add => x.wrapping_add(y),
        Op::Sub => x.wrapping_sub(y),
        Op::Mul => x.wrapping_mul(y),
        Op::Mad => x.wrapping_mul(y).wrapping_add(z),
        Op::And => x & y,
        Op::Or => x | y,
        Op::Xor => x ^ y,
        Op::Shl => x << (y & 31),
        Op::Shr => x >> (y & 31),
        Op::Sra => ((x as i32) >> (y & 31)) as u32,
        Op::Min => (x as i32).min(y as i32) as u32,
        Op::Max => (x as i32).max(y as i32) as u32,
        Op::Mov => x,
        Op::Selp => {
            if sel {
                x
            } else {
                y
            }
        }
        Op::Popc => x.count_ones(),
        Op::Clz => x.leading_zeros(),
        Op::Isqrt => x.isqrt(),
        Op::Rcp => u32::MAX.checked_div(x).unwrap_or(u32::MAX),
        op => arith::lane(op, x, y, z, sel),
    }
}

/// A 64-bit address (PTX) must lie in the 4 GiB the model holds: its high word, a register in
/// `srcs[2]`, zero.
fn high_word_is_zero(high: Src, value: u32, lane: usize) -> Result<(), String> {
    match high {
        Src::Reg(_) if value != 0 => Err(format!(
            "64-bit address with high word 0x{value:08x} in lane {lane} is outside the 4 GiB address space"
        )),
        _ => Ok(()),
    }
}

/// Result of running a kernel without timing.
#[derive(Clone, Debug)]
pub struct FunctionalRun {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub memory: GlobalMemory,
}

/// Global memory with the kernel's data section applied.
pub fn initial_memory(k: &Kernel) -> GlobalMemory {
    let mut m = GlobalMemory::default();
    for d in &k.data {
        for (i, &w) in d.words.iter().enumerate() {
            m.write(d.addr.wrapping_add(4 * i as u32), w);
        }
    }
    m
}

/// Runs every block to completion, one block at a time; inside a block each warp runs until it
/// reaches a barrier or exits, and a barrier releases once every warp has reached it.
pub fn run(k: &Kernel, lanes: u32) -> Result<FunctionalRun, ExecError> {
    let mut memory = initial_memory(k);
    let mut vals = Values::new(lanes as usize);
    let (mut warp_instructions, mut thread_instructions) = (0, 0);
    for block in 0..k.blocks {
        let mut shared = vec![0u32; k.shared_bytes as usize / 4];
        let mut warps: Vec<Warp> = (0..k.warps_per_block(lanes)).map(|w| Warp::new(k, block, w, lanes)).collect();
        let mut barrier = barrier::BlockBarrier::default();
        while warps.iter().any(|w| !w.done()) {
            for w in warps.iter_mut() {
                while let Some((pc, _)) = w.next() {
                    let e = w.execute(k, &mut memory, &mut shared, &mut vals)?;
                    warp_instructions += 1;
                    thread_instructions += e.mask.count_ones() as u64;
                    if w.done() {
                        barrier.exit(k, block, w.warp_in_block, pc)?;
                    }
                    if k.code[pc as usize].op == Op::Bar {
                        barrier.arrive(k, block, w.warp_in_block, pc)?;
                        break;
                    }
                }
            }
            barrier.release();
        }
    }
    Ok(FunctionalRun { warp_instructions, thread_instructions, memory })
}
