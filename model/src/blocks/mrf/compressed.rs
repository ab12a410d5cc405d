//! The compressed parts of the MRF model (`Mrf` with `compression.enabled`): range table and
//! valid counts per bank group, bank power gating, and the write port (compressor pipeline,
//! commit, dummy MOV). The rules are written in `model::mrf`'s doc comment; the RTL twins are
//! `range_table`, `bank_power`, `mrf_write_port` and `mrf_bank_group`.

use crate::blocks::bdi::{Compressor, Packed};
use rfgen_gen::Geometry;
use rfgen_gen::bdi::Layout;

/// Address and mask of a write, travelling beside the compressor.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Side {
    pub group: u32,
    pub row: u32,
    pub mask: u64,
    pub partial: bool,
}

/// What the write port does this cycle, decided from the state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum WriteAction {
    /// Nothing to commit, or the head waits (banks waking, MOV in flight).
    #[default]
    Wait,
    /// The head commits.
    Commit,
    /// The dummy MOV reads the head's register.
    MovRead,
    /// The dummy MOV writes the register back decompressed.
    MovCommit,
}

#[derive(Clone, Debug)]
pub(crate) struct Compression {
    pub layout: Layout,
    pub clusters: usize,
    entries: usize,
    /// Range indicator and valid bit of every register, `[group * entries + row]`.
    ri: Vec<u8>,
    valid: Vec<bool>,
    /// Valid entries per bank, `[group * C + cluster]`.
    count: Vec<u32>,
    /// Per group, one bit per cluster: banks holding a valid entry, powered, waking up.
    nonempty: Vec<u64>,
    on: Vec<u64>,
    waking: Vec<u64>,
    /// Cycles left until a waking bank is awake, `[group * C + cluster]`.
    timer: Vec<u32>,
    /// Banks occupied by each range indicator (thermometer masks).
    occupancy: Vec<u64>,
    pub compressor: Compressor,
    side: Vec<Side>,
    newest: usize,
    /// A dummy MOV's read is in flight; cycles until it leaves the decompressor; its register.
    pub mov_wait: bool,
    mov_left: u32,
    pub mov_data: Vec<u32>,
    pub mov_known: u64,
}

impl Compression {
    pub fn new(g: &Geometry, layout: &Layout) -> Compression {
        let regs = (g.groups * g.entries) as usize;
        let banks = (g.groups * layout.clusters) as usize;
        let codes = 1usize << layout.ri_bits();
        Compression {
            clusters: layout.clusters as usize,
            entries: g.entries as usize,
            ri: vec![0; regs],
            valid: vec![false; regs],
            count: vec![0; banks],
            nonempty: vec![0; g.groups as usize],
            on: vec![0; g.groups as usize],
            waking: vec![0; g.groups as usize],
            timer: vec![0; banks],
            occupancy: (0..codes as u32).map(|ri| low_bits(layout.banks(ri))).collect(),
            compressor: Compressor::new(layout),
            side: vec![Side::default(); layout.compress_latency as usize],
            newest: 0,
            mov_wait: false,
            mov_left: 0,
            mov_data: vec![0; g.lanes as usize],
            mov_known: 0,
            layout: layout.clone(),
        }
    }

    /// Reset: no register valid, every bank gated, pipelines empty.
    pub fn reset(&mut self) {
        self.valid.fill(false);
        self.count.fill(0);
        self.nonempty.fill(0);
        self.on.fill(0);
        self.waking.fill(0);
        self.compressor.reset();
        self.mov_wait = false;
    }

    pub fn reg(&self, group: u32, row: u32) -> usize {
        group as usize * self.entries + row as usize
    }

    /// Range indicator of a valid register, `None` when it holds no value.
    pub fn range(&self, reg: usize) -> Option<u32> {
        self.valid[reg].then(|| self.ri[reg] as u32)
    }

    /// Banks holding a register's chunks (none when it holds no value).
    pub fn occupied(&self, reg: usize) -> u64 {
        self.range(reg).map_or(0, |ri| self.occupancy[ri as usize])
    }

    pub fn occupancy(&self, ri: u32) -> u64 {
        self.occupancy[ri as usize]
    }

    /// Awake banks of a group.
    pub fn usable(&self, group: u32) -> u64 {
        self.on[group as usize] & !self.waking[group as usize]
    }

