//! Kernel IR: a small textual SIMT assembly (`docs/kernel-ir.md`), its parser, control-flow
//! analysis, the compiler annotation passes, the kernel library and the synthetic generator.

pub mod alloc;
pub mod cfg;
pub mod library;
pub mod parse;
pub mod passes;
pub mod ptx;
pub mod synthetic;

pub use parse::{ParseError, parse};
use std::sync::Arc;

/// A register id `r0..r255`.
pub type Reg = u8;

/// Comparison of `setp`; the `u` forms are unsigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Ltu,
    Leu,
    Gtu,
    Geu,
}

/// Comparison of a float `setp` (IEEE 754): the plain forms are false when either value is NaN,
/// the `u` forms ("unordered") true.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FCmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
}

/// A conversion between 32-bit integers and f32: to float rounding to nearest, to integer
/// rounding toward zero (saturating; NaN gives 0), as PTX's `cvt.rn` and `cvt.rzi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cvt {
    F32FromS32,
    F32FromU32,
    S32FromF32,
    U32FromF32,
}

/// A double-precision operation (PTX's `.f64`, docs/ptx.md), on IEEE 754 doubles rounding to
/// nearest; conversions to integers round toward zero (saturating; NaN gives 0), as `cvt.rzi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dop {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Sqrt,
    Rcp,
    Min,
    Max,
    Setp(FCmp),
    F64FromF32,
    F64FromS32,
    F64FromU32,
    F32FromF64,
    S32FromF64,
    U32FromF64,
    F64FromS64,
    F64FromU64,
    S64FromF64,
    U64FromF64,
}

/// What a double-precision operation produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DpResult {
    /// A double: its low word from `Dp`, its high word from the `DpHigh` after it.
    Double,
    /// A 32-bit value (a conversion).
    Word,
    /// A predicate (`setp`).
    Pred,
}

impl Dop {
    /// Operand words: two per double, one per 32-bit value.
    pub fn words(self) -> usize {
        match self {
            Dop::Fma => 6,
            Dop::Add | Dop::Sub | Dop::Mul | Dop::Div | Dop::Min | Dop::Max | Dop::Setp(_) => 4,
            Dop::Sqrt | Dop::Rcp | Dop::F32FromF64 | Dop::S32FromF64 | Dop::U32FromF64 => 2,
            Dop::F64FromS64 | Dop::F64FromU64 | Dop::S64FromF64 | Dop::U64FromF64 => 2,
            Dop::F64FromF32 | Dop::F64FromS32 | Dop::F64FromU32 => 1,
        }
    }

    /// Words `DpOperands` hands over ahead of the operation: the first three, when there are
    /// more than the operation's three source slots.
    pub fn held(self) -> usize {
        if self.words() > 3 { 3 } else { 0 }
    }

    /// Whether the sources are doubles or 64-bit integers (two words each); else one 32-bit
    /// value (the conversions to f64 from 32 bits).
    pub fn wide_sources(self) -> bool {
        self.words() > 1
    }

