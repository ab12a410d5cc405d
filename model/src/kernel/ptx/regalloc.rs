//! Register allocation (docs/ptx.md): liveness over the lowered code's control flow, one live
//! interval per virtual register, then linear scan in order of interval start, each value
//! taking the lowest free architectural register (a 64-bit value the lowest free aligned pair,
//! a predicate the lowest free of the predicate file). Liveness is per lane, as registers are:
//! a lane runs one path of a divergent branch, so values of different paths may share.

use super::PtxError;
use super::lower::{Class, Lowered, VInstr, VReg, VSrc};

/// Architectural registers a kernel may use (register ids are 8 bits).
pub const MAX_REGISTERS: u32 = 256;
/// The predicate file's size (docs/kernel-ir.md).
pub const PREDICATES: u32 = 8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// Per virtual register: its architectural register (a pair's even first register) or
    /// predicate; `None` for one the code never uses.
    pub place: Vec<Option<u32>>,
    /// Registers used: the highest number plus one, as `ptxas -v` counts them.
    pub registers: u32,
    pub predicates: u32,
}

/// A point between instructions: instruction `i` reads at `2i` and writes at `2i + 1`, so a
/// value read for the last time by an instruction may share a register with its result.
type Point = u32;

struct BitSet(Vec<u64>);

impl BitSet {
    fn new(n: usize) -> BitSet {
        BitSet(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, v: VReg) {
        self.0[v as usize / 64] |= 1 << (v % 64);
    }
    fn remove(&mut self, v: VReg) {
        self.0[v as usize / 64] &= !(1 << (v % 64));
    }
    fn iter(&self) -> impl Iterator<Item = VReg> + '_ {
        self.0
            .iter()
            .enumerate()
            .flat_map(|(w, &bits)| (0..64).filter(move |b| bits >> b & 1 == 1).map(move |b| (w * 64 + b) as VReg))
    }
}

fn uses(ins: &VInstr) -> impl Iterator<Item = VReg> + '_ {
    let regs = ins.srcs.iter().filter_map(|s| if let VSrc::Reg((v, _)) = s { Some(*v) } else { None });
    regs.chain(ins.guard.map(|g| g.0)).chain(ins.psrc)
}

fn defs(ins: &VInstr) -> impl Iterator<Item = VReg> + '_ {
    ins.dst.map(|d| d.0).into_iter().chain(ins.pdst)
}

/// Definitions that overwrite the whole value on every active lane: unguarded, and for a
/// 64-bit value the write of its high half. Lowering writes both halves for one PTX
/// instruction, so the value is dead before that instruction; an interval spans every point
/// from its first definition, so the other half's write is covered in whichever order.
fn kills<'a>(ins: &'a VInstr, classes: &'a [Class]) -> impl Iterator<Item = VReg> + 'a {
    let whole = ins.dst.filter(|&(v, half)| classes[v as usize] != Class::W64 || half == 1).map(|d| d.0);
    whole.into_iter().chain(ins.pdst).filter(move |_| ins.guard.is_none())
}

fn successors(code: &[VInstr], i: usize) -> Vec<usize> {
    let ins = &code[i];
    let next = (i + 1 < code.len()).then_some(i + 1);
    match (ins.op, ins.guard.is_some()) {
        (crate::kernel::Op::Bra, false) => vec![ins.target as usize],
        (crate::kernel::Op::Bra, true) => [Some(ins.target as usize), next].into_iter().flatten().collect(),
        (crate::kernel::Op::Exit, false) => vec![],
        _ => next.into_iter().collect(),
    }
}

