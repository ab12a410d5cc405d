//! Operand register file (ORF) and last result file (LRF) allocation (SPEC §3; dissertation
//! ch. 6, extract §3.4): the compiler decides, per operand, which level of the register
//! hierarchy it reads from and which levels a result is written to.
//!
//! - **Scope.** One strand at a time, and within it one basic block: a value lives in an upper
//!   level only from its definition (or, for a read operand, its first read) to a read in the
//!   same basic block. Where control flow makes a value's place uncertain it comes from the MRF;
//!   the dissertation's forward-branch extension (about 2 % of its savings) is not done.
//! - **Candidates.** A *written value*: an unguarded write and its reads until the register is
//!   written again or the block ends. Savings (Fig 6.5): `reads × (MRF read − upper read) −
//!   upper write`, plus the MRF write when no read outside the range needs it. A *read operand*
//!   (Fig 6.8): a register read at least twice in the block before any write there; its first
//!   read comes from the MRF and fills the upper level, saving `(reads − 1) × (MRF read − upper
//!   read) − upper write`.
//! - **Greedy** (Fig 6.6): candidates by savings ÷ the instructions they occupy the entry,
//!   largest first; first fit over the entries. A value occupies an entry from just after the
//!   instruction that writes it to its last read, so an entry freed by a read can be written by
//!   the same instruction. **Partial range**: a value that fits nowhere gives its last read
//!   back to the MRF (it is then written to the MRF too) until it fits or saves nothing.
//! - **Three levels.** The LRF is allocated first: written values produced and read only by
//!   the ALU (the LRF sits on the private datapath), one entry (unified) or, split, one entry
//!   per operand slot for values read in that slot only; then the ORF takes the rest. A value is
//!   in the LRF or the ORF, never both; with the MRF as its third copy when needed.

use super::{Kernel, Op, Src};
use rfgen_gen::config::{Energy, LrfKind};

/// Where an operand lives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Level {
    #[default]
    Mrf,
    /// ORF entry.
    Orf(u8),
    /// LRF entry: the operand slot for a split LRF, 0 for a unified one.
    Lrf(u8),
}

/// The levels of one instruction's operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Where each source slot reads from.
    pub src: [Level; 3],
    /// A source read from the MRF that also fills this upper-level entry (read operand).
    pub fill: [Option<Level>; 3],
    /// The result is written to the MRF.
    pub dst_mrf: bool,
    /// The result is also (or only) written to this upper-level entry.
    pub dst_upper: Option<Level>,
}

impl Default for Placement {
    fn default() -> Self {
        Placement { src: [Level::Mrf; 3], fill: [None; 3], dst_mrf: true, dst_upper: None }
    }
}

/// Energy per access of each level as the compiler weighs it: bank access plus wire to the
/// private datapath, per 128 bits (pJ).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    pub mrf_read: f64,
    pub mrf_write: f64,
    pub orf_read: f64,
    pub orf_write: f64,
    pub lrf_read: f64,
    pub lrf_write: f64,
}

impl Costs {
    /// From the energy table, for an ORF of `entries` per thread.
    pub fn new(e: &Energy, entries: u32) -> Costs {
        let wire = |mm: f64| 4.0 * e.wire_pj_per_mm * mm;
        let i = entries.clamp(1, e.small_rf_read_pj.len() as u32) as usize - 1;
        Costs {
            mrf_read: e.mrf_read_pj + wire(e.mrf_wire_mm),
            mrf_write: e.mrf_write_pj + wire(e.mrf_wire_mm),
            orf_read: e.small_rf_read_pj[i] + wire(e.orf_private_wire_mm),
            orf_write: e.small_rf_write_pj[i] + wire(e.orf_private_wire_mm),
            lrf_read: e.lrf_read_pj + wire(e.lrf_wire_mm),
            lrf_write: e.lrf_write_pj + wire(e.lrf_wire_mm),
        }
    }
}

/// A value that may live in an upper level.
#[derive(Clone, Debug)]
struct Candidate {
    /// The instruction that writes it (written value) or first reads it (read operand).
    start: usize,
    /// For a read operand, the slot of its first read.
    fill_slot: Option<usize>,
    /// Reads served from the upper level, in program order: (instruction, slot).
    reads: Vec<(usize, usize)>,
    /// A read outside `reads` needs the value in the MRF.
    live_beyond: bool,
    /// Produced and read by the ALU only (the LRF's private datapath).
    private: bool,
}

