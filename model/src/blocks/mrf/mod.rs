//! Golden model of the MRF subsystem: banked main register file + operand collectors
//! (generated top `<prefix>_mrf`), optionally with BDI register compression or a register file
//! cache. This is the executable specification; `docs/mrf.md`, `docs/bdi.md` and `docs/rfc.md`
//! show the same rules as port tables and timing diagrams.
//!
//! # Structure (one struct per generated module)
//! - `G = banks / clusters` bank groups ([`BankGroup`], or [`CompressedBankGroup`] with its
//!   [`RangeTable`] and [`BankPower`]). A warp register lives in one group, same row in every
//!   cluster ([`Geometry::map`]), so a group acts as one logical bank of `lanes × 32` bits with
//!   one read and one write port.
//! - `N` operand collector units ([`OperandCollector`]), each with 3 operand slots; slot `s` of
//!   unit `c` is requester `3c + s` of every bank arbiter ([`RoundRobin`]).
//! - The write path is a variant ([`WritePath`]): write-backs go straight to their bank group,
//!   or, compressed, through the [`WritePort`], or through the register file cache ([`Rfc`]).
//!
//! # One clock cycle
//! Outputs depend only on the state (no input reaches an output combinationally):
//! - `issue_ready` = some unit is free.
//! - `disp_valid` = some unit is complete (busy, no slot pending or in flight); the unit
//!   offered is chosen by the round-robin dispatch arbiter over complete units.
//!
//! At the clock edge, all from the state before the edge:
//! 1. **Bank arbitration**: every pending slot requests its group. Each group's round-robin
//!    arbiter (over the `3N` slots) grants one; the grant is always taken. The granted slot
//!    becomes *in flight* and the group's banks read its row.
//! 2. **Capture**: a slot that was in flight takes the group's read data (the row read one
//!    cycle earlier) and is done.
//! 3. **Dispatch**: if `disp_valid && disp_ready`, the offered unit becomes free. The dispatch
//!    arbiter moves past the unit when taken, and stays on it while the offer is refused.
//! 4. **Issue**: if `issue_valid && issue_ready`, the lowest-numbered free unit (free before
//!    this edge) takes the instruction; each valid source becomes a pending slot.
//! 5. **Write-back**: if `wb_valid`, the masked lanes of the register are written. Banks are
//!    read-first: a read in the same cycle as a write of the same row returns the old value.
//!
//! So an instruction accepted in cycle `t` requests in `t+1`, is in flight in `t+2` and, without
//! conflicts, is offered in `t+3`. Each extra slot granted before it on its bank delays it one
//! cycle. Reset clears every unit and arbiter pointer; bank contents are not reset.
//!
//! The model also tracks which lanes of each register hold a written value ("known"): the RTL's
//! unwritten storage is undefined, so only known lanes are compared.
//!
//! # Compression (`compression.enabled`; seed 004, docs/bdi.md)
//! Every register of a bank group has a range indicator and a valid bit (reset: none valid). A
//! valid register occupies the banks of clusters `0 .. banks(ri)`; each bank counts its valid
//! entries. The outputs add `wb_ready` and, per bank, its read and write strobes and whether it
//! is power-gated — all from the state. The rules above change as follows.
//! - **Reads** (rule 1, 2): a read enables only the banks holding the register's chunks (none
//!   for a register holding no value); its range indicator is read with it, and the group's
//!   decompressor delivers the register `1 + decompress_latency` cycles after the grant, when
//!   the slot captures it. A **dummy MOV read** (below) takes its group's read port: no slot is
//!   granted there that cycle and the arbiter pointer stays; every request to that group waits
//!   (each counted as a bank conflict).
//! - **Write port** (rule 5): `wb_ready` = the *head* (the register leaving the compressor) is
//!   absent or commits this cycle; `wb_commit` = the head commits this cycle (writes commit in
//!   the order they were taken, so the SM releases its oldest uncommitted write-back). A taken write enters the compressor, whose stages advance
//!   only with `wb_ready`; a partial mask (any lane off) bypasses compression. A write taken in
//!   cycle `t` commits in `t + compress_latency` at the earliest and is read by grants after that.
//! - **Commit**: the head needs banks awake: all `C` for a partial write (stored
//!   uncompressed), else those of its chunks. When they are, it writes its chunks to banks
//!   `0 .. banks` (only the clusters with an active lane), stores its range indicator and marks
//!   the register valid; the counts follow (it leaves its old banks for its new ones).
//! - **Free**: with `free_valid`, the registers of warp `free_warp` — rows `free_warp * S ..
//!   (free_warp + 1) * S` of every group, `S` the rows per warp — become invalid at the edge
//!   (a commit at the same edge still marks its row valid). The SM frees a warp once it has
//!   finished and every write-back of it has committed, one warp per cycle.
//! - **Dummy MOV** (§5.2): a partial head whose register is valid and compressed does not
//!   commit; once its banks are awake the MOV reads the register, and when that read leaves the
//!   decompressor (`1 + decompress_latency` cycles later) writes it back decompressed (range
//!   indicator 0, every lane). The head then commits normally, at the earliest one cycle later.
//! - **Power gating** (§5.3), at each edge from the state before it, per bank: no valid entry
//!   and not needed by the head → idle; idle at `gate_delay + 1` edges in a row → gated at the
//!   last (at once by default); gated and needed → powered, awake after `wakeup_cycles` more
//!   edges; otherwise the wake-up countdown runs. Reset gates every bank.
//!   Needed banks are never gated, so a bank holding a valid entry is always awake.
//!
//! # Register file cache (`rfc.enabled`; seed 000 §3, docs/rfc.md)
//! [`Rfc`]: `S` slots (the two-level scheduler's active warps, else every warp) of `E` entries,
//! each a tag (register id), valid, dirty, dead, a replacement rank and one warp register. A
//! warp owns at most one slot. The outputs add `wb_ready` (no eviction waits and no flush is
//! under way), `act_ready` (a slot is free) and `flush_ready` (no flush is under way). At each
//! edge, all from the state before it:
//! - **Tag check at issue** (rule 4): each valid source of the accepted instruction is looked up
//!   in its warp's slot; a hit fills the collector slot with the entry's value at this edge (the
//!   slot never requests a bank), a miss becomes a pending slot as without an RFC. An
//!   instruction whose sources all hit is complete one edge after issue and offered in `t+1`.
//!   A hit whose source is marked last-read (`issue_src_last`, with `rfc.liveness`) marks its
//!   entry dead; with LRU every hit entry becomes the most recent, in source order.
//! - **Write-back** (rule 5), taken only with `wb_ready`: a register the slot holds is updated
//!   in its active lanes, dirty and live again (a *write hit*, whatever its mask or latency). A
//!   miss is *allocated* when the warp owns a slot, `wb_long` is low and every lane is active:
//!   the victim is the lowest invalid entry, else the one with the highest rank (FIFO: the
//!   oldest allocation; LRU: the least recently read or written); a dirty live victim moves to
//!   the eviction buffer, a dirty dead one is dropped. The new entry is valid, dirty, live and
//!   the most recent. Any other write-back *bypasses* the RFC to its bank group.
//! - **Bank write port**, one register per edge, in priority order: the eviction buffer, then a
//!   flush step, then a bypassing write-back. The buffer and a flush lower `wb_ready`, so a
//!   write-back never competes with them: an eviction costs the next cycle's write-back slot.
//! - **Flush** (`flush_valid` with `flush_ready`): the warp's slot (nothing if it owns none)
//!   is flushed, one edge per dirty live entry, lowest entry first, each written to the banks
//!   and invalidated; the edge writing the last frees the slot (a slot with none is freed at the
//!   next edge). A flush step waits while the eviction buffer drains. In front of the compressed
//!   MRF, `flush_ready` also waits for the buffer to empty (below).
//! - **Release** (`rel_mask`): the slots of finished warps are freed without write-backs.
//! - **Activation** (`act_valid` with `act_ready`): the lowest free slot, free before the edge,
//!   becomes the warp's, every entry invalid.
//!
//! A source missing at issue reads the banks one edge later at the earliest, so it sees what an
//! eviction or flush wrote at the edge of the miss. Reset frees every slot.
//!
//! **In front of the compressed MRF**, the RFC's bank write goes into the write port, which may
//! refuse it: the eviction buffer and a flush step leave only at an edge the port takes them
//! (`banks_ready`), and a write-back is taken only when both the RFC and the port take it
//! (`wb_ready = rfc.wb_ready && banks_ready`). `flush_ready` is low while the eviction buffer
//! is full: it may hold a register of the warp flushed last, and the SM takes `flush_ready` as
//! the end of that flush (it then reactivates the warp). A register on its way to the banks —
//! in the eviction buffer or in a compressor stage, head included — is not requested by a
//! collector slot until it is stored (the arbiters never see that request). `wb_commit` is the
//! port's commit, of whatever the RFC sent; the SM releases its scoreboard when the RFC takes
//! the write-back, as without compression.
//!
//! # Operand register file and last result file (`orf.enabled`; seed 001 ch. 6, docs/orf-lrf.md)
//! [`Orf`]: per warp slot, `orf.entries` ORF entries and 0, 1 or 3 LRF entries, each a warp
//! register with a valid bit. There is a slot per warp the scheduler can have active, as for the
//! register file cache: under LRR and GTO slot `w` is warp `w`'s; under the two-level scheduler
//! `active_warps` slots are taken and freed as below. The compiler's allocation comes with each instruction: per source, its
//! level (`issue_src_level`: MRF, ORF, LRF) and entry, or for an MRF source the level it also
//! fills (`issue_src_fill`, same entry field); a strand start (`issue_strand`); per write-back,
//! whether it writes the MRF (`wb_mrf`) and which upper entry (`wb_upper`, `wb_entry`). The
//! outputs add `fill_busy`: warps whose collector slots hold a fill not yet written. At each
//! edge, all from the state before it:
//! - **Reads at issue** (rule 4): an upper-level source of the accepted instruction takes its
//!   entry's value at this edge (never requests a bank); an invalid or absent entry reads zero.
//!   An MRF source with a fill requests its bank as usual and, once its data has arrived, waits
//!   for the write port; the unit is not complete until every such fill is written.
//! - **Write port**, one entry per edge: a write-back with an upper level, else one fill chosen
//!   by a round-robin arbiter over the `3N` slots (bit `3c + s`). A write-back writes its active
//!   lanes, a fill every lane; the entry becomes valid.
//! - **Strand start**: the accepted instruction's warp has every entry invalidated, before this
//!   edge's write.
//! - **Write-back to the banks** (rule 5) only with `wb_mrf`.
//! - **Slots** (two-level scheduler), after the write: the slot of each warp in `rel_mask` is
//!   freed; then the accepted instruction's warp, if it has no slot and is not released, takes
//!   the lowest slot free before the edge or freed at it (none if every slot is held). A freed
//!   slot has every entry invalid, so a slot is taken empty. A warp without a slot reads zero
//!   and its writes (write-backs and fills) are dropped. The SM releases the warps outside the scheduler's
//!   active set, so a warp holds its slot from its first instruction after joining the set until
//!   it leaves it, which it does only at a strand start or a barrier, where no value the
//!   allocation keeps in the ORF/LRF is live.
//!
//! The SM stalls a warp while `fill_busy` shows it, so every later read or write of a filled
//! entry comes after the fill; a write-back's upper copy needs no such rule because its readers
//! wait for the scoreboard. Reset invalidates every entry and frees every slot.
//!
//! # TFET rows (`rename.enabled`; seed 003 §4.1.2)
//! With register renaming the MRF's ports carry physical register ids, and rows `tfet_row ..`
//! (from `rename.cmos_rows` on) of every bank are TFET ([`Geometry::has_tfet`]): each access to
//! one costs one extra cycle. Renaming composes with neither compression, nor a register file
//! cache, nor an ORF/LRF, so TFET rows only ever sit behind the direct write path. Without a
//! TFET row nothing here applies. The rules above change as follows, at each edge, all from the
//! state before it.
//! - **Reads** (rules 1, 2): a group's grant of a TFET row reads the row at that edge like any
//!   grant (read-first: before this edge's write), but its data reaches the slot one edge later:
//!   the slot is in flight for two cycles instead of one. The group grants nothing at the next
//!   edge: its read port is busy finishing the read, so every request to it waits (each counted
//!   as a bank conflict) and its arbiter pointer stays. In the RTL the group's banks are not read
//!   in that busy cycle, so their read data holds, and the group names the slot whose data is on
//!   its read data (`deliver`): a CMOS grant's slot one cycle after the grant, a TFET grant's
//!   two cycles after.
//! - **Write-back** (rule 5): a write-back taken to a TFET row is written at that edge like any
//!   other. In the next cycle the write port is busy finishing it: `wb_ready` is low (no
//!   write-back is taken; an offer is held) and `wb_commit` is high (the SM releases that
//!   register's scoreboard bit at that edge). Otherwise `wb_ready` is high and `wb_commit` low.
//! - **Counts**: `tfet_reads` and `tfet_writes` count the grants and the write-backs of TFET
//!   rows (per warp register, as `operand_reads` and `mrf_writes`), for the energy model.
//!
//! So an instruction accepted in cycle `t` whose only source is a TFET row, without conflicts,
//! is offered in `t+4`, and a second instruction reading the same group waits one cycle more
//! than behind a CMOS read. Reset clears the busy read ports and the busy write port.

