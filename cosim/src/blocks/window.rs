//! Where random stimulus aims: a few warps and registers at a time, so that instructions collide
//! (conflicts, stalls, releases), and a window that moves every [`MOVE`] cycles, so that a run
//! reaches every warp and register the block holds and every bit of its one-hot decodes. A fixed
//! window (the first four warps and eight registers) left most of those bits untested: mutation
//! campaigns on the scoreboard and the issue stage showed it (docs/mutate.md). Each window is two
//! halves placed apart, so that two registers (or warps) far apart meet too: an edit that
//! crosses bit 7 with bit 14 of a decode escaped windows of eight aligned registers. Predicates
//! have a window of their own: an edit crossing predicate 4 with predicate 6 of a warp's check
//! escaped predicates drawn from all eight.

use rand::Rng;
use rfgen_gen::blocks::scoreboard::PREDICATES;

const WARPS: u32 = 4;
const REGISTERS: u32 = 8;
const PREDICATE_WINDOW: u32 = 4;
/// Cycles the window stays in place; the first window is the lowest warps and registers.
pub const MOVE: u32 = 200;

#[derive(Clone, Debug)]
pub struct Window {
    warps: Span,
    registers: Span,
    predicates: Span,
    left: u32,
}

impl Window {
    pub fn new(warps: u32, registers: u32) -> Window {
        Window {
            warps: Span::new(warps, WARPS),
            registers: Span::new(registers, REGISTERS),
            predicates: Span::new(PREDICATES, PREDICATE_WINDOW),
            left: MOVE,
        }
    }

    /// Once per cycle: after [`MOVE`] cycles in place, the window moves to a random place.
    pub fn step(&mut self, rng: &mut impl Rng) {
        self.left -= 1;
        if self.left == 0 {
            self.left = MOVE;
            self.warps.move_to(rng);
            self.registers.move_to(rng);
            // The predicates follow the registers' halves (no draw of their own, so the
            // stimuli that use no predicates see the same random stream as before they had a
            // window).
            self.predicates.bases = self.registers.bases.map(|b| {
                let place = b / self.registers.half.max(1);
                (place * self.predicates.half) % (PREDICATES - self.predicates.half + 1)
            });
        }
    }

    pub fn warp(&self, rng: &mut impl Rng) -> u32 {
        self.warps.pick(rng)
    }

    pub fn register(&self, rng: &mut impl Rng) -> u32 {
        self.registers.pick(rng)
    }

    pub fn predicate(&self, rng: &mut impl Rng) -> u32 {
        self.predicates.pick(rng)
    }
}

/// `width` of `total` numbers as two halves, each at one of the aligned places.
#[derive(Clone, Debug)]
struct Span {
    total: u32,
    half: u32,
    bases: [u32; 2],
}

impl Span {
    fn new(total: u32, width: u32) -> Span {
        let half = (width / 2).min(total.div_ceil(2));
        Span { total, half, bases: [0, half.min(total - half)] }
    }

    fn move_to(&mut self, rng: &mut impl Rng) {
        self.bases = [place(rng, self.total, self.half), place(rng, self.total, self.half)];
    }

    fn pick(&self, rng: &mut impl Rng) -> u32 {
        let i = rng.random_range(0..2 * self.half);
        self.bases[(i / self.half) as usize] + i % self.half
    }
}

/// A place for `width` of `total` at a random one of the aligned places (the last one flush with
/// the end), so that the first and last warps and registers are reached as often as the others.
fn place(rng: &mut impl Rng, total: u32, width: u32) -> u32 {
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
        let (mut warps, mut registers, mut predicates) = (0u64, 0u64, 0u64);
        for cycle in 0..20_000 {
            let (a, r, p) = (w.warp(&mut rng), w.register(&mut rng), w.predicate(&mut rng));
            assert!(a < 32 && r < 64 && p < PREDICATES);
            predicates |= 1 << p;
            if cycle < MOVE {
                assert!(a < WARPS && r < REGISTERS, "the first window is the lowest warps and registers");
            }
            (warps, registers) = (warps | 1 << a, registers | 1 << r);
            w.step(&mut rng);
        }
        assert_eq!((warps, registers, predicates), (u32::MAX as u64, u64::MAX, 0xff));
        // Fewer warps and registers than a window: every one, always.
        let mut small = Window::new(2, 3);
        for _ in 0..1_000 {
            assert!(small.warp(&mut rng) < 2 && small.register(&mut rng) < 3);
            small.step(&mut rng);
        }
    }

    #[test]
    fn registers_far_apart_meet_in_one_window() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        let mut w = Window::new(8, 32);
        // met[a] holds every register seen in a window together with register a.
        let (mut met, mut seen) = ([0u32; 32], 0u32);
        for cycle in 1..=50_000 {
            seen |= 1 << w.register(&mut rng);
            if cycle % MOVE == 0 {
                for a in (0..32).filter(|a| seen >> a & 1 == 1) {
                    met[a] |= seen;
                }
                seen = 0;
            }
            w.step(&mut rng);
        }
        for (a, m) in met.iter().enumerate() {
            assert_eq!(*m, u32::MAX, "register {a} never shares a window with some register: {m:#x}");
        }
    }
}
