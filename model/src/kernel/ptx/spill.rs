//! Spilling (docs/ptx.md, *Register allocation*): when allocation needs more registers than the
//! SM gives a thread, values are moved to per-thread local memory one at a time, the one used
//! over the longest stretch of code first, until the rest fit (predicates stay: the predicate
//! file is not the limit). A spilled value lives in slots of global memory from [`LOCAL_BASE`]
//! (CUDA's `.local` is global memory private to a thread); every instruction touching it loads
//! it into a short-lived temporary before and stores it back after, so the value needs
//! registers only across that instruction.

use super::PtxError;
use super::lower::{Class, Lowered, VInstr, VReg, VSrc};
use super::regalloc::{self, Allocation};
use crate::kernel::{Op, Special};

/// Global address of the local slots: slot `s` of thread `t` (its index in the grid) is the
/// word at `LOCAL_BASE + 4 * (s * threads_in_grid + t)`, so a warp's accesses to a slot are
/// consecutive words, as the hardware interleaves local memory.
pub const LOCAL_BASE: u32 = 0x8000_0000;

/// An allocation that fits `max_registers`, and the values spilled to reach it.
pub struct Spilled {
    pub code: Lowered,
    pub alloc: Allocation,
    pub spilled: u32,
}

/// Allocates `l`, spilling values until at most `max_registers` are used; `threads_in_grid`
/// spaces the slots.
pub fn allocate_within(l: &Lowered, max_registers: u32, threads_in_grid: u32) -> Result<Spilled, PtxError> {
    let mut code = l.clone();
    let mut alloc = regalloc::allocate(&code)?;
    let (mut spilled, mut slots) = (0u32, 0u32);
    // Values spill code made (the base and the temporaries): never spilled themselves.
    let mut pinned = vec![false; code.classes.len()];
    let mut base = None;
    let stride = u64::from(threads_in_grid) * 4;
    while alloc.registers > max_registers {
        let victim = longest_unpinned(&code, &pinned);
        let width = victim.map_or(1, |v| if code.classes[v as usize] == Class::W64 { 2 } else { 1 });
        let slots_fit = u64::from(slots + width) * stride <= i32::MAX as u64;
        let Some(victim) = victim.filter(|_| slots_fit) else {
            return Err(PtxError {
                line: code.code.first().map_or(1, |i| i.line),
                message: format!(
                    "needs {} registers per thread even with its values spilled to local memory (the values one instruction uses stay in registers): sm.registers_per_thread = {max_registers} is too few",
                    alloc.registers
                ),
            });
        };
        let base_reg = *base.get_or_insert_with(|| add_base(&mut code));
        spill(&mut code, victim, base_reg, (u64::from(slots) * stride) as i32, stride as i32);
        spilled += 1;
        slots += width;
        pinned.resize(code.classes.len(), true);
        pinned[victim as usize] = true;
        pinned[base_reg as usize] = true;
        alloc = regalloc::allocate(&code)?;
    }
    Ok(Spilled { code, alloc, spilled })
}

/// The unpinned value (not a predicate) with the most instructions between its first and last
/// use.
fn longest_unpinned(l: &Lowered, pinned: &[bool]) -> Option<VReg> {
    let mut span: Vec<Option<(usize, usize)>> = vec![None; l.classes.len()];
    for (i, ins) in l.code.iter().enumerate() {
        let srcs = ins.srcs.iter().filter_map(|s| if let VSrc::Reg((v, _)) = s { Some(*v) } else { None });
        for v in srcs.chain(ins.dst.map(|d| d.0)) {
            let s = &mut span[v as usize];
            *s = Some(s.map_or((i, i), |(a, b)| (a.min(i), b.max(i))));
        }
    }
    (0..l.classes.len())
        .filter(|&v| l.classes[v] != Class::Pred && !pinned[v])
        .filter_map(|v| span[v].map(|(a, b)| (b - a, v)))
        .max()
        .map(|(_, v)| v as VReg)
}

fn fresh(l: &mut Lowered, name: &str, class: Class) -> VReg {
    l.classes.push(class);
    l.names.push(name.to_string());
    (l.classes.len() - 1) as VReg
}

fn instr(op: Op, dst: Option<(VReg, u8)>, srcs: [VSrc; 3], offset: i32, line: u32) -> VInstr {
    VInstr { op, guard: None, dst, pdst: None, srcs, psrc: None, offset, target: 0, line }
}

