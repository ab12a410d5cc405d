//! Golden model of the MRF subsystem: banked main register file + operand collectors
//! (generated top `<prefix>_mrf`), optionally with BDI register compression. This is the
//! executable specification; `docs/mrf.md` and `docs/bdi.md` show the same rules as port
//! tables and timing diagrams.
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
//!
//! # Compression (`compression.enabled`; seed 004, docs/bdi.md)
//! Every register of a bank group has a range indicator and a valid bit (reset: none valid). A
//! valid register occupies the banks of clusters `0 .. banks(ri)`; each bank counts its valid
//! entries. The outputs add `wb_ready` and, per bank, its read and write strobes and whether it
//! is power-gated — all from the state. The rules above change as follows.
//! - **Reads** (rule 1, 2): a read enables only the banks holding the register's chunks (none
//!   for a register holding no value); its range indicator is read with it, and the group's
//!   decompressor delivers the register `1 + decompress_latency` cycles after the grant, when
//!   the slot captures it. A **dummy MOV read** (below) takes its group's read port: no slot is
//!   granted there that cycle and the arbiter pointer stays; every request to that group waits
//!   (each counted as a bank conflict).
//! - **Write port** (rule 5): `wb_ready` = the *head* (the register leaving the compressor) is
//!   absent or commits this cycle. A taken write enters the compressor, whose stages advance
//!   only with `wb_ready`; a partial mask (any lane off) bypasses compression. A write taken in
//!   cycle `t` commits in `t + compress_latency` at the earliest and is read by grants after that.
//! - **Commit**: the head needs banks awake: all `C` for a partial write (stored
//!   uncompressed), else those of its chunks. When they are, it writes its chunks to banks
//!   `0 .. banks` (only the clusters with an active lane), stores its range indicator and marks
//!   the register valid; the counts follow (it leaves its old banks for its new ones).
//! - **Dummy MOV** (§5.2): a partial head whose register is valid and compressed does not
//!   commit; once its banks are awake the MOV reads the register, and when that read leaves the
//!   decompressor (`1 + decompress_latency` cycles later) writes it back decompressed (range
//!   indicator 0, every lane). The head then commits normally, at the earliest one cycle later.
//! - **Power gating** (§5.3), at each edge from the state before it, per bank: no valid entry
//!   and not needed by the head → gated; gated and needed → powered, awake after
//!   `wakeup_cycles` more edges; otherwise the wake-up countdown runs. Reset gates every bank.
//!   Needed banks are never gated, so a bank holding a valid entry is always awake.

mod compressed;

use crate::blocks::arbiter::RoundRobin;
use crate::blocks::bdi::{choose, decompress};
use compressed::{Compression, Side, WriteAction, low_bits};
use rfgen_gen::Checked;
use rfgen_gen::bdi::Layout;
use rfgen_gen::geometry::{Geometry, SLOTS_PER_COLLECTOR};

const SLOTS: usize = SLOTS_PER_COLLECTOR as usize;
/// Bank groups per cluster are at most 32 (validated).
const MAX_GROUPS: usize = 32;
const NONE: u32 = u32::MAX;

/// Inputs of one cycle (every input port except `clk` and `rst`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MrfIn {
    pub issue_valid: bool,
    pub issue_warp: u32,
    pub issue_src_valid: [bool; SLOTS],
    pub issue_src_reg: [u32; SLOTS],
    pub issue_tag: u32,
    pub disp_ready: bool,
    /// A write-back is offered; with compression it is taken only when `wb_ready`.
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

/// Outputs of one cycle. Fields after `disp_valid` up to `disp_src_known` are meaningful only
/// while it is set.
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
    /// A write-back offered this cycle is taken (always, without compression).
    pub wb_ready: bool,
    /// Compressed MRF: banks read, written and power-gated this cycle, one bit per bank, group
    /// `j` cluster `c` at bit `j·C + c` of the 64-bit words. Empty without compression.
    pub bank_rd_en: &'a [u64],
    pub bank_wr_en: &'a [u64],
    pub bank_gated: &'a [u64],
}

