//! What the MRF counts as it runs: the statistics behind `rfgen sim`'s energy and its reports.

use rfgen_gen::layout::orf::LEVEL_LRF;

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
    /// Warp registers written to the banks (write-backs, or with a register file cache the
    /// write-backs it does not keep, its evictions and its flushes).
    pub mrf_writes: u64,
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
    /// Finished warps whose registers were invalidated (`free_valid`).
    pub warps_freed: u64,
    /// Cycles a write-back could not be taken (`wb_ready` low).
    pub wb_stall_cycles: u64,
    /// TFET rows only (`rename.enabled`): bank-group reads (grants) and writes (write-backs
    /// taken) of a TFET row, per warp register as `operand_reads` and `mrf_writes` count; the
    /// CMOS ones are the rest of those.
    pub tfet_reads: u64,
    pub tfet_writes: u64,
    /// Register file cache only from here on: what it did, and the lanes written into it.
    pub rfc: RfcStats,
    pub rfc_written_lanes: u64,
    /// ORF/LRF only: what the upper levels did.
    pub orf: OrfStats,
}

/// Operand register file and last result file events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrfStats {
    /// Source operands read from the ORF and from the LRF.
    pub orf_reads: u64,
    pub lrf_reads: u64,
    /// Entries written (write-backs and fills) in the ORF and in the LRF.
    pub orf_writes: u64,
    pub lrf_writes: u64,
    /// Of those, fills (an MRF read copied up).
    pub fills: u64,
    /// Write-backs that skipped the MRF.
    pub mrf_writes_skipped: u64,
    /// Cycles a fill waited for the write port (a write-back took it).
    pub fill_waits: u64,
    /// Two-level scheduler: slots taken by warps and freed by their release, and writes
    /// dropped because their warp had no slot.
    pub slots_taken: u64,
    pub slots_released: u64,
    pub slotless_writes: u64,
}

impl OrfStats {
    /// One read (or, `write`, one write) of an entry of `level`.
    pub(super) fn count(&mut self, level: u8, write: bool) {
        let lrf = u64::from(level) == LEVEL_LRF;
        *match (lrf, write) {
            (false, false) => &mut self.orf_reads,
            (true, false) => &mut self.lrf_reads,
            (false, true) => &mut self.orf_writes,
            (true, true) => &mut self.lrf_writes,
        } += 1;
    }
}

/// Register file cache events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RfcStats {
    /// Source operands found in the RFC (not read from the banks).
    pub read_hits: u64,
    /// Write-backs into an entry already holding the register.
    pub write_hits: u64,
    /// Write-backs given a new entry.
    pub allocations: u64,
    /// Write-backs sent to the banks (long-latency, partial-mask, or no slot).
    pub bypasses: u64,
    /// Dirty live entries written back on eviction, and dirty dead ones dropped.
    pub evictions: u64,
    pub dead_evictions: u64,
    /// Flushes started (deschedules) and the entries they wrote back.
    pub flushes: u64,
    pub flush_writes: u64,
    pub activations: u64,
}

impl MrfStats {
    /// Bank-cycles spent power-gated, all banks together.
    pub fn gated_bank_cycles(&self) -> u64 {
        self.gated_cycles.iter().sum()
    }
}
