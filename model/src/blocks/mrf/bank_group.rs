//! One bank group (generated `<prefix>_mrf_bank_group`): the bank at one position in every
//! cluster, sharing a row address — together one logical bank of `lanes × 32` bits with one
//! read and one write port — and the round-robin arbiter over all operand slots. With TFET
//! rows (`rename.enabled`), its read port is busy for the cycle after a read of a TFET row.
//! With a registered grant (`timing.mrf_registered_grant`), the banks read the row of the
//! grant made at the previous edge; with the read address registered as well
//! (`timing.mrf_registered_address`), of the one made the edge before that.

use crate::blocks::arbiter::RoundRobin;

#[derive(Clone, Debug)]
pub struct BankGroup {
    pub arbiter: RoundRobin,
    /// The read port finishes a TFET read this cycle (a TFET row was granted at the last edge):
    /// nothing is granted.
    pub read_busy: bool,
    /// Registered grant: the slot (`3c + s`) granted at the last edge and its row (`[0]`), and
    /// with a registered address the one granted the edge before (`[1]`), not yet read.
    pub issued: [Option<(u32, u32)>; 2],
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
            issued: [None; 2],
            lanes,
            mem: vec![0; entries as usize * lanes],
            known: vec![0; entries as usize],
        }
    }

    /// Reset clears the arbiter, the registered grant and the read port's busy cycle. The
    /// contents are kept but read as unknown until written again: a write under way when reset
    /// rises may or may not have landed.
    pub fn reset(&mut self) {
        self.arbiter.reset();
        self.read_busy = false;
        self.issued = [None; 2];
        self.known.fill(0);
    }

    /// Takes this edge's grant into the registered stages (`delay` of them) and returns the
    /// grant the banks read now.
    pub fn stage(&mut self, grant: Option<(u32, u32)>, delay: u32) -> Option<(u32, u32)> {
        match delay {
            0 => grant,
            1 => std::mem::replace(&mut self.issued[0], grant),
            _ => {
                let [newer, older] = self.issued;
                self.issued = [grant, newer];
                older
            }
        }
    }

    /// Whether nothing granted waits to be read.
    pub fn nothing_issued(&self) -> bool {
        self.issued == [None; 2]
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