/// Each virtual register's live interval `[first, last]` point, `None` when unused.
fn intervals(l: &Lowered) -> Vec<Option<(Point, Point)>> {
    let (n, vregs) = (l.code.len(), l.classes.len());
    let succ: Vec<Vec<usize>> = (0..n).map(|i| successors(&l.code, i)).collect();
    let mut live_in: Vec<BitSet> = (0..n).map(|_| BitSet::new(vregs)).collect();
    let live_out = |live_in: &[BitSet], i: usize| {
        let mut out = BitSet::new(vregs);
        for &s in &succ[i] {
            out.0.iter_mut().zip(&live_in[s].0).for_each(|(a, b)| *a |= b);
        }
        out
    };
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut set = live_out(&live_in, i);
            kills(&l.code[i], &l.classes).for_each(|v| set.remove(v));
            uses(&l.code[i]).for_each(|v| set.insert(v));
            if set.0 != live_in[i].0 {
                live_in[i] = set;
                changed = true;
            }
        }
    }
    let mut span: Vec<Option<(Point, Point)>> = vec![None; vregs];
    let mut extend = |v: VReg, p: Point| {
        let s = &mut span[v as usize];
        *s = Some(s.map_or((p, p), |(a, b)| (a.min(p), b.max(p))));
    };
    for i in 0..n {
        let (read, write) = (2 * i as Point, 2 * i as Point + 1);
        live_in[i].iter().for_each(|v| extend(v, read));
        live_out(&live_in, i).iter().chain(defs(&l.code[i])).for_each(|v| extend(v, write));
    }
    span
}

/// Allocates every virtual register of `l`.
pub fn allocate(l: &Lowered) -> Result<Allocation, PtxError> {
    let span = intervals(l);
    let mut order: Vec<(Point, Point, VReg)> =
        span.iter().enumerate().filter_map(|(v, s)| s.map(|(a, b)| (a, b, v as VReg))).collect();
    order.sort_unstable();
    let mut place = vec![None; l.classes.len()];
    let mut busy_regs = vec![false; MAX_REGISTERS as usize];
    let mut busy_preds = [false; PREDICATES as usize];
    let mut active: Vec<(Point, VReg)> = Vec::new();
    let (mut registers, mut predicates) = (0, 0);
    for (start, end, v) in order {
        active.retain(|&(e, a)| {
            let live = e >= start;
            if !live {
                let r = place[a as usize].unwrap() as usize;
                match l.classes[a as usize] {
                    Class::W32 => busy_regs[r] = false,
                    Class::W64 => busy_regs[r..r + 2].fill(false),
                    Class::Pred => busy_preds[r] = false,
                }
            }
            live
        });
        let line = l.code[start as usize / 2].line;
        let r = match l.classes[v as usize] {
            Class::Pred => {
                let Some(p) = busy_preds.iter().position(|b| !b) else {
                    return Err(PtxError {
                        line,
                        message: format!(
                            "more than {PREDICATES} predicates are live here (at `{}`)",
                            l.names[v as usize]
                        ),
                    });
                };
                busy_preds[p] = true;
                predicates = predicates.max(p as u32 + 1);
                p
            }
            class => {
                let width = if class == Class::W64 { 2 } else { 1 };
                let Some(r) = (0..busy_regs.len()).step_by(width).find(|&r| !busy_regs[r..r + width].contains(&true))
                else {
                    return Err(PtxError {
                        line,
                        message: format!(
                            "more than {MAX_REGISTERS} registers are live here (at `{}`); spilling is not supported yet",
                            l.names[v as usize]
                        ),
                    });
                };
                busy_regs[r..r + width].fill(true);
                registers = registers.max((r + width) as u32);
                r
            }
        };
        place[v as usize] = Some(r as u32);
        active.push((end, v));
    }
    Ok(Allocation { place, registers, predicates })
}

/// The numbering an allocator without liveness would give, to compare bank conflicts against
/// (tests/ptx_regalloc.rs): every 32-bit value its own register and every 64-bit value its own
/// aligned pair, in virtual-register order; predicates as [`allocate`] places them (the
/// predicate file holds only 8).
pub fn virtual_order(l: &Lowered) -> Result<Allocation, PtxError> {
    let mut alloc = allocate(l)?;
    let mut next = 0u32;
    for (v, class) in l.classes.iter().enumerate() {
        let width = match class {
            Class::Pred => continue,
            Class::W32 => 1,
            Class::W64 => 2,
        };
        if alloc.place[v].is_none() {
            continue;
        }
        next = next.next_multiple_of(width);
        if next + width > MAX_REGISTERS {
            return Err(PtxError {
                line: 1,
                message: format!("more than {MAX_REGISTERS} registers in virtual-register order"),
            });
        }
        alloc.place[v] = Some(next);
        next += width;
    }
    alloc.registers = next;
    Ok(alloc)
}
