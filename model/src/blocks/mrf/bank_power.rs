//! Power gating of the banks of one compressed bank group (generated `<prefix>_bank_power`):
//! at each edge, from the state before it, a bank with no valid entry that the write port does
//! not need is idle; a powered bank idle at `gate_delay + 1` edges in a row is gated at the
//! last (at once with no delay); a gated bank the write port needs is powered and awake
//! `wakeup_cycles` edges later. Reset gates every bank.

use super::low_bits;

#[derive(Clone, Debug)]
pub struct BankPower {
    clusters: u32,
    wakeup_cycles: u32,
    gate_delay: u32,
    /// Edges in a row each powered bank has been idle, up to `gate_delay`.
    idle: Vec<u32>,
    /// Powered banks, and powered banks still waking up, bit per cluster.
    on: u64,
    waking: u64,
    /// Edges left until a waking bank is awake.
    timer: Vec<u32>,
}

impl BankPower {
    pub fn new(clusters: u32, wakeup_cycles: u32, gate_delay: u32) -> Self {
        let n = clusters as usize;
        BankPower { clusters, wakeup_cycles, gate_delay, idle: vec![0; n], on: 0, waking: 0, timer: vec![0; n] }
    }

    pub fn reset(&mut self) {
        self.on = 0;
        self.waking = 0;
        self.idle.fill(0);
    }

    /// Banks powered and awake (`usable`).
    pub fn usable(&self) -> u64 {
        self.on & !self.waking
    }

    /// Power-gated banks (`gated`).
    pub fn gated(&self) -> u64 {
        !self.on & low_bits(self.clusters)
    }

    /// One edge with the banks that hold no valid entry and those the write port needs;
    /// returns how many banks started waking.
    pub fn edge(&mut self, empty: u64, wake_req: u64) -> u32 {
        let idle = empty & !wake_req;
        let mut off = 0;
        for (c, n) in self.idle.iter_mut().enumerate() {
            if idle >> c & 1 == 0 {
                *n = 0;
            } else if *n == self.gate_delay {
                off |= 1 << c;
            } else {
                *n += 1;
            }
        }
        let start = !self.on & wake_req;
        let mut count_down = self.waking & !off & !start;
        self.on = (self.on & !off) | start;
        self.waking &= !off;
        while count_down != 0 {
            let c = count_down.trailing_zeros() as usize;
            count_down &= count_down - 1;
            self.timer[c] -= 1;
            if self.timer[c] == 0 {
                self.waking &= !(1 << c);
            }
        }
        if start != 0 && self.wakeup_cycles > 0 {
            self.waking |= start;
            let mut bits = start;
            while bits != 0 {
                self.timer[bits.trailing_zeros() as usize] = self.wakeup_cycles;
                bits &= bits - 1;
            }
        }
        start.count_ones()
    }
}