impl Candidate {
    fn end(&self) -> usize {
        self.reads.last().map_or(self.start, |r| r.0)
    }

    /// Energy saved in `level` (read, write costs), against everything in the MRF.
    fn savings(&self, c: &Costs, read: f64, write: f64) -> f64 {
        let reads = self.reads.len() as f64 * (c.mrf_read - read) - write;
        match self.fill_slot {
            Some(_) => reads,
            None if self.live_beyond => reads,
            None => reads + c.mrf_write,
        }
    }

    fn priority(&self, c: &Costs, read: f64, write: f64) -> f64 {
        self.savings(c, read, write) / (self.end() - self.start).max(1) as f64
    }
}

/// The placement of every instruction of `k` for an ORF of `orf_entries` per thread (0: none)
/// and an LRF of kind `lrf`.
pub fn allocate(k: &Kernel, orf_entries: u32, lrf: LrfKind, c: &Costs) -> Vec<Placement> {
    let mut place = vec![Placement::default(); k.code.len()];
    let candidates = candidates(k);
    let mut taken = vec![false; candidates.len()];
    // LRF first: written values of the private datapath; split, one entry per operand slot.
    let lrf_slots: &[Option<usize>] = match lrf {
        LrfKind::None => &[],
        LrfKind::Unified => &[None],
        LrfKind::Split => &[Some(0), Some(1), Some(2)],
    };
    for &slot in lrf_slots {
        let fits =
            |v: &Candidate| v.private && v.fill_slot.is_none() && slot.is_none_or(|s| v.reads.iter().all(|r| r.1 == s));
        let pool: Vec<usize> = (0..candidates.len()).filter(|&i| !taken[i] && fits(&candidates[i])).collect();
        for (i, v, _) in greedy(&candidates, &pool, 1, c, (c.lrf_read, c.lrf_write)) {
            taken[i] = true;
            apply(&mut place, &v, Level::Lrf(slot.unwrap_or(0) as u8));
        }
    }
    let pool: Vec<usize> = (0..candidates.len()).filter(|&i| !taken[i]).collect();
    for (_, v, entry) in greedy(&candidates, &pool, orf_entries, c, (c.orf_read, c.orf_write)) {
        apply(&mut place, &v, Level::Orf(entry as u8));
    }
    place
}

/// Greedy first fit of the candidates `pool` over `entries` entries of a level with these
/// (read, write) costs, shortening ranges that fit nowhere: the allocated candidates (index, as
/// allocated, entry).
fn greedy(
    cands: &[Candidate],
    pool: &[usize],
    entries: u32,
    c: &Costs,
    (read, write): (f64, f64),
) -> Vec<(usize, Candidate, usize)> {
    let saves = |v: &Candidate| v.savings(c, read, write) > 0.0;
    let mut order: Vec<usize> = pool.iter().copied().filter(|&i| saves(&cands[i])).collect();
    let priority = |i: usize| cands[i].priority(c, read, write);
    order.sort_by(|&a, &b| priority(b).total_cmp(&priority(a)).then(a.cmp(&b)));
    // Per entry, the occupied intervals (start, end].
    let mut busy: Vec<Vec<(usize, usize)>> = vec![Vec::new(); entries as usize];
    let mut out = Vec::new();
    for i in order {
        let mut v = cands[i].clone();
        while !v.reads.is_empty() && saves(&v) {
            let (s, e) = (v.start, v.end());
            if let Some(entry) = busy.iter().position(|b| b.iter().all(|&(s2, e2)| !(s < e2 && s2 < e))) {
                busy[entry].push((s, e));
                out.push((i, v, entry));
                break;
            }
            // Partial range: the last read goes back to the MRF, which then holds the value.
            v.reads.pop();
            v.live_beyond = true;
        }
    }
    out
}

/// Records `v` in `level` in the placements.
fn apply(place: &mut [Placement], v: &Candidate, level: Level) {
    match v.fill_slot {
        Some(slot) => place[v.start].fill[slot] = Some(level),
        None => {
            place[v.start].dst_upper = Some(level);
            place[v.start].dst_mrf = v.live_beyond;
        }
    }
    for &(t, slot) in &v.reads {
        place[t].src[slot] = level;
    }
}