mod bank_group;
mod bank_power;
mod collector;
mod compressed_bank_group;
mod orf;
mod range_table;
mod rfc;
mod stats;
mod write_port;

pub use bank_group::BankGroup;
pub use bank_power::BankPower;
pub use collector::OperandCollector;
pub use compressed_bank_group::CompressedBankGroup;
pub use orf::{Orf, SlotEvents};
pub use range_table::RangeTable;
pub use rfc::{BankWrite, Rfc, RfcEvents, WriteCause};
pub use stats::{MrfStats, OrfStats, RfcStats};
pub use write_port::{Side, WriteAction, WritePort};

use crate::block::Block;
use crate::blocks::arbiter::RoundRobin;
use crate::blocks::bdi::choose;
pub use collector::SLOTS;
use rfgen_gen::Checked;
use rfgen_gen::layout::bdi::Layout;
use rfgen_gen::layout::geometry::Geometry;
use rfgen_gen::layout::orf::OrfLayout;

/// Bank groups per cluster are at most 32 (validated).
const MAX_GROUPS: usize = 32;
const NONE: u32 = u32::MAX;

/// Inputs of one cycle (every input port except `clk` and `rst`).
#[derive(Debug, Default, PartialEq)]
pub struct MrfIn {
    pub issue_valid: bool,
    pub issue_warp: u32,
    pub issue_src_valid: [bool; SLOTS],
    pub issue_src_reg: [u32; SLOTS],
    pub issue_tag: u32,
    /// Register file cache: per source, the register is read for the last time (liveness).
    pub issue_src_last: [bool; SLOTS],
    pub disp_ready: bool,
    /// A write-back is offered; with compression it is taken only when `wb_ready`.
    pub wb_valid: bool,
    pub wb_warp: u32,
    pub wb_reg: u32,
    /// Bit i = lane i.
    pub wb_mask: u64,
    /// One word per lane.
    pub wb_data: Vec<u32>,
    /// Register file cache: the write-back is a long-latency result (it bypasses the RFC).
    pub wb_long: bool,
    /// Register file cache: warp `act_warp` becomes active (taken when `act_ready`).
    pub act_valid: bool,
    pub act_warp: u32,
    /// Register file cache: warp `flush_warp` was descheduled (taken when `flush_ready`).
    pub flush_valid: bool,
    pub flush_warp: u32,
    /// Register file cache: these warps (bit per warp) have finished; their slots are freed
    /// without write-backs. ORF/LRF under the two-level scheduler: these warps are not in the
    /// active set; their slots are freed (their entries are dead).
    pub rel_mask: u64,
    /// ORF/LRF: per source, the level it is read from (`LEVEL_*`), its entry, and the level an
    /// MRF source also fills; the instruction starts a strand.
    pub issue_src_level: [u8; SLOTS],
    pub issue_src_entry: [u32; SLOTS],
    pub issue_src_fill: [u8; SLOTS],
    pub issue_strand: bool,
    /// ORF/LRF: the write-back writes the MRF (without an ORF it always does), and this upper
    /// level's entry.
    pub wb_mrf: bool,
    pub wb_upper: u8,
    pub wb_entry: u32,
    /// Register-limited geometry: rows each warp's registers take (`Geometry::rows_per_warp`),
    /// set at kernel launch and held; otherwise it must be `R / G`.
    pub rows_per_warp: u32,
    /// Compressed MRF: warp `free_warp` has finished (every write-back of it committed); its
    /// registers become invalid at this edge, so banks holding only them are gated.
    pub free_valid: bool,
    pub free_warp: u32,
}

