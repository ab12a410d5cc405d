//! What a simulation counts: instructions, stall causes, register-file accesses, operand
//! mismatches and the operand-value statistics of SPEC §7 and seed 004 §3.

use serde::{Deserialize, Serialize};

/// How many warps the SM could hold for the kernel, and did (summed over SMs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occupancy {
    pub warp_slots: u32,
    /// Warp slots whose registers have rows at the kernel's registers per thread (all of them
    /// unless the geometry is register-limited).
    pub usable_slots: u32,
    /// Rows each warp's registers take in every bank group.
    pub rows_per_warp: u32,
    /// Most warps resident at once.
    pub peak_warps: u32,
}

/// What the issue slot did in one cycle: a field of [`Stalls`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stall {
    Issued,
    CollectorFull,
    Scoreboard,
    Barrier,
    Descheduled,
    NoWarp,
    Warpboard,
    NoRegister,
}

impl Stalls {
    /// Counts `cycles` cycles of `cause`.
    pub fn count(&mut self, cause: Stall, cycles: u64) {
        *match cause {
            Stall::Issued => &mut self.issued,
            Stall::CollectorFull => &mut self.collector_full,
            Stall::Scoreboard => &mut self.scoreboard,
            Stall::Barrier => &mut self.barrier,
            Stall::Descheduled => &mut self.descheduled,
            Stall::NoWarp => &mut self.no_warp,
            Stall::Warpboard => &mut self.warpboard,
            Stall::NoRegister => &mut self.no_register,
        } += cycles;
    }
}

/// Why the issue slot was used or lost in a cycle; exactly one per cycle, the first that applies.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stalls {
    /// An instruction issued.
    pub issued: u64,
    /// A warp was ready but every operand collector was busy.
    pub collector_full: u64,
    /// Warps waited for results (scoreboard).
    pub scoreboard: u64,
    /// Warps waited at a block barrier.
    pub barrier: u64,
    /// Two-level: no active warp could issue while pending warps wait for long-latency results.
    pub descheduled: u64,
    /// No warp left to issue (launch gaps and the drain at the end).
    pub no_warp: u64,
    /// A warp's next instruction was held by the warpboard (and nothing else issued).
    pub warpboard: u64,
    /// Renaming: a warp's next instruction needed a physical register and none was free.
    pub no_register: u64,
}

/// Main-register-file traffic.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MrfTraffic {
    /// Warp-register reads and writes.
    pub reads: u64,
    pub writes: u64,
    /// 128-bit bank accesses: a read reads one bank in every cluster; a write writes the
    /// clusters holding an active lane.
    pub bank_reads: u64,
    pub bank_writes: u64,
    /// 32-bit values moved between the MRF and the units: every lane of a read, active lanes
    /// of a write.
    pub read_values: u64,
    pub written_values: u64,
    pub bank_conflicts: u64,
}

/// A source operand whose delivered value differs from the functional value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperandMismatch {
    pub cycle: u64,
    pub warp: u32,
    pub line: u32,
    pub operand: u32,
    pub lane: u32,
    pub expected: u32,
    pub actual: u32,
    /// A write-after-read hazard: the line of the later instruction of the same warp whose
    /// write-back reached the register before this operand was read.
    pub war_writer_line: Option<u32>,
}

/// Histogram with named bins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histogram {
    pub bins: Vec<String>,
    pub counts: Vec<u64>,
}

