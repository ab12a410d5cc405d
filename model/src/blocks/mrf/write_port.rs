//! The write port of the compressed MRF (generated `<prefix>_mrf_write_port`): every taken
//! write-back enters the compressor (a partial mask bypasses compression); the register leaving
//! it — the head — commits to its bank group once the banks it needs are awake; a partial head
//! whose register is compressed first has a dummy MOV decompress it (seed 004 §5.2).

use super::compressed_bank_group::CompressedBankGroup;
use super::low_bits;
use crate::blocks::bdi::{Compressor, Packed};
use rfgen_gen::layout::bdi::Layout;

/// Address and mask of a write, travelling beside the compressor.
#[derive(Clone, Copy, Debug, Default)]
pub struct Side {
    pub group: u32,
    pub row: u32,
    pub mask: u64,
    pub partial: bool,
}

/// What the write port does this cycle, decided from the state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WriteAction {
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
pub struct WritePort {
    clusters: u32,
    decompress_latency: u32,
    pub compressor: Compressor,
    side: Vec<Side>,
    newest: usize,
    /// A dummy MOV's read is in flight, and edges until it leaves the decompressor.
    mov_wait: bool,
    mov_left: u32,
    /// The dummy MOV's register as its read delivers it, and its known lanes.
    pub mov_data: Vec<u32>,
    pub mov_known: u64,
}

impl WritePort {
    pub fn new(l: &Layout) -> Self {
        WritePort {
            clusters: l.clusters,
            decompress_latency: l.decompress_latency,
            compressor: Compressor::new(l),
            side: vec![Side::default(); l.compress_latency as usize],
            newest: 0,
            mov_wait: false,
            mov_left: 0,
            mov_data: vec![0; l.lanes as usize],
            mov_known: 0,
        }
    }

    pub fn reset(&mut self) {
        self.compressor.reset();
        self.mov_wait = false;
    }

    /// The register leaving the compressor and its address, if any.
    pub fn head(&self) -> Option<(&Packed, Side)> {
        let (valid, packed) = self.compressor.output();
        valid.then(|| (packed, self.side[(self.newest + 1) % self.side.len()]))
    }

    /// Group and row of every register in the port (taken, not yet committed).
    pub fn in_flight(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.compressor.stage_valid().iter().zip(&self.side).filter(|(v, _)| **v).map(|(_, s)| (s.group, s.row))
    }

    /// Banks of its group the head needs awake: all for a partial write, else its chunks'.
    pub fn needs(&self) -> u64 {
        match self.head() {
            Some((_, side)) if side.partial => low_bits(self.clusters),
            Some((packed, _)) => packed.bank_en(),
            None => 0,
        }
    }

    /// This cycle's decision, given the head's bank group.
    pub fn action(&self, groups: &[CompressedBankGroup]) -> WriteAction {
        let Some((_, side)) = self.head() else { return WriteAction::Wait };
        if self.mov_wait {
            return if self.mov_left == 0 { WriteAction::MovCommit } else { WriteAction::Wait };
        }
        let group = &groups[side.group as usize];
        if self.needs() & !group.power.usable() != 0 {
            return WriteAction::Wait;
        }
        if side.partial && group.table.compressed(side.row) { WriteAction::MovRead } else { WriteAction::Commit }
    }

    /// The MOV's state at an edge with this cycle's action.
    pub fn mov_edge(&mut self, action: WriteAction) {
        match action {
            WriteAction::MovRead => {
                self.mov_wait = true;
                self.mov_left = self.decompress_latency;
            }
            WriteAction::MovCommit => self.mov_wait = false,
            _ if self.mov_wait && self.mov_left > 0 => self.mov_left -= 1,
            _ => {}
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