impl Clone for MrfIn {
    fn clone(&self) -> Self {
        MrfIn { wb_data: self.wb_data.clone(), ..*self }
    }

    /// Keeps `wb_data`'s buffer (the derived one allocates a new one): the top wires the MRF's
    /// inputs every cycle.
    fn clone_from(&mut self, src: &Self) {
        let mut wb_data = std::mem::take(&mut self.wb_data);
        wb_data.clone_from(&src.wb_data);
        *self = MrfIn { wb_data, ..*src };
    }
}

impl MrfIn {
    /// Makes every port but the issue port's (which the top drives from its grant) equal to
    /// `src`'s, in place, where `src`'s driver writes `wb_data` only with `wb_valid` (as the SM
    /// does) and `self` was last made equal by this call: the lanes are copied only then, the
    /// rest of the time both hold the last write-back's.
    #[inline(always)]
    pub fn sync_from(&mut self, src: &Self) {
        // Exhaustive, so that a new port is not forgotten.
        let MrfIn {
            issue_valid: _,
            issue_warp: _,
            issue_src_valid: _,
            issue_src_reg: _,
            issue_tag: _,
            issue_src_last: _,
            disp_ready,
            wb_valid,
            wb_warp,
            wb_reg,
            wb_mask,
            wb_data,
            wb_long,
            act_valid,
            act_warp,
            flush_valid,
            flush_warp,
            rel_mask,
            issue_src_level: _,
            issue_src_entry: _,
            issue_src_fill: _,
            issue_strand: _,
            wb_mrf,
            wb_upper,
            wb_entry,
            rows_per_warp,
            free_valid,
            free_warp,
        } = src;
        // A plain copy when as long (always but the first time): `clone_from` cost more.
        if self.wb_data.len() != wb_data.len() {
            self.wb_data.clone_from(wb_data);
        } else if *wb_valid {
            self.wb_data.copy_from_slice(wb_data);
        }
        (self.disp_ready, self.wb_valid, self.wb_warp, self.wb_reg) = (*disp_ready, *wb_valid, *wb_warp, *wb_reg);
        (self.wb_mask, self.wb_long, self.rel_mask) = (*wb_mask, *wb_long, *rel_mask);
        (self.act_valid, self.act_warp, self.flush_valid, self.flush_warp) =
            (*act_valid, *act_warp, *flush_valid, *flush_warp);
        (self.wb_mrf, self.wb_upper, self.wb_entry) = (*wb_mrf, *wb_upper, *wb_entry);
        (self.rows_per_warp, self.free_valid, self.free_warp) = (*rows_per_warp, *free_valid, *free_warp);
    }

    pub fn new(g: &Geometry) -> Self {
        MrfIn {
            wb_data: vec![0; g.lanes as usize],
            wb_mrf: true,
            rows_per_warp: g.rows_per_warp(g.registers),
            ..Default::default()
        }
    }
}

/// Outputs of one cycle. Fields after `disp_valid` up to `disp_src_known` are meaningful only
/// while it is set.
#[derive(Debug)]
pub struct MrfOut<'a> {
    pub issue_ready: bool,
    pub disp_valid: bool,
    pub disp_warp: u32,
    pub disp_tag: u32,
    pub disp_src_valid: [bool; SLOTS],
    pub disp_src_data: [&'a [u32]; SLOTS],
    /// Lanes of each source holding a written value.
    pub disp_src_known: [u64; SLOTS],
    /// A write-back offered this cycle is taken (always, without compression, a register file
    /// cache or TFET rows; with TFET rows, low in the cycle after a write-back to a TFET row).
    pub wb_ready: bool,
    /// Compressed MRF: the oldest write-back taken is stored at this edge. TFET rows: a
    /// write-back to a TFET row taken at the last edge finishes at this one (the SM releases
    /// that register). Never otherwise: a write-back is stored at the edge it is offered.
    pub wb_commit: bool,
    /// Register file cache: an activation, and a flush request, are taken this cycle.
    pub act_ready: bool,
    pub flush_ready: bool,
    /// ORF/LRF: warps with a fill not written yet (bit per warp); the SM holds their issue.
    pub fill_busy: u64,
    /// Compressed MRF: banks read, written and power-gated this cycle, one bit per bank, group
    /// `j` cluster `c` at bit `j·C + c` of the 64-bit words. Empty without compression.
    pub bank_rd_en: &'a [u64],
    pub bank_wr_en: &'a [u64],
    pub bank_gated: &'a [u64],
}

/// Decisions of the current cycle, derived from the state right after each edge (what the
/// RTL's logic computes from its registers), used by `outputs` and by the next `tick`.
#[derive(Clone, Debug)]
struct Plan {
    /// Per bank group: the slot granted, or `NONE`.
    winner: [u32; MAX_GROUPS],
    /// Per bank group: the row read this cycle, or `NONE`.
    read: [u32; MAX_GROUPS],
    granted: u64,
    /// Bank groups reading a row this cycle (`read` not `NONE`), bit per group.
    reading: u64,
    conflicts: u64,
    action: WriteAction,
    /// The banks take a write at this edge (always, unless a compressed write port is busy).
    banks_ready: bool,
    wb_ready: bool,
    /// The oldest write-back taken is stored at this edge (`wb_commit`).
    wb_commit: bool,
    bank_rd_en: Vec<u64>,
    bank_wr_en: Vec<u64>,
    bank_gated: Vec<u64>,
    /// The collectors' side of the outputs, read a dozen times a cycle: the unit offered for
    /// dispatch, the free units (bit per unit; `issue_ready` when any), and the warps with a
    /// fill on its way.
    offered: Option<u32>,
    free: u64,
    fill_busy: u64,
}