/// Every written value and read operand of `k`, each within its basic block.
fn candidates(k: &Kernel) -> Vec<Candidate> {
    let code = &k.code;
    let n = code.len();
    // A basic block starts at a strand start, a branch target and after a branch or exit.
    let mut block_start = vec![false; n + 1];
    block_start[n] = true;
    for (i, ins) in code.iter().enumerate() {
        if k.notes[i].strand_start {
            block_start[i] = true;
        }
        if ins.op == Op::Bra {
            block_start[ins.target as usize] = true;
        }
        if matches!(ins.op, Op::Bra | Op::Exit | Op::Bar) {
            block_start[i + 1] = true;
        }
    }
    let private = |i: usize| code[i].op.unit() == super::Unit::Alu;
    let reads_of = |t: usize, r: u8| {
        code[t].srcs.iter().enumerate().filter(move |(_, s)| **s == Src::Reg(r)).map(move |(slot, _)| (t, slot))
    };
    let mut out = Vec::new();
    // Written values.
    for (d, ins) in code.iter().enumerate() {
        let (Some(r), None) = (ins.dst, ins.guard) else { continue };
        let mut v = Candidate { start: d, fill_slot: None, reads: Vec::new(), live_beyond: false, private: private(d) };
        let mut t = d + 1;
        while !block_start[t] {
            v.reads.extend(reads_of(t, r));
            if code[t].dst == Some(r) {
                break;
            }
            t += 1;
        }
        if let Some(&(last, slot)) = v.reads.last() {
            v.live_beyond = !k.notes[last].last_read[slot];
            v.private &= v.reads.iter().all(|&(t, _)| private(t));
            out.push(v);
        }
    }
    // Read operands: registers read at least twice in a block before it writes them.
    let mut b = 0;
    while b < n {
        let end = (b + 1..=n).find(|&t| block_start[t]).unwrap_or(n);
        let mut seen = [false; 256];
        for t in b..end {
            for (slot, r) in code[t].src_regs() {
                // Once written in the block, it is a written value.
                if seen[r as usize] {
                    continue;
                }
                seen[r as usize] = true;
                if code[t].dst == Some(r) {
                    continue; // overwritten by its first reader
                }
                let mut v =
                    Candidate { start: t, fill_slot: Some(slot), reads: Vec::new(), live_beyond: true, private: false };
                // Other slots of the first reading instruction read the MRF copy too.
                for (u, later) in code.iter().enumerate().take(end).skip(t + 1) {
                    v.reads.extend(reads_of(u, r));
                    if later.dst == Some(r) {
                        break;
                    }
                }
                if !v.reads.is_empty() {
                    out.push(v);
                }
            }
            if let Some(d) = code[t].dst {
                seen[d as usize] = true;
            }
        }
        b = end;
    }
    out
}

/// Register-file accesses of one execution of each instruction under `place`: reads and writes
/// per level (MRF, ORF, LRF).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accesses {
    pub reads: [u32; 3],
    pub writes: [u32; 3],
}

