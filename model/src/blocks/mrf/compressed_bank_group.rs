//! One bank group of the compressed MRF (generated `<prefix>_mrf_bank_group` with compression):
//! its banks hold registers as chunks from cluster 0 upward; the range table says how many; a
//! read touches only those banks and is decompressed on its way to the reader; the banks are
//! power-gated when empty.

use super::bank_power::BankPower;
use super::lane_mask;
use super::range_table::RangeTable;
use crate::blocks::arbiter::RoundRobin;
use crate::blocks::bdi::decompress;
use rfgen_gen::layout::bdi::Layout;

#[derive(Clone, Debug)]
pub struct CompressedBankGroup {
    pub arbiter: RoundRobin,
    pub table: RangeTable,
    pub power: BankPower,
    lanes: usize,
    /// `[row][lane]`: chunk `c` of a register is lanes `[c·L/C, (c+1)·L/C)`.
    mem: Vec<u32>,
    known: Vec<u64>,
}

impl CompressedBankGroup {
    pub fn new(slots: u32, entries: u32, lanes: usize, l: &Layout, occupancy: &[u64]) -> Self {
        CompressedBankGroup {
            arbiter: RoundRobin::new(slots),
            table: RangeTable::new(entries, l.clusters, occupancy),
            power: BankPower::new(l.clusters, l.wakeup_cycles, l.gate_delay),
            lanes,
            mem: vec![0; entries as usize * lanes],
            known: vec![0; entries as usize],
        }
    }

    /// Reset clears the range table, so the words kept in the banks no longer stand for any
    /// register's value (their form is forgotten): every lane is unknown until written again.
    pub fn reset(&mut self) {
        self.arbiter.reset();
        self.table.reset();
        self.power.reset();
        self.known.fill(0);
    }

    /// Reads `row` as the read path delivers it (decompressed) into `out`; returns its known
    /// lanes. A register holding no value reads as unknown.
    pub fn read(&self, l: &Layout, row: u32, out: &mut [u32]) -> u64 {
        let words = &self.mem[row as usize * self.lanes..][..self.lanes];
        let known = self.known[row as usize];
        match self.table.range(row) {
            None => {
                out.copy_from_slice(words);
                0
            }
            Some(0) => {
                out.copy_from_slice(words);
                known
            }
            Some(ri) => {
                decompress(l, ri, words, out);
                // Every lane depends on the base and its delta: known when the payload's words are.
                let payload = lane_mask(l.banks(ri) as usize * self.lanes / l.clusters as usize);
                if known & payload == payload { lane_mask(self.lanes) } else { 0 }
            }
        }
    }

    /// Writes `words` into the lanes of `mask` at `row` (chunks, or lanes when uncompressed).
    pub fn write(&mut self, row: u32, mask: u64, words: &[u32]) {
        let dst = &mut self.mem[row as usize * self.lanes..][..self.lanes];
        for (lane, w) in dst.iter_mut().enumerate() {
            if mask >> lane & 1 == 1 {
                *w = words[lane];
            }
        }
        self.known[row as usize] |= mask;
    }

    /// The raw lanes of `row` and their known bits (for the divergent compression statistic).
    pub fn raw(&self, row: u32) -> (&[u32], u64) {
        (&self.mem[row as usize * self.lanes..][..self.lanes], self.known[row as usize])
    }

    /// Replaces a whole row (the dummy MOV's write-back of its decompressed read).
    pub fn replace(&mut self, row: u32, words: &[u32], known: u64) {
        self.mem[row as usize * self.lanes..][..self.lanes].copy_from_slice(words);
        self.known[row as usize] = known;
    }
}