/// How write-backs reach the banks.
#[derive(Clone, Debug)]
pub enum WritePath {
    /// Straight into the bank group holding the register, at the edge it is offered.
    Direct(Vec<BankGroup>),
    /// Through the write port's compressor into compressed bank groups.
    Compressed { layout: Layout, groups: Vec<CompressedBankGroup>, port: Box<WritePort> },
}

/// The MRF subsystem model.
#[derive(Clone, Debug)]
pub struct Mrf {
    g: Geometry,
    lanes: usize,
    collectors: Vec<OperandCollector>,
    dispatch: RoundRobin,
    /// Registered dispatch (`timing.mrf_registered_dispatch`): the unit offered, chosen at the
    /// last edge.
    offer: Option<u32>,
    /// The register file cache in front of the write path: what it does not keep, its
    /// evictions and its flushes are what the banks are written.
    rfc: Option<Rfc>,
    /// The operand register file and last result file beside the collectors, and the round-robin
    /// arbiter of their write port over the collector slots' fills.
    orf: Option<Orf>,
    fill_arbiter: RoundRobin,
    write: WritePath,
    /// TFET rows: the write port finishes a write to a TFET row this cycle (taken at the last
    /// edge): `wb_ready` low, `wb_commit` high.
    write_busy: bool,
    /// The groups that read at the last edge and at the one before: only they and this edge's
    /// readers can have a read port to free or a registered grant to read.
    read_last: [u64; 2],
    /// Per bank group, the collector slots waiting for it (bit `3c + s`), and the groups with
    /// any: kept as slots are allocated and granted rather than gathered for every plan.
    requests: [u64; MAX_GROUPS],
    asking: u64,
    /// Edges so far (rests included): the clock of the collectors' arrival times.
    now: u64,
    /// Rows per warp, from the `rows_per_warp` input (held for a kernel's run); the constant
    /// `R / G` unless the geometry is register-limited.
    stride: u32,
    plan: Plan,
    stats: MrfStats,
}

impl Mrf {
    /// The uncompressed MRF of a geometry.
    pub fn new(g: &Geometry) -> Self {
        Mrf::build(g, None, None)
    }

    /// The MRF a config describes: compressed when `compression.enabled`, behind a register
    /// file cache when `rfc.enabled`, beside an ORF/LRF when `orf.enabled`.
    pub fn for_config(checked: &Checked) -> Self {
        let g = &checked.geometry;
        let rfc = checked.rfc.as_ref().map(|r| Rfc::new(g.warps, r, g.lanes as usize, checked.compression.is_some()));
        let mut m = Mrf::build(g, checked.compression.as_ref(), rfc);
        m.orf = checked.orf.as_ref().map(|o| Orf::new(g.warps, o, g.lanes as usize));
        m
    }

    /// The MRF of a geometry, compressed with `layout` if given, behind `rfc` if given.
    pub fn build(g: &Geometry, layout: Option<&Layout>, rfc: Option<Rfc>) -> Self {
        let lanes = g.lanes as usize;
        let write = match layout {
            None => WritePath::Direct(direct_groups(g)),
            Some(l) => {
                let occupancy: Vec<u64> = (0..1u32 << l.ri_bits()).map(|ri| low_bits(l.banks(ri))).collect();
                WritePath::Compressed {
                    layout: l.clone(),
                    groups: (0..g.groups)
                        .map(|_| CompressedBankGroup::new(g.slots(), g.entries, lanes, l, &occupancy))
                        .collect(),
                    port: Box::new(WritePort::new(l)),
                }
            }
        };
        let lanes = g.lanes as usize;
        let banks = layout.map_or(0, |l| (g.groups * l.clusters) as usize);
        let codes = layout.map_or(0, |l| l.modes.len() + 1);
        let stats = MrfStats {
            full_writes_by_ri: vec![0; codes],
            partial_merged_by_ri: vec![0; codes],
            gated_cycles: vec![0; banks],
            ..MrfStats::default()
        };
        let words = banks.div_ceil(64);
        let mut m = Mrf {
            g: g.clone(),
            lanes,
            collectors: (0..g.collectors).map(|_| OperandCollector::new(lanes)).collect(),
            dispatch: RoundRobin::new(g.collectors),
            offer: None,
            rfc,
            orf: None,
            fill_arbiter: RoundRobin::new(g.slots()),
            write,
            write_busy: false,
            read_last: [0; 2],
            requests: [0; MAX_GROUPS],
            asking: 0,
            now: 0,
            stride: g.rows_per_warp(g.registers),
            plan: Plan {
                winner: [NONE; MAX_GROUPS],
                read: [NONE; MAX_GROUPS],
                granted: 0,
                reading: 0,
                conflicts: 0,
                action: WriteAction::Wait,
                banks_ready: true,
                wb_ready: true,
                wb_commit: false,
                bank_rd_en: vec![0; words],
                bank_wr_en: vec![0; words],
                bank_gated: vec![0; words],
                offered: None,
                free: 0,
                fill_busy: 0,
            },
            stats,
        };
        m.replan();
        m
    }

    pub fn geometry(&self) -> &Geometry {
        &self.g
    }

    pub fn stats(&self) -> &MrfStats {
        &self.stats
    }

    /// The compression layout, for a compressed MRF.
    pub fn layout(&self) -> Option<&Layout> {
        match &self.write {
            WritePath::Compressed { layout, .. } => Some(layout),
            _ => None,
        }
    }

    /// The register file cache, when there is one.
    pub fn rfc(&self) -> Option<&Rfc> {
        self.rfc.as_ref()
    }

    /// The register file cache's shape, when there is one.
    pub fn rfc_layout(&self) -> Option<&rfgen_gen::layout::rfc::RfcLayout> {
        self.rfc().map(Rfc::layout)
    }

    /// The ORF/LRF's shape, when there is one.
    pub fn orf_layout(&self) -> Option<&OrfLayout> {
        self.orf.as_ref().map(Orf::layout)
    }

    /// Collector slots whose fill requests the ORF/LRF write port, bit `3c + s`.
    fn fill_requests(&self) -> u64 {
        self.collectors.iter().enumerate().fold(0, |m, (c, u)| m | u64::from(u.fill_requests(self.now)) << (c * SLOTS))
    }

    /// Per bank group, the collector slots waiting for it (what [`Mrf::requests`] keeps).
    fn pending_requests(&self) -> [u64; MAX_GROUPS] {
        let mut requests = [0; MAX_GROUPS];
        for (c, unit) in self.collectors.iter().enumerate() {
            for s in (0..SLOTS).filter(|&s| unit.pending >> s & 1 == 1) {
                requests[unit.group[s] as usize] |= 1 << (c * SLOTS + s);
            }
        }
        requests
    }