impl Histogram {
    fn new(bins: &[&'static str]) -> Self {
        Histogram { bins: bins.iter().map(|b| b.to_string()).collect(), counts: vec![0; bins.len()] }
    }
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
    /// Share of bin `i` in percent.
    pub fn percent(&self, i: usize) -> f64 {
        100.0 * self.counts[i] as f64 / self.total().max(1) as f64
    }
}

/// Lifetime bins, in warp instructions from a value's write to its last read.
const LIFETIME_BINS: &[&str] = &["1", "2", "3", "4-7", "8-15", "16-31", "32+"];

/// Operand-value statistics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueStats {
    /// Reads of each written value before it is overwritten or the warp ends: 0, 1, 2, 3+.
    pub reads_per_value: Histogram,
    /// Warp instructions from a value's write to its last read (values read at least once).
    pub lifetime: Histogram,
    /// Values read exactly once, by lifetime (seed 000 Fig. 2b), and those within 3
    /// instructions of their write.
    pub read_once_lifetime: Histogram,
    pub read_once_within_3: u64,
    /// Register reads by instructions executing on the SFU, memory or texture units.
    pub reads_by_sfu_mem_tex: u64,
    pub reads: u64,
    /// Seed 004 §3: the difference between each pair of successive active lanes of a written
    /// register, binned 0 / within ±128 / within ±2^15 / random, for full-mask writes and for
    /// divergent (partial-mask) writes.
    pub lane_delta_non_divergent: Histogram,
    pub lane_delta_divergent: Histogram,
    /// Full-mask register writes whose every successive-lane difference is within ±2^15.
    pub writes_within_2_15: u64,
    pub non_divergent_writes: u64,
}