/// Inserts, before `l`'s first instruction, the address of the thread's first slot.
fn add_base(l: &mut Lowered) -> VReg {
    let base = fresh(l, "local base", Class::W32);
    let line = l.code.first().map_or(1, |i| i.line);
    let head = [
        instr(Op::Shl, Some((base, 0)), [VSrc::Special(Special::Gtid), VSrc::Imm(2), VSrc::None], 0, line),
        instr(Op::Add, Some((base, 0)), [VSrc::Reg((base, 0)), VSrc::Imm(LOCAL_BASE), VSrc::None], 0, line),
    ];
    rebuild(l, |i, _| if i == 0 { head.to_vec() } else { Vec::new() }, |_, _| Vec::new());
    base
}

/// What spilling puts around one instruction touching the spilled value: its temporary,
/// whether the value is loaded before, and whether the instruction writes it (stored after).
#[derive(Clone, Copy)]
struct Around {
    temp: VReg,
    load: bool,
    store: Option<u8>,
}

/// Replaces `v` by a temporary in every instruction touching it: loaded before (when read, or
/// written in part — under a guard, or one half of a pair — so what the instruction leaves
/// keeps its value), stored after (the half written). Slot `s` (a pair's high word in `s + 1`)
/// is at `offset(s)`.
fn spill(l: &mut Lowered, v: VReg, base: VReg, slot: i32, stride: i32) {
    let class = l.classes[v as usize];
    let name = format!("{} (spilled)", l.names[v as usize]);
    let mut around: Vec<Option<Around>> = Vec::new();
    for ins in &l.code {
        let reads = ins.srcs.iter().any(|s| matches!(s, VSrc::Reg((r, _)) if *r == v));
        let store = ins.dst.filter(|d| d.0 == v).map(|d| d.1);
        let touched = reads || store.is_some();
        let load = reads || class == Class::W64 || store.is_some() && ins.guard.is_some();
        around.push(touched.then_some(Around { temp: 0, load, store }));
    }
    for a in around.iter_mut().flatten() {
        a.temp = fresh(l, &name, class);
    }
    let addr = VSrc::Reg((base, 0));
    let halves = if class == Class::W64 { 2 } else { 1 };
    rebuild(
        l,
        |i, ins| match around[i] {
            Some(a) if a.load => (0..halves)
                .map(|h| {
                    instr(
                        Op::LdGlobal,
                        Some((a.temp, h)),
                        [addr, VSrc::None, VSrc::None],
                        slot + i32::from(h) * stride,
                        ins.line,
                    )
                })
                .collect(),
            _ => Vec::new(),
        },
        |i, ins| match around[i] {
            Some(Around { temp, store: Some(h), .. }) => vec![instr(
                Op::StGlobal,
                None,
                [addr, VSrc::Reg((temp, h)), VSrc::None],
                slot + i32::from(h) * stride,
                ins.line,
            )],
            _ => Vec::new(),
        },
    );
    // Each original instruction sits after the loads inserted before it.
    let mut i = 0;
    for a in &around {
        let before = a.map_or(0, |a| if a.load { halves as usize } else { 0 });
        let ins = &mut l.code[i + before];
        if let Some(a) = a {
            for s in ins.srcs.iter_mut() {
                if let VSrc::Reg((r, h)) = *s
                    && r == v
                {
                    *s = VSrc::Reg((a.temp, h));
                }
            }
            if let Some((r, h)) = ins.dst
                && r == v
            {
                ins.dst = Some((a.temp, h));
            }
        }
        i += before + 1 + a.is_some_and(|a| a.store.is_some()) as usize;
    }
}

/// Rebuilds `l.code` with `before(i)` inserted before and `after(i)` after instruction `i`;
/// branch targets follow their instruction (to the first inserted before it).
fn rebuild(
    l: &mut Lowered,
    before: impl Fn(usize, &VInstr) -> Vec<VInstr>,
    after: impl Fn(usize, &VInstr) -> Vec<VInstr>,
) {
    let mut code = Vec::with_capacity(l.code.len());
    let mut moved = Vec::with_capacity(l.code.len());
    for (i, ins) in l.code.iter().enumerate() {
        moved.push(code.len() as u32);
        code.extend(before(i, ins));
        code.push(ins.clone());
        code.extend(after(i, ins));
    }
    for ins in &mut code {
        if ins.op == Op::Bra {
            ins.target = moved[ins.target as usize];
        }
    }
    l.code = code;
}