    /// The unit offered for dispatch this cycle: the round-robin choice among the complete
    /// units, or with a registered dispatch the one chosen at the last edge.
    fn offered(&self) -> Option<u32> {
        if self.g.registered_dispatch { self.offer } else { self.dispatch.pick(self.ready_mask()) }
    }

    /// Units ready for dispatch, bit per unit.
    fn ready_mask(&self) -> u64 {
        self.collectors.iter().enumerate().fold(0, |m, (c, u)| m | (u.ready(self.now) as u64) << c)
    }

    /// Edges from a read of `row` until the data is in the slot: the bank read (one more for a
    /// TFET row, one more for registered read data), then the decompressor.
    fn read_latency(&self, row: u32) -> u32 {
        1 + u32::from(self.is_tfet(row))
            + u32::from(self.g.registered_read)
            + self.layout().map_or(0, |l| l.decompress_latency)
    }

    /// `row` of every bank is a TFET row (never without renaming).
    fn is_tfet(&self, row: u32) -> bool {
        row >= self.g.tfet_row
    }

    /// Derives this cycle's decisions from the state (see [`Plan`]).
    fn replan(&mut self) {
        let (action, mov) = match &self.write {
            WritePath::Direct(_) => (WriteAction::Wait, None),
            WritePath::Compressed { groups, port, .. } => {
                let action = port.action(groups);
                // The dummy MOV reads its register on its group's read port.
                let mov =
                    (action == WriteAction::MovRead).then(|| port.head().map(|(_, s)| (s.group, s.row))).flatten();
                (action, mov)
            }
        };
        self.plan.action = action;
        // With a register file cache in front of the compressor, a register on its way to the
        // banks (in the eviction buffer or the write port) is not read until it is stored.
        let held: Vec<(u32, u32)> = match (&self.rfc, &self.write) {
            (Some(rfc), WritePath::Compressed { port, .. }) => {
                let evicted = rfc.evicting().map(|(w, r)| self.g.map(w, r, self.stride)).map(|a| (a.group, a.row));
                port.in_flight().chain(evicted).collect()
            }
            _ => Vec::new(),
        };
        debug_assert_eq!(self.requests, self.pending_requests(), "requests out of step with the collectors");
        // Groups with a request, or the dummy MOV's: the only ones the arbitration below changes.
        let mut asked = self.asking | mov.map_or(0, |(g, _)| 1 << g);
        // One pass over the collectors (a few each cycle) for the outputs' side.
        let (mut ready, mut free, mut fill_busy) = (0u64, 0u64, 0u64);
        // Only with an ORF/LRF do the collectors fill entries.
        let fills = self.orf.is_some();
        for (c, unit) in self.collectors.iter().enumerate() {
            ready |= u64::from(unit.ready(self.now)) << c;
            free |= u64::from(!unit.busy) << c;
            if fills {
                fill_busy |= u64::from(unit.busy & (unit.filling != 0)) << unit.warp;
            }
        }
        let offered = if self.g.registered_dispatch { self.offer } else { self.dispatch.pick(ready) };
        debug_assert_eq!(offered, self.offered());
        let p = &mut self.plan;
        (p.offered, p.free, p.fill_busy) = (offered, free, fill_busy);
        p.conflicts = 0;
        let arbiter = |grp: usize| match &self.write {
            WritePath::Direct(groups) => &groups[grp].arbiter,
            WritePath::Compressed { groups, .. } => &groups[grp].arbiter,
        };
        // Only the groups that read in the last plan hold a winner and a row.
        let mut last = p.reading;
        while last != 0 {
            let grp = last.trailing_zeros() as usize;
            (p.winner[grp], p.read[grp]) = (NONE, NONE);
            last &= last - 1;
        }
        p.granted = 0;
        p.reading = 0;
        while asked != 0 {
            let grp = asked.trailing_zeros() as usize;
            asked &= asked - 1;
            let mut req = self.requests[grp];
            // A slot whose register is held asks nothing this cycle.
            let mut open = if held.is_empty() { 0 } else { req };
            while open != 0 {
                let w = open.trailing_zeros() as usize;
                open &= open - 1;
                if held.contains(&(grp as u32, self.collectors[w / SLOTS].row[w % SLOTS])) {
                    req &= !(1 << w);
                }
            }
            // The read port finishing a TFET read grants nothing, like a dummy MOV's read; with a
            // registered grant, the cycle that reads a TFET row grants nothing (its grant would be
            // read while the port finishes).
            let busy = match &self.write {
                WritePath::Direct(groups) if self.g.registered_grant => {
                    groups[grp].issued[0].is_some_and(|(_, row)| row >= self.g.tfet_row)
                }
                WritePath::Direct(groups) => groups[grp].read_busy,
                WritePath::Compressed { .. } => false,
            };
            let mov_here = mov.filter(|&(mg, _)| mg as usize == grp);
            let port_taken = busy || mov_here.is_some();
            // The requests that wait: all of them while the read port is taken, else all but the
            // one granted. Most cycles none wait: no bit count (a long sequence on the baseline
            // x86-64 target) then, and only this one, so that it is not computed ahead.
            let waiting = if port_taken { req } else { req & req.wrapping_sub(1) };
            if waiting != 0 {
                p.conflicts += u64::from(waiting.count_ones());
            }
            if port_taken {
                if !busy && let Some((_, row)) = mov_here {
                    p.read[grp] = row;
                    p.reading |= 1 << grp;
                }
            } else if let Some(w) = arbiter(grp).pick(req) {
                p.winner[grp] = w;
                p.granted |= 1 << w;
                p.read[grp] = self.collectors[w as usize / SLOTS].row[w as usize % SLOTS];
                p.reading |= 1 << grp;
            }
        }
        // The banks take a write this cycle (the write port's compressor advances); with a
        // register file cache, a write-back is taken only while nothing else waits for them.
        p.banks_ready = match &self.write {
            WritePath::Direct(_) => !self.write_busy,
            WritePath::Compressed { port, .. } => port.head().is_none() || action == WriteAction::Commit,
        };
        p.wb_ready = p.banks_ready && self.rfc.as_ref().is_none_or(Rfc::wb_ready);
        p.wb_commit = action == WriteAction::Commit || self.write_busy;
        let WritePath::Compressed { layout, groups, port } = &self.write else { return };
        let c = layout.clusters as usize;
        // `C` is a power of two, so a group's bits never straddle two words.
        let put = |bits: &mut [u64], grp: usize, mask: u64| {
            let (word, shift) = (grp * c / 64, grp * c % 64);
            bits[word] = bits[word] & !(low_bits(c as u32) << shift) | mask << shift;
        };
        for (grp, group) in groups.iter().enumerate() {
            let read = p.read[grp];
            put(&mut p.bank_rd_en, grp, if read == NONE { 0 } else { group.table.occupied(read) });
            put(&mut p.bank_gated, grp, group.power.gated());
            put(&mut p.bank_wr_en, grp, 0);
        }
        if let Some((packed, side)) = port.head() {
            let written = match action {
                WriteAction::Commit => {
                    low_bits(layout.banks(packed.ri)) & active_clusters(side.mask, self.g.lanes_per_cluster, c)
                }
                WriteAction::MovCommit => low_bits(c as u32),
                _ => 0,
            };
            put(&mut p.bank_wr_en, side.group as usize, written);
        }
    }