    pub fn result(self) -> DpResult {
        match self {
            Dop::Setp(_) => DpResult::Pred,
            Dop::F32FromF64 | Dop::S32FromF64 | Dop::U32FromF64 => DpResult::Word,
            _ => DpResult::Double,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Dop::Add => "add.f64",
            Dop::Sub => "sub.f64",
            Dop::Mul => "mul.f64",
            Dop::Fma => "fma.f64",
            Dop::Div => "div.f64",
            Dop::Sqrt => "sqrt.f64",
            Dop::Rcp => "rcp.f64",
            Dop::Min => "min.f64",
            Dop::Max => "max.f64",
            Dop::Setp(_) => "setp.f64",
            Dop::F64FromF32 => "cvt.f64.f32",
            Dop::F64FromS32 => "cvt.f64.s32",
            Dop::F64FromU32 => "cvt.f64.u32",
            Dop::F32FromF64 => "cvt.f32.f64",
            Dop::S32FromF64 => "cvt.rzi.s32.f64",
            Dop::U32FromF64 => "cvt.rzi.u32.f64",
            Dop::F64FromS64 => "cvt.f64.s64",
            Dop::F64FromU64 => "cvt.f64.u64",
            Dop::S64FromF64 => "cvt.rzi.s64.f64",
            Dop::U64FromF64 => "cvt.rzi.u64.f64",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Mad,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Sra,
    Min,
    Max,
    Mov,
    Selp,
    Setp(Cmp),
    Popc,
    Clz,
    Isqrt,
    Rcp,
    LdGlobal,
    StGlobal,
    LdShared,
    StShared,
    LdTex,
    Bra,
    Exit,
    Bar,
    // Reached only from PTX (docs/ptx.md); kernel files have no syntax for them.
    /// High 32 bits of the 64-bit product, signed and unsigned.
    MulHi,
    MulHiU,
    /// `d = a + b` and the carry out into `pdst`; `AddX` adds the carry in `psrc`: together a
    /// 64-bit add over register pairs.
    AddCc,
    AddX,
    FAdd,
    FSub,
    FMul,
    FFma,
    FMin,
    FMax,
    FSetp(FCmp),
    Cvt(Cvt),
    FDiv,
    FSqrt,
    FRcp,
    Ex2,
    Lg2,
    Sin,
    Cos,
    /// Atomic add to global memory (u32, f32); `d` gets the old value.
    AtomAdd,
    AtomAddF,
    /// Atomic add to shared memory (u32); `d` gets the old value.
    AtomAddShared,
    /// Unsigned bit-field extract: `len` (c) bits of `a` from bit `pos` (b), zero-filled.
    Bfe,
    /// Double precision (docs/ptx.md). The datapath and the operand collectors are 32 bits
    /// wide and a double is a register pair, so an operation on doubles collects its operand
    /// words in passes of up to three: `DpOperands` hands the first three to the lane's
    /// double-precision unit, `Dp` brings the rest as its sources, computes, and writes the low
    /// word (or its 32-bit result, or `pdst`); `DpHigh` writes the high word the unit kept.
    DpOperands,
    Dp(Dop),
    DpHigh,
}

/// Where an instruction executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unit {
    Alu,
    Sfu,
    Shared,
    Global,
    Texture,
    /// Branches, exit and barriers complete at issue.
    Control,
}

impl Op {
    pub fn unit(self) -> Unit {
        use Op::*;
        match self {
            Popc | Clz | Isqrt | Rcp | FDiv | FSqrt | FRcp | Ex2 | Lg2 | Sin | Cos => Unit::Sfu,
            Dp(Dop::Div | Dop::Sqrt | Dop::Rcp) => Unit::Sfu,
            LdGlobal | StGlobal | AtomAdd | AtomAddF => Unit::Global,
            LdShared | StShared | AtomAddShared => Unit::Shared,
            LdTex => Unit::Texture,
            Bra | Exit | Bar => Unit::Control,
            _ => Unit::Alu,
        }
    }

    /// Results come back after a long, unpredictable latency (SPEC §1: global loads, texture).
    pub fn is_long_latency(self) -> bool {
        matches!(self, Op::LdGlobal | Op::LdTex | Op::AtomAdd | Op::AtomAddF)
    }

    /// The name of an operation only PTX reaches, for listings (`rfgen sim --show-allocation`).
    pub fn ptx_only_name(self) -> Option<&'static str> {
        use Op::*;
        Some(match self {
            MulHi => "mul.hi.s32",
            MulHiU => "mul.hi.u32",
            AddCc => "add.cc.u32",
            AddX => "addc.u32",
            FAdd => "add.f32",
            FSub => "sub.f32",
            FMul => "mul.f32",
            FFma => "fma.f32",
            FMin => "min.f32",
            FMax => "max.f32",
            FSetp(_) => "setp.f32",
            Cvt(_) => "cvt",
            FDiv => "div.f32",
            FSqrt => "sqrt.f32",
            FRcp => "rcp.f32",
            Ex2 => "ex2.f32",
            Lg2 => "lg2.f32",
            Sin => "sin.f32",
            Cos => "cos.f32",
            AtomAdd => "atom.add.u32",
            AtomAddF => "atom.add.f32",
            AtomAddShared => "atom.shared.add.u32",
            Bfe => "bfe.u32",
            DpOperands => "dp.operands",
            Dp(d) => d.name(),
            DpHigh => "dp.high",
            _ => return None,
        })
    }
}

