//! The hardware register file cache (generated `<prefix>_rfc`; seed 000 §3, SPEC §2): per RFC
//! slot — one per active warp — `E` entries of tag, valid, dirty, dead and one warp register.
//! It sits in front of the banks: the issue stage checks its tags, write-backs of short-latency
//! results are kept in it, and what leaves it (evictions, flushes) goes to the banks through the
//! MRF write port. The rules are in the `Mrf` doc comment (section *Register file cache*) and in
//! docs/rfc.md.

use super::lane_mask;
use rfgen_gen::config::Replacement;
use rfgen_gen::layout::rfc::RfcLayout;

/// A warp register on its way to the banks this cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankWrite<'a> {
    pub warp: u32,
    pub reg: u32,
    pub mask: u64,
    pub data: &'a [u32],
    /// Why it goes to the banks.
    pub cause: WriteCause,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteCause {
    /// A write-back the RFC does not keep (long latency, partial mask, or no slot).
    Bypass,
    /// A dirty live entry pushed out by an allocation, leaving the eviction buffer.
    Eviction,
    /// A dirty live entry of a warp being flushed.
    Flush,
}

/// How an issued source was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    pub slot: usize,
    pub entry: usize,
}

#[derive(Clone, Debug)]
pub struct Rfc {
    layout: RfcLayout,
    entries: usize,
    lanes: usize,
    replacement: Replacement,
    liveness: bool,
    /// Per warp: the slot it owns.
    slot_of: Vec<Option<u32>>,
    /// Per slot: the warp owning it.
    owner: Vec<Option<u32>>,
    /// Per entry, `[slot * E + e]`.
    valid: Vec<bool>,
    tag: Vec<u32>,
    dirty: Vec<bool>,
    dead: Vec<bool>,
    /// Replacement order within a slot: 0 = most recent, `E - 1` = the next victim.
    rank: Vec<u32>,
    /// `[(slot * E + e) * lanes + lane]`.
    data: Vec<u32>,
    /// The eviction buffer: an evicted entry waiting for the MRF write port.
    evict: Option<(u32, u32)>,
    evict_data: Vec<u32>,
    /// The slot being flushed.
    flush: Option<usize>,
    /// The banks behind may refuse a write (a compressed MRF's write port), so the eviction
    /// buffer may wait any number of cycles.
    banks_may_refuse: bool,
}

impl Rfc {
    pub fn new(warps: u32, l: &RfcLayout, lanes: usize, banks_may_refuse: bool) -> Self {
        let (slots, entries) = (l.slots, l.entries);
        let n = (slots * entries) as usize;
        let mut r = Rfc {
            layout: l.clone(),
            entries: entries as usize,
            lanes,
            replacement: l.replacement,
            liveness: l.liveness,
            slot_of: vec![None; warps as usize],
            owner: vec![None; slots as usize],
            valid: vec![false; n],
            tag: vec![0; n],
            dirty: vec![false; n],
            dead: vec![false; n],
            rank: vec![0; n],
            data: vec![0; n * lanes],
            evict: None,
            evict_data: vec![0; lanes],
            flush: None,
            banks_may_refuse,
        };
        r.reset();
        r
    }

    /// Reset: every slot free, nothing cached, no eviction or flush under way.
    pub fn reset(&mut self) {
        self.slot_of.fill(None);
        for s in 0..self.owner.len() {
            self.free(s);
        }
        self.evict = None;
        self.flush = None;
    }

    fn free(&mut self, slot: usize) {
        if let Some(w) = self.owner[slot].take() {
            self.slot_of[w as usize] = None;
        }
        for e in 0..self.entries {
            let i = slot * self.entries + e;
            self.valid[i] = false;
            self.rank[i] = e as u32;
        }
    }

    pub fn layout(&self) -> &RfcLayout {
        &self.layout
    }

    /// A write-back offered now is taken: no eviction waits and no flush is under way.
    pub fn wb_ready(&self) -> bool {
        self.evict.is_none() && self.flush.is_none()
    }

    /// The register waiting in the eviction buffer, as `(warp, reg)`.
    pub fn evicting(&self) -> Option<(u32, u32)> {
        self.evict
    }

    /// A slot is free for an activation.
    pub fn act_ready(&self) -> bool {
        self.owner.iter().any(Option::is_none)
    }