    /// The bank reads of this edge: every granted slot (and a dummy MOV) reads its register; a
    /// read of a TFET row arrives one edge later and keeps its group's read port busy for the
    /// next cycle. With a registered grant, the banks read the row granted at the last edge and
    /// this edge's grants are read at the next.
    fn read_banks(&mut self) {
        self.stats.bank_conflicts += self.plan.conflicts;
        let (registered, delay) = (self.g.registered_grant, self.g.read_delay());
        // Most groups read nothing in a cycle, and one that read nothing at the last edge (nor,
        // with a registered address, at the one before) has neither a read port to free (a TFET
        // read finishing) nor a registered grant to read: only those readers change.
        let mut visit = self.plan.reading | self.read_last[0] | self.read_last[1];
        self.read_last = [self.plan.reading, if delay > 1 { self.read_last[0] } else { 0 }];
        while visit != 0 {
            let grp = visit.trailing_zeros() as usize;
            visit &= visit - 1;
            let (winner, row) = (self.plan.winner[grp], self.plan.read[grp]);
            let granted = (winner != NONE).then_some(winner);
            let tfet = granted.is_some() && self.is_tfet(row);
            self.stats.tfet_reads += u64::from(tfet);
            self.stats.operand_reads += u64::from(granted.is_some());
            if let Some(w) = granted {
                // Counted from the state after this edge.
                let at = self.now + 1 + u64::from(self.read_latency(row) + delay);
                self.collectors[w as usize / SLOTS].grant(w as usize % SLOTS, at);
                self.requests[grp] &= !(1 << w);
                if self.requests[grp] == 0 {
                    self.asking &= !(1 << grp);
                }
            }
            match &mut self.write {
                WritePath::Direct(groups) => {
                    let group = &mut groups[grp];
                    group.arbiter.update(granted, true);
                    let grant = granted.map(|w| (w, row));
                    let read = group.stage(grant, delay);
                    group.read_busy = tfet && !registered;
                    if let Some((w, row)) = read {
                        let (data, known) = self.collectors[w as usize / SLOTS].landing(w as usize % SLOTS);
                        *known = group.read(row, data);
                        self.stats.bank_reads += u64::from(self.g.clusters);
                    }
                }
                WritePath::Compressed { layout, groups, port } => {
                    let group = &mut groups[grp];
                    group.arbiter.update(granted, true);
                    if row == NONE {
                        continue;
                    }
                    if let Some(w) = granted {
                        let (data, known) = self.collectors[w as usize / SLOTS].landing(w as usize % SLOTS);
                        *known = group.read(layout, row, data);
                    } else {
                        // The dummy MOV's read, kept for its write-back.
                        port.mov_known = group.read(layout, row, &mut port.mov_data);
                    }
                    self.stats.bank_reads += u64::from(group.table.occupied(row).count_ones());
                    self.stats.decompressions += u64::from(group.table.compressed(row));
                }
            }
        }
    }

    /// The ORF/LRF at an edge: the issued instruction's strand start invalidates its warp's
    /// entries; then the write port takes the granted fill (slot `3c + s`) or the write-back;
    /// then released warps lose their slots and the issued warp takes one if it has none.
    fn upper_edge(&mut self, inp: &MrfIn, issued: bool, fill: Option<u32>) {
        let Some(orf) = &mut self.orf else { return };
        let st = &mut self.stats.orf;
        if issued && inp.issue_strand {
            orf.invalidate(inp.issue_warp);
        }
        let write = if let Some(slot) = fill {
            let unit = &mut self.collectors[slot as usize / SLOTS];
            let s = slot as usize % SLOTS;
            let (level, entry) = (unit.fill_level[s], unit.fill_entry[s]);
            let (data, known) = unit.operand(s);
            let written = orf.write(level, unit.warp, entry, u64::MAX, data, known);
            unit.filling &= !(1 << s);
            st.fills += 1;
            Some((level, entry, written))
        } else if inp.wb_valid && inp.wb_upper != 0 {
            let mask = inp.wb_mask & lane_mask(self.lanes);
            let written = orf.write(inp.wb_upper, inp.wb_warp, inp.wb_entry, mask, &inp.wb_data, mask);
            Some((inp.wb_upper, inp.wb_entry, written))
        } else {
            None
        };
        if let Some((level, _, written)) = write.filter(|&(level, entry, _)| orf.has(level, entry)) {
            if written {
                st.count(level, true);
            } else {
                st.slotless_writes += 1;
            }
        }
        st.mrf_writes_skipped += u64::from(inp.wb_valid && !inp.wb_mrf);
        let ev = orf.slots_edge(issued.then_some(inp.issue_warp), inp.rel_mask);
        st.slots_taken += u64::from(ev.taken);
        st.slots_released += u64::from(ev.released.count_ones());
    }

    /// Write path at an edge, after this edge's reads (read-first): the banks take the offered
    /// write-back or, with a register file cache, what the cache sends them; then the cache's
    /// own edge, with the sources issued at this edge and the activation, flush and release.
    fn write(&mut self, inp: &MrfIn, reads: &[(u32, u32, bool)]) {
        let (lanes, banks_ready) = (self.lanes, self.plan.banks_ready);
        let taken = inp.wb_valid && self.plan.wb_ready;
        let st = &mut self.stats;
        st.wb_stall_cycles += u64::from(inp.wb_valid && !self.plan.wb_ready);
        st.writes += u64::from(taken);
        let mask = inp.wb_mask & lane_mask(lanes);
        let wb = taken.then_some((inp.wb_warp, inp.wb_reg, mask, &inp.wb_data[..], inp.wb_long));
        let Some(rfc) = &mut self.rfc else {
            let to_mrf = self.orf.is_none() || inp.wb_mrf;
            let w = wb.filter(|_| to_mrf).map(|(warp, reg, mask, data, _)| BankWrite {
                warp,
                reg,
                mask,
                data,
                cause: WriteCause::Bypass,
            });
            self.write_busy = write_banks(&self.g, inp, &mut self.write, &self.plan, st, w);
            return;
        };
        let w = rfc.bank_write(wb);
        st.rfc.bypasses += u64::from(w.is_some_and(|w| w.cause == WriteCause::Bypass));
        self.write_busy = write_banks(&self.g, inp, &mut self.write, &self.plan, st, w);
        let act = inp.act_valid.then_some(inp.act_warp);
        let flush = inp.flush_valid.then_some(inp.flush_warp);
        let hit = wb.is_some_and(|(w, reg, ..)| rfc.lookup(w, reg).is_some());
        let ev = rfc.tick(reads, wb, act, flush, inp.rel_mask, banks_ready);
        st.rfc_written_lanes += ev.allocations * lanes as u64 + if hit { mask.count_ones() as u64 } else { 0 };
        let r = &mut st.rfc;
        r.read_hits += ev.read_hits;
        r.write_hits += ev.write_hits;
        r.allocations += ev.allocations;
        r.evictions += ev.evictions;
        r.dead_evictions += ev.dead_evictions;
        r.flushes += ev.flushes;
        r.flush_writes += ev.flush_writes;
        r.activations += ev.activations;
    }
}