impl Default for ValueStats {
    fn default() -> Self {
        let delta = ["zero", "128", "32K", "random"];
        ValueStats {
            reads_per_value: Histogram::new(&["0", "1", "2", "3+"]),
            lifetime: Histogram::new(LIFETIME_BINS),
            read_once_lifetime: Histogram::new(LIFETIME_BINS),
            read_once_within_3: 0,
            reads_by_sfu_mem_tex: 0,
            reads: 0,
            lane_delta_non_divergent: Histogram::new(&delta),
            lane_delta_divergent: Histogram::new(&delta),
            writes_within_2_15: 0,
            non_divergent_writes: 0,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimStats {
    /// SMs that ran the kernel (their counts are added up).
    pub sms: u32,
    pub cycles: u64,
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    /// Warp instructions on a divergent control-flow path (fewer lanes than the warp's live
    /// lanes at launch; guard predicates do not count).
    pub divergent_instructions: u64,
    pub alu: u64,
    pub sfu: u64,
    pub shared: u64,
    pub global: u64,
    pub texture: u64,
    pub control: u64,
    pub stalls: Stalls,
    /// Warp registers of the most warps resident at once: what a static allocation powers.
    pub registers_allocated: u32,
    pub occupancy: Occupancy,
    /// Two-level scheduler: warps moved to the pending set.
    pub deschedules: u64,
    pub mrf: MrfTraffic,
    /// Source lanes that were never written by their warp: the kernel reads undefined values
    /// there (not compared, reported as a kernel warning).
    pub undefined_reads: u64,
    pub operand_mismatches: u64,
    /// Of those, operands corrupted by a write-after-read hazard (`warpboard.policy = "none"`).
    pub war_hazards: u64,
    /// The first few mismatches, for the report.
    pub mismatch_examples: Vec<OperandMismatch>,
    pub values: ValueStats,
    /// Warp instructions issued per static instruction (pc).
    #[serde(skip)]
    pub executed: Vec<u64>,
    /// Present with a compressed MRF.
    pub compression: Option<CompressionStats>,
    /// Present with a register file cache.
    pub rfc: Option<RfcTraffic>,
    /// Present with an ORF/LRF.
    pub orf: Option<OrfTraffic>,
    /// Present with register renaming.
    pub rename: Option<RenameTraffic>,
    /// Present with TUBA: SM block-limit moves.
    pub tuba: Option<TubaMoves>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TubaMoves {
    pub lowered: u64,
    pub raised: u64,
}

/// Renaming and the hybrid CMOS/TFET register file (seed 003).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenameTraffic {
    /// Physical warp registers, and the CMOS ones among them.
    pub physical: u32,
    pub cmos: u32,
    /// New destinations renamed, those that asked for TFET (MEM_RA), those given TFET, and
    /// those served by the other kind because theirs had none free.
    pub renames: u64,
    pub tfet_requests: u64,
    pub tfet_given: u64,
    pub fallbacks: u64,
    /// Partial writes that kept their register.
    pub kept: u64,
    pub releases: u64,
    /// How values died: at their last read, replaced, at warp exit.
    pub died_at_last_read: u64,
    pub died_replaced: u64,
    pub died_at_exit: u64,
    /// Eq. (1) predictions made (global loads completed).
    pub predictions: u64,
    /// Most physical registers live at once, and the CMOS and TFET registers ever handed out
    /// (the ones a launch-time power gating of unused registers keeps powered).
    pub peak_live: u32,
    pub cmos_used: u32,
    pub tfet_used: u32,
    /// Warp-register reads and writes of TFET rows (the rest are CMOS).
    pub tfet_reads: u64,
    pub tfet_writes: u64,
}

/// ORF/LRF traffic, in warp registers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrfTraffic {
    /// ORF entries per thread (its per-access energy depends on them).
    pub entries: u32,
    /// Lanes per warp register (32-bit values per access).
    pub lanes: u32,
    /// Source operands read from the ORF and from the LRF.
    pub orf_reads: u64,
    pub lrf_reads: u64,
    /// Entries written (write-backs and fills).
    pub orf_writes: u64,
    pub lrf_writes: u64,
    /// Of those, fills: an MRF read copied up for later reads (read-operand allocation).
    pub fills: u64,
    /// Write-backs the compiler kept out of the MRF.
    pub mrf_writes_skipped: u64,
    /// Cycles a fill waited for the write port.
    pub fill_waits: u64,
}

/// Register-file-cache traffic, in warp registers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RfcTraffic {
    /// Source operands found in the RFC.
    pub read_hits: u64,
    /// Write-backs kept in the RFC: into an entry holding the register, or a new one.
    pub write_hits: u64,
    pub allocations: u64,
    /// Write-backs sent to the MRF (long-latency, partial-mask, or no slot).
    pub bypasses: u64,
    /// Entries written back to the MRF on eviction and on flushes (each an RFC read and an
    /// MRF write); dirty dead entries dropped.
    pub evictions: u64,
    pub flush_writes: u64,
    pub dead_evictions: u64,
    pub flushes: u64,
    pub activations: u64,
    /// Values (32-bit lanes) read from the RFC (hits, evictions, flushes), those of them
    /// handed to the units (hits), and values written into it.
    pub read_values: u64,
    pub delivered_values: u64,
    pub written_values: u64,
}

/// The value a register of a warp holds, for the value statistics.
#[derive(Clone, Copy, Debug, Default)]
pub struct ValueLife {
    pub live: bool,
    pub reads: u32,
    pub written_at: u64,
    pub last_read_at: u64,
}

impl ValueStats {
    /// Closes a value that is overwritten or whose warp ended.
    // Inlined: at every register write.
    #[inline]
    pub fn close(&mut self, v: &ValueLife) {
        if !v.live {
            return;
        }
        self.reads_per_value.counts[(v.reads as usize).min(3)] += 1;
        if v.reads > 0 {
            let life = v.last_read_at - v.written_at;
            let bin = match life {
                0..=3 => life.max(1) as usize - 1,
                4..=7 => 3,
                8..=15 => 4,
                16..=31 => 5,
                _ => 6,
            };
            self.lifetime.counts[bin] += 1;
            if v.reads == 1 {
                self.read_once_lifetime.counts[bin] += 1;
                self.read_once_within_3 += u64::from(life <= 3);
            }
        }
    }

