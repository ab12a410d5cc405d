//! One bank group (generated `<prefix>_mrf_bank_group`): the bank at one position in every
//! cluster, sharing a row address — together one logical bank of `lanes × 32` bits with one
//! read and one write port — and the round-robin arbiter over all operand slots. With TFET
//! rows (`rename.enabled`), its read port is busy for the cycle after a grant of a TFET row.

use crate::blocks::arbiter::RoundRobin;

#[derive(Clone, Debug)]
pub struct BankGroup {
    pub arbiter: RoundRobin,
    /// The read port finishes a TFET read this cycle (a TFET row was granted at the last edge):
    /// nothing is granted.
    pub read_busy: bool,
    lanes: usize,
    /// `[row][lane]`; bank contents are not reset.
    mem: Vec<u32>,
    /// Lanes of each row holding a written value (the RTL's unwritten storage is undefined).
    known: Vec<u64>,
}

impl BankGroup {
    pub fn new(slots: u32, entries: u32, lanes: usize) -> Self {
        BankGroup {
            arbiter: RoundRobin::new(slots),
            read_busy: false,
            lanes,
            mem: vec![0; entries as usize * lanes],
            known: vec![0; entries as usize],
        }
    }

    /// Reset clears the arbiter and the read port's busy cycle; the contents are kept.
    pub fn reset(&mut self) {
        self.arbiter.reset();
        self.read_busy = false;
    }

    /// Reads `row` into `out`; returns its known lanes.
    pub fn read(&self, row: u32, out: &mut [u32]) -> u64 {
        out.copy_from_slice(&self.mem[row as usize * self.lanes..][..self.lanes]);
        self.known[row as usize]
    }

    /// Writes the lanes of `mask` (read-first: after this cycle's read).
    pub fn write(&mut self, row: u32, mask: u64, data: &[u32]) {
        let words = &mut self.mem[row as usize * self.lanes..][..self.lanes];
        if mask == super::lane_mask(self.lanes) {
            words.copy_from_slice(data);
        } else {
            for (lane, w) in words.iter_mut().enumerate() {
                if mask >> lane & 1 == 1 {
                    *w = data[lane];
                }
            }
        }
        self.known[row as usize] |= mask;
    }
}