/// The banks' edge with `w`, the register offered to them: uncompressed, its masked lanes are
/// written now; compressed, power gating and the head's commit or dummy MOV happen first, then
/// the compressor advances, taking `w` when the port is ready (`plan.banks_ready`); registers
/// map at `inp.rows_per_warp`, and `inp`'s freed warp is invalidated before the commit. Returns
/// whether a TFET row was written (uncompressed only): the write port is busy next cycle.
// Inlined: most edges write nothing to uncompressed banks.
#[inline(always)]
fn write_banks(
    g: &Geometry,
    inp: &MrfIn,
    write: &mut WritePath,
    plan: &Plan,
    st: &mut MrfStats,
    w: Option<BankWrite>,
) -> bool {
    match write {
        WritePath::Direct(groups) => {
            let Some(w) = w else { return false };
            let addr = g.map(w.warp, w.reg, inp.rows_per_warp);
            groups[addr.group as usize].write(addr.row, w.mask, w.data);
            st.mrf_writes += 1;
            // A whole warp's write (most are) writes a bank in every cluster: no bit count.
            st.bank_writes += u64::from(if w.mask == lane_mask(g.lanes as usize) {
                g.clusters
            } else {
                active_clusters(w.mask, g.lanes_per_cluster, g.clusters as usize).count_ones()
            });
            let tfet = addr.row >= g.tfet_row;
            st.tfet_writes += u64::from(tfet);
            tfet
        }
        WritePath::Compressed { layout, groups, port } => {
            write_compressed(g, inp, layout, groups, port, plan, st, w);
            false
        }
    }
}

/// [`write_banks`] of a compressed MRF.
#[allow(clippy::too_many_arguments)]
fn write_compressed(
    g: &Geometry,
    inp: &MrfIn,
    layout: &Layout,
    groups: &mut [CompressedBankGroup],
    port: &mut WritePort,
    plan: &Plan,
    st: &mut MrfStats,
    w: Option<BankWrite>,
) {
    let (lanes, lpc) = (g.lanes as usize, g.lanes_per_cluster);
    let action = plan.action;
    let c = layout.clusters as usize;
    for (grp, group) in groups.iter().enumerate() {
        let mut gated = group.power.gated();
        while gated != 0 {
            st.gated_cycles[grp * c + gated.trailing_zeros() as usize] += 1;
            gated &= gated - 1;
        }
    }
    let (head_group, needs) = port.head().map_or((NONE, 0), |(_, s)| (s.group, port.needs()));
    for (grp, group) in groups.iter_mut().enumerate() {
        let wake = if grp as u32 == head_group { needs } else { 0 };
        st.bank_wakeups += u64::from(group.power.edge(group.table.empty(), wake));
    }
    // A finished warp's rows are invalidated; a commit at the same edge still stores its row.
    if inp.free_valid {
        let (warp, stride) = (inp.free_warp, inp.rows_per_warp);
        let rows = (warp * stride).min(g.entries)..((warp + 1) * stride).min(g.entries);
        groups.iter_mut().for_each(|group| group.table.free(rows.clone()));
        st.warps_freed += 1;
    }

    if let Some((packed, side)) = port.head() {
        let group = &mut groups[side.group as usize];
        match action {
            WriteAction::Commit => {
                let written = low_bits(layout.banks(packed.ri)) & active_clusters(side.mask, lpc, c);
                group.write(side.row, cluster_lanes(written, lpc, lanes) & side.mask, &packed.chunks);
                st.bank_writes += u64::from(written.count_ones());
                st.mrf_writes += 1;
                group.table.store(side.row, packed.ri);
                if side.partial {
                    st.partial_writes += 1;
                    let merged = choose(layout, group.raw(side.row).0).map_or(0, |m| m.ri);
                    st.partial_merged_by_ri[merged as usize] += 1;
                } else {
                    st.full_writes_by_ri[packed.ri as usize] += 1;
                }
            }
            WriteAction::MovCommit => {
                group.replace(side.row, &port.mov_data, port.mov_known);
                st.bank_writes += c as u64;
                group.table.store(side.row, 0);
            }
            WriteAction::MovRead => st.dummy_movs += 1,
            WriteAction::Wait => {}
        }
    }
    port.mov_edge(action);

    match w {
        Some(w) if plan.banks_ready => {
            let addr = g.map(w.warp, w.reg, inp.rows_per_warp);
            let side = Side { group: addr.group, row: addr.row, mask: w.mask, partial: w.mask != lane_mask(lanes) };
            st.compressions += u64::from(!side.partial);
            port.advance(true, true, side, w.data);
        }
        _ => port.advance(plan.banks_ready, false, Side::default(), &[]),
    }
}

/// What the SM needs of its register file: the MRF's ports, and its event counts for the
/// report. The MRF model is one; the cosim's lockstep adapter around it is another.
pub trait MrfBlock: 'static + Block<In = MrfIn> + for<'a> Block<Out<'a> = MrfOut<'a>> {
    fn stats(&self) -> &MrfStats;

    /// `disp_tag` and `disp_src_data` alone (dispatch reads them: the model's need not build
    /// every port).
    fn offered_operands(&self) -> (u32, [&[u32]; SLOTS]) {
        let out = self.outputs();
        (out.disp_tag, out.disp_src_data)
    }
}

impl MrfBlock for Mrf {
    fn stats(&self) -> &MrfStats {
        &self.stats
    }

    // Inlined into the SM's dispatch, as `outputs`.
    #[inline(always)]
    fn offered_operands(&self) -> (u32, [&[u32]; SLOTS]) {
        // As `outputs`: unit 0's fields when none is offered.
        let unit = self.collectors.get(self.plan.offered.unwrap_or(0) as usize);
        (unit.map_or(0, |u| u.tag), std::array::from_fn(|s| unit.map_or(&[][..], |u| u.operand(s).0)))
    }
}

impl Block for Mrf {
    type In = MrfIn;
    type Out<'a> = MrfOut<'a>;

    /// Synchronous reset: control state (and, compressed, the range tables' valid bits and the
    /// banks' power state); bank contents and statistics are kept.
    fn reset(&mut self) {
        self.collectors.iter_mut().for_each(OperandCollector::reset);
        (self.requests, self.asking) = ([0; MAX_GROUPS], 0);
        self.dispatch.reset();
        self.offer = None;
        self.rfc.iter_mut().for_each(Rfc::reset);
        self.orf.iter_mut().for_each(Orf::reset);
        self.fill_arbiter.reset();
        self.write_busy = false;
        match &mut self.write {
            WritePath::Direct(groups) => groups.iter_mut().for_each(BankGroup::reset),
            WritePath::Compressed { groups, port, .. } => {
                groups.iter_mut().for_each(CompressedBankGroup::reset);
                port.reset();
            }
        }
        self.replan();
    }

