//! Where random stimulus aims: a few warps and registers at a time, so that instructions collide
//! (conflicts, stalls, releases), and a window that moves every [`MOVE`] cycles, so that a run
//! reaches every warp and register the block holds and every bit of its one-hot decodes. A fixed
//! window (the first four warps and eight registers) left most of those bits untested: mutation
//! campaigns on the scoreboard and the issue stage showed it (docs/mutate.md).

use rand::Rng;

const WARPS: u32 = 4;
const REGISTERS: u32 = 8;
/// Cycles the window stays in place; the first window is the lowest warps and registers.
pub const MOVE: u32 = 200;

#[derive(Clone, Debug)]
pub struct Window {
    warps: u32,
    registers: u32,
    warp_base: u32,
    register_base: u32,
    left: u32,
}

impl Window {
    pub fn new(warps: u32, registers: u32) -> Window {
        Window { warps, registers, warp_base: 0, register_base: 0, left: MOVE }
    }

    /// Once per cycle: after [`MOVE`] cycles in place, the window moves to a random place.
    pub fn step(&mut self, rng: &mut impl Rng) {
        self.left -= 1;
        if self.left == 0 {
            self.left = MOVE;
            self.warp_base = place(rng, self.warps, WARPS);
            self.register_base = place(rng, self.registers, REGISTERS);
        }
    }

    pub fn warp(&self, rng: &mut impl Rng) -> u32 {
        self.warp_base + rng.random_range(0..self.warps.min(WARPS))
    }

    pub fn register(&self, rng: &mut impl Rng) -> u32 {
        self.register_base + rng.random_range(0..self.registers.min(REGISTERS))
    }
}

/// A window of `width` of `total` at a random one of the aligned places (the last one flush with
/// the end), so that the first and last warps and registers are reached as often as the others.
fn place(rng: &mut impl Rng, total: u32, width: u32) -> u32 {
    let width = total.min(width);
    (rng.random_range(0..total.div_ceil(width)) * width).min(total - width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_run_reaches_every_warp_and_register_a_few_at_a_time() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        let mut w = Window::new(32, 64);
        let (mut warps, mut registers) = (0u64, 0u64);
        for cycle in 0..20_000 {
            let (a, r) = (w.warp(&mut rng), w.register(&mut rng));
            assert!(a < 32 && r < 64);
            if cycle < MOVE {
                assert!(a < WARPS && r < REGISTERS, "the first window is the lowest warps and registers");
            }
            (warps, registers) = (warps | 1 << a, registers | 1 << r);
            w.step(&mut rng);
        }
        assert_eq!((warps, registers), (u32::MAX as u64, u64::MAX));
        // Fewer warps and registers than a window: every one, always.
        let mut small = Window::new(2, 3);
        for _ in 0..1_000 {
            assert!(small.warp(&mut rng) < 2 && small.register(&mut rng) < 3);
            small.step(&mut rng);
        }
    }
}