/// Event counts since construction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MrfStats {
    pub cycles: u64,
    pub issued: u64,
    pub dispatched: u64,
    /// Warp-register reads by operand slots (each reads its banks in every cluster it needs).
    pub operand_reads: u64,
    /// Requests beyond the first to a bank group in a cycle (each costs its slot a cycle); with
    /// a dummy MOV on the group's read port, every request to it.
    pub bank_conflicts: u64,
    /// Write-backs taken.
    pub writes: u64,
    /// Bank accesses: one per bank read (operand and dummy MOV reads) and per bank written.
    pub bank_reads: u64,
    pub bank_writes: u64,
    /// Compressed MRF only from here on. Full-mask write-backs committed, by range indicator
    /// (index 0: stored uncompressed because no mode fits; index `i`: `Layout::modes[i - 1]`).
    pub full_writes_by_ri: Vec<u64>,
    /// Partial-mask write-backs committed (always stored uncompressed).
    pub partial_writes: u64,
    /// What a partial write's register, after the write, would compress to, by range indicator:
    /// the divergent compression ratio as seed 004 Fig. 8 measures it. Not stored that way.
    pub partial_merged_by_ri: Vec<u64>,
    /// Compressor activations (full-mask write-backs taken) and decompressor activations
    /// (reads of a compressed register, dummy MOVs included).
    pub compressions: u64,
    pub decompressions: u64,
    /// Dummy MOVs injected ahead of a partial write to a compressed register.
    pub dummy_movs: u64,
    /// Cycles each bank spent power-gated, `[group * C + cluster]`.
    pub gated_cycles: Vec<u64>,
    /// Banks that started waking up.
    pub bank_wakeups: u64,
    /// Cycles a write-back could not be taken (`wb_ready` low).
    pub wb_stall_cycles: u64,
}

impl MrfStats {
    /// Bank-cycles spent power-gated, all banks together.
    pub fn gated_bank_cycles(&self) -> u64 {
        self.gated_cycles.iter().sum()
    }
}

/// Decisions of the current cycle, derived from the state right after each edge (what the
/// RTL's logic computes from its registers), used by `outputs` and by the next `tick`.
#[derive(Clone, Debug)]
struct Plan {
    /// Per bank group: the slot granted, or `NONE`.
    winner: [u32; MAX_GROUPS],
    /// Per bank group: the register (`group * entries + row`) read this cycle, or `NONE`.
    read: [u32; MAX_GROUPS],
    granted: u64,
    conflicts: u64,
    action: WriteAction,
    bank_rd_en: Vec<u64>,
    bank_wr_en: Vec<u64>,
    bank_gated: Vec<u64>,
}

/// The MRF subsystem model. Control state is kept as bit vectors, one bit per operand slot
/// (`3c + s`) or per collector unit, like the RTL's registers.
#[derive(Clone, Debug)]
pub struct Mrf {
    g: Geometry,
    lanes: usize,
    /// `[group][row][lane]`: the banks' contents (compressed registers as chunks).
    mem: Vec<u32>,
    /// `[group][row]`, bit per lane (word)
    mem_known: Vec<u64>,
    bank_arb: Vec<RoundRobin>,
    disp_arb: RoundRobin,
    /// Units holding an instruction.
    busy: u64,
    /// Slots waiting for a bank grant.
    pending: u64,
    /// `flight[k]`: slots granted `k + 1` edges ago whose data has not arrived; the last stage
    /// arrives at the next edge. One stage, plus one per decompressor stage.
    flight: Vec<u64>,
    /// Per unit: warp, tag, source-valid bits.
    warp: Vec<u32>,
    tag: Vec<u32>,
    src_valid: Vec<[bool; SLOTS]>,
    /// Per slot: bank group and row of its register, its data (read at the grant: the banks are
    /// read-first and the path to the slot only delays it) and the data's known lanes.
    group: Vec<u32>,
    row: Vec<u32>,
    data: Vec<u32>,
    known: Vec<u64>,
    bdi: Option<Compression>,
    plan: Plan,
    stats: MrfStats,
}

