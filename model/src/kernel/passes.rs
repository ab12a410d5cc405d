//! Compiler annotation passes over a kernel's instruction-level control flow:
//! - **last read** (liveness): a source operand whose value is dead after the instruction;
//! - **long-latency consumer**: a source may hold the result of a global or texture load that
//!   is still in flight (the two-level scheduler deschedules on these, SPEC §1);
//! - **strands** (SPEC §3): a strand starts at the first instruction, at a long-latency
//!   consumer, after a backward branch and at a backward-branch target.
//!
//! A guarded (predicated) write does not kill a register: the lanes it skips keep the old value.

use super::cfg::successors;
use super::{Instr, Kernel, Op};
use crate::regset::RegSet;

/// Annotations of one instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    /// Per source slot: the register read there is dead after this instruction.
    pub last_read: [bool; 3],
    pub long_latency_consumer: bool,
    pub strand_start: bool,
    /// Strand number, in program order of strand starts.
    pub strand: u32,
}

fn uses(ins: &Instr) -> RegSet {
    let mut r = RegSet::default();
    ins.src_regs().for_each(|(_, reg)| r.insert(reg.into()));
    r
}

/// The register an instruction definitely overwrites in every active lane.
fn kill(ins: &Instr) -> Option<u8> {
    if ins.guard.is_none() { ins.dst } else { None }
}

pub fn annotate(k: &Kernel) -> Vec<Notes> {
    let code = &k.code;
    let n = code.len();
    let succ: Vec<Vec<usize>> = (0..n).map(|i| successors(code, i)).collect();
    let mut pred = vec![Vec::new(); n + 1];
    for (i, s) in succ.iter().enumerate() {
        for &t in s {
            pred[t].push(i);
        }
    }

    // Liveness, backward to a fixed point.
    let mut live_in = vec![RegSet::default(); n + 1];
    let mut live_out = vec![RegSet::default(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut out = RegSet::default();
            for &s in &succ[i] {
                out.union(&live_in[s]);
            }
            let mut inn = out;
            if let Some(d) = kill(&code[i]) {
                inn.remove(d.into());
            }
            inn.union(&uses(&code[i]));
            if inn != live_in[i] || out != live_out[i] {
                live_in[i] = inn;
                live_out[i] = out;
                changed = true;
            }
        }
    }

    // Registers that may hold a long-latency result not yet consumed, forward to a fixed point.
    let mut pending_in = vec![RegSet::default(); n + 1];
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            let mut inn = RegSet::default();
            for &p in &pred[i] {
                let mut out = pending_in[p];
                let ins = &code[p];
                ins.src_regs().for_each(|(_, r)| out.remove(r.into()));
                if let Some(d) = kill(ins) {
                    out.remove(d.into());
                }
                if ins.op.is_long_latency() {
                    out.insert(ins.dst.expect("loads have a destination").into());
                }
                inn.union(&out);
            }
            if inn != pending_in[i] {
                pending_in[i] = inn;
                changed = true;
            }
        }
    }

    let backward_target = {
        let mut t = vec![false; n];
        for (i, ins) in code.iter().enumerate() {
            if ins.op == Op::Bra && ins.target as usize <= i {
                t[ins.target as usize] = true;
            }
        }
        t
    };
    let mut notes = vec![Notes::default(); n];
    let mut strand = 0;
    for i in 0..n {
        let ins = &code[i];
        let note = &mut notes[i];
        for (slot, r) in ins.src_regs() {
            note.last_read[slot] = !live_out[i].contains(r.into()) || kill(ins) == Some(r);
        }
        note.long_latency_consumer = ins.src_regs().any(|(_, r)| pending_in[i].contains(r.into()));
        let after_backward = i > 0 && code[i - 1].op == Op::Bra && (code[i - 1].target as usize) < i;
        note.strand_start = i == 0 || note.long_latency_consumer || after_backward || backward_target[i];
        if note.strand_start && i > 0 {
            strand += 1;
        }
        note.strand = strand;
    }
    notes
}

#[cfg(test)]
mod tests {
    use crate::kernel::parse;

    const K: &str = ".kernel t\n.grid 1 32\n\
        mov r0, %tid\n\
        ld.global r1, [r0 + 64]\n\
        add r2, r0, r0\n\
        add r3, r1, r2\n\
        LOOP:\n\
        add r3, r3, r1\n\
        setp.lt p0, r3, 100\n\
        @p0 bra LOOP\n\
        st.global [r0], r3\n\
        exit\n";

    #[test]
    fn last_reads_follow_liveness() {
        let k = parse(K).unwrap();
        // add r2, r0, r0: r0 is still read by the store.
        assert_eq!(k.notes[2].last_read, [false, false, false]);
        // add r3, r1, r2: r2 dies here, r1 lives on in the loop.
        assert_eq!(k.notes[3].last_read, [false, true, false]);
        // st.global [r0], r3: both die.
        assert_eq!(k.notes[7].last_read, [true, true, false]);
    }

    #[test]
    fn long_latency_consumers_and_strands() {
        let k = parse(K).unwrap();
        let consumers: Vec<bool> = k.notes.iter().map(|n| n.long_latency_consumer).collect();
        assert_eq!(consumers, [false, false, false, true, false, false, false, false, false]);
        let starts: Vec<usize> = (0..k.code.len()).filter(|&i| k.notes[i].strand_start).collect();
        // Start, the consumer, the loop head (a backward-branch target), after the back edge.
        assert_eq!(starts, [0, 3, 4, 7]);
        assert_eq!(k.notes[8].strand, 3);
    }
}