    /// Bins the successive-lane differences of a register write.
    // Inlined: at every register write.
    #[inline(always)]
    pub fn record_write(&mut self, values: &[u32], mask: u64, full: bool) {
        // Branch-free over the lanes (it runs on every write): a pair counts when both its
        // lanes wrote; bins 0, 1..=128, 129..=32768 and beyond. Each sum counts the pairs past
        // one bin edge, which vectorizes where indexing a bin per pair does not.
        let pairs = mask & mask >> 1;
        let n = values.len().saturating_sub(1);
        let every = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let (mut on, mut past) = (0u64, [0u64; 3]);
        if pairs & every == every {
            // Every pair counts (a write of the whole warp, the common case): without the mask
            // the loop vectorizes, and a 32-lane warp's, as an array, has a known length.
            let sums = match <&[u32; 32]>::try_from(values) {
                Ok(warp) => warp_bins_past(warp),
                Err(_) => bins_past(values),
            };
            (on, past) = (n as u64, sums.map(u64::from));
        } else {
            for (l, w) in values.windows(2).enumerate() {
                let pair = pairs >> l & 1;
                let d = (w[1].wrapping_sub(w[0]) as i32).unsigned_abs();
                on += pair;
                past[0] += pair & u64::from(d > 0);
                past[1] += pair & u64::from(d > 128);
                past[2] += pair & u64::from(d > 32768);
            }
        }
        let counts = [on - past[0], past[0] - past[1], past[1] - past[2], past[2]];
        let worst = past.iter().filter(|&&n| n > 0).count();
        let hist = if full { &mut self.lane_delta_non_divergent } else { &mut self.lane_delta_divergent };
        for (h, c) in hist.counts.iter_mut().zip(counts) {
            *h += c;
        }
        if full {
            self.non_divergent_writes += 1;
            self.writes_within_2_15 += (worst <= 2) as u64;
        }
    }
}

/// Of the differences of successive lanes, how many lie past each bin edge (0, 128, 32768).
#[inline(always)]
fn bins_past(values: &[u32]) -> [u32; 3] {
    count_past(values.iter().zip(values.get(1..).unwrap_or_default()).map(|(x, y)| y.wrapping_sub(*x)))
}

/// [`bins_past`] of a 32-lane warp: its 31 differences and a 32nd of 0, which lies past no
/// edge, so that the count runs over whole vectors without a tail.
#[inline(always)]
fn warp_bins_past(values: &[u32; 32]) -> [u32; 3] {
    let mut diffs = [0u32; 32];
    for l in 0..31 {
        diffs[l] = values[l + 1].wrapping_sub(values[l]);
    }
    count_past(diffs.into_iter())
}

/// Of `diffs`, how many lie past each bin edge (0, 128, 32768).
#[inline(always)]
fn count_past(diffs: impl Iterator<Item = u32>) -> [u32; 3] {
    // |d| > e as one comparison: d + e lies beyond 2e (unsigned) exactly when d lies outside
    // -e ..= e (wrapping, so i32::MIN counts too). Written as the signed comparison of both
    // sides with the sign bit flipped, which the baseline x86-64 target makes four at a time.
    const SIGN: u32 = 1 << 31;
    let (mut zero, mut near, mut mid) = (0u32, 0u32, 0u32);
    for d in diffs {
        zero += u32::from(d != 0);
        near += u32::from((d.wrapping_add(128) ^ SIGN) as i32 > (256 ^ SIGN) as i32);
        mid += u32::from((d.wrapping_add(32768) ^ SIGN) as i32 > (65536 ^ SIGN) as i32);
    }
    [zero, near, mid]
}

/// The compressed MRF's counters (seed 004), with the banks each range indicator occupies.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompressionStats {
    /// Banks per warp register uncompressed (the clusters).
    pub clusters: u32,
    /// Banks a register occupies, by range indicator (index 0: uncompressed).
    pub banks_by_ri: Vec<u32>,
    /// Bits a register's value takes, by range indicator (index 0: uncompressed, 32 per lane).
    pub bits_by_ri: Vec<u32>,
    /// Full-mask writes committed, by range indicator.
    pub full_writes_by_ri: Vec<u64>,
    /// Divergent (partial-mask) writes, stored uncompressed.
    pub partial_writes: u64,
    /// What each divergent write's register would compress to after the write (seed 004 Fig. 8).
    pub partial_merged_by_ri: Vec<u64>,
    pub compressions: u64,
    pub decompressions: u64,
    pub dummy_movs: u64,
    pub gated_bank_cycles: u64,
    pub bank_wakeups: u64,
    /// Cycles the write port refused a write-back.
    pub wb_stall_cycles: u64,
    /// Banks in the MRF.
    pub banks: u32,
}

