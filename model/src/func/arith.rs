//! Lane semantics of the operations PTX brings (docs/ptx.md): f32 arithmetic with IEEE 754
//! results on the values' bits, conversions and the high half of products. The special
//! functions (`sin`, `cos`, `ex2`, `lg2`) return the correctly computed f32 value of the math
//! library where the hardware's approximations differ in the last bits.

use crate::kernel::{Cvt, Dop, FCmp, Op};

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// The result of one lane of a PTX-only operation with sources `x, y, z` and, for `AddX`, the
/// carry in.
#[inline]
pub fn lane(op: Op, x: u32, y: u32, z: u32, carry: bool) -> u32 {
    match op {
        Op::MulHi => ((i64::from(x as i32) * i64::from(y as i32)) >> 32) as u32,
        Op::MulHiU => ((u64::from(x) * u64::from(y)) >> 32) as u32,
        Op::AddCc => x.wrapping_add(y),
        Op::AddX => x.wrapping_add(y).wrapping_add(carry as u32),
        Op::FAdd => (f(x) + f(y)).to_bits(),
        Op::FSub => (f(x) - f(y)).to_bits(),
        Op::FMul => (f(x) * f(y)).to_bits(),
        Op::FFma => f(x).mul_add(f(y), f(z)).to_bits(),
        Op::FMin => f(x).min(f(y)).to_bits(),
        Op::FMax => f(x).max(f(y)).to_bits(),
        Op::FDiv => (f(x) / f(y)).to_bits(),
        Op::FSqrt => f(x).sqrt().to_bits(),
        Op::FRcp => (1.0 / f(x)).to_bits(),
        Op::Ex2 => f(x).exp2().to_bits(),
        Op::Lg2 => f(x).log2().to_bits(),
        Op::Sin => f(x).sin().to_bits(),
        Op::Cos => f(x).cos().to_bits(),
        Op::Bfe => bit_field(x, y, z),
        Op::Cvt(c) => match c {
            Cvt::F32FromS32 => (x as i32 as f32).to_bits(),
            Cvt::F32FromU32 => (x as f32).to_bits(),
            // Rust's float-to-integer casts truncate, saturate and map NaN to 0, as cvt.rzi does.
            Cvt::S32FromF32 => f(x) as i32 as u32,
            Cvt::U32FromF32 => f(x) as u32,
        },
        other => unreachable!("{other:?} is not a lane operation"),
    }
}

/// The result of one lane of a double-precision operation on its operand words (a double's low
/// word first): a double's bits, a 32-bit result in the low word, or a predicate as 0 or 1.
pub fn double(op: Dop, w: &[u32]) -> u64 {
    let word64 = |w: &[u32]| u64::from(w[0]) | u64::from(w[1]) << 32;
    let d = |i: usize| f64::from_bits(word64(&w[i..]));
    let bits = |v: f64| v.to_bits();
    match op {
        Dop::Add => bits(d(0) + d(2)),
        Dop::Sub => bits(d(0) - d(2)),
        Dop::Mul => bits(d(0) * d(2)),
        Dop::Fma => bits(d(0).mul_add(d(2), d(4))),
        Dop::Div => bits(d(0) / d(2)),
        Dop::Sqrt => bits(d(0).sqrt()),
        Dop::Rcp => bits(1.0 / d(0)),
        Dop::Min => bits(d(0).min(d(2))),
        Dop::Max => bits(d(0).max(d(2))),
        Dop::Setp(cmp) => u64::from(compare_with(cmp, d(0), d(2))),
        Dop::F64FromF32 => bits(f64::from(f(w[0]))),
        Dop::F64FromS32 => bits(f64::from(w[0] as i32)),
        Dop::F64FromU32 => bits(f64::from(w[0])),
        // Rust's casts round to nearest (to f32) and truncate, saturate and map NaN to 0 (to
        // integers), as cvt.rn and cvt.rzi do.
        Dop::F32FromF64 => u64::from((d(0) as f32).to_bits()),
        Dop::S32FromF64 => u64::from(d(0) as i32 as u32),
        Dop::U32FromF64 => u64::from(d(0) as u32),
        Dop::F64FromS64 => bits(word64(w) as i64 as f64),
        Dop::F64FromU64 => bits(word64(w) as f64),
        Dop::S64FromF64 => d(0) as i64 as u64,
        Dop::U64FromF64 => d(0) as u64,
    }
}

/// PTX's `bfe.u32`: `len` bits of `x` from bit `pos` (each taken from its operand's low byte),
/// bits past bit 31 and past `len` read as zero.
pub fn bit_field(x: u32, pos: u32, len: u32) -> u32 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    if pos >= 32 || len == 0 {
        return 0;
    }
    let shifted = x >> pos;
    if len >= 32 { shifted } else { shifted & ((1 << len) - 1) }
}

/// Whether `x CMP y` holds for f32 values.
pub fn compare(cmp: FCmp, x: u32, y: u32) -> bool {
    compare_with(cmp, f(x), f(y))
}

