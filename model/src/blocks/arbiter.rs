//! Round-robin arbiter, the model of the generated `rr_arbiter_<n>` module and of its
//! `_last_grant` form, which keeps the pointer as the requester just below it.

/// Priority starts at `ptr`: the lowest request at or above it wins, else the lowest request.
/// A taken grant moves `ptr` just past the winner; a grant that is not taken sets `ptr` to the
/// winner, so the same requester is offered again next cycle.
#[derive(Clone, Debug)]
pub struct RoundRobin {
    n: u32,
    ptr: u32,
}

impl RoundRobin {
    pub fn new(n: u32) -> Self {
        assert!((1..=64).contains(&n));
        RoundRobin { n, ptr: 0 }
    }

    pub fn reset(&mut self) {
        self.ptr = 0;
    }

    /// Winner among `req` (bit i = requester i), if any.
    pub fn pick(&self, req: u64) -> Option<u32> {
        if req == 0 {
            return None;
        }
        let upper = req & !((1u64 << self.ptr) - 1);
        Some(if upper != 0 { upper.trailing_zeros() } else { req.trailing_zeros() })
    }

    /// Commits a cycle in which `winner` was granted and `taken` says whether it was accepted.
    pub fn update(&mut self, winner: Option<u32>, taken: bool) {
        if let Some(w) = winner {
            self.ptr = if !taken {
                w
            } else if w + 1 == self.n {
                0
            } else {
                w + 1
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotates_past_the_winner_and_holds_untaken_grants() {
        let mut a = RoundRobin::new(4);
        assert_eq!(a.pick(0b1010), Some(1));
        a.update(Some(1), true);
        assert_eq!(a.pick(0b1010), Some(3));
        a.update(Some(3), true);
        assert_eq!(a.pick(0b1010), Some(1), "wraps to the lowest request");
        a.update(Some(1), false);
        assert_eq!(a.pick(0b1011), Some(1), "an untaken grant is offered again");
        assert_eq!(a.pick(0), None);
    }
}
