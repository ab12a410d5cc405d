//! Kernel IR: a small textual SIMT assembly (`docs/kernel-ir.md`), its parser, control-flow
//! analysis, the compiler annotation passes, the kernel library and the synthetic generator.

pub mod alloc;
pub mod cfg;
pub mod library;
pub mod parse;
pub mod passes;
pub mod synthetic;

pub use parse::{ParseError, parse};

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
            Popc | Clz | Isqrt | Rcp => Unit::Sfu,
            LdGlobal | StGlobal => Unit::Global,
            LdShared | StShared => Unit::Shared,
            LdTex => Unit::Texture,
            Bra | Exit | Bar => Unit::Control,
            _ => Unit::Alu,
        }
    }

    /// Results come back after a long, unpredictable latency (SPEC §1: global loads, texture).
    pub fn is_long_latency(self) -> bool {
        matches!(self, Op::LdGlobal | Op::LdTex)
    }
}

/// Special registers, read like immediates (not from the MRF).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// Thread index within the block.
    Tid,
    /// Threads per block.
    Ntid,
    /// Block index.
    Ctaid,
    /// Blocks in the grid.
    Nctaid,
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

/// One static instruction. Memory operands address `srcs[0] + offset` (bytes); stores write
/// `srcs[1]`; `selp` selects by `psrc`; `setp` writes `pdst`.
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

/// A parsed kernel with its static analyses.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    pub blocks: u32,
    pub threads: u32,
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
}