    /// Power-gated banks of a group.
    pub fn gated(&self, group: u32) -> u64 {
        !self.on[group as usize] & low_bits(self.clusters as u32)
    }

    /// The register leaving the compressor and its address, if any.
    pub fn head(&self) -> Option<(&Packed, Side)> {
        let (valid, packed) = self.compressor.output();
        valid.then(|| (packed, self.side[(self.newest + 1) % self.side.len()]))
    }

    /// Banks of its group the head needs awake: all for a partial write, else its chunks'.
    pub fn needs(&self) -> u64 {
        match self.head() {
            Some((_, side)) if side.partial => low_bits(self.clusters as u32),
            Some((packed, _)) => packed.bank_en(),
            None => 0,
        }
    }

    /// The write port's decision this cycle (see the rules in `model::mrf`).
    pub fn action(&self) -> WriteAction {
        let Some((_, side)) = self.head() else { return WriteAction::Wait };
        if self.mov_wait {
            return if self.mov_left == 0 { WriteAction::MovCommit } else { WriteAction::Wait };
        }
        let needs = self.needs();
        if needs & !self.usable(side.group) != 0 {
            return WriteAction::Wait;
        }
        let compressed = self.range(self.reg(side.group, side.row)).is_some_and(|ri| ri != 0);
        if side.partial && compressed { WriteAction::MovRead } else { WriteAction::Commit }
    }

    /// Power gating at an edge, from the state before it: a bank with no valid entry that the
    /// head does not need is gated; a gated bank the head needs starts waking. Returns the
    /// number of banks that started waking.
    pub fn power_edge(&mut self) -> u64 {
        let (head_group, needs) = self.head().map_or((usize::MAX, 0), |(_, s)| (s.group as usize, self.needs()));
        let all = low_bits(self.clusters as u32);
        let mut woken = 0;
        for g in 0..self.on.len() {
            let wanted = if g == head_group { needs } else { 0 };
            let off = !self.nonempty[g] & !wanted & all;
            let start = !self.on[g] & wanted;
            let mut count_down = self.waking[g] & !off & !start;
            self.on[g] = (self.on[g] & !off) | start;
            self.waking[g] &= !off;
            while count_down != 0 {
                let b = g * self.clusters + count_down.trailing_zeros() as usize;
                count_down &= count_down - 1;
                self.timer[b] -= 1;
                if self.timer[b] == 0 {
                    self.waking[g] &= !(1 << (b % self.clusters));
                }
            }
            if start != 0 && self.layout.wakeup_cycles > 0 {
                self.waking[g] |= start;
                let mut bits = start;
                while bits != 0 {
                    self.timer[g * self.clusters + bits.trailing_zeros() as usize] = self.layout.wakeup_cycles;
                    bits &= bits - 1;
                }
            }
            woken += u64::from(start.count_ones());
        }
        woken
    }

    /// A commit changes a register's range indicator: it leaves its old banks for its new ones.
    pub fn store(&mut self, reg: usize, ri: u32) {
        let (old, new) = (self.occupied(reg), self.occupancy[ri as usize]);
        let group = reg / self.entries;
        let base = group * self.clusters;
        for c in 0..self.clusters {
            let count = &mut self.count[base + c];
            match (old >> c & 1, new >> c & 1) {
                (0, 1) => *count += 1,
                (1, 0) => *count -= 1,
                _ => continue,
            }
            self.nonempty[group] = self.nonempty[group] & !(1 << c) | ((*count != 0) as u64) << c;
        }
        self.ri[reg] = ri as u8;
        self.valid[reg] = true;
    }

    /// The MOV read was issued this edge.
    pub fn start_mov(&mut self) {
        self.mov_wait = true;
        self.mov_left = self.layout.decompress_latency;
    }

    /// The MOV state at an edge where it neither starts nor commits.
    pub fn mov_edge(&mut self, committed: bool) {
        if committed {
            self.mov_wait = false;
        } else if self.mov_wait && self.mov_left > 0 {
            self.mov_left -= 1;
        }
    }

    /// With `advance`, the write `(valid, side, data)` enters the compressor and every stage moves on.
    pub fn advance(&mut self, advance: bool, valid: bool, side: Side, data: &[u32]) {
        if advance {
            self.newest = (self.newest + 1) % self.side.len();
            self.side[self.newest] = side;
            self.compressor.tick(true, valid, side.partial, data);
        }
    }
}

/// Mask of the low `n` bits.
pub(crate) fn low_bits(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}