impl CompressionStats {
    pub fn new(m: &crate::blocks::mrf::MrfStats, layout: &rfgen_gen::layout::bdi::Layout, clusters: u32) -> Self {
        let n = m.full_writes_by_ri.len() as u32;
        CompressionStats {
            clusters,
            banks_by_ri: (0..n).map(|ri| layout.banks(ri)).collect(),
            bits_by_ri: (0..n as usize)
                .map(|ri| if ri == 0 { 32 * layout.lanes } else { layout.modes[ri - 1].payload_bits })
                .collect(),
            full_writes_by_ri: m.full_writes_by_ri.clone(),
            partial_writes: m.partial_writes,
            partial_merged_by_ri: m.partial_merged_by_ri.clone(),
            compressions: m.compressions,
            decompressions: m.decompressions,
            dummy_movs: m.dummy_movs,
            gated_bank_cycles: m.gated_bank_cycles(),
            bank_wakeups: m.bank_wakeups,
            wb_stall_cycles: m.wb_stall_cycles,
            banks: m.gated_cycles.len() as u32,
        }
    }

    /// Banks the writes would occupy uncompressed, over the banks they occupy: the ratio the
    /// banked MRF realizes. `None` without writes.
    fn ratio(&self, writes_by_ri: &[u64]) -> Option<f64> {
        Self::ratio_of(writes_by_ri, &self.banks_by_ri)
    }

    /// Original size over compressed size, in bits (seed 004 §2's definition, Fig. 8's
    /// measure), of the writes by range indicator `writes_by_ri`; `size_by_ri[0]` is the
    /// uncompressed size. `None` without writes.
    fn ratio_of(writes_by_ri: &[u64], size_by_ri: &[u32]) -> Option<f64> {
        let writes: u64 = writes_by_ri.iter().sum();
        let size: u64 = writes_by_ri.iter().zip(size_by_ri).map(|(&w, &b)| w * b as u64).sum();
        (writes > 0).then(|| (writes * size_by_ri[0] as u64) as f64 / size as f64)
    }

    /// [`Self::ratio_non_divergent`] by bits instead of banks.
    pub fn bit_ratio_non_divergent(&self) -> Option<f64> {
        Self::ratio_of(&self.full_writes_by_ri, &self.bits_by_ri)
    }

    /// [`Self::ratio_divergent`] by bits instead of banks.
    pub fn bit_ratio_divergent(&self) -> Option<f64> {
        Self::ratio_of(&self.partial_merged_by_ri, &self.bits_by_ri)
    }

    /// Compression ratio of full-mask writes.
    pub fn ratio_non_divergent(&self) -> Option<f64> {
        self.ratio(&self.full_writes_by_ri)
    }

    /// Compression ratio divergent writes would reach (seed 004 Fig. 8).
    pub fn ratio_divergent(&self) -> Option<f64> {
        self.ratio(&self.partial_merged_by_ri)
    }
}

impl Histogram {
    fn add(&mut self, o: &Histogram) {
        self.counts.iter_mut().zip(&o.counts).for_each(|(a, b)| *a += b);
    }
}