    // Inlined: each caller reads a few of the ports, four times a cycle.
    #[inline(always)]
    fn outputs(&self) -> MrfOut<'_> {
        let p = &self.plan;
        let offered = p.offered;
        // Looked up without an index's panic, so that a caller reading none of the unit's ports
        // pays nothing for them (there is always a unit 0).
        let unit = self.collectors.get(offered.unwrap_or(0) as usize);
        MrfOut {
            issue_ready: p.free != 0,
            disp_valid: offered.is_some(),
            disp_warp: unit.map_or(0, |u| u.warp),
            disp_tag: unit.map_or(0, |u| u.tag),
            disp_src_valid: unit.map_or([false; SLOTS], |u| u.src_valid),
            disp_src_data: std::array::from_fn(|s| unit.map_or(&[][..], |u| u.operand(s).0)),
            disp_src_known: std::array::from_fn(|s| unit.map_or(0, |u| u.operand(s).1)),
            wb_ready: p.wb_ready,
            wb_commit: p.wb_commit,
            act_ready: self.rfc().is_some_and(Rfc::act_ready),
            flush_ready: self.rfc().is_some_and(Rfc::flush_ready),
            fill_busy: p.fill_busy,
            bank_rd_en: &p.bank_rd_en,
            bank_wr_en: &p.bank_wr_en,
            bank_gated: &p.bank_gated,
        }
    }

    /// One clock edge (see the module documentation for the order of events).
    fn tick(&mut self, inp: &MrfIn) {
        self.stats.cycles += 1;
        self.stride = inp.rows_per_warp;
        // Decisions that depend on the state before the edge, sampled before anything changes.
        let free = (self.plan.free != 0).then(|| self.plan.free.trailing_zeros() as usize);
        debug_assert_eq!(free, self.collectors.iter().position(|u| !u.busy));
        // The plan holds the offer (derived after the last edge, from this same state).
        let offered = self.plan.offered;
        debug_assert_eq!(offered, self.offered());
        let complete = if self.g.registered_dispatch { self.ready_mask() } else { 0 };
        // The ORF/LRF write port takes one fill when no write-back writes an upper level.
        let fill = match &self.orf {
            Some(_) => {
                let requests = self.fill_requests();
                let port_free = !(inp.wb_valid && inp.wb_upper != 0);
                self.stats.orf.fill_waits += u64::from(requests != 0 && !port_free);
                if port_free { self.fill_arbiter.pick(requests) } else { None }
            }
            None => None,
        };
        self.fill_arbiter.update(fill, true);

        // 1.–2. Bank reads; in-flight data moves on.
        self.read_banks();

        // 3. Dispatch; 4. issue into the lowest unit that was free before the edge.
        if !self.g.registered_dispatch {
            self.dispatch.update(offered, inp.disp_ready);
        } else if offered.is_none() || inp.disp_ready {
            // The offer register loads the choice among the units complete before the edge but
            // the one taken at it.
            let taken = offered.map_or(0, |c| 1 << c);
            self.offer = self.dispatch.pick(complete & !taken);
            self.dispatch.update(self.offer, true);
        }
        if let (Some(c), true) = (offered, inp.disp_ready) {
            self.collectors[c as usize].dispatch();
            self.stats.dispatched += 1;
        }
        let mut reads = [(0, 0, false); SLOTS];
        let mut issued = 0;
        if let (Some(c), true) = (free, inp.issue_valid) {
            let addr = std::array::from_fn(|s| {
                let a = self.g.map(inp.issue_warp, inp.issue_src_reg[s], self.stride);
                (a.group, a.row)
            });
            let unit = &mut self.collectors[c];
            unit.alloc(inp.issue_warp, inp.issue_tag, inp.issue_src_valid, addr);
            // With a register file cache, the tag check (this cycle, from the state before the
            // edge) hands the sources it holds straight to the collector.
            if let Some(rfc) = &self.rfc {
                let all = lane_mask(self.lanes);
                for s in (0..SLOTS).filter(|&s| inp.issue_src_valid[s]) {
                    reads[issued] = (inp.issue_warp, inp.issue_src_reg[s], inp.issue_src_last[s]);
                    issued += 1;
                    if let Some(h) = rfc.lookup(inp.issue_warp, inp.issue_src_reg[s]) {
                        unit.take(s, rfc.data(h), all);
                    }
                }
            }
            // With an ORF/LRF, upper-level sources are read now (from the state before the
            // edge); an MRF source may also fill an entry once its read has arrived.
            if let Some(orf) = &self.orf {
                for s in (0..SLOTS).filter(|&s| inp.issue_src_valid[s]) {
                    let (level, entry) = (inp.issue_src_level[s], inp.issue_src_entry[s]);
                    if level != 0 {
                        let (data, known) = orf.read(level, inp.issue_warp, entry);
                        unit.take(s, data, known);
                        if orf.has(level, entry) {
                            self.stats.orf.count(level, false);
                        }
                    } else if inp.issue_src_fill[s] != 0 {
                        unit.fill_after_read(s, inp.issue_src_fill[s], entry);
                    }
                }
            }
            // The sources not taken at issue wait for their groups.
            let mut open = unit.pending;
            while open != 0 {
                let s = open.trailing_zeros() as usize;
                open &= open - 1;
                self.requests[unit.group[s] as usize] |= 1 << (c * SLOTS + s);
                self.asking |= 1 << unit.group[s];
            }
            self.stats.issued += 1;
        }

        // 5. The ORF/LRF's edge (a strand start invalidates, then the fill or the write-back is
        // written); the write-back (after the reads above: read-first).
        if self.orf.is_some() {
            self.upper_edge(inp, free.filter(|_| inp.issue_valid).is_some(), fill);
        }
        self.write(inp, &reads[..issued]);
        self.now += 1;
        self.replan();
    }

    /// With no instruction offered and no write-back, an uncompressed MRF whose collectors are
    /// free, whose banks have no read on its way, whose cache is neither flushing nor evicting
    /// and whose ORF/LRF has no slot to release only counts the edge.
    fn at_rest(&self, inp: &MrfIn) -> bool {
        let events = inp.issue_valid || inp.wb_valid || inp.act_valid || inp.flush_valid || inp.free_valid;
        let groups_idle = match &self.write {
            WritePath::Direct(groups) => groups.iter().all(|g| g.nothing_issued() && !g.read_busy),
            WritePath::Compressed { .. } => false,
        };
        !events
            && groups_idle
            && self.rfc.as_ref().is_none_or(|r| r.idle() && inp.rel_mask == 0)
            && self.orf.as_ref().is_none_or(|o| o.slots_idle(inp.rel_mask))
            && !self.write_busy
            && self.offer.is_none()
            && self.plan.granted == 0
            && inp.rows_per_warp == self.stride
            && self.collectors.iter().all(|u| u.idle(self.now))
    }

    fn rest(&mut self, edges: u64) {
        self.stats.cycles += edges;
        self.now += edges;
    }
}

/// The bank groups of an uncompressed MRF.
fn direct_groups(g: &Geometry) -> Vec<BankGroup> {
    (0..g.groups).map(|_| BankGroup::new(g.slots(), g.entries, g.lanes as usize)).collect()
}

/// Clusters with an active lane in `mask`.
fn active_clusters(mask: u64, lanes_per_cluster: u32, clusters: usize) -> u64 {
    // Most writes are of whole warps: every cluster, without the loop.
    if mask == lane_mask(lanes_per_cluster as usize * clusters) {
        return low_bits(clusters as u32);
    }
    let per = lane_mask(lanes_per_cluster as usize);
    (0..clusters).fold(0, |m, c| m | ((mask >> (c as u32 * lanes_per_cluster) & per != 0) as u64) << c)
}

/// The lanes of the clusters in `clusters`.
fn cluster_lanes(clusters: u64, lanes_per_cluster: u32, lanes: usize) -> u64 {
    let per = lane_mask(lanes_per_cluster as usize);
    let mut m = 0;
    let mut bits = clusters;
    while bits != 0 {
        m |= per << (bits.trailing_zeros() * lanes_per_cluster);
        bits &= bits - 1;
    }
    m & lane_mask(lanes)
}

/// Mask with one bit per lane.
pub fn lane_mask(lanes: usize) -> u64 {
    if lanes >= 64 { u64::MAX } else { (1u64 << lanes) - 1 }
}

/// Mask of the low `n` bits.
pub(crate) fn low_bits(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

#[cfg(test)]
mod tests;