impl Accesses {
    pub fn of(k: &Kernel, place: &[Placement], pc: usize) -> Accesses {
        let (ins, p) = (&k.code[pc], &place[pc]);
        let mut a = Accesses::default();
        let idx = |l: Level| match l {
            Level::Mrf => 0,
            Level::Orf(_) => 1,
            Level::Lrf(_) => 2,
        };
        for (slot, _) in ins.src_regs() {
            a.reads[idx(p.src[slot])] += 1;
            if let Some(l) = p.fill[slot] {
                a.writes[idx(l)] += 1;
            }
        }
        if ins.dst.is_some() {
            a.writes[0] += p.dst_mrf as u32;
            if let Some(l) = p.dst_upper {
                a.writes[idx(l)] += 1;
            }
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{library, parse};

    fn costs() -> Costs {
        Costs::new(&Energy::default(), 3)
    }

    /// Walks each basic block in order with the upper-level entries' contents: every upper read
    /// finds its register there, and every MRF read finds the MRF up to date (a value written
    /// only to an upper level is dead by the end of its block).
    fn check(k: &Kernel, place: &[Placement]) -> Result<(), String> {
        let mut held: Vec<(Level, u8)> = Vec::new();
        let mut mrf_stale: Vec<u8> = Vec::new();
        for (t, ins) in k.code.iter().enumerate() {
            if k.notes[t].strand_start || t > 0 && matches!(k.code[t - 1].op, Op::Bra | Op::Exit | Op::Bar) {
                held.clear();
            }
            if k.code.iter().any(|i| i.op == Op::Bra && i.target as usize == t) {
                held.clear();
            }
            let p = &place[t];
            for (slot, r) in ins.src_regs() {
                match p.src[slot] {
                    Level::Mrf if mrf_stale.contains(&r) => return Err(format!("{t}: r{r} read from a stale MRF")),
                    Level::Mrf => {}
                    l if held.contains(&(l, r)) => {}
                    l => return Err(format!("{t}: r{r} read from {l:?}, which holds {held:?}")),
                }
                if k.notes[t].last_read[slot] {
                    mrf_stale.retain(|&x| x != r);
                }
            }
            for (slot, r) in ins.src_regs() {
                if let Some(l) = p.fill[slot] {
                    held.retain(|h| h.0 != l);
                    held.push((l, r));
                }
            }
            if let Some(d) = ins.dst {
                held.retain(|h| h.1 != d);
                mrf_stale.retain(|&x| x != d);
                if let Some(l) = p.dst_upper {
                    held.retain(|h| h.0 != l);
                    held.push((l, d));
                }
                if !p.dst_mrf {
                    mrf_stale.push(d);
                }
            }
        }
        Ok(())
    }

    #[test]
    fn a_short_lived_value_skips_the_mrf_and_a_long_one_takes_a_partial_range() {
        let k =
            parse(".kernel t\n.grid 1 32\nmov r0, %tid\nadd r1, r0, r0\nadd r2, r1, r1\nst.global [r0], r2\nexit\n")
                .unwrap();
        let p = allocate(&k, 1, LrfKind::None, &costs());
        // r1: written once, read twice right after, dead: the ORF only.
        assert_eq!((p[1].dst_upper, p[1].dst_mrf), (Some(Level::Orf(0)), false));
        assert_eq!(p[2].src[..2], [Level::Orf(0), Level::Orf(0)]);
        // r2 follows r1 in the same entry; r0 (read at 1 and by the store at 3) only fits for
        // its first read and keeps its MRF copy.
        assert_eq!(p[2].dst_upper, Some(Level::Orf(0)));
        assert_eq!((p[0].dst_upper, p[0].dst_mrf), (Some(Level::Orf(0)), true));
        assert_eq!(p[3].src[0], Level::Mrf);
        assert_eq!(check(&k, &p), Ok(()));
    }

    #[test]
    fn nothing_lives_across_a_strand_or_in_a_split_lrf_slot_it_is_not_read_in() {
        let k = parse(
            ".kernel t\n.grid 1 32\nmov r0, %tid\nld.global r1, [r0]\nadd r2, r0, 1\nadd r3, r1, r2\nadd r4, r3, r0\nexit\n",
        )
        .unwrap();
        let p = allocate(&k, 3, LrfKind::Split, &costs());
        // r2 is read at 3, a long-latency consumer: a new strand, so from the MRF.
        assert_eq!(p[3].src[1], Level::Mrf);
        assert_eq!(p[2].dst_upper, None);
        // r3, read in slot 0 only by the ALU, goes to the LRF's slot-0 entry.
        assert_eq!((p[3].dst_upper, p[3].dst_mrf), (Some(Level::Lrf(0)), false));
        assert_eq!(p[4].src[0], Level::Lrf(0));
        assert_eq!(check(&k, &p), Ok(()));
    }

    #[test]
    fn every_library_kernel_gets_a_consistent_allocation_that_saves_mrf_reads() {
        for lib in library::KERNELS {
            let k = lib.parse().unwrap();
            let mut last = u32::MAX;
            for lrf in [LrfKind::None, LrfKind::Unified, LrfKind::Split] {
                for entries in [0, 1, 3, 8] {
                    let p = allocate(&k, entries, lrf, &costs());
                    assert_eq!(check(&k, &p), Ok(()), "{} {lrf:?} {entries}", k.name);
                    let mrf_reads: u32 = (0..k.code.len()).map(|pc| Accesses::of(&k, &p, pc).reads[0]).sum();
                    if lrf == LrfKind::None {
                        assert!(mrf_reads <= last, "{}: more ORF entries, more MRF reads", k.name);
                        last = mrf_reads;
                    }
                }
            }
        }
    }
}
