//! The range indicators of one compressed bank group (generated `<prefix>_range_table`): per
//! register its range indicator and valid bit (reset: none valid; a finished warp's registers
//! are invalidated), and per bank whether it holds a valid entry, which drives power gating.
//! The RTL ORs the per-entry valid bits of each bank (seed 004 §5.3); the model keeps a count
//! per bank, which says the same.

use super::low_bits;

#[derive(Clone, Debug)]
pub struct RangeTable {
    ri: Vec<u8>,
    valid: Vec<bool>,
    /// Valid entries per bank (cluster).
    count: Vec<u32>,
    /// Banks holding a valid entry, bit per cluster.
    nonempty: u64,
    /// Banks occupied by each range indicator (thermometer masks), shared by every group.
    occupancy: Vec<u64>,
}

impl RangeTable {
    pub fn new(entries: u32, clusters: u32, occupancy: &[u64]) -> Self {
        RangeTable {
            ri: vec![0; entries as usize],
            valid: vec![false; entries as usize],
            count: vec![0; clusters as usize],
            nonempty: 0,
            occupancy: occupancy.to_vec(),
        }
    }

    pub fn reset(&mut self) {
        self.valid.fill(false);
        self.count.fill(0);
        self.nonempty = 0;
    }

    /// Range indicator of a valid register, `None` when it holds no value.
    pub fn range(&self, row: u32) -> Option<u32> {
        self.valid[row as usize].then(|| self.ri[row as usize] as u32)
    }

    /// Banks holding a register's chunks (none when it holds no value).
    pub fn occupied(&self, row: u32) -> u64 {
        self.range(row).map_or(0, |ri| self.occupancy[ri as usize])
    }

    /// The register holds a compressed value.
    pub fn compressed(&self, row: u32) -> bool {
        self.range(row).is_some_and(|ri| ri != 0)
    }

    /// Banks with no valid entry (the `empty` outputs).
    pub fn empty(&self) -> u64 {
        !self.nonempty & low_bits(self.count.len() as u32)
    }

    /// The registers of rows `rows` become invalid (their warp finished).
    pub fn free(&mut self, rows: std::ops::Range<u32>) {
        for row in rows {
            let old = self.occupied(row);
            for c in 0..self.count.len() {
                if old >> c & 1 == 1 {
                    self.count[c] -= 1;
                    self.nonempty &= !(((self.count[c] == 0) as u64) << c);
                }
            }
            self.valid[row as usize] = false;
        }
    }

    /// A write stores a range indicator: the register leaves its old banks for its new ones.
    pub fn store(&mut self, row: u32, ri: u32) {
        let (old, new) = (self.occupied(row), self.occupancy[ri as usize]);
        for (c, count) in self.count.iter_mut().enumerate() {
            match (old >> c & 1, new >> c & 1) {
                (0, 1) => *count += 1,
                (1, 0) => *count -= 1,
                _ => continue,
            }
            self.nonempty = self.nonempty & !(1 << c) | ((*count != 0) as u64) << c;
        }
        self.ri[row as usize] = ri as u8;
        self.valid[row as usize] = true;
    }
}