    /// No flush or eviction under way: without an access, an edge changes nothing.
    pub fn idle(&self) -> bool {
        self.flush.is_none() && self.evict.is_none()
    }

    /// No flush is under way: a flush request is taken now, and the one before is over. In
    /// front of banks that may refuse a write, the eviction buffer is empty too: it may hold a
    /// register of the warp flushed last, which the banks must have before the flush is over.
    /// (Banks that take every write empty it at the edge after the eviction.)
    pub fn flush_ready(&self) -> bool {
        self.flush.is_none() && !(self.banks_may_refuse && self.evict.is_some())
    }

    /// The entry holding register `reg` of `warp`, if cached.
    pub fn lookup(&self, warp: u32, reg: u32) -> Option<Hit> {
        let slot = self.slot_of[warp as usize]? as usize;
        let base = slot * self.entries;
        (0..self.entries).find(|&e| self.valid[base + e] && self.tag[base + e] == reg).map(|entry| Hit { slot, entry })
    }

    /// The data of a cached entry (every lane holds a value).
    pub fn data(&self, h: Hit) -> &[u32] {
        &self.data[(h.slot * self.entries + h.entry) * self.lanes..][..self.lanes]
    }

    /// Entry `i` holds a value the banks do not have.
    fn flush_live(&self, i: usize) -> bool {
        self.valid[i] && self.dirty[i] && !self.dead[i]
    }

    /// The lowest dirty live entry of the slot being flushed.
    fn flush_entry(&self) -> Option<usize> {
        let slot = self.flush?;
        (0..self.entries).map(|e| slot * self.entries + e).find(|&i| self.flush_live(i))
    }

    /// Whether a write-back of `warp`'s `reg` stays in the RFC: a hit updates its entry; a miss
    /// is allocated when the warp has a slot and the result is short-latency and full-mask.
    fn keeps(&self, warp: u32, reg: u32, mask: u64, long: bool) -> bool {
        self.lookup(warp, reg).is_some()
            || (self.slot_of[warp as usize].is_some() && !long && mask == lane_mask(self.lanes))
    }