/// Special registers, read like immediates (not from the MRF).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// Thread index within the block.
    Tid,
    /// Threads per block.
    Ntid,
    /// Block index (`ctaid.y × nctaid.x + ctaid.x`).
    Ctaid,
    /// Blocks in the grid.
    Nctaid,
    /// Block index along x and y, and blocks along x and y, of a two-dimensional grid.
    CtaidX,
    CtaidY,
    NctaidX,
    NctaidY,
    /// Lane within the warp.
    Lane,
    /// Warp index within the block.
    Warp,
    /// Global thread index: `ctaid * ntid + tid`.
    Gtid,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    None,
    Reg(Reg),
    Imm(u32),
    Special(Special),
}

/// `@p` or `@!p`: the instruction acts on the lanes where the predicate is true (or false).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub pred: u8,
    pub negate: bool,
}

/// One static instruction. Memory operands address `srcs[0] + offset` (bytes); a register in
/// `srcs[2]` is the high word of a 64-bit address (PTX), which must be zero; stores and atomics
/// write `srcs[1]`; `selp` selects by `psrc`; `setp` writes `pdst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instr {
    pub op: Op,
    pub guard: Option<Guard>,
    pub dst: Option<Reg>,
    pub pdst: Option<u8>,
    pub srcs: [Src; 3],
    pub psrc: Option<u8>,
    pub offset: i32,
    /// Branch target (instruction index).
    pub target: u32,
}

impl Instr {
    /// Source registers in slot order (what the operand collector reads).
    pub fn src_regs(&self) -> impl Iterator<Item = (usize, Reg)> + '_ {
        self.srcs.iter().enumerate().filter_map(|(i, s)| if let Src::Reg(r) = s { Some((i, *r)) } else { None })
    }
}

/// Initial contents of global memory: 32-bit words from a byte address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataInit {
    pub addr: u32,
    pub words: Vec<u32>,
}

/// Source position of an instruction (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// A constant derived from the threads per block (`%ntid` in a `.const`), evaluated when the
/// kernel is launched. Constants built from others share them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Num(u32),
    Ntid,
    Bin(BinOp, Arc<Expr>, Arc<Expr>),
}

/// The most numbers, constants and `%ntid`s a derived constant combines (through the constants
/// it is built from), so evaluating one stays cheap.
pub const MAX_DERIVED_VALUES: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl Expr {
    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Arc::new(a), Arc::new(b))
    }

    /// Numbers, constants and `%ntid`s combined, counted up to `MAX_DERIVED_VALUES + 1`.
    pub fn values(&self) -> usize {
        match self {
            Expr::Num(_) | Expr::Ntid => 1,
            Expr::Bin(_, a, b) => (a.values() + b.values()).min(MAX_DERIVED_VALUES + 1),
        }
    }

    /// Whether the value depends on the threads per block.
    pub fn derived(&self) -> bool {
        match self {
            Expr::Num(_) => false,
            Expr::Ntid => true,
            Expr::Bin(_, a, b) => a.derived() || b.derived(),
        }
    }

    /// The value at `ntid` threads per block, in the instructions' wrapping 32-bit arithmetic
    /// (`/` unsigned, rounding down); `None` on a division by zero.
    pub fn eval(&self, ntid: u32) -> Option<u32> {
        Some(match self {
            Expr::Num(v) => *v,
            Expr::Ntid => ntid,
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(ntid)?, b.eval(ntid)?);
                match op {
                    BinOp::Add => a.wrapping_add(b),
                    BinOp::Sub => a.wrapping_sub(b),
                    BinOp::Mul => a.wrapping_mul(b),
                    BinOp::Div => a.checked_div(b)?,
                }
            }
        })
    }
}

