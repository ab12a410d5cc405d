//! The operand register file and last result file (generated `<prefix>_orf`): per warp, the
//! ORF's and the LRF's entries of one warp register each, with a valid bit. Read at issue
//! (three reads a cycle, from the state before the edge); written by one write port (a
//! write-back or a fill); a warp's entries are invalidated when it starts a strand. An invalid
//! entry reads as zero, so a read the compiler did not allocate — a value across a strand
//! boundary — is visible as a wrong value, never as a stale right one.

use rfgen_gen::layout::orf::{LEVEL_LRF, LEVEL_ORF, OrfLayout};

/// One level's entries, `[warp * per + entry]`.
#[derive(Clone, Debug)]
struct Entries {
    per: usize,
    lanes: usize,
    data: Vec<u32>,
    /// Lanes written since construction (the RTL's unwritten storage is undefined).
    known: Vec<u64>,
    valid: Vec<bool>,
}

impl Entries {
    fn new(warps: u32, per: u32, lanes: usize) -> Self {
        let n = (warps * per) as usize;
        Entries { per: per as usize, lanes, data: vec![0; n * lanes], known: vec![0; n], valid: vec![false; n] }
    }

    fn at(&self, warp: u32, entry: u32) -> usize {
        warp as usize * self.per + entry as usize
    }
}

#[derive(Clone, Debug)]
pub struct Orf {
    layout: OrfLayout,
    orf: Entries,
    lrf: Entries,
    zeros: Vec<u32>,
}

impl Orf {
    pub fn new(warps: u32, layout: &OrfLayout, lanes: usize) -> Self {
        Orf {
            layout: layout.clone(),
            orf: Entries::new(warps, layout.entries, lanes),
            lrf: Entries::new(warps, layout.lrf_entries(), lanes),
            zeros: vec![0; lanes],
        }
    }

    pub fn layout(&self) -> &OrfLayout {
        &self.layout
    }

    /// Reset invalidates every entry; the data is kept.
    pub fn reset(&mut self) {
        self.orf.valid.fill(false);
        self.lrf.valid.fill(false);
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
    /// invalid or when the entry does not exist.
    pub fn read(&self, level: u8, warp: u32, entry: u32) -> (&[u32], u64) {
        let all = u64::MAX >> (64 - self.zeros.len());
        match self.level(level) {
            Some(e) if (entry as usize) < e.per && e.valid[e.at(warp, entry)] => {
                let i = e.at(warp, entry);
                (&e.data[i * e.lanes..][..e.lanes], e.known[i])
            }
            _ => (&self.zeros, all),
        }
    }

    /// The warp starts a strand: every entry it has becomes invalid.
    pub fn invalidate(&mut self, warp: u32) {
        for e in [&mut self.orf, &mut self.lrf] {
            let per = e.per;
            e.valid[warp as usize * per..][..per].fill(false);
        }
    }

    /// The write port: the masked lanes of the entry take `data` (`known` of them hold written
    /// values), and the entry is valid. A level or entry that does not exist is not written.
    pub fn write(&mut self, level: u8, warp: u32, entry: u32, mask: u64, data: &[u32], known: u64) {
        let e = match level as u64 {
            LEVEL_ORF => &mut self.orf,
            LEVEL_LRF => &mut self.lrf,
            _ => return,
        };
        if entry as usize >= e.per {
            return;
        }
        let i = e.at(warp, entry);
        let row = &mut e.data[i * e.lanes..][..e.lanes];
        for (l, (d, &v)) in row.iter_mut().zip(data).enumerate() {
            if mask >> l & 1 == 1 {
                *d = v;
            }
        }
        e.known[i] = e.known[i] & !mask | known & mask;
        e.valid[i] = true;
    }
}
