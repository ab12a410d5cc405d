//! Register-file-cache events for the MRF's stimuli, kept within the protocol the SM follows: an
//! activation is offered for a warp that owns no slot and held until `act_ready`; a flush is
//! offered for a warp owning a slot and held until `flush_ready`, after which the warp is
//! flushing until `flush_ready` rises again; a release names only warps that own a slot and have
//! no flush or activation under way.

use rfgen_model::blocks::mrf::{MrfIn, MrfOut};

#[derive(Clone, Debug, Default)]
pub struct CacheEvents {
    owns: u64,
    flushing: u64,
    act: Option<u32>,
    flush: Option<u32>,
    flush_sent: Option<u32>,
}

impl CacheEvents {
    /// Warps that may be released or flushed now.
    pub fn settled(&self) -> u64 {
        let pending = self.act.map_or(0, |w| 1 << w) | self.flush.map_or(0, |w| 1 << w);
        self.owns & !self.flushing & !pending
    }

    /// Warps that own a slot.
    pub fn owns(&self) -> u64 {
        self.owns
    }

    /// Sets this cycle's event inputs. `act`, `flush`: a warp to activate or flush if no such
    /// offer is under way and the protocol allows it; `release`: warps to release, of which
    /// only the settled ones are.
    pub fn next(&mut self, act: Option<u32>, flush: Option<u32>, release: u64, out: &MrfOut, inp: &mut MrfIn) {
        if let (Some(w), true) = (self.flush_sent, out.flush_ready) {
            self.flush_sent = None;
            self.flushing &= !(1 << w);
            self.owns &= !(1 << w);
        }
        let rel = release & self.settled();
        self.owns &= !rel;
        inp.rel_mask = rel;
        if let (None, Some(w)) = (self.flush, flush)
            && self.settled() >> w & 1 == 1
        {
            self.flush = Some(w);
        }
        inp.flush_valid = self.flush.is_some();
        inp.flush_warp = self.flush.unwrap_or(0);
        if let (Some(w), true) = (self.flush, out.flush_ready) {
            self.flush = None;
            self.flush_sent = Some(w);
            self.flushing |= 1 << w;
        }
        if let (None, Some(w)) = (self.act, act)
            && (self.owns | self.flushing | rel) >> w & 1 == 0
        {
            self.act = Some(w);
        }
        inp.act_valid = self.act.is_some();
        inp.act_warp = self.act.unwrap_or(0);
        if let (Some(w), true) = (self.act, out.act_ready) {
            self.act = None;
            self.owns |= 1 << w;
        }
    }
}
