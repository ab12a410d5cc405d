//! One operand collector unit (generated `<prefix>_operand_collector`): holds an issued
//! instruction, requests each source operand from its bank group, keeps the data, and is ready
//! for dispatch when every source has arrived.

use rfgen_gen::layout::geometry::SLOTS_PER_COLLECTOR;

pub const SLOTS: usize = SLOTS_PER_COLLECTOR as usize;

#[derive(Clone, Debug)]
pub struct OperandCollector {
    /// Holds an instruction.
    pub busy: bool,
    /// Slots waiting for a bank grant, bit per slot.
    pub pending: u8,
    /// Per slot: the edge count (the MRF's clock) from which its granted data is here, and the
    /// latest of them: times rather than countdowns, so that no edge has to count them down.
    arrive_at: [u64; SLOTS],
    all_at: u64,
    pub warp: u32,
    pub tag: u32,
    pub src_valid: [bool; SLOTS],
    /// Per slot: bank group and row of its register.
    pub group: [u32; SLOTS],
    pub row: [u32; SLOTS],
    /// Per slot: the register's lanes and which of them hold a written value. The data is taken
    /// at the bank read (the banks are read-first and the path to the slot only delays it).
    data: [Vec<u32>; SLOTS],
    known: [u64; SLOTS],
    /// With an ORF/LRF: per slot, the level (`LEVEL_*`) and entry its MRF read also fills, and
    /// the slots whose fill is not written yet (the unit is not ready until they are).
    pub fill_level: [u8; SLOTS],
    pub fill_entry: [u32; SLOTS],
    pub filling: u8,
}

impl OperandCollector {
    pub fn new(lanes: usize) -> Self {
        OperandCollector {
            busy: false,
            pending: 0,
            arrive_at: [0; SLOTS],
            all_at: 0,
            warp: 0,
            tag: 0,
            src_valid: [false; SLOTS],
            group: [0; SLOTS],
            row: [0; SLOTS],
            data: std::array::from_fn(|_| vec![0; lanes]),
            known: [0; SLOTS],
            fill_level: [0; SLOTS],
            fill_entry: [0; SLOTS],
            filling: 0,
        }
    }

    /// Reset clears the control state; the instruction fields are only read while busy.
    pub fn reset(&mut self) {
        self.busy = false;
        self.pending = 0;
        (self.arrive_at, self.all_at) = ([0; SLOTS], 0);
        self.filling = 0;
    }

    /// At `now` edges: busy, with no slot pending, in flight or waiting to fill: offered for
    /// dispatch.
    pub fn ready(&self, now: u64) -> bool {
        // Without branches: it is asked of every unit each cycle, with answers hard to predict.
        self.busy & ((self.pending | self.filling) == 0) & (self.all_at <= now)
    }

    /// At `now` edges: free, with nothing in flight to it.
    pub fn idle(&self, now: u64) -> bool {
        !self.busy && self.all_at <= now
    }

    /// At `now` edges: slots whose data is here and whose fill is not written yet: they
    /// request the write port.
    pub fn fill_requests(&self, now: u64) -> u8 {
        let arrived = (0..SLOTS).fold(0, |m, s| m | ((self.arrive_at[s] <= now) as u8) << s);
        self.filling & !self.pending & arrived
    }

    /// The data and known lanes of slot `s`.
    pub fn operand(&self, s: usize) -> (&[u32], u64) {
        (&self.data[s], self.known[s])
    }

    /// Slot `s` is granted: its data is here from edge count `at` on.
    pub fn grant(&mut self, s: usize, at: u64) {
        self.pending &= !(1 << s);
        self.arrive_at[s] = at;
        self.all_at = self.all_at.max(at);
    }

    /// Where slot `s`'s bank read is written, with its known lanes (the data is taken when the
    /// banks read it; the path to the slot only delays it).
    pub fn landing(&mut self, s: usize) -> (&mut [u32], &mut u64) {
        (&mut self.data[s], &mut self.known[s])
    }

    /// Slot `s` of the instruction just allocated gets its data at once (a register file cache
    /// hit, an ORF or LRF read), `known` lanes holding a value; nothing is read from the banks.
    pub fn take(&mut self, s: usize, data: &[u32], known: u64) {
        self.pending &= !(1 << s);
        self.data[s].copy_from_slice(data);
        self.known[s] = known;
    }

    /// The instruction leaves at this edge.
    pub fn dispatch(&mut self) {
        self.busy = false;
    }

    /// Takes an instruction: each valid source becomes a pending slot.
    pub fn alloc(&mut self, warp: u32, tag: u32, src_valid: [bool; SLOTS], addr: [(u32, u32); SLOTS]) {
        self.busy = true;
        self.warp = warp;
        self.tag = tag;
        self.src_valid = src_valid;
        self.pending = src_valid.iter().enumerate().fold(0, |m, (s, &v)| m | (v as u8) << s);
        (self.arrive_at, self.all_at) = ([0; SLOTS], 0);
        self.filling = 0;
        for (s, &(group, row)) in addr.iter().enumerate() {
            (self.group[s], self.row[s]) = (group, row);
        }
    }

    /// Slot `s`'s MRF read also fills `entry` of `level` (read-operand allocation).
    pub fn fill_after_read(&mut self, s: usize, level: u8, entry: u32) {
        self.fill_level[s] = level;
        self.fill_entry[s] = entry;
        self.filling |= 1 << s;
    }
}