/// `compare` on f32 or f64 values: unordered when either is NaN.
fn compare_with<T: PartialOrd>(cmp: FCmp, x: T, y: T) -> bool {
    let unordered = x.partial_cmp(&y).is_none();
    match cmp {
        FCmp::Eq => x == y,
        FCmp::Ne => !unordered && x != y,
        FCmp::Lt => x < y,
        FCmp::Le => x <= y,
        FCmp::Gt => x > y,
        FCmp::Ge => x >= y,
        FCmp::Equ => unordered || x == y,
        FCmp::Neu => x != y,
        FCmp::Ltu => unordered || x < y,
        FCmp::Leu => unordered || x <= y,
        FCmp::Gtu => unordered || x > y,
        FCmp::Geu => unordered || x >= y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_halves_of_products_are_signed_or_unsigned() {
        assert_eq!(lane(Op::MulHiU, 0xffff_ffff, 2, 0, false), 1);
        assert_eq!(lane(Op::MulHi, (-1i32) as u32, 2, 0, false), u32::MAX);
    }

    #[test]
    fn carry_chains_make_a_64_bit_add() {
        let (a, b) = (0x1_ffff_fff0u64, 0x0_0000_0020u64);
        let lo = lane(Op::AddCc, a as u32, b as u32, 0, false);
        let carry = lo < a as u32;
        let hi = lane(Op::AddX, (a >> 32) as u32, (b >> 32) as u32, 0, carry);
        assert_eq!(u64::from(hi) << 32 | u64::from(lo), a + b);
    }

    #[test]
    fn bit_fields_past_bit_31_or_of_length_zero_read_zero() {
        assert_eq!(lane(Op::Bfe, 0xa1b2_c3d4, 8, 8, false), 0xc3);
        assert_eq!(bit_field(0xa1b2_c3d4, 28, 8), 0xa);
        assert_eq!(bit_field(0xa1b2_c3d4, 0, 40), 0xa1b2_c3d4);
        assert_eq!(bit_field(0xa1b2_c3d4, 32, 8), 0);
        assert_eq!(bit_field(0xa1b2_c3d4, 4, 0x100), 0, "only the low byte of len counts");
    }

    #[test]
    fn doubles_are_ieee_on_their_words_low_first() {
        let w = |v: f64| [v.to_bits() as u32, (v.to_bits() >> 32) as u32];
        let words = |vs: &[f64]| vs.iter().flat_map(|&v| w(v)).collect::<Vec<u32>>();
        let (a, b, c) = (0.1f64, 10.0f64, -1.0f64);
        assert_eq!(double(Dop::Fma, &words(&[a, b, c])), a.mul_add(b, c).to_bits());
        assert_ne!(a.mul_add(b, c), a * b + c, "the fma is fused, rounded once");
        assert_eq!(double(Dop::Div, &words(&[1.0, 3.0])), (1.0f64 / 3.0).to_bits());
        assert_eq!(double(Dop::Setp(FCmp::Ltu), &words(&[f64::NAN, 1.0])), 1);
        assert_eq!(double(Dop::Setp(FCmp::Lt), &words(&[f64::NAN, 1.0])), 0);
        assert_eq!(double(Dop::F64FromS32, &[(-3i32) as u32]), (-3.0f64).to_bits());
        assert_eq!(double(Dop::F32FromF64, &words(&[1.0 + 1e-12])), u64::from(1.0f32.to_bits()));
        assert_eq!(double(Dop::S32FromF64, &words(&[-1e20])), u64::from(i32::MIN as u32), "saturates");
        assert_eq!(double(Dop::U32FromF64, &words(&[f64::NAN])), 0);
        let i = -(1i64 << 40) - 3;
        assert_eq!(double(Dop::F64FromS64, &[i as u32, (i >> 32) as u32]), (i as f64).to_bits());
        assert_eq!(double(Dop::S64FromF64, &words(&[-2.0e12 - 0.75])), (-2_000_000_000_000i64) as u64);
        assert_eq!(double(Dop::U64FromF64, &words(&[-1.0])), 0, "saturates at 0");
    }

    #[test]
    fn float_results_are_ieee() {
        let b = |v: f32| v.to_bits();
        assert_eq!(lane(Op::FFma, b(0.1), b(10.0), b(-1.0), false), b(0.1f32.mul_add(10.0, -1.0)));
        assert_eq!(lane(Op::FDiv, b(1.0), b(3.0), 0, false), b(1.0 / 3.0));
        assert_eq!(lane(Op::Cvt(Cvt::S32FromF32), b(-2.7), 0, 0, false), (-2i32) as u32);
        assert_eq!(lane(Op::Cvt(Cvt::U32FromF32), b(f32::NAN), 0, 0, false), 0);
        assert!(compare(FCmp::Neu, b(f32::NAN), b(1.0)) && !compare(FCmp::Ne, b(f32::NAN), b(1.0)));
    }
}
