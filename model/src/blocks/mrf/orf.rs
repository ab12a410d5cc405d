//! The operand register file and last result file (generated `<prefix>_orf`): per warp slot,
//! the ORF's and the LRF's entries of one warp register each, with a valid bit. Read at issue
//! (three reads a cycle, from the state before the edge); written by one write port (a
//! write-back or a fill); a warp's entries are invalidated when it starts a strand. An invalid
//! entry reads as zero, so a read the compiler did not allocate — a value across a strand
//! boundary — is visible as a wrong value, never as a stale right one.
//!
//! Slots (`OrfLayout::slots`): under the two-level scheduler, one per active warp. A warp takes
//! the lowest free slot when an instruction of it is accepted and it has none (a slot whose
//! warp is released at that edge counts as free), and loses it when it is released (`rel_mask`:
//! it left the active set), which invalidates its entries, so a slot is taken empty. A warp
//! without a slot reads zero and its writes are dropped. Under LRR and GTO slot `w` is warp `w`'s.

use rfgen_gen::layout::orf::{LEVEL_LRF, LEVEL_ORF, OrfLayout};

/// One level's entries, `[slot * per + entry]`.
#[derive(Clone, Debug)]
struct Entries {
    per: usize,
    lanes: usize,
    data: Vec<u32>,
    /// Lanes written since construction or reset (the RTL's unwritten storage is undefined).
    known: Vec<u64>,
    valid: Vec<bool>,
}

impl Entries {
    fn new(slots: u32, per: u32, lanes: usize) -> Self {
        let n = (slots * per) as usize;
        Entries { per: per as usize, lanes, data: vec![0; n * lanes], known: vec![0; n], valid: vec![false; n] }
    }

    fn at(&self, slot: usize, entry: u32) -> usize {
        slot * self.per + entry as usize
    }

    fn invalidate(&mut self, slot: usize) {
        let per = self.per;
        self.valid[slot * per..][..per].fill(false);
    }
}

#[derive(Clone, Debug)]
pub struct Orf {
    layout: OrfLayout,
    /// Per warp: the slot it owns (mapped slots only).
    slot_of: Vec<Option<usize>>,
    /// Per slot: the warp owning it (mapped slots only).
    owner: Vec<Option<u32>>,
    orf: Entries,
    lrf: Entries,
    zeros: Vec<u32>,
}

/// What an ORF/LRF edge did to the slots, for the statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlotEvents {
    pub taken: bool,
    pub released: u64,
}

impl Orf {
    pub fn new(warps: u32, layout: &OrfLayout, lanes: usize) -> Self {
        let slots = layout.slots;
        Orf {
            layout: layout.clone(),
            slot_of: vec![None; warps as usize],
            owner: vec![None; slots as usize],
            orf: Entries::new(slots, layout.entries, lanes),
            lrf: Entries::new(slots, layout.lrf_entries(), lanes),
            zeros: vec![0; lanes],
        }
    }

    pub fn layout(&self) -> &OrfLayout {
        &self.layout
    }

    /// Reset invalidates every entry and frees every slot; the data is kept, unknown until
    /// written again (as the MRF's).
    pub fn reset(&mut self) {
        for e in [&mut self.orf, &mut self.lrf] {
            e.valid.fill(false);
            e.known.fill(0);
        }
        self.slot_of.fill(None);
        self.owner.fill(None);
    }

    /// The slot holding `warp`'s entries, if any.
    pub fn slot(&self, warp: u32) -> Option<usize> {
        if self.layout.mapped { self.slot_of.get(warp as usize).copied().flatten() } else { Some(warp as usize) }
    }

    fn level(&self, level: u8) -> Option<&Entries> {
        match level as u64 {
            LEVEL_ORF => Some(&self.orf),
            LEVEL_LRF => Some(&self.lrf),
            _ => None,
        }
    }

    /// The level has that entry (the ports can name entries and levels that do not exist).
    pub fn has(&self, level: u8, entry: u32) -> bool {
        self.level(level).is_some_and(|e| (entry as usize) < e.per)
    }

    /// The entry `entry` of `level` of `warp` and its known lanes; zero (every lane known) when
    /// invalid, when the entry does not exist or when the warp has no slot.
    pub fn read(&self, level: u8, warp: u32, entry: u32) -> (&[u32], u64) {
        let all = u64::MAX >> (64 - self.zeros.len());
        match (self.level(level), self.slot(warp)) {
            (Some(e), Some(slot)) if (entry as usize) < e.per && e.valid[e.at(slot, entry)] => {
                let i = e.at(slot, entry);
                (&e.data[i * e.lanes..][..e.lanes], e.known[i])
            }
            _ => (&self.zeros, all),
        }
    }

    /// The warp starts a strand: every entry of its slot becomes invalid.
    pub fn invalidate(&mut self, warp: u32) {
        if let Some(slot) = self.slot(warp) {
            self.orf.invalidate(slot);
            self.lrf.invalidate(slot);
        }
    }

