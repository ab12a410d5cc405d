//! Sizes derived from a validated config, and the register-to-bank mapping (SPEC §0).
//!
//! [`Geometry::map`] is the one definition of where a warp register lives: the golden model
//! calls it, and the generated `reg_map` module is its RTL twin (checked by the MRF cosim).

use crate::schema::{Mrf, Sm, Timing};

/// Bits needed to index `n` things (at least 1, so every index port has a width).
pub fn index_bits(n: u32) -> u32 {
    if n <= 2 { 1 } else { 32 - (n - 1).leading_zeros() }
}

/// Operand slots per collector unit: an instruction has at most 3 source registers.
pub const SLOTS_PER_COLLECTOR: u32 = 3;

/// Bits per lane of a register.
pub const LANE_BITS: u32 = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    pub warps: u32,
    pub lanes: u32,
    pub clusters: u32,
    pub lanes_per_cluster: u32,
    pub registers: u32,
    /// Banks per cluster = bank groups; a warp register occupies the same group in every cluster.
    pub groups: u32,
    pub entries: u32,
    pub collectors: u32,
    pub tag_bits: u32,
    /// With register renaming (`rename.enabled`), the MRF's ports carry physical register ids
    /// and rows from `tfet_row` on are TFET (one extra cycle per read and write); without it,
    /// `(warp, register)` and no TFET row.
    pub renamed: bool,
    pub tfet_row: u32,
    /// Not every warp fits in the rows at `registers` per thread: the MRF takes the rows per
    /// warp of the running kernel on its `rows_per_warp` port, and the SM launches only the
    /// warps whose rows exist (register-limited occupancy, as on real GPUs). Otherwise the
    /// stride is the constant `registers / G` and every warp slot has its rows.
    pub register_limited: bool,
    /// `timing.mrf_registered_grant`: each bank group registers its arbiter's grant, and the
    /// banks read the granted row the cycle after (one more cycle per operand read).
    pub registered_grant: bool,
    /// `timing.mrf_registered_address`: each bank group registers the granted row as the banks'
    /// read address, so they read it two cycles after the grant (one more cycle per operand read).
    pub registered_address: bool,
    /// `timing.mrf_registered_read`: each bank group registers its banks' read data (one more
    /// cycle per operand read).
    pub registered_read: bool,
    /// `timing.mrf_registered_dispatch`: the collector offered for dispatch is chosen into a
    /// register (one more cycle from complete to offered).
    pub registered_dispatch: bool,
}

/// Not every warp slot has rows for `registers` per thread.
fn register_limited(warps: u32, registers: u32, groups: u32, entries: u32) -> bool {
    warps * registers / groups > entries
}

/// Where a warp register lives: bank group (the same in every cluster) and row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BankAddr {
    pub group: u32,
    pub row: u32,
}

impl Geometry {
    /// The sizes of validated `[sm]` and `[mrf]` sections.
    pub fn new(sm: &Sm, mrf: &Mrf, timing: &Timing) -> Self {
        Geometry {
            warps: sm.warps,
            lanes: sm.lanes,
            clusters: sm.clusters,
            lanes_per_cluster: sm.lanes / sm.clusters,
            registers: sm.registers_per_thread,
            groups: mrf.banks / sm.clusters,
            entries: mrf.entries,
            collectors: mrf.collectors,
            tag_bits: mrf.tag_bits,
            renamed: false,
            tfet_row: mrf.entries,
            register_limited: register_limited(sm.warps, sm.registers_per_thread, mrf.banks / sm.clusters, mrf.entries),
            registered_grant: timing.mrf_registered_grant,
            registered_address: timing.mrf_registered_address,
            registered_read: timing.mrf_registered_read,
            registered_dispatch: timing.mrf_registered_dispatch,
        }
    }

    /// The same sizes with renaming: physical register ids, TFET rows from `cmos_rows` on.
    pub fn renamed(self, cmos_rows: u32) -> Self {
        Geometry { renamed: true, tfet_row: cmos_rows, register_limited: false, ..self }
    }

    /// Where `(warp, register)` would live without renaming. The warpboard bins architectural
    /// registers by it: its bins are a hash of the registers an instruction touches, and the
    /// physical register is not known at issue.
    pub fn architectural(&self) -> Self {
        Geometry {
            renamed: false,
            tfet_row: self.entries,
            register_limited: register_limited(self.warps, self.registers, self.groups, self.entries),
            ..self.clone()
        }
    }