impl Mrf {
    /// The uncompressed MRF of a geometry.
    pub fn new(g: &Geometry) -> Self {
        Mrf::build(g, None)
    }

    /// The MRF a config describes: compressed when `compression.enabled`.
    pub fn for_config(checked: &Checked) -> Self {
        Mrf::build(&checked.geometry, checked.compression.as_ref())
    }

    /// The MRF of a geometry, compressed with `layout` if given.
    pub fn build(g: &Geometry, layout: Option<&Layout>) -> Self {
        let lanes = g.lanes as usize;
        let (units, slots) = (g.collectors as usize, g.slots() as usize);
        let regs = (g.groups * g.entries) as usize;
        let bdi = layout.map(|l| Compression::new(g, l));
        let bank_words = layout.map_or(0, |l| (g.groups * l.clusters).div_ceil(64) as usize);
        let stats = MrfStats {
            full_writes_by_ri: vec![0; layout.map_or(0, |l| l.modes.len() + 1)],
            partial_merged_by_ri: vec![0; layout.map_or(0, |l| l.modes.len() + 1)],
            gated_cycles: vec![0; layout.map_or(0, |l| (g.groups * l.clusters) as usize)],
            ..MrfStats::default()
        };
        let mut m = Mrf {
            g: g.clone(),
            lanes,
            mem: vec![0; regs * lanes],
            mem_known: vec![0; regs],
            bank_arb: (0..g.groups).map(|_| RoundRobin::new(g.slots())).collect(),
            disp_arb: RoundRobin::new(g.collectors),
            busy: 0,
            pending: 0,
            flight: vec![0; 1 + layout.map_or(0, |l| l.decompress_latency as usize)],
            warp: vec![0; units],
            tag: vec![0; units],
            src_valid: vec![[false; SLOTS]; units],
            group: vec![0; slots],
            row: vec![0; slots],
            data: vec![0; slots * lanes],
            known: vec![0; slots],
            bdi,
            plan: Plan {
                winner: [NONE; MAX_GROUPS],
                read: [NONE; MAX_GROUPS],
                granted: 0,
                conflicts: 0,
                action: WriteAction::Wait,
                bank_rd_en: vec![0; bank_words],
                bank_wr_en: vec![0; bank_words],
                bank_gated: vec![0; bank_words],
            },
            stats,
        };
        m.replan();
        m
    }

    pub fn geometry(&self) -> &Geometry {
        &self.g
    }

    pub fn stats(&self) -> &MrfStats {
        &self.stats
    }

    /// The compression layout, for a compressed MRF.
    pub fn layout(&self) -> Option<&Layout> {
        self.bdi.as_ref().map(|b| &b.layout)
    }

    /// Synchronous reset: control state (and, compressed, the range table's valid bits and the
    /// banks' power state); bank contents and statistics are kept.
    pub fn reset(&mut self) {
        self.busy = 0;
        self.pending = 0;
        self.flight.fill(0);
        self.bank_arb.iter_mut().for_each(RoundRobin::reset);
        self.disp_arb.reset();
        if let Some(b) = &mut self.bdi {
            b.reset();
        }
        self.replan();
    }

    /// Units that are busy with no slot pending or in flight.
    fn complete_mask(&self) -> u64 {
        let open = self.flight.iter().fold(self.pending, |m, f| m | f);
        (0..self.g.collectors as usize).fold(0, |m, c| m | (((open >> (c * SLOTS)) & 0b111 == 0) as u64) << c)
            & self.busy
    }

