//! Golden model of the MRF subsystem: banked main register file + operand collectors
//! (generated top `<prefix>_mrf`). This is the executable specification; `docs/mrf.md` shows
//! the same rules as a port table and a timing diagram.
//!
//! # Structure
//! - `G = banks / clusters` bank groups. A warp register lives in one group, same row in every
//!   cluster ([`Geometry::map`]), so a group acts as one logical bank of `lanes × 32` bits with
//!   one read and one write port.
//! - `N` collector units, each with 3 operand slots; slot `s` of unit `c` is requester
//!   `3c + s` of every bank arbiter.
//!
//! # One clock cycle
//! Outputs depend only on the state (no input reaches an output combinationally):
//! - `issue_ready` = some unit is free.
//! - `disp_valid` = some unit is complete (busy, no slot pending or in flight); the unit
//!   offered is chosen by the round-robin dispatch arbiter over complete units.
//!
//! At the clock edge, all from the state before the edge:
//! 1. **Bank arbitration**: every pending slot requests its group. Each group's round-robin
//!    arbiter (over the `3N` slots) grants one; the grant is always taken. The granted slot
//!    becomes *in flight* and the group's banks read its row.
//! 2. **Capture**: a slot that was in flight takes the group's read data (the row read one
//!    cycle earlier) and is done.
//! 3. **Dispatch**: if `disp_valid && disp_ready`, the offered unit becomes free. The dispatch
//!    arbiter moves past the unit when taken, and stays on it while the offer is refused.
//! 4. **Issue**: if `issue_valid && issue_ready`, the lowest-numbered free unit (free before
//!    this edge) takes the instruction; each valid source becomes a pending slot.
//! 5. **Write-back**: if `wb_valid`, the masked lanes of the register are written. Banks are
//!    read-first: a read in the same cycle as a write of the same row returns the old value.
//!
//! So an instruction accepted in cycle `t` requests in `t+1`, is in flight in `t+2` and, without
//! conflicts, is offered in `t+3`. Each extra slot granted before it on its bank delays it one
//! cycle. Reset clears every unit and arbiter pointer; bank contents are not reset.
//!
//! The model also tracks which lanes of each register hold a written value ("known"): the RTL's
//! unwritten storage is undefined, so only known lanes are compared.

use crate::model::arbiter::RoundRobin;
use rfgen_gen::geometry::{Geometry, SLOTS_PER_COLLECTOR};

const SLOTS: usize = SLOTS_PER_COLLECTOR as usize;

/// Inputs of one cycle (every input port except `clk` and `rst`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MrfIn {
    pub issue_valid: bool,
    pub issue_warp: u32,
    pub issue_src_valid: [bool; SLOTS],
    pub issue_src_reg: [u32; SLOTS],
    pub issue_tag: u32,
    pub disp_ready: bool,
    pub wb_valid: bool,
    pub wb_warp: u32,
    pub wb_reg: u32,
    /// Bit i = lane i.
    pub wb_mask: u64,
    /// One word per lane.
    pub wb_data: Vec<u32>,
}

impl MrfIn {
    pub fn new(g: &Geometry) -> Self {
        MrfIn { wb_data: vec![0; g.lanes as usize], ..Default::default() }
    }
}

/// Outputs of one cycle. Fields after `disp_valid` are meaningful only while it is set.
#[derive(Debug)]
pub struct MrfOut<'a> {
    pub issue_ready: bool,
    pub disp_valid: bool,
    pub disp_warp: u32,
    pub disp_tag: u32,
    pub disp_src_valid: [bool; SLOTS],
    pub disp_src_data: [&'a [u32]; SLOTS],
    /// Lanes of each source holding a written value.
    pub disp_src_known: [u64; SLOTS],
}

/// Event counts since reset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MrfStats {
    pub cycles: u64,
    pub issued: u64,
    pub dispatched: u64,
    /// Warp-register reads (each reads one bank in every cluster).
    pub operand_reads: u64,
    /// Requests beyond the first to a bank group in a cycle (each costs its slot a cycle).
    pub bank_conflicts: u64,
    pub writes: u64,
}