    /// Some rows are TFET.
    pub fn has_tfet(&self) -> bool {
        self.tfet_row < self.entries
    }

    /// Edges from a bank grant to its read: with a registered grant one, with the read address
    /// registered as well two.
    pub fn read_delay(&self) -> u32 {
        u32::from(self.registered_grant) + u32::from(self.registered_address)
    }

    /// An uncompressed bank group says when a slot's data is on its read data (`deliver`): a
    /// read takes more than one cycle for some rows (TFET) or for all (a registered address or
    /// registered read data).
    pub fn delivers(&self) -> bool {
        self.has_tfet() || self.registered_read || self.registered_address
    }

    /// Register `r` of warp `w` lives in group `(r + w) mod G`, row `w * S + r / G`, `S` being
    /// the rows per warp ([`Geometry::rows_per_warp`]: `R / G` unless register-limited).
    /// Validation guarantees `R` is a multiple of `G`, which makes the map one-to-one.
    /// Renamed, `reg` is a physical register `p` (the warp plays no part): group `p mod G`,
    /// row `p / G`. `G` is a power of two (validated), so both are a mask and a shift.
    pub fn map(&self, warp: u32, reg: u32, rows_per_warp: u32) -> BankAddr {
        let shift = self.groups.trailing_zeros();
        if self.renamed {
            return BankAddr { group: reg & (self.groups - 1), row: reg >> shift };
        }
        BankAddr { group: self.group(warp, reg), row: warp * rows_per_warp + (reg >> shift) }
    }

    /// The bank group of register `reg` of `warp` (whatever the rows per warp).
    pub fn group(&self, warp: u32, reg: u32) -> u32 {
        if self.renamed { reg & (self.groups - 1) } else { self.architectural_group(warp, reg) }
    }

    /// The bank group of register `reg` of `warp` without renaming ([`Geometry::architectural`]).
    pub fn architectural_group(&self, warp: u32, reg: u32) -> u32 {
        (reg + warp) & (self.groups - 1)
    }

    /// Rows per warp for a kernel of `regs` registers per thread: its registers rounded up to
    /// whole rows when register-limited, else the constant `R / G`.
    pub fn rows_per_warp(&self, regs: u32) -> u32 {
        if self.register_limited { regs.max(1).div_ceil(self.groups) } else { self.registers / self.groups }
    }

    /// Width of the `rows_per_warp` port: up to `R / G`.
    pub fn stride_bits(&self) -> u32 {
        index_bits(self.registers / self.groups + 1)
    }

    /// Warp slots a kernel of `regs` registers per thread can use: the first ones, as many as
    /// have rows (all of them unless register-limited).
    pub fn resident_warps(&self, regs: u32) -> u32 {
        self.warps.min(self.entries / self.rows_per_warp(regs))
    }

    /// Physical warp registers: every row of every bank group.
    pub fn physical_registers(&self) -> u32 {
        self.groups * self.entries
    }

    /// Width of the register id on the MRF's ports: architectural, or physical when renamed.
    pub fn mrf_reg_bits(&self) -> u32 {
        if self.renamed { index_bits(self.physical_registers()) } else { self.reg_bits() }
    }

    pub fn warp_bits(&self) -> u32 {
        index_bits(self.warps)
    }
    pub fn reg_bits(&self) -> u32 {
        index_bits(self.registers)
    }
    pub fn group_bits(&self) -> u32 {
        index_bits(self.groups)
    }
    pub fn row_bits(&self) -> u32 {
        index_bits(self.entries)
    }
    pub fn collector_bits(&self) -> u32 {
        index_bits(self.collectors)
    }
    /// Operand slots in the whole MRF (all collectors).
    pub fn slots(&self) -> u32 {
        self.collectors * SLOTS_PER_COLLECTOR
    }
    /// Width of one bank entry: the lanes of one cluster.
    pub fn entry_bits(&self) -> u32 {
        self.lanes_per_cluster * LANE_BITS
    }
    /// Width of one warp register.
    pub fn warp_reg_bits(&self) -> u32 {
        self.lanes * LANE_BITS
    }
}