    pub fn outputs(&self) -> MrfOut<'_> {
        let offered = self.disp_arb.pick(self.complete_mask());
        let c = offered.unwrap_or(0) as usize;
        let lanes = self.lanes;
        let p = &self.plan;
        MrfOut {
            issue_ready: !self.busy & lane_mask(self.g.collectors as usize) != 0,
            disp_valid: offered.is_some(),
            disp_warp: self.warp[c],
            disp_tag: self.tag[c],
            disp_src_valid: self.src_valid[c],
            disp_src_data: std::array::from_fn(|s| &self.data[(c * SLOTS + s) * lanes..][..lanes]),
            disp_src_known: std::array::from_fn(|s| self.known[c * SLOTS + s]),
            wb_ready: self.wb_ready(),
            bank_rd_en: &p.bank_rd_en,
            bank_wr_en: &p.bank_wr_en,
            bank_gated: &p.bank_gated,
        }
    }

    /// Compressed MRF: the write port commits its oldest write-back at this edge, so the
    /// register is readable from the next cycle (writes commit in the order they were taken).
    /// The SM model's scoreboard releases on it; the generated write port decides the same.
    pub fn commits_this_edge(&self) -> bool {
        self.bdi.is_some() && self.plan.action == WriteAction::Commit
    }

    pub fn is_compressed(&self) -> bool {
        self.bdi.is_some()
    }

    fn wb_ready(&self) -> bool {
        self.bdi.as_ref().is_none_or(|b| b.head().is_none() || self.plan.action == WriteAction::Commit)
    }

    /// Derives this cycle's decisions from the state (see [`Plan`]).
    fn replan(&mut self) {
        let p = &mut self.plan;
        p.action = self.bdi.as_ref().map_or(WriteAction::Wait, |b| b.action());
        // The dummy MOV reads its register on its group's read port.
        let mov = match (&self.bdi, p.action) {
            (Some(b), WriteAction::MovRead) => b.head().map(|(_, s)| (s.group, b.reg(s.group, s.row))),
            _ => None,
        };
        let mut requests = [0u64; MAX_GROUPS];
        let mut open = self.pending;
        while open != 0 {
            let slot = open.trailing_zeros() as usize;
            open &= open - 1;
            requests[self.group[slot] as usize] |= 1 << slot;
        }
        p.granted = 0;
        p.conflicts = 0;
        for grp in 0..self.g.groups as usize {
            let req = requests[grp];
            p.winner[grp] = NONE;
            p.read[grp] = NONE;
            match mov {
                Some((mg, reg)) if mg as usize == grp => {
                    p.conflicts += u64::from(req.count_ones());
                    p.read[grp] = reg as u32;
                }
                _ => {
                    p.conflicts += u64::from(req.count_ones().saturating_sub(1));
                    if let Some(w) = self.bank_arb[grp].pick(req) {
                        p.winner[grp] = w;
                        p.granted |= 1 << w;
                        p.read[grp] = grp as u32 * self.g.entries + self.row[w as usize];
                    }
                }
            }
        }
        let Some(b) = &self.bdi else { return };
        let c = b.clusters;
        // `C` is a power of two, so a group's bits never straddle two words.
        let put = |bits: &mut [u64], grp: usize, mask: u64| {
            let (word, shift) = (grp * c / 64, grp * c % 64);
            bits[word] = bits[word] & !(low_bits(c as u32) << shift) | mask << shift;
        };
        for grp in 0..self.g.groups as usize {
            let read = p.read[grp];
            put(&mut p.bank_rd_en, grp, if read == NONE { 0 } else { b.occupied(read as usize) });
            put(&mut p.bank_gated, grp, b.gated(grp as u32));
            put(&mut p.bank_wr_en, grp, 0);
        }
        if let Some((packed, side)) = b.head() {
            let written = match p.action {
                WriteAction::Commit => b.occupancy(packed.ri) & active_clusters(side.mask, self.g.lanes_per_cluster, c),
                WriteAction::MovCommit => low_bits(c as u32),
                _ => 0,
            };
            put(&mut p.bank_wr_en, side.group as usize, written);
        }
    }

    /// One clock edge (see the module documentation for the order of events).
    pub fn tick(&mut self, inp: &MrfIn) {
        let lanes = self.lanes;
        self.stats.cycles += 1;
        // Decisions that depend on the state before the edge, sampled before anything changes.
        let free = !self.busy & lane_mask(self.g.collectors as usize);
        let offered = self.disp_arb.pick(self.complete_mask());
        let wb_ready = self.wb_ready();

        // 1. Bank reads: the granted slots (and a dummy MOV) read their registers.
        let granted = self.plan.granted;
        self.stats.bank_conflicts += self.plan.conflicts;
        self.stats.operand_reads += u64::from(granted.count_ones());
        for grp in 0..self.g.groups as usize {
            let (winner, read) = (self.plan.winner[grp], self.plan.read[grp]);
            self.bank_arb[grp].update((winner != NONE).then_some(winner), true);
            if read == NONE {
                continue;
            }
            let reg = read as usize;
            if winner == NONE {
                // The dummy MOV's read, kept for its write-back.
                let b = self.bdi.as_mut().expect("only a dummy MOV reads without a slot");
                let mut buf = std::mem::take(&mut b.mov_data);
                let known = read_register(&self.mem, &self.mem_known, self.bdi.as_ref(), lanes, reg, &mut buf);
                let b = self.bdi.as_mut().expect("compressed");
                (b.mov_data, b.mov_known) = (buf, known);
            } else {
                let w = winner as usize;
                let dst = &mut self.data[w * lanes..][..lanes];
                self.known[w] = read_register(&self.mem, &self.mem_known, self.bdi.as_ref(), lanes, reg, dst);
            }
            match &self.bdi {
                None => self.stats.bank_reads += u64::from(self.g.clusters),
                Some(b) => {
                    self.stats.bank_reads += u64::from(b.occupied(reg).count_ones());
                    self.stats.decompressions += u64::from(b.range(reg).is_some_and(|ri| ri != 0));
                }
            }
        }
        // 2. The oldest flights arrive; this cycle's grants take off.
        let last = self.flight.len() - 1;
        self.flight.copy_within(..last, 1);
        self.flight[0] = granted;
        self.pending &= !granted;

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
        match self.bdi.is_some() {
            false => self.write_through(inp),
            true => self.write_compressed(inp, wb_ready),
        }
        self.replan();
    }

    /// Uncompressed write-back: the masked lanes are written at this edge.
    fn write_through(&mut self, inp: &MrfIn) {
        if !inp.wb_valid {
            return;
        }
        let lanes = self.lanes;
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
        self.stats.bank_writes +=
            u64::from(active_clusters(mask, self.g.lanes_per_cluster, self.g.clusters as usize).count_ones());
    }

    /// Compressed write port at an edge: power gating, the head's commit or the dummy MOV, then
    /// the compressor advances (taking the offered write when `wb_ready`).
    fn write_compressed(&mut self, inp: &MrfIn, wb_ready: bool) {
        let lanes = self.lanes;
        let (lpc, c) = (self.g.lanes_per_cluster, self.g.clusters as usize);
        let action = self.plan.action;
        let b = self.bdi.as_mut().expect("compressed");
        for grp in 0..self.g.groups {
            let mut gated = b.gated(grp);
            while gated != 0 {
                self.stats.gated_cycles[grp as usize * c + gated.trailing_zeros() as usize] += 1;
                gated &= gated - 1;
            }
        }
        self.stats.wb_stall_cycles += u64::from(!wb_ready);
        self.stats.bank_wakeups += b.power_edge();

        let head = b.head().map(|(p, side)| (p.ri, side));
        match (action, head) {
            (WriteAction::Commit, Some((ri, side))) => {
                let reg = b.reg(side.group, side.row);
                let (_, packed) = b.compressor.output();
                let written = b.occupancy(ri) & active_clusters(side.mask, lpc, c);
                let words = &mut self.mem[reg * lanes..][..lanes];
                for (lane, w) in words.iter_mut().enumerate() {
                    if written >> (lane as u32 / lpc) & 1 == 1 && side.mask >> lane & 1 == 1 {
                        *w = packed.chunks[lane];
                        self.mem_known[reg] |= 1 << lane;
                    }
                }
                self.stats.bank_writes += u64::from(written.count_ones());
                b.store(reg, ri);
                if side.partial {
                    self.stats.partial_writes += 1;
                    let merged = choose(&b.layout, &self.mem[reg * lanes..][..lanes]).map_or(0, |m| m.ri);
                    self.stats.partial_merged_by_ri[merged as usize] += 1;
                } else {
                    self.stats.full_writes_by_ri[ri as usize] += 1;
                }
            }
            (WriteAction::MovCommit, Some((_, side))) => {
                let reg = b.reg(side.group, side.row);
                self.mem[reg * lanes..][..lanes].copy_from_slice(&b.mov_data);
                self.mem_known[reg] = b.mov_known;
                self.stats.bank_writes += c as u64;
                b.store(reg, 0);
            }
            _ => {}
        }
        if action == WriteAction::MovRead {
            b.start_mov();
            self.stats.dummy_movs += 1;
        } else {
            b.mov_edge(action == WriteAction::MovCommit);
        }

        let mask = inp.wb_mask & lane_mask(lanes);
        let taken = inp.wb_valid && wb_ready;
        if taken {
            let addr = self.g.map(inp.wb_warp, inp.wb_reg);
            let side = Side { group: addr.group, row: addr.row, mask, partial: mask != lane_mask(lanes) };
            self.stats.writes += 1;
            self.stats.compressions += u64::from(!side.partial);
            b.advance(true, true, side, &inp.wb_data);
        } else {
            b.advance(wb_ready, false, Side::default(), &inp.wb_data);
        }
    }
}