    /// What goes to the banks this cycle, in priority order: the eviction buffer, a flush step,
    /// a write-back the RFC does not keep (the first two and a write-back never meet: a
    /// write-back is refused while either is under way).
    pub fn bank_write<'a>(&'a self, wb: Option<(u32, u32, u64, &'a [u32], bool)>) -> Option<BankWrite<'a>> {
        if let Some((warp, reg)) = self.evict {
            return Some(BankWrite {
                warp,
                reg,
                mask: lane_mask(self.lanes),
                data: &self.evict_data,
                cause: WriteCause::Eviction,
            });
        }
        if let (Some(slot), Some(i)) = (self.flush, self.flush_entry()) {
            let warp = self.owner[slot].expect("a flushed slot has an owner");
            let data = &self.data[i * self.lanes..][..self.lanes];
            return Some(BankWrite {
                warp,
                reg: self.tag[i],
                mask: lane_mask(self.lanes),
                data,
                cause: WriteCause::Flush,
            });
        }
        let (warp, reg, mask, data, long) = wb?;
        (!self.keeps(warp, reg, mask, long)).then_some(BankWrite { warp, reg, mask, data, cause: WriteCause::Bypass })
    }

    /// Makes entry `i` of its slot the most recent.
    fn touch(&mut self, i: usize) {
        let base = i - i % self.entries;
        let r = self.rank[i];
        for j in base..base + self.entries {
            if self.rank[j] < r {
                self.rank[j] += 1;
            }
        }
        self.rank[i] = 0;
    }

    /// One clock edge. `reads`: the sources of an instruction issued this cycle, as
    /// `(warp, reg, last read)`; `wb`: a write-back taken this cycle as `(warp, reg, mask, data,
    /// long latency)`; `banks_ready`: the banks take [`Rfc::bank_write`] at this edge (a
    /// compressed MRF's write port may be busy; the eviction buffer and a flush step then wait).
    /// Returns what happened, for the statistics.
    pub fn tick(
        &mut self,
        reads: &[(u32, u32, bool)],
        wb: Option<(u32, u32, u64, &[u32], bool)>,
        act: Option<u32>,
        flush: Option<u32>,
        release: u64,
        banks_ready: bool,
    ) -> RfcEvents {
        let mut ev = RfcEvents::default();
        // Decisions from the state before the edge.
        let flush = flush.filter(|_| self.flush_ready());
        let free_slot = self.owner.iter().position(Option::is_none);
        // The flush step writes the lowest dirty live entry and frees the slot with the last.
        let flushing = self.flush.map(|slot| {
            let left = (0..self.entries).filter(|e| self.flush_live(slot * self.entries + e)).count();
            (slot, self.flush_entry(), left <= 1)
        });
        let evicting = self.evict.is_some();
        if banks_ready {
            self.evict = None;
        }
        ev.eviction_written = evicting && banks_ready;

        // Issue: hits by last reads die; LRU moves every hit entry up, in source order.
        for &(warp, reg, last) in reads {
            if let Some(h) = self.lookup(warp, reg) {
                let i = h.slot * self.entries + h.entry;
                ev.read_hits += 1;
                if last && self.liveness {
                    self.dead[i] = true;
                }
                if self.replacement == Replacement::Lru {
                    self.touch(i);
                }
            }
        }

        // Write-back.
        if let Some((warp, reg, mask, data, long)) = wb {
            if let Some(h) = self.lookup(warp, reg) {
                let i = h.slot * self.entries + h.entry;
                let words = &mut self.data[i * self.lanes..][..self.lanes];
                for (lane, w) in words.iter_mut().enumerate() {
                    if mask >> lane & 1 == 1 {
                        *w = data[lane];
                    }
                }
                (self.dirty[i], self.dead[i]) = (true, false);
                if self.replacement == Replacement::Lru {
                    self.touch(i);
                }
                ev.write_hits += 1;
            } else if self.keeps(warp, reg, mask, long) {
                let slot = self.slot_of[warp as usize].expect("kept by a slot") as usize;
                let base = slot * self.entries;
                let victim = (base..base + self.entries)
                    .find(|&i| !self.valid[i])
                    .unwrap_or_else(|| (base..base + self.entries).max_by_key(|&i| self.rank[i]).expect("E >= 1"));
                if self.flush_live(victim) {
                    self.evict = Some((warp, self.tag[victim]));
                    self.evict_data.copy_from_slice(&self.data[victim * self.lanes..][..self.lanes]);
                    ev.evictions += 1;
                } else if self.valid[victim] && self.dirty[victim] {
                    ev.dead_evictions += 1;
                }
                self.data[victim * self.lanes..][..self.lanes].copy_from_slice(data);
                (self.valid[victim], self.tag[victim], self.dirty[victim], self.dead[victim]) =
                    (true, reg, true, false);
                self.touch(victim);
                ev.allocations += 1;
            }
        }

        // A flush step: the lowest dirty live entry went to the banks (unless the eviction
        // buffer had the port); the slot is free once none is left.
        if let Some((slot, entry, last)) = flushing {
            match entry {
                Some(i) if !evicting && banks_ready => {
                    self.valid[i] = false;
                    ev.flush_writes += 1;
                    if last {
                        self.free(slot);
                        self.flush = None;
                    }
                }
                Some(_) => {}
                None => {
                    self.free(slot);
                    self.flush = None;
                }
            }
        }

        for slot in 0..self.owner.len() {
            if self.owner[slot].is_some_and(|w| release >> w & 1 == 1) {
                self.free(slot);
            }
        }
        if let Some(w) = flush
            && let Some(slot) = self.slot_of[w as usize]
        {
            self.flush = Some(slot as usize);
            ev.flushes += 1;
        }
        if let (Some(w), Some(slot)) = (act, free_slot) {
            self.owner[slot] = Some(w);
            self.slot_of[w as usize] = Some(slot as u32);
            ev.activations += 1;
        }
        ev
    }
}

/// What an RFC edge did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RfcEvents {
    pub read_hits: u64,
    pub write_hits: u64,
    pub allocations: u64,
    /// Dirty live victims moved to the eviction buffer.
    pub evictions: u64,
    /// Dirty victims dropped because they were dead.
    pub dead_evictions: u64,
    /// The eviction buffer was written to the banks.
    pub eviction_written: bool,
    pub flush_writes: u64,
    pub flushes: u64,
    pub activations: u64,
}