impl SimStats {
    /// Adds another SM's counts of the same kernel (several SMs: validation keeps the register
    /// file cache, compression and the ORF/LRF out, so their statistics are absent). Cycles and
    /// peaks take the larger.
    pub fn add(&mut self, o: &SimStats) {
        debug_assert!(o.compression.is_none() && o.rfc.is_none() && o.orf.is_none());
        self.cycles = self.cycles.max(o.cycles);
        self.sms += o.sms;
        for (a, b) in [
            (&mut self.warp_instructions, o.warp_instructions),
            (&mut self.thread_instructions, o.thread_instructions),
            (&mut self.divergent_instructions, o.divergent_instructions),
            (&mut self.alu, o.alu),
            (&mut self.sfu, o.sfu),
            (&mut self.shared, o.shared),
            (&mut self.global, o.global),
            (&mut self.texture, o.texture),
            (&mut self.control, o.control),
            (&mut self.deschedules, o.deschedules),
            (&mut self.undefined_reads, o.undefined_reads),
            (&mut self.operand_mismatches, o.operand_mismatches),
            (&mut self.war_hazards, o.war_hazards),
        ] {
            *a += b;
        }
        let (s, t) = (&mut self.stalls, &o.stalls);
        for (a, b) in [
            (&mut s.issued, t.issued),
            (&mut s.collector_full, t.collector_full),
            (&mut s.scoreboard, t.scoreboard),
            (&mut s.barrier, t.barrier),
            (&mut s.descheduled, t.descheduled),
            (&mut s.no_warp, t.no_warp),
            (&mut s.warpboard, t.warpboard),
            (&mut s.no_register, t.no_register),
        ] {
            *a += b;
        }
        self.registers_allocated += o.registers_allocated;
        let (c, d) = (&mut self.occupancy, &o.occupancy);
        c.warp_slots += d.warp_slots;
        c.usable_slots += d.usable_slots;
        c.peak_warps += d.peak_warps;
        c.rows_per_warp = d.rows_per_warp;
        let (m, n) = (&mut self.mrf, &o.mrf);
        for (a, b) in [
            (&mut m.reads, n.reads),
            (&mut m.writes, n.writes),
            (&mut m.bank_reads, n.bank_reads),
            (&mut m.bank_writes, n.bank_writes),
            (&mut m.read_values, n.read_values),
            (&mut m.written_values, n.written_values),
            (&mut m.bank_conflicts, n.bank_conflicts),
        ] {
            *a += b;
        }
        let room = MISMATCH_EXAMPLES_KEPT.saturating_sub(self.mismatch_examples.len());
        self.mismatch_examples.extend(o.mismatch_examples.iter().take(room).cloned());
        let (v, w) = (&mut self.values, &o.values);
        v.reads_per_value.add(&w.reads_per_value);
        v.lifetime.add(&w.lifetime);
        v.read_once_lifetime.add(&w.read_once_lifetime);
        v.lane_delta_non_divergent.add(&w.lane_delta_non_divergent);
        v.lane_delta_divergent.add(&w.lane_delta_divergent);
        for (a, b) in [
            (&mut v.read_once_within_3, w.read_once_within_3),
            (&mut v.reads_by_sfu_mem_tex, w.reads_by_sfu_mem_tex),
            (&mut v.reads, w.reads),
            (&mut v.writes_within_2_15, w.writes_within_2_15),
            (&mut v.non_divergent_writes, w.non_divergent_writes),
        ] {
            *a += b;
        }
        self.executed.iter_mut().zip(&o.executed).for_each(|(a, b)| *a += b);
        if let (Some(r), Some(q)) = (&mut self.rename, &o.rename) {
            for (a, b) in [
                (&mut r.physical, q.physical),
                (&mut r.cmos, q.cmos),
                (&mut r.peak_live, q.peak_live),
                (&mut r.cmos_used, q.cmos_used),
                (&mut r.tfet_used, q.tfet_used),
            ] {
                *a += b;
            }
            for (a, b) in [
                (&mut r.renames, q.renames),
                (&mut r.tfet_requests, q.tfet_requests),
                (&mut r.tfet_given, q.tfet_given),
                (&mut r.fallbacks, q.fallbacks),
                (&mut r.kept, q.kept),
                (&mut r.releases, q.releases),
                (&mut r.died_at_last_read, q.died_at_last_read),
                (&mut r.died_replaced, q.died_replaced),
                (&mut r.died_at_exit, q.died_at_exit),
                (&mut r.predictions, q.predictions),
                (&mut r.tfet_reads, q.tfet_reads),
                (&mut r.tfet_writes, q.tfet_writes),
            ] {
                *a += b;
            }
        }
    }
}

/// Mismatch examples a report keeps.
pub const MISMATCH_EXAMPLES_KEPT: usize = 8;