/// The MRF subsystem model. Control state is kept as bit vectors, one bit per operand slot
/// (`3c + s`) or per collector unit, like the RTL's registers.
#[derive(Clone, Debug)]
pub struct Mrf {
    g: Geometry,
    lanes: usize,
    /// `[group][row][lane]`
    mem: Vec<u32>,
    /// `[group][row]`, bit per lane
    mem_known: Vec<u64>,
    /// Each group's read-data register: `[group][lane]`, and its known lanes.
    rd_data: Vec<u32>,
    rd_known: Vec<u64>,
    bank_arb: Vec<RoundRobin>,
    disp_arb: RoundRobin,
    /// Units holding an instruction.
    busy: u64,
    /// Slots waiting for a bank grant / whose bank read completes this cycle.
    pending: u64,
    inflight: u64,
    /// Per unit: warp, tag, source-valid bits.
    warp: Vec<u32>,
    tag: Vec<u32>,
    src_valid: Vec<[bool; SLOTS]>,
    /// Per slot: bank group and row of its register, collected data and its known lanes.
    group: Vec<u32>,
    row: Vec<u32>,
    data: Vec<u32>,
    known: Vec<u64>,
    stats: MrfStats,
}

impl Mrf {
    pub fn new(g: &Geometry) -> Self {
        let lanes = g.lanes as usize;
        let (units, slots) = (g.collectors as usize, g.slots() as usize);
        let regs = (g.groups * g.entries) as usize;
        Mrf {
            g: g.clone(),
            lanes,
            mem: vec![0; regs * lanes],
            mem_known: vec![0; regs],
            rd_data: vec![0; g.groups as usize * lanes],
            rd_known: vec![0; g.groups as usize],
            bank_arb: (0..g.groups).map(|_| RoundRobin::new(g.slots())).collect(),
            disp_arb: RoundRobin::new(g.collectors),
            busy: 0,
            pending: 0,
            inflight: 0,
            warp: vec![0; units],
            tag: vec![0; units],
            src_valid: vec![[false; SLOTS]; units],
            group: vec![0; slots],
            row: vec![0; slots],
            data: vec![0; slots * lanes],
            known: vec![0; slots],
            stats: MrfStats::default(),
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.g
    }

    pub fn stats(&self) -> &MrfStats {
        &self.stats
    }

    /// Synchronous reset: control state only; bank contents and statistics are kept.
    pub fn reset(&mut self) {
        self.busy = 0;
        self.pending = 0;
        self.inflight = 0;
        self.bank_arb.iter_mut().for_each(RoundRobin::reset);
        self.disp_arb.reset();
    }

    /// Units that are busy with no slot pending or in flight.
    fn complete_mask(&self) -> u64 {
        let open = self.pending | self.inflight;
        (0..self.g.collectors as usize).fold(0, |m, c| m | (((open >> (c * SLOTS)) & 0b111 == 0) as u64) << c)
            & self.busy
    }

    pub fn outputs(&self) -> MrfOut<'_> {
        let offered = self.disp_arb.pick(self.complete_mask());
        let c = offered.unwrap_or(0) as usize;
        let lanes = self.lanes;
        MrfOut {
            issue_ready: !self.busy & lane_mask(self.g.collectors as usize) != 0,
            disp_valid: offered.is_some(),
            disp_warp: self.warp[c],
            disp_tag: self.tag[c],
            disp_src_valid: self.src_valid[c],
            disp_src_data: std::array::from_fn(|s| &self.data[(c * SLOTS + s) * lanes..][..lanes]),
            disp_src_known: std::array::from_fn(|s| self.known[c * SLOTS + s]),
        }
    }