    /// The write port: the masked lanes of the entry take `data` (`known` of them hold written
    /// values), and the entry is valid. A level or entry that does not exist, or a warp without
    /// a slot, is not written. Returns whether an entry was written.
    pub fn write(&mut self, level: u8, warp: u32, entry: u32, mask: u64, data: &[u32], known: u64) -> bool {
        let slot = self.slot(warp);
        let e = match level as u64 {
            LEVEL_ORF => &mut self.orf,
            LEVEL_LRF => &mut self.lrf,
            _ => return false,
        };
        let Some(slot) = slot.filter(|_| (entry as usize) < e.per) else { return false };
        let i = e.at(slot, entry);
        let row = &mut e.data[i * e.lanes..][..e.lanes];
        for (l, (d, &v)) in row.iter_mut().zip(data).enumerate() {
            if mask >> l & 1 == 1 {
                *d = v;
            }
        }
        e.known[i] = e.known[i] & !mask | known & mask;
        e.valid[i] = true;
        true
    }

    /// No slot is held by a warp in `release`: an edge without an issue changes no slot.
    pub fn slots_idle(&self, release: u64) -> bool {
        !self.layout.mapped || self.owner.iter().all(|o| o.is_none_or(|w| release >> w & 1 == 0))
    }

    /// The slots' edge, after this edge's write (mapped slots only): the slots of the warps in
    /// `release` (bit per warp) are freed, and `issued`, a warp with an instruction accepted at
    /// this edge, takes the lowest slot free before the edge or freed at it when it has none
    /// and is not released. A freed slot has every entry invalid (reset invalidates them too),
    /// so a slot is taken empty.
    pub fn slots_edge(&mut self, issued: Option<u32>, release: u64) -> SlotEvents {
        let mut ev = SlotEvents::default();
        if !self.layout.mapped {
            return ev;
        }
        let released = |w: u32| release >> w & 1 == 1;
        let taker = issued.filter(|&w| self.slot(w).is_none() && !released(w) && (w as usize) < self.slot_of.len());
        for s in 0..self.owner.len() {
            if let Some(w) = self.owner[s].filter(|&w| released(w)) {
                self.owner[s] = None;
                self.slot_of[w as usize] = None;
                self.orf.invalidate(s);
                self.lrf.invalidate(s);
                ev.released |= 1 << w;
            }
        }
        if let (Some(w), Some(s)) = (taker, self.owner.iter().position(Option::is_none)) {
            self.owner[s] = Some(w);
            self.slot_of[w as usize] = Some(s);
            ev.taken = true;
        }
        ev
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two-level, 4 warps, 2 active: one ORF entry per slot, one lane.
    fn two_slots() -> Orf {
        let checked = rfgen_gen::config::parse(
            "[sm]\nwarps = 4\n[scheduler]\npolicy = \"two_level\"\nactive_warps = 2\n[orf]\nenabled = true\nentries = 1\nlrf = \"none\"\n",
        )
        .unwrap();
        let layout = checked.orf.unwrap();
        assert!(layout.mapped && layout.slots == 2);
        Orf::new(4, &layout, 1)
    }

    fn read(o: &Orf, warp: u32) -> u32 {
        o.read(LEVEL_ORF as u8, warp, 0).0[0]
    }

    #[test]
    fn warps_take_slots_as_they_issue_and_lose_them_on_release() {
        let mut o = two_slots();
        let orf = LEVEL_ORF as u8;
        assert!(!o.write(orf, 0, 0, 1, &[5], 1), "no slot yet: the write is dropped");
        assert_eq!(o.slots_edge(Some(0), 0), SlotEvents { taken: true, released: 0 });
        assert!(o.write(orf, 0, 0, 1, &[5], 1));
        assert_eq!((o.slot(0), read(&o, 0)), (Some(0), 5));
        assert!(o.slots_edge(Some(1), 0).taken);
        assert!(!o.slots_edge(Some(2), 0).taken, "every slot is held");
        assert_eq!((o.slot(2), read(&o, 2)), (None, 0), "a warp without a slot reads zero");
        // Warp 0 leaves the active set as warp 2 issues: warp 2 takes the slot freed at this edge,
        // empty.
        assert_eq!(o.slots_edge(Some(2), 0b0001), SlotEvents { taken: true, released: 0b0001 });
        assert_eq!((o.slot(0), o.slot(2), read(&o, 2)), (None, Some(0), 0));
        // A warp released at the edge it issues takes nothing.
        assert_eq!(o.slots_edge(Some(3), 0b1010), SlotEvents { taken: false, released: 0b0010 });
        assert_eq!((o.slot(1), o.slot(3)), (None, None));
        o.reset();
        assert_eq!(o.slot(2), None, "reset frees every slot");
    }

    #[test]
    fn without_the_two_level_scheduler_slot_w_is_warp_ws() {
        let checked = rfgen_gen::config::parse("[sm]\nwarps = 4\n[orf]\nenabled = true\n").unwrap();
        let mut o = Orf::new(4, checked.orf.as_ref().unwrap(), 1);
        assert!(!o.layout().mapped);
        assert!(o.write(LEVEL_ORF as u8, 3, 0, 1, &[7], 1));
        assert_eq!(o.slots_edge(None, 0b1000), SlotEvents::default(), "nothing to release");
        assert_eq!((o.slot(3), read(&o, 3)), (Some(3), 7));
    }
}