/// Where an instruction holds a value derived from the threads per block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// Source `srcs[i]` (an immediate, or a memory operand's constant base).
    Src(usize),
    /// A memory operand's offset.
    Offset,
}

/// The values of a kernel that depend on its threads per block, so a launch with another block
/// size can recompute them ([`Kernel::with_threads`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Derived {
    /// Blocks along x, when `.grid` gives them by a derived constant.
    pub blocks_x: Option<Expr>,
    /// Instruction, operand, value.
    pub operands: Vec<(usize, Operand, Expr)>,
}

/// A parsed kernel with its static analyses.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    /// Blocks in the grid: `blocks / blocks_y` along x, `blocks_y` along y.
    pub blocks: u32,
    pub blocks_y: u32,
    pub threads: u32,
    /// The fewest threads per block the kernel is written for (`.min_threads`, else 1).
    pub min_threads: u32,
    pub derived: Derived,
    pub shared_bytes: u32,
    pub data: Vec<DataInit>,
    pub code: Vec<Instr>,
    pub pos: Vec<Pos>,
    /// Registers used: the highest register id plus one.
    pub regs: u32,
    /// Per instruction: reconvergence point of a branch (immediate post-dominator), or
    /// `cfg::NO_RECONVERGENCE` when the paths only meet at exit.
    pub reconverge: Vec<u32>,
    /// Compiler annotations, per instruction.
    pub notes: Vec<passes::Notes>,
}

impl Kernel {
    pub fn warps_per_block(&self, lanes: u32) -> u32 {
        self.threads.div_ceil(lanes)
    }

    pub fn blocks_x(&self) -> u32 {
        self.blocks / self.blocks_y.max(1)
    }

    /// This kernel launched with blocks of `threads` (the launch rule of docs/kernel-ir.md):
    /// the blocks along x from `.grid`'s derived constant at that size, else scaled so the grid
    /// keeps its total threads; every constant derived from `%ntid` evaluated at that size. `Err`
    /// says why the kernel cannot launch so.
    pub fn with_threads(&self, threads: u32) -> Result<Kernel, String> {
        if threads < self.min_threads.max(1) {
            return Err(format!("it needs at least {} threads per block (.min_threads)", self.min_threads));
        }
        let at = |e: &Expr, what: &str| {
            e.eval(threads).ok_or_else(|| format!("{what} divides by zero at %ntid = {threads}"))
        };
        let blocks_x = match &self.derived.blocks_x {
            Some(e) => at(e, "the grid's block count")?,
            None => {
                let total = u64::from(self.blocks_x()) * u64::from(self.threads);
                if total % u64::from(threads) != 0 {
                    return Err(format!("{total} threads along x do not split into blocks of {threads}"));
                }
                u32::try_from(total / u64::from(threads)).unwrap_or(u32::MAX)
            }
        };
        let total = u64::from(blocks_x) * u64::from(self.blocks_y) * u64::from(threads);
        let most = u64::from(parse::MAX_BLOCKS) * u64::from(parse::MAX_THREADS);
        if blocks_x == 0 || total > most {
            return Err(format!(
                "the grid would have {blocks_x} blocks along x of {threads} threads (allowed: 1 or more, at most {most} threads in all)"
            ));
        }
        let mut k = self.clone();
        (k.blocks, k.threads) = (blocks_x * self.blocks_y, threads);
        for (i, operand, e) in &self.derived.operands {
            let v = at(e, &format!("the operand on line {}", self.pos[*i].line))?;
            match operand {
                Operand::Src(s) => k.code[*i].srcs[*s] = Src::Imm(v),
                Operand::Offset => k.code[*i].offset = v as i32,
            }
        }
        Ok(k)
    }
}
