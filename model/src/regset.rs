//! Registers r0..r255 as a bit set: the compiler passes' liveness sets and the scoreboard's
//! pending sets.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegSet(pub [u64; 4]);

impl RegSet {
    pub fn insert(&mut self, r: u32) {
        self.0[r as usize >> 6] |= 1 << (r & 63);
    }
    pub fn remove(&mut self, r: u32) {
        self.0[r as usize >> 6] &= !(1 << (r & 63));
    }
    pub fn contains(&self, r: u32) -> bool {
        self.0[r as usize >> 6] >> (r & 63) & 1 == 1
    }
    pub fn meets(&self, o: &RegSet) -> bool {
        self.0.iter().zip(o.0).any(|(a, b)| a & b != 0)
    }
    pub fn union(&mut self, o: &RegSet) {
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a |= b;
        }
    }
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }
}