/// Reads register `reg` as the read path delivers it into `out`; returns its known lanes. A
/// compressed register is decompressed; one holding no value reads as unknown.
fn read_register(
    mem: &[u32],
    mem_known: &[u64],
    bdi: Option<&Compression>,
    lanes: usize,
    reg: usize,
    out: &mut [u32],
) -> u64 {
    let words = &mem[reg * lanes..][..lanes];
    let known = mem_known[reg];
    let Some(b) = bdi else {
        out.copy_from_slice(words);
        return known;
    };
    match b.range(reg) {
        None => {
            out.copy_from_slice(words);
            0
        }
        Some(0) => {
            out.copy_from_slice(words);
            known
        }
        Some(ri) => {
            decompress(&b.layout, ri, words, out);
            // Every lane depends on the base and its delta: known when the payload's words are.
            let payload = lane_mask(b.layout.banks(ri) as usize * lanes / b.clusters);
            if known & payload == payload { lane_mask(lanes) } else { 0 }
        }
    }
}

/// Clusters with an active lane in `mask`.
fn active_clusters(mask: u64, lanes_per_cluster: u32, clusters: usize) -> u64 {
    let per = lane_mask(lanes_per_cluster as usize);
    (0..clusters).fold(0, |m, c| m | ((mask >> (c as u32 * lanes_per_cluster) & per != 0) as u64) << c)
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

#[cfg(test)]
mod compressed_tests {
    use super::*;

    /// The compressed timing example of docs/bdi.md (preset isca15-bdi: compressor 2 cycles,
    /// decompressor 1, wake-up 10), cycle by cycle.
    #[test]
    fn documented_compressed_timing() {
        let checked = rfgen_gen::config::preset("isca15-bdi").unwrap();
        let g = checked.geometry.clone();
        let mut m = Mrf::for_config(&checked);
        let mut inp = MrfIn::new(&g);
        inp.disp_ready = true;
        // (wb_ready, group 0's gated banks, banks read, banks written, offered tag)
        let mut log = Vec::new();
        for cycle in 0..36 {
            inp.wb_valid = matches!(cycle, 0 | 1);
            inp.issue_valid = matches!(cycle, 14 | 30);
            inp.wb_warp = 0;
            inp.wb_reg = 0;
            if cycle == 0 {
                // A: r0 of warp 0, every lane 7 (<4,0>, one bank).
                inp.wb_mask = u64::MAX;
                inp.wb_data.fill(7);
            } else {
                // B: the same register, lane 0 only (divergent): 99.
                inp.wb_mask = 1;
                inp.wb_data.fill(99);
            }
            inp.issue_src_valid = [true, false, false];
            inp.issue_src_reg = [0; 3];
            inp.issue_tag = if cycle == 14 { 0xC } else { 0xD };
            let out = m.outputs();
            let bits = |v: &[u64]| v[0] & 0xff;
            log.push((
                out.wb_ready,
                bits(out.bank_gated),
                bits(out.bank_rd_en),
                bits(out.bank_wr_en),
                out.disp_valid.then_some(out.disp_tag),
            ));
            if out.disp_valid {
                let data = out.disp_src_data[0];
                let want = if out.disp_tag == 0xC { [7, 7] } else { [99, 7] };
                assert_eq!([data[0], data[1]], want, "tag {:#x}", out.disp_tag);
            }
            m.tick(&inp);
        }
        let at = |c: usize| log[c];
        // A is taken in cycle 0 and leaves the compressor in cycle 2; bank 0 of group 0 is gated
        // (reset), wakes from edge 2 for 10 cycles; A commits in cycle 13.
        assert_eq!(at(0), (true, 0xff, 0, 0, None));
        assert_eq!(at(2), (false, 0xff, 0, 0, None));
        assert_eq!(at(3), (false, 0xfe, 0, 0, None), "bank 0 powered, waking");
        assert_eq!(at(12), (false, 0xfe, 0, 0, None));
        assert_eq!(at(13), (true, 0xfe, 0, 0x01, None), "A commits: one bank");
        // B (partial) needs all 8 banks: banks 1..7 wake from edge 14; C reads A meanwhile.
        assert_eq!(at(14), (false, 0xfe, 0, 0, None));
        assert_eq!(at(15), (false, 0x00, 0x01, 0, None), "C's read touches bank 0 only");
        assert_eq!(at(18), (false, 0x00, 0, 0, Some(0xC)));
        // Awake in cycle 25: the dummy MOV reads A, writes it back uncompressed in 27; B in 28.
        assert_eq!(at(24), (false, 0x00, 0, 0, None));
        assert_eq!(at(25), (false, 0x00, 0x01, 0, None), "dummy MOV read");
        assert_eq!(at(26), (false, 0x00, 0, 0, None));
        assert_eq!(at(27), (false, 0x00, 0, 0xff, None), "dummy MOV write-back, uncompressed");
        assert_eq!(at(28), (true, 0x00, 0, 0x01, None), "B writes lane 0's bank");
        // D, issued in cycle 30, reads the uncompressed register: all 8 banks.
        assert_eq!(at(31), (true, 0x00, 0xff, 0, None));
        assert_eq!(at(34), (true, 0x00, 0, 0, Some(0xD)));
        let s = m.stats();
        assert_eq!((s.dummy_movs, s.partial_writes, s.full_writes_by_ri[1], s.bank_wakeups), (1, 1, 1, 8));
        assert_eq!((s.bank_reads, s.bank_writes, s.decompressions, s.compressions), (1 + 1 + 8, 1 + 8 + 1, 2, 1));
    }
}
