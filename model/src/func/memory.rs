//! Global memory: 32-bit words at byte addresses, stored in 4 KiB pages created on first write.
//! A word never written holds [`default_word`] of its address.

use std::collections::HashMap;

const PAGE_WORDS: usize = 1024;

/// Initial value of the word at byte address `addr`: the murmur3 32-bit finalizer of the word
/// index, so unwritten memory looks random but is reproducible.
pub fn default_word(addr: u32) -> u32 {
    let mut h = addr >> 2;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

#[derive(Clone, Debug, Default)]
pub struct GlobalMemory {
    /// Page number → index in `pages`. Every load and store looks a page up here, so a fast
    /// fixed-seed hash rather than the default SipHash (no untrusted keys, same order each run).
    index: HashMap<u32, usize, foldhash::fast::FixedState>,
    pages: Vec<Box<[u32; PAGE_WORDS]>>,
}

impl GlobalMemory {
    fn page_of(addr: u32) -> (u32, usize) {
        (addr >> 12, (addr as usize >> 2) & (PAGE_WORDS - 1))
    }

    /// Reads the aligned word at `addr`.
    pub fn read(&self, addr: u32) -> u32 {
        let (page, word) = Self::page_of(addr);
        match self.index.get(&page) {
            Some(&i) => self.pages[i][word],
            None => default_word(addr),
        }
    }

    /// Writes the aligned word at `addr`.
    pub fn write(&mut self, addr: u32, value: u32) {
        let (page, word) = Self::page_of(addr);
        let i = match self.index.get(&page) {
            Some(&i) => i,
            None => {
                let base = page << 12;
                let fresh: Box<[u32; PAGE_WORDS]> =
                    Box::new(std::array::from_fn(|w| default_word(base + 4 * w as u32)));
                self.pages.push(fresh);
                self.index.insert(page, self.pages.len() - 1);
                self.pages.len() - 1
            }
        };
        self.pages[i][word] = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwritten_words_hold_the_default_and_writes_stick() {
        let mut m = GlobalMemory::default();
        assert_eq!(m.read(0x1000), default_word(0x1000));
        m.write(0x1004, 7);
        assert_eq!((m.read(0x1000), m.read(0x1004)), (default_word(0x1000), 7));
        assert_ne!(default_word(0), default_word(4));
    }
}