    /// One clock edge (see the module documentation for the order of events).
    pub fn tick(&mut self, inp: &MrfIn) {
        let lanes = self.lanes;
        self.stats.cycles += 1;
        // Decisions that depend on the state before the edge, sampled before anything changes.
        let free = !self.busy & lane_mask(self.g.collectors as usize);
        let offered = self.disp_arb.pick(self.complete_mask());

        // 1. Bank arbitration among the pending slots.
        let mut requests = [0u64; 32];
        let mut open = self.pending;
        while open != 0 {
            let slot = open.trailing_zeros() as usize;
            open &= open - 1;
            requests[self.group[slot] as usize] |= 1 << slot;
        }
        let mut granted = 0u64;
        let mut reads = [u32::MAX; 32];
        for grp in 0..self.g.groups as usize {
            let req = requests[grp];
            self.stats.bank_conflicts += u64::from(req.count_ones().saturating_sub(1));
            let winner = self.bank_arb[grp].pick(req);
            self.bank_arb[grp].update(winner, true);
            if let Some(w) = winner {
                granted |= 1 << w;
                reads[grp] = self.row[w as usize];
            }
        }
        self.stats.operand_reads += u64::from(granted.count_ones());

        // 2. In-flight slots capture last cycle's read data; then the banks read this cycle's rows.
        let mut capture = self.inflight;
        while capture != 0 {
            let slot = capture.trailing_zeros() as usize;
            capture &= capture - 1;
            let grp = self.group[slot] as usize;
            self.data[slot * lanes..][..lanes].copy_from_slice(&self.rd_data[grp * lanes..][..lanes]);
            self.known[slot] = self.rd_known[grp];
        }
        self.inflight = self.pending & granted;
        self.pending &= !granted;
        for (grp, &row) in reads.iter().enumerate().take(self.g.groups as usize) {
            if row != u32::MAX {
                let reg = grp * self.g.entries as usize + row as usize;
                self.rd_data[grp * lanes..][..lanes].copy_from_slice(&self.mem[reg * lanes..][..lanes]);
                self.rd_known[grp] = self.mem_known[reg];
            }
        }

        // 3. Dispatch; 4. issue into the lowest unit that was free before the edge.
        self.disp_arb.update(offered, inp.disp_ready);
        if let (Some(c), true) = (offered, inp.disp_ready) {
            self.busy &= !(1 << c);
            self.stats.dispatched += 1;
        }
        if free != 0 && inp.issue_valid {
            let c = free.trailing_zeros() as usize;
            self.busy |= 1 << c;
            self.warp[c] = inp.issue_warp;
            self.tag[c] = inp.issue_tag;
            self.src_valid[c] = inp.issue_src_valid;
            for s in 0..SLOTS {
                let slot = c * SLOTS + s;
                let addr = self.g.map(inp.issue_warp, inp.issue_src_reg[s]);
                self.group[slot] = addr.group;
                self.row[slot] = addr.row;
                self.pending |= (inp.issue_src_valid[s] as u64) << slot;
            }
            self.stats.issued += 1;
        }

        // 5. Write-back (after the reads above: read-first).
        if inp.wb_valid {
            let addr = self.g.map(inp.wb_warp, inp.wb_reg);
            let reg = (addr.group * self.g.entries + addr.row) as usize;
            let mask = inp.wb_mask & lane_mask(lanes);
            let word = &mut self.mem[reg * lanes..][..lanes];
            if mask == lane_mask(lanes) {
                word.copy_from_slice(&inp.wb_data);
            } else {
                for (lane, w) in word.iter_mut().enumerate() {
                    if mask >> lane & 1 == 1 {
                        *w = inp.wb_data[lane];
                    }
                }
            }
            self.mem_known[reg] |= mask;
            self.stats.writes += 1;
        }
    }
}

/// Mask with one bit per lane.
pub fn lane_mask(lanes: usize) -> u64 {
    if lanes >= 64 { u64::MAX } else { (1u64 << lanes) - 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The timing example of docs/mrf.md, cycle by cycle.
    #[test]
    fn documented_timing_example() {
        let g = rfgen_gen::config::preset("baseline").unwrap().geometry;
        let mut m = Mrf::new(&g);
        let mut inp = MrfIn::new(&g);
        // Cycle 0: A = warp 0, sources r1 and r5 (both bank group 1), tag 0xA.
        inp.issue_valid = true;
        inp.issue_src_valid = [true, true, false];
        inp.issue_src_reg = [1, 5, 0];
        inp.issue_tag = 0xA;
        inp.disp_ready = true;
        let mut seen = Vec::new();
        for cycle in 0..7 {
            if cycle == 1 {
                // B = warp 1, source r2 (bank group 3), tag 0xB.
                inp.issue_warp = 1;
                inp.issue_src_valid = [true, false, false];
                inp.issue_src_reg = [2, 0, 0];
                inp.issue_tag = 0xB;
            }
            if cycle == 2 {
                inp.issue_valid = false;
            }
            let out = m.outputs();
            assert!(out.issue_ready);
            seen.push(out.disp_valid.then_some(out.disp_tag));
            m.tick(&inp);
        }
        assert_eq!(seen, [None, None, None, None, Some(0xA), Some(0xB), None]);
        assert_eq!(m.stats().bank_conflicts, 1, "A's second source waited one cycle");
        assert_eq!(m.stats().operand_reads, 3);
    }
}
