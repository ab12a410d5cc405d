//! Lowering of a parsed PTX entry to the model's instruction stream over virtual registers
//! (docs/ptx.md). A 64-bit value is a virtual register of two halves, and 64-bit arithmetic
//! becomes 32-bit instructions on the halves, as the SM's datapath is 32 bits wide: an add is
//! an add writing a carry predicate and an add consuming it, `mul.wide` a low and a high
//! product. Parameters are known at launch, so `ld.param` becomes moves of immediates.

use super::PtxError;
use super::parse::{ConstVar, Entry, Instruction, Operand, SharedVar, Statement};
use crate::kernel::{Cmp, Cvt, DataInit, Dop, DpResult, FCmp, Op, Special};
use std::collections::HashMap;

/// A virtual register: an index into [`Lowered::classes`].
pub type VReg = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    W32,
    /// 64 bits: an aligned pair of architectural registers.
    W64,
    Pred,
}

/// A virtual register's half (0 low, 1 high; always 0 for 32-bit registers).
pub type Half = (VReg, u8);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VSrc {
    None,
    Reg(Half),
    Imm(u32),
    Special(Special),
}

/// One instruction of the model ([`crate::kernel::Instr`]) over virtual registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VInstr {
    pub op: Op,
    pub guard: Option<(VReg, bool)>,
    pub dst: Option<Half>,
    pub pdst: Option<VReg>,
    pub srcs: [VSrc; 3],
    pub psrc: Option<VReg>,
    pub offset: i32,
    pub target: u32,
    /// The PTX line it comes from.
    pub line: u32,
}

#[derive(Clone, Debug)]
pub struct Lowered {
    pub code: Vec<VInstr>,
    pub classes: Vec<Class>,
    /// The PTX name of every virtual register (temporaries are named after their purpose).
    pub names: Vec<String>,
    pub shared_bytes: u32,
    /// Bytes of each thread's `.local` window (a power of two; 0 without `.local` variables).
    pub local_window: u32,
}

/// A parameter's value at launch: pointers and integers as their bits, f32 as its bits, a struct
/// passed by value as the address of its bytes.
pub use super::launch::Arg as ParamValue;

/// Largest shared memory of a block (as kernel files, docs/kernel-ir.md).
const MAX_SHARED_BYTES: u32 = crate::kernel::parse::MAX_SHARED_BYTES;

struct Lowerer<'a> {
    families: HashMap<&'a str, (&'a str, u32)>,
    singles: HashMap<&'a str, &'a str>,
    vregs: HashMap<String, VReg>,
    classes: Vec<Class>,
    names: Vec<String>,
    shared: HashMap<&'a str, u32>,
    /// The register holding each `.local` variable's address in the thread's window.
    local: HashMap<&'a str, VReg>,
    consts: &'a HashMap<String, u32>,
    params: HashMap<&'a str, (usize, &'a str)>,
    values: &'a [ParamValue],
    code: Vec<VInstr>,
    line: u32,
    guard: Option<(VReg, bool)>,
}

fn fail<T>(line: u32, message: impl Into<String>) -> Result<T, PtxError> {
    Err(PtxError { line, message: message.into() })
}

/// Lays out the shared variables from offset 0, each at its alignment.
pub fn shared_layout(vars: &[&SharedVar]) -> Result<(HashMap<String, u32>, u32), PtxError> {
    layout(vars, "shared", MAX_SHARED_BYTES)
}

/// Lays out the `space` variables from offset 0, each at its alignment, within `max` bytes.
fn layout(vars: &[&SharedVar], space: &str, max: u32) -> Result<(HashMap<String, u32>, u32), PtxError> {
    let mut at = 0u64;
    let mut offsets = HashMap::new();
    for v in vars {
        at = at.next_multiple_of(u64::from(v.align));
        if offsets.insert(v.name.clone(), at as u32).is_some() {
            return fail(v.line, format!("{space} variable `{}` is declared twice", v.name));
        }
        at += u64::from(v.bytes);
        if at > u64::from(max) {
            return fail(v.line, format!("{space} memory exceeds {max} bytes at `{}`", v.name));
        }
    }
    Ok((offsets, at.next_multiple_of(4) as u32))
}

/// Global address of the threads' `.local` windows (docs/ptx.md): thread `t` (its index in the
/// grid) has the `local_window` bytes from `LOCAL_WINDOWS + t * local_window`, below the spill
/// slots (`spill::LOCAL_BASE`) and above the launch's buffers.
pub const LOCAL_WINDOWS: u32 = 0x4000_0000;

/// Bytes of all the threads' `.local` windows together.
pub const LOCAL_WINDOWS_BYTES: u64 = 1 << 30;

/// Largest `.local` memory of a thread.
const MAX_LOCAL_BYTES: u32 = 1 << 16;

/// Global address of the module's constant data: the 64 KiB below the launch's buffers
/// (docs/ptx.md). The model serves `ld.const` from global memory, as the constant bank lives
/// there on a GPU (its constant cache is not modelled).
pub const CONST_BASE: u32 = super::launch::BUFFER_BASE - super::parse::MAX_CONST_BYTES;

/// Lays out the `.const` variables from [`CONST_BASE`] in declaration order, each at its
/// alignment: their addresses and the words global memory starts with.
pub fn const_layout(vars: &[ConstVar]) -> Result<(HashMap<String, u32>, Vec<DataInit>), PtxError> {
    let mut bytes: Vec<u8> = Vec::new();
    let mut addresses = HashMap::new();
    for v in vars {
        let at = bytes.len().next_multiple_of(v.align as usize);
        if at + v.bytes.len() > super::parse::MAX_CONST_BYTES as usize {
            let most = super::parse::MAX_CONST_BYTES;
            return fail(v.line, format!("constant data exceeds {most} bytes at `{}`", v.name));
        }
        if addresses.insert(v.name.clone(), CONST_BASE + at as u32).is_some() {
            return fail(v.line, format!("constant variable `{}` is declared twice", v.name));
        }
        bytes.resize(at, 0);
        bytes.extend_from_slice(&v.bytes);
    }
    bytes.resize(bytes.len().next_multiple_of(4), 0);
    let words: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let data = if words.is_empty() { Vec::new() } else { vec![DataInit { addr: CONST_BASE, words }] };
    Ok((addresses, data))
}

/// Lowers `entry` with `values[i]` for parameter `i` (checked against the parameters' types by
/// the launch file), the module's shared variables and the addresses of its constant data.
pub fn lower(
    entry: &Entry,
    module_shared: &[SharedVar],
    consts: &HashMap<String, u32>,
    values: &[ParamValue],
) -> Result<Lowered, PtxError> {
    let vars: Vec<&SharedVar> = module_shared.iter().chain(&entry.shared).collect();
    let (offsets, shared_bytes) = shared_layout(&vars)?;
    let mut l = Lowerer {
        families: HashMap::new(),
        singles: HashMap::new(),
        vregs: HashMap::new(),
        classes: Vec::new(),
        names: Vec::new(),
        shared: vars.iter().map(|v| (v.name.as_str(), offsets[&v.name])).collect(),
        local: HashMap::new(),
        consts,
        params: entry.params.iter().enumerate().map(|(i, p)| (p.name.as_str(), (i, p.ty.as_str()))).collect(),
        values,
        code: Vec::new(),
        line: entry.line,
        guard: None,
    };
    for d in &entry.regs {
        let fresh = match d.count {
            Some(n) => l.families.insert(&d.name, (&d.ty, n)).is_none(),
            None => l.singles.insert(&d.name, &d.ty).is_none(),
        };
        if !fresh {
            return fail(d.line, format!("register `{}` is declared twice", d.name));
        }
    }
    let local_window = l.local_addresses(&entry.local)?;
    let mut labels: HashMap<&str, u32> = HashMap::new();
    let mut branches = Vec::new();
    for s in &entry.body {
        match s {
            Statement::Label(name, line) => {
                if labels.insert(name, l.code.len() as u32).is_some() {
                    return fail(*line, format!("label `{name}` is defined twice"));
                }
            }
            Statement::Param(_) | Statement::Call(_) => {
                return fail(s.line(), "a call left after inlining (calls are inlined before lowering)");
            }
            Statement::Instruction(ins) => {
                l.line = ins.line;
                l.guard = ins.guard.as_ref().map(|(p, negate)| l.pred(p).map(|v| (v, *negate))).transpose()?;
                if let Some(label) = l.instruction(ins)? {
                    branches.push((l.code.len() - 1, label, ins.line));
                }
            }
        }
    }
    for (at, label, line) in branches {
        let Some(&target) = labels.get(label.as_str()) else {
            return fail(line, format!("branch to undefined label `{label}`"));
        };
        if target as usize == l.code.len() {
            return fail(
                line,
                format!("branch to `{label}`, which follows the last instruction: end the kernel with `ret`"),
            );
        }
        l.code[at].target = target;
    }
    match l.code.last() {
        Some(last) if last.guard.is_none() && matches!(last.op, Op::Exit | Op::Bra) => {}
        _ => return fail(entry.line, format!("`{}` can run past its last instruction: end it with `ret`", entry.name)),
    }
    Ok(Lowered { code: l.code, classes: l.classes, names: l.names, shared_bytes, local_window })
}

fn special(name: &str) -> Option<VSrc> {
    Some(match name {
        "%tid.x" => VSrc::Special(Special::Tid),
        "%ntid.x" => VSrc::Special(Special::Ntid),
        "%ctaid.x" => VSrc::Special(Special::CtaidX),
        "%ctaid.y" => VSrc::Special(Special::CtaidY),
        "%nctaid.x" => VSrc::Special(Special::NctaidX),
        "%nctaid.y" => VSrc::Special(Special::NctaidY),
        "%laneid" => VSrc::Special(Special::Lane),
        "%warpid" => VSrc::Special(Special::Warp),
        // Blocks are one-dimensional and grids at most two-dimensional.
        "%tid.y" | "%tid.z" | "%ctaid.z" => VSrc::Imm(0),
        "%ntid.y" | "%ntid.z" | "%nctaid.z" => VSrc::Imm(1),
        _ => return None,
    })
}

fn int_cmp(cmp: &str, signed: bool) -> Option<Cmp> {
    Some(match (cmp, signed) {
        ("eq", _) => Cmp::Eq,
        ("ne", _) => Cmp::Ne,
        ("lt", true) => Cmp::Lt,
        ("le", true) => Cmp::Le,
        ("gt", true) => Cmp::Gt,
        ("ge", true) => Cmp::Ge,
        ("lt" | "lo", false) => Cmp::Ltu,
        ("le" | "ls", false) => Cmp::Leu,
        ("gt" | "hi", false) => Cmp::Gtu,
        ("ge" | "hs", false) => Cmp::Geu,
        _ => return None,
    })
}

fn float_cmp(cmp: &str) -> Option<FCmp> {
    Some(match cmp {
        "eq" => FCmp::Eq,
        "ne" => FCmp::Ne,
        "lt" => FCmp::Lt,
        "le" => FCmp::Le,
        "gt" => FCmp::Gt,
        "ge" => FCmp::Ge,
        "equ" => FCmp::Equ,
        "neu" => FCmp::Neu,
        "ltu" => FCmp::Ltu,
        "leu" => FCmp::Leu,
        "gtu" => FCmp::Gtu,
        "geu" => FCmp::Geu,
        _ => return None,
    })
}

const INT32: &[&str] = &["b32", "u32", "s32"];
const ANY32: &[&str] = &["b32", "u32", "s32", "f32"];
const INT64: &[&str] = &["b64", "u64", "s64"];

/// The double-precision operation of an opcode (its type last, rounding to nearest dropped from
/// `mods`), if it is one.
fn double_op(base: &str, mods: &[&str], ty: &str) -> Option<Dop> {
    Some(match (base, mods, ty) {
        ("add", [], "f64") => Dop::Add,
        ("sub", [], "f64") => Dop::Sub,
        ("mul", [], "f64") => Dop::Mul,
        ("fma" | "mad", [], "f64") => Dop::Fma,
        ("div", [], "f64") => Dop::Div,
        ("sqrt", [], "f64") => Dop::Sqrt,
        ("rcp", [], "f64") => Dop::Rcp,
        ("min", [], "f64") => Dop::Min,
        ("max", [], "f64") => Dop::Max,
        ("setp", [cmp], "f64") => Dop::Setp(float_cmp(cmp)?),
        ("cvt", ["f64"], "f32") => Dop::F64FromF32,
        ("cvt", ["f64"], "s32") => Dop::F64FromS32,
        ("cvt", ["f64"], "u32") => Dop::F64FromU32,
        ("cvt", ["f32"], "f64") => Dop::F32FromF64,
        ("cvt", ["rzi", "s32"], "f64") => Dop::S32FromF64,
        ("cvt", ["rzi", "u32"], "f64") => Dop::U32FromF64,
        ("cvt", ["f64"], "s64") => Dop::F64FromS64,
        ("cvt", ["f64"], "u64") => Dop::F64FromU64,
        ("cvt", ["rzi", "s64"], "f64") => Dop::S64FromF64,
        ("cvt", ["rzi", "u64"], "f64") => Dop::U64FromF64,
        _ => return None,
    })
}
const ANY64: &[&str] = &["b64", "u64", "s64", "f64"];

impl<'a> Lowerer<'a> {
    fn unsupported<T>(&self, what: &str) -> Result<T, PtxError> {
        fail(self.line, format!("unsupported instruction `{what}`"))
    }

    /// The virtual register of a declared register, created on first use.
    fn vreg(&mut self, name: &str) -> Result<(VReg, Class), PtxError> {
        if let Some(&v) = self.vregs.get(name) {
            return Ok((v, self.classes[v as usize]));
        }
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, index) = name.split_at(name.len() - digits);
        let family = self.families.get(prefix).filter(|(_, n)| index.parse::<u32>().is_ok_and(|i| i < *n));
        let Some(ty) = family.map(|f| f.0).or_else(|| self.singles.get(name).copied()) else {
            return fail(self.line, format!("register `{name}` is not declared"));
        };
        let class = match ty {
            "pred" => Class::Pred,
            "b32" | "u32" | "s32" | "f32" => Class::W32,
            "b64" | "u64" | "s64" | "f64" => Class::W64,
            _ => return fail(self.line, format!("unsupported register type `.{ty}` of `{name}`")),
        };
        Ok((self.fresh(name, class), class))
    }

    fn fresh(&mut self, name: &str, class: Class) -> VReg {
        let v = self.classes.len() as VReg;
        self.classes.push(class);
        self.names.push(name.to_string());
        if name.starts_with('%') {
            self.vregs.insert(name.to_string(), v);
        }
        v
    }

    fn reg_of(&mut self, o: &Operand, class: Class, what: &str) -> Result<VReg, PtxError> {
        let Operand::Reg(name) = o else {
            return fail(self.line, format!("expected a register as {what}"));
        };
        match self.vreg(name)? {
            (v, c) if c == class => Ok(v),
            _ => fail(self.line, format!("`{name}` is not a {} register ({what})", class_name(class))),
        }
    }

    fn pred(&mut self, name: &str) -> Result<VReg, PtxError> {
        self.reg_of(&Operand::Reg(name.to_string()), Class::Pred, "a predicate")
    }

    fn dst32(&mut self, o: &Operand) -> Result<Half, PtxError> {
        Ok((self.reg_of(o, Class::W32, "a 32-bit destination")?, 0))
    }

    fn dst64(&mut self, o: &Operand) -> Result<VReg, PtxError> {
        self.reg_of(o, Class::W64, "a 64-bit destination")
    }

    fn src32(&mut self, o: &Operand) -> Result<VSrc, PtxError> {
        match o {
            Operand::Reg(name) => {
                if let Some(s) = special(name) {
                    return Ok(s);
                }
                Ok(VSrc::Reg((self.reg_of(o, Class::W32, "a 32-bit source")?, 0)))
            }
            Operand::Int(v) => match u32::try_from(*v).ok().or_else(|| i32::try_from(*v).ok().map(|v| v as u32)) {
                Some(v) => Ok(VSrc::Imm(v)),
                None => fail(self.line, format!("immediate {v} does not fit 32 bits")),
            },
            Operand::F32(bits) => Ok(VSrc::Imm(*bits)),
            Operand::F64(_) => fail(self.line, "expected a 32-bit value, found an f64 literal"),
            Operand::Symbol(s) => match self.shared.get(s.as_str()).or_else(|| self.consts.get(s)) {
                Some(&at) => Ok(VSrc::Imm(at)),
                None => match (self.local.get(s.as_str()), self.struct_at(s)) {
                    (Some(&v), _) => Ok(VSrc::Reg((v, 0))),
                    (None, Some(at)) => Ok(VSrc::Imm(at)),
                    _ => fail(
                        self.line,
                        format!("`{s}` is not a shared, local or constant variable or a struct parameter"),
                    ),
                },
            },
            Operand::Address { .. } => fail(self.line, "expected a value, found an address `[...]`"),
            Operand::Vector(_) => fail(self.line, "expected a value, found a vector `{...}`"),
        }
    }

    /// The low and high halves of a 64-bit source.
    fn src64(&mut self, o: &Operand) -> Result<[VSrc; 2], PtxError> {
        match o {
            Operand::Reg(_) => {
                let v = self.reg_of(o, Class::W64, "a 64-bit source")?;
                Ok([VSrc::Reg((v, 0)), VSrc::Reg((v, 1))])
            }
            Operand::Int(v) => Ok([VSrc::Imm(*v as u32), VSrc::Imm((*v >> 32) as u32)]),
            Operand::F64(bits) => Ok([VSrc::Imm(*bits as u32), VSrc::Imm((*bits >> 32) as u32)]),
            _ => Ok([self.src32(o)?, VSrc::Imm(0)]),
        }
    }

    /// An address: base in `srcs[0]` (and a 64-bit base's high word in `srcs[2]`), offset.
    fn address(&mut self, o: &Operand) -> Result<([VSrc; 3], i32), PtxError> {
        let Operand::Address { base, offset } = o else {
            return fail(self.line, "expected an address `[...]`");
        };
        let Ok(offset) = i32::try_from(*offset) else {
            return fail(self.line, format!("address offset {offset} does not fit 32 bits"));
        };
        if base.starts_with('%') {
            let (v, class) = self.vreg(base)?;
            return match class {
                Class::W64 => Ok(([VSrc::Reg((v, 0)), VSrc::None, VSrc::Reg((v, 1))], offset)),
                Class::W32 => Ok(([VSrc::Reg((v, 0)), VSrc::None, VSrc::None], offset)),
                Class::Pred => fail(self.line, format!("predicate `{base}` used as an address")),
            };
        }
        Ok(([self.src32(&Operand::Symbol(base.clone()))?, VSrc::None, VSrc::None], offset))
    }

    /// The address of the struct passed by value as parameter `name`, if it is one.
    fn struct_at(&self, name: &str) -> Option<u32> {
        match self.params.get(name).map(|&(i, _)| self.values[i]) {
            Some(ParamValue::At(at)) => Some(at),
            _ => None,
        }
    }

    /// Lays out the `.local` variables in each thread's window and computes, before the body,
    /// the address of each in the thread's window. Returns the window's bytes.
    fn local_addresses(&mut self, vars: &'a [SharedVar]) -> Result<u32, PtxError> {
        if vars.is_empty() {
            return Ok(0);
        }
        let refs: Vec<&SharedVar> = vars.iter().collect();
        let (offsets, bytes) = layout(&refs, "local", MAX_LOCAL_BYTES)?;
        let window = bytes.max(4).next_power_of_two();
        let base = self.fresh("local window", Class::W32);
        let (gtid, shift) = (VSrc::Special(Special::Gtid), VSrc::Imm(window.trailing_zeros()));
        self.emit(Op::Shl, Some((base, 0)), [gtid, shift, VSrc::None]);
        for v in vars {
            let at = self.fresh(&v.name, Class::W32);
            let offset = VSrc::Imm(LOCAL_WINDOWS + offsets[&v.name]);
            self.emit(Op::Add, Some((at, 0)), [VSrc::Reg((base, 0)), offset, VSrc::None]);
            self.local.insert(&v.name, at);
        }
        Ok(window)
    }

    fn emit(&mut self, op: Op, dst: Option<Half>, srcs: [VSrc; 3]) -> &mut VInstr {
        self.code.push(VInstr {
            op,
            guard: self.guard,
            dst,
            pdst: None,
            srcs,
            psrc: None,
            offset: 0,
            target: 0,
            line: self.line,
        });
        self.code.last_mut().unwrap()
    }

    fn operands<'o>(&self, ins: &'o Instruction, n: usize) -> Result<&'o [Operand], PtxError> {
        if ins.operands.len() != n {
            return fail(self.line, format!("`{}` takes {n} operands, found {}", ins.opcode, ins.operands.len()));
        }
        Ok(&ins.operands)
    }

    /// Lowers one instruction; returns the label of a branch (patched once labels are known).
    fn instruction(&mut self, ins: &Instruction) -> Result<Option<String>, PtxError> {
        let parts: Vec<&str> = ins.opcode.split('.').collect();
        let (base, ty) = (parts[0], *parts.last().unwrap());
        // Rounding to nearest is what IEEE arithmetic does; `.approx` and `.full` are computed
        // exactly too (docs/ptx.md); `.uni` only promises a branch does not diverge.
        let middle = if parts.len() > 2 { &parts[1..parts.len() - 1] } else { &[] };
        let mods: Vec<&str> = middle.iter().copied().filter(|m| !matches!(*m, "rn" | "approx" | "full")).collect();
        let mods = mods.as_slice();
        let binary = |op| (op, 3);
        let simple = match (base, mods, ty) {
            ("add", [], t) if INT32.contains(&t) => Some(binary(Op::Add)),
            ("sub", [], t) if INT32.contains(&t) => Some(binary(Op::Sub)),
            ("mul", ["lo"], t) if INT32.contains(&t) => Some(binary(Op::Mul)),
            ("mul", ["hi"], "s32") => Some(binary(Op::MulHi)),
            ("mul", ["hi"], "u32") => Some(binary(Op::MulHiU)),
            ("mad", ["lo"], t) if INT32.contains(&t) => Some((Op::Mad, 4)),
            ("bfe", [], "u32") => Some((Op::Bfe, 4)),
            ("and", [], "b32") => Some(binary(Op::And)),
            ("or", [], "b32") => Some(binary(Op::Or)),
            ("xor", [], "b32") => Some(binary(Op::Xor)),
            ("shl", [], "b32") => Some(binary(Op::Shl)),
            ("shr", [], "u32" | "b32") => Some(binary(Op::Shr)),
            ("shr", [], "s32") => Some(binary(Op::Sra)),
            ("min", [], "s32") => Some(binary(Op::Min)),
            ("max", [], "s32") => Some(binary(Op::Max)),
            ("add", [], "f32") => Some(binary(Op::FAdd)),
            ("sub", [], "f32") => Some(binary(Op::FSub)),
            ("mul", [], "f32") => Some(binary(Op::FMul)),
            ("fma" | "mad", [], "f32") => Some((Op::FFma, 4)),
            ("min", [], "f32") => Some(binary(Op::FMin)),
            ("max", [], "f32") => Some(binary(Op::FMax)),
            ("div", [], "f32") => Some(binary(Op::FDiv)),
            ("sqrt", [], "f32") => Some((Op::FSqrt, 2)),
            ("rcp", [], "f32") => Some((Op::FRcp, 2)),
            ("ex2", [], "f32") => Some((Op::Ex2, 2)),
            ("lg2", [], "f32") => Some((Op::Lg2, 2)),
            ("sin", [], "f32") => Some((Op::Sin, 2)),
            ("cos", [], "f32") => Some((Op::Cos, 2)),
            ("mov", [], t) if ANY32.contains(&t) => Some((Op::Mov, 2)),
            ("cvt", ["f32"], "s32") => Some((Op::Cvt(Cvt::F32FromS32), 2)),
            ("cvt", ["f32"], "u32") => Some((Op::Cvt(Cvt::F32FromU32), 2)),
            ("cvt", ["rzi", "s32"], "f32") => Some((Op::Cvt(Cvt::S32FromF32), 2)),
            ("cvt", ["rzi", "u32"], "f32") => Some((Op::Cvt(Cvt::U32FromF32), 2)),
            _ => None,
        };
        if let Some((op, n)) = simple {
            let o = self.operands(ins, n)?;
            let dst = self.dst32(&o[0])?;
            let mut srcs = [VSrc::None; 3];
            for (s, operand) in srcs.iter_mut().zip(&o[1..]) {
                *s = self.src32(operand)?;
            }
            self.emit(op, Some(dst), srcs);
            return Ok(None);
        }
        if let Some(op) = double_op(base, mods, ty) {
            self.double(ins, op)?;
            return Ok(None);
        }
        match (base, mods, ty) {
            ("and" | "or" | "xor" | "not" | "mov", [], "pred") => self.predicate_logic(ins, base)?,
            // A double's sign is the high word's bit 31.
            ("neg" | "abs", [], "f64") => {
                let o = self.operands(ins, 2)?;
                let d = self.dst64(&o[0])?;
                let [lo, hi] = self.src64(&o[1])?;
                let (op, mask) = if base == "neg" { (Op::Xor, 0x8000_0000) } else { (Op::And, 0x7fff_ffff) };
                self.emit(Op::Mov, Some((d, 0)), [lo, VSrc::None, VSrc::None]);
                self.emit(op, Some((d, 1)), [hi, VSrc::Imm(mask), VSrc::None]);
            }
            ("neg" | "not" | "abs", [], _) => self.bit_unary(ins, base, ty)?,
            ("setp", [cmp], t) => {
                let o = self.operands(ins, 3)?;
                let op = match t {
                    "f32" => float_cmp(cmp).map(Op::FSetp),
                    "s32" => int_cmp(cmp, true).map(Op::Setp),
                    "u32" | "b32" => int_cmp(cmp, false).map(Op::Setp),
                    _ => None,
                };
                let Some(op) = op else { return self.unsupported(&ins.opcode) };
                let p = self.reg_of(&o[0], Class::Pred, "the destination predicate")?;
                let (a, b) = (self.src32(&o[1])?, self.src32(&o[2])?);
                self.emit(op, None, [a, b, VSrc::None]).pdst = Some(p);
            }
            ("selp", [], t) if ANY32.contains(&t) => {
                let o = self.operands(ins, 4)?;
                let dst = self.dst32(&o[0])?;
                let (a, b) = (self.src32(&o[1])?, self.src32(&o[2])?);
                let p = self.reg_of(&o[3], Class::Pred, "the selecting predicate")?;
                self.emit(Op::Selp, Some(dst), [a, b, VSrc::None]).psrc = Some(p);
            }
            ("selp", [], t) if ANY64.contains(&t) => {
                let o = self.operands(ins, 4)?;
                let d = self.dst64(&o[0])?;
                let (a, b) = (self.src64(&o[1])?, self.src64(&o[2])?);
                let p = self.reg_of(&o[3], Class::Pred, "the selecting predicate")?;
                for half in 0..2 {
                    self.emit(Op::Selp, Some((d, half)), [a[half as usize], b[half as usize], VSrc::None]).psrc =
                        Some(p);
                }
            }
            ("mov" | "cvta", m, t)
                if (base == "mov" && m.is_empty() && ANY64.contains(&t))
                    || (INT64.contains(&t) && matches!(m, [] | ["global" | "local"] | ["to", "global" | "local"])) =>
            {
                let o = self.operands(ins, 2)?;
                let d = self.dst64(&o[0])?;
                let [lo, hi] = self.src64(&o[1])?;
                self.emit(Op::Mov, Some((d, 0)), [lo, VSrc::None, VSrc::None]);
                self.emit(Op::Mov, Some((d, 1)), [hi, VSrc::None, VSrc::None]);
            }
            ("add", [], t) if INT64.contains(&t) => {
                let o = self.operands(ins, 3)?;
                let d = self.dst64(&o[0])?;
                let ([alo, ahi], [blo, bhi]) = (self.src64(&o[1])?, self.src64(&o[2])?);
                let carry = self.fresh("carry", Class::Pred);
                self.emit(Op::AddCc, Some((d, 0)), [alo, blo, VSrc::None]).pdst = Some(carry);
                self.emit(Op::AddX, Some((d, 1)), [ahi, bhi, VSrc::None]).psrc = Some(carry);
            }
            // a - b as ~(~a + b), with the carry chain `add` uses.
            ("sub", [], t) if INT64.contains(&t) => {
                let o = self.operands(ins, 3)?;
                let d = self.dst64(&o[0])?;
                let ([alo, ahi], [blo, bhi]) = (self.src64(&o[1])?, self.src64(&o[2])?);
                let (not_a, carry) = (self.fresh("not_a", Class::W64), self.fresh("carry", Class::Pred));
                let ones = VSrc::Imm(u32::MAX);
                self.emit(Op::Xor, Some((not_a, 0)), [alo, ones, VSrc::None]);
                self.emit(Op::Xor, Some((not_a, 1)), [ahi, ones, VSrc::None]);
                self.emit(Op::AddCc, Some((d, 0)), [VSrc::Reg((not_a, 0)), blo, VSrc::None]).pdst = Some(carry);
                self.emit(Op::AddX, Some((d, 1)), [VSrc::Reg((not_a, 1)), bhi, VSrc::None]).psrc = Some(carry);
                self.emit(Op::Xor, Some((d, 0)), [VSrc::Reg((d, 0)), ones, VSrc::None]);
                self.emit(Op::Xor, Some((d, 1)), [VSrc::Reg((d, 1)), ones, VSrc::None]);
            }
            ("and" | "or" | "xor", [], "b64") => {
                let op = match base {
                    "and" => Op::And,
                    "or" => Op::Or,
                    _ => Op::Xor,
                };
                let o = self.operands(ins, 3)?;
                let d = self.dst64(&o[0])?;
                let ([alo, ahi], [blo, bhi]) = (self.src64(&o[1])?, self.src64(&o[2])?);
                self.emit(op, Some((d, 0)), [alo, blo, VSrc::None]);
                self.emit(op, Some((d, 1)), [ahi, bhi, VSrc::None]);
            }
            ("shl", [], "b64") => self.shift_left64(ins)?,
            ("mul", ["wide"], t @ ("s32" | "u32")) => {
                let o = self.operands(ins, 3)?;
                let d = self.dst64(&o[0])?;
                let (a, b) = (self.src32(&o[1])?, self.src32(&o[2])?);
                self.emit(Op::Mul, Some((d, 0)), [a, b, VSrc::None]);
                self.emit(if t == "s32" { Op::MulHi } else { Op::MulHiU }, Some((d, 1)), [a, b, VSrc::None]);
            }
            ("cvt", [to @ ("u64" | "s64")], from @ ("u32" | "s32")) => {
                let o = self.operands(ins, 2)?;
                let d = self.dst64(&o[0])?;
                let a = self.src32(&o[1])?;
                self.emit(Op::Mov, Some((d, 0)), [a, VSrc::None, VSrc::None]);
                // Sign-extends only from a signed source into a signed destination, as PTX.
                if *to == "s64" && from == "s32" {
                    self.emit(Op::Sra, Some((d, 1)), [a, VSrc::Imm(31), VSrc::None]);
                } else {
                    self.emit(Op::Mov, Some((d, 1)), [VSrc::Imm(0), VSrc::None, VSrc::None]);
                }
            }
            ("cvt", [to], from) if INT32.contains(to) && INT64.contains(&from) => {
                let o = self.operands(ins, 2)?;
                let d = self.dst32(&o[0])?;
                let [lo, _] = self.src64(&o[1])?;
                self.emit(Op::Mov, Some(d), [lo, VSrc::None, VSrc::None]);
            }
            ("ld" | "st", mods, t) => {
                let load = base == "ld";
                // [space][.nc][.v2|.v4]: a state space (generic without one), `.nc` on loads and
                // a vector's width.
                let (space, rest) = match mods {
                    [space, rest @ ..] if !space.starts_with('v') => (*space, rest),
                    rest => ("generic", rest),
                };
                let rest = if load { rest.strip_prefix(&["nc"][..]).unwrap_or(rest) } else { rest };
                let elements = match rest {
                    [] => 1,
                    ["v2"] => 2,
                    ["v4"] => 4,
                    _ => return self.unsupported(&ins.opcode),
                };
                self.memory(ins, load, space, elements, t)?
            }
            ("atom" | "red", [space @ ("global" | "shared"), "add"], t @ ("u32" | "s32" | "f32")) => {
                let returns = base == "atom";
                let o = self.operands(ins, 2 + returns as usize)?;
                let dst = if returns { Some(self.dst32(&o[0])?) } else { None };
                let (mut srcs, offset) = self.address(&o[returns as usize])?;
                srcs[1] = self.src32(&o[1 + returns as usize])?;
                let op = match (*space, t) {
                    ("global", "f32") => Op::AtomAddF,
                    ("global", _) => Op::AtomAdd,
                    ("shared", "f32") => return self.unsupported(&ins.opcode),
                    _ => Op::AtomAddShared,
                };
                self.emit(op, dst, srcs).offset = offset;
            }
            ("bar", [], "sync") => {
                if !matches!(ins.operands.as_slice(), [Operand::Int(0)]) {
                    return fail(self.line, "unsupported barrier: only `bar.sync 0`");
                }
                self.emit(Op::Bar, None, [VSrc::None; 3]);
            }
            ("bra", [], "bra" | "uni") => {
                let o = self.operands(ins, 1)?;
                let Operand::Symbol(label) = &o[0] else {
                    return fail(self.line, "unsupported indirect branch: `bra` takes a label");
                };
                self.emit(Op::Bra, None, [VSrc::None; 3]);
                return Ok(Some(label.clone()));
            }
            ("ret" | "exit", [], "ret" | "exit") => {
                self.operands(ins, 0)?;
                self.emit(Op::Exit, None, [VSrc::None; 3]);
            }
            _ => return self.unsupported(&ins.opcode),
        }
        Ok(None)
    }

    /// A double-precision operation in the passes `Op::DpOperands`, `Op::Dp` and `Op::DpHigh`
    /// (docs/ptx.md): the operands' words in order (a double's low word first), the first three
    /// handed over ahead when there are more than three.
    fn double(&mut self, ins: &Instruction, op: Dop) -> Result<(), PtxError> {
        let o = self.operands(ins, 1 + op.words().div_ceil(2))?;
        let mut words = Vec::with_capacity(6);
        for operand in &o[1..] {
            if op.wide_sources() {
                words.extend(self.src64(operand)?);
            } else {
                words.push(self.src32(operand)?);
            }
        }
        let (ahead, rest) = words.split_at(op.held());
        if let [a, b, c] = *ahead {
            self.emit(Op::DpOperands, None, [a, b, c]);
        }
        let mut srcs = [VSrc::None; 3];
        srcs[..rest.len()].copy_from_slice(rest);
        match op.result() {
            DpResult::Pred => {
                let p = self.reg_of(&o[0], Class::Pred, "the destination predicate")?;
                self.emit(Op::Dp(op), None, srcs).pdst = Some(p);
            }
            DpResult::Word => {
                let d = self.dst32(&o[0])?;
                self.emit(Op::Dp(op), Some(d), srcs);
            }
            DpResult::Double => {
                let d = self.dst64(&o[0])?;
                self.emit(Op::Dp(op), Some((d, 0)), srcs);
                self.emit(Op::DpHigh, Some((d, 1)), [VSrc::None; 3]);
            }
        }
        Ok(())
    }

    /// `shl.b64` by a constant: the high word takes the bits shifted out of the low word.
    fn shift_left64(&mut self, ins: &Instruction) -> Result<(), PtxError> {
        let o = self.operands(ins, 3)?;
        let Operand::Int(k @ 0..=63) = o[2] else {
            return fail(
                self.line,
                "unsupported `shl.b64` by a register or by 64 or more: only by a constant below 64",
            );
        };
        let d = self.dst64(&o[0])?;
        let [lo, hi] = self.src64(&o[1])?;
        let k = k as u32;
        if k == 0 {
            self.emit(Op::Mov, Some((d, 0)), [lo, VSrc::None, VSrc::None]);
            self.emit(Op::Mov, Some((d, 1)), [hi, VSrc::None, VSrc::None]);
            return Ok(());
        }
        if k >= 32 {
            self.emit(Op::Shl, Some((d, 1)), [lo, VSrc::Imm(k - 32), VSrc::None]);
            self.emit(Op::Mov, Some((d, 0)), [VSrc::Imm(0), VSrc::None, VSrc::None]);
            return Ok(());
        }
        // Both halves are written last, low then high, so the source may be the destination.
        let carried = self.fresh("shl.b64 carry", Class::W32);
        let high = self.fresh("shl.b64 high", Class::W32);
        self.emit(Op::Shr, Some((carried, 0)), [lo, VSrc::Imm(32 - k), VSrc::None]);
        self.emit(Op::Shl, Some((high, 0)), [hi, VSrc::Imm(k), VSrc::None]);
        self.emit(Op::Shl, Some((d, 0)), [lo, VSrc::Imm(k), VSrc::None]);
        self.emit(Op::Or, Some((d, 1)), [VSrc::Reg((high, 0)), VSrc::Reg((carried, 0)), VSrc::None]);
        Ok(())
    }

    /// Logic on predicates (`and or xor not mov .pred`), which the model has no instruction for
    /// (SASS's PLOP3): the operands become 0 or 1 in a register (`selp`), are combined there, and
    /// `setp.ne` turns the result back into the predicate. `and`/`or` combine the second operand
    /// by a guarded `mov`, which keeps them to three instructions.
    fn predicate_logic(&mut self, ins: &Instruction, base: &str) -> Result<(), PtxError> {
        if self.guard.is_some() {
            return fail(self.line, format!("unsupported guarded `{}`", ins.opcode));
        }
        let o = self.operands(ins, if matches!(base, "not" | "mov") { 2 } else { 3 })?;
        let d = self.reg_of(&o[0], Class::Pred, "the destination predicate")?;
        let value = self.fresh("predicate as a word", Class::W32);
        self.predicate_as_word(value, &o[1], base == "not")?;
        match base {
            "and" | "or" => {
                let b = self.reg_of(&o[2], Class::Pred, "a source predicate")?;
                // and: a false b clears the word; or: a true b sets it.
                let (negate, word) = if base == "and" { (true, 0) } else { (false, 1) };
                self.guard = Some((b, negate));
                self.emit(Op::Mov, Some((value, 0)), [VSrc::Imm(word), VSrc::None, VSrc::None]);
                self.guard = None;
            }
            "xor" => {
                let other = self.fresh("predicate as a word", Class::W32);
                self.predicate_as_word(other, &o[2], false)?;
                let srcs = [VSrc::Reg((value, 0)), VSrc::Reg((other, 0)), VSrc::None];
                self.emit(Op::Xor, Some((value, 0)), srcs);
            }
            _ => {}
        }
        let srcs = [VSrc::Reg((value, 0)), VSrc::Imm(0), VSrc::None];
        self.emit(Op::Setp(Cmp::Ne), None, srcs).pdst = Some(d);
        Ok(())
    }

    /// `word = p ? 1 : 0` (`0 : 1` when `negate`) for a predicate register or a constant 0 or 1.
    fn predicate_as_word(&mut self, word: VReg, p: &Operand, negate: bool) -> Result<(), PtxError> {
        let (yes, no) = if negate { (0, 1) } else { (1, 0) };
        if let Operand::Int(v @ (0 | 1)) = p {
            let bit = if *v == 1 { yes } else { no };
            self.emit(Op::Mov, Some((word, 0)), [VSrc::Imm(bit), VSrc::None, VSrc::None]);
            return Ok(());
        }
        let p = self.reg_of(p, Class::Pred, "a source predicate")?;
        self.emit(Op::Selp, Some((word, 0)), [VSrc::Imm(yes), VSrc::Imm(no), VSrc::None]).psrc = Some(p);
        Ok(())
    }

    /// `neg`, `not`, `abs` as bit operations: negation as `0 - a` or a flipped sign bit.
    fn bit_unary(&mut self, ins: &Instruction, base: &str, ty: &str) -> Result<(), PtxError> {
        let (op, left, right) = match (base, ty) {
            ("neg", "s32") => (Op::Sub, Some(0), None),
            ("neg", "f32") => (Op::Xor, None, Some(0x8000_0000)),
            ("abs", "f32") => (Op::And, None, Some(0x7fff_ffff)),
            ("not", "b32") => (Op::Xor, None, Some(u32::MAX)),
            _ => return self.unsupported(&ins.opcode),
        };
        let o = self.operands(ins, 2)?;
        let d = self.dst32(&o[0])?;
        let a = self.src32(&o[1])?;
        let srcs = match (left, right) {
            (Some(k), _) => [VSrc::Imm(k), a, VSrc::None],
            (_, k) => [a, VSrc::Imm(k.unwrap_or(0)), VSrc::None],
        };
        self.emit(op, Some(d), srcs);
        Ok(())
    }

    /// Loads and stores of 32- and 64-bit values (a 64-bit value as two words, low first), and of
    /// vectors of `elements` of them (one access per element, at consecutive places).
    fn memory(
        &mut self,
        ins: &Instruction,
        load: bool,
        space: &str,
        elements: usize,
        ty: &str,
    ) -> Result<(), PtxError> {
        let o = self.operands(ins, 2)?;
        let wide = ANY64.contains(&ty);
        if !wide && !ANY32.contains(&ty) {
            return fail(self.line, format!("unsupported type `.{ty}` in `{}` (32- and 64-bit only)", ins.opcode));
        }
        let (value, addr) = if load { (&o[0], &o[1]) } else { (&o[1], &o[0]) };
        let op = match (space, load) {
            // A scalar parameter is its launch value; a struct passed by value is read from its
            // bytes in global memory, through its name or an address taken of it.
            ("param", true) if elements == 1 && !self.through_memory(addr) => return self.param(value, addr, wide),
            ("param", true) => Op::LdGlobal,
            ("global", true) => Op::LdGlobal,
            ("global", false) => Op::StGlobal,
            ("shared", true) => Op::LdShared,
            ("shared", false) => Op::StShared,
            // A thread's `.local` window is global memory private to it, and a generic address
            // is a global one: the model's `.local` addresses are global addresses already, and
            // `cvta.shared` (the one conversion that would need a shared window) is refused.
            ("local" | "generic", true) => Op::LdGlobal,
            ("local" | "generic", false) => Op::StGlobal,
            // The constant bank is global memory the kernel only reads.
            ("const", true) => Op::LdGlobal,
            ("const", false) => {
                return fail(self.line, format!("`{}` stores to `.const`, which kernels can only read", ins.opcode));
            }
            _ => return fail(self.line, format!("unsupported state space `.{space}` in `{}`", ins.opcode)),
        };
        let values: Vec<Operand> = match value {
            Operand::Vector(regs) if regs.len() == elements => regs.iter().cloned().map(Operand::Reg).collect(),
            Operand::Vector(regs) => {
                let n = regs.len();
                return fail(self.line, format!("`{}` takes a vector of {elements} registers, found {n}", ins.opcode));
            }
            _ if elements > 1 => {
                return fail(self.line, format!("`{}` takes a vector `{{...}}` of {elements} registers", ins.opcode));
            }
            scalar => vec![scalar.clone()],
        };
        let (srcs, offset) = self.address(addr)?;
        let mut words: Vec<(VSrc, Option<Half>)> = Vec::new();
        for value in &values {
            match (wide, load) {
                (false, true) => words.push((VSrc::None, Some(self.dst32(value)?))),
                (false, false) => words.push((self.src32(value)?, None)),
                (true, true) => {
                    let d = self.dst64(value)?;
                    words.extend([(VSrc::None, Some((d, 0))), (VSrc::None, Some((d, 1)))]);
                }
                (true, false) => words.extend(self.src64(value)?.into_iter().map(|s| (s, None))),
            }
        }
        for (i, (v, dst)) in words.into_iter().enumerate() {
            let mut s = srcs;
            s[1] = v;
            self.emit(op, dst, s).offset = offset + 4 * i as i32;
        }
        Ok(())
    }

    /// Whether `ld.param` of `addr` reads memory: a register's address or a struct's bytes.
    fn through_memory(&self, addr: &Operand) -> bool {
        matches!(addr, Operand::Address { base, .. } if base.starts_with('%') || self.struct_at(base).is_some())
    }

    /// `ld.param`: the parameter's launch value as immediates.
    fn param(&mut self, value: &Operand, addr: &Operand, wide: bool) -> Result<(), PtxError> {
        let Operand::Address { base, offset } = addr else {
            return fail(self.line, "expected a parameter address `[name]`");
        };
        let Some(&(index, ty)) = self.params.get(base.as_str()) else {
            return fail(self.line, format!("`{base}` is not a parameter of this kernel"));
        };
        if *offset != 0 {
            return fail(self.line, format!("unsupported offset into parameter `{base}` (structs passed by value)"));
        }
        let bytes = super::parse::type_bytes(ty).unwrap_or(0);
        if bytes != if wide { 8 } else { 4 } {
            return fail(self.line, format!("`{base}` is .{ty}, loaded as {} bits", if wide { 64 } else { 32 }));
        }
        let ParamValue::Value(v) = self.values[index] else {
            return fail(self.line, format!("`{base}` is a struct passed by value, read from memory"));
        };
        let imm = |w: u64| [VSrc::Imm(w as u32), VSrc::None, VSrc::None];
        if wide {
            let d = self.dst64(value)?;
            self.emit(Op::Mov, Some((d, 0)), imm(v));
            self.emit(Op::Mov, Some((d, 1)), imm(v >> 32));
        } else {
            let d = self.dst32(value)?;
            self.emit(Op::Mov, Some(d), imm(v));
        }
        Ok(())
    }
}

fn class_name(c: Class) -> &'static str {
    match c {
        Class::W32 => "32-bit",
        Class::W64 => "64-bit",
        Class::Pred => "predicate",
    }
}

#[cfg(test)]
mod tests {
    use crate::kernel::ptx::{launch, load};
    use crate::kernel::{Dop, Op, Src};

    /// Thread t holds a = bit 0 and b = bit 1 of t; it stores a & b, a | b, a ^ b, !a, b and
    /// the constant 1, each as 0 or 1, in the 6 words from `out + 32 t`.
    const PTX: &str = ".version 6.0\n.target sm_70\n.address_size 64\n\
                       .visible .entry k(.param .u64 k_param_0)\n{\n\
                       .reg .pred %p<9>;\n.reg .b32 %r<10>;\n.reg .b64 %rd<4>;\n\
                       ld.param.u64 %rd1, [k_param_0];\n\
                       mov.u32 %r1, %tid.x;\n\
                       and.b32 %r2, %r1, 1;\n\
                       and.b32 %r3, %r1, 2;\n\
                       setp.ne.s32 %p1, %r2, 0;\n\
                       setp.ne.s32 %p2, %r3, 0;\n\
                       and.pred %p3, %p1, %p2;\n\
                       or.pred %p4, %p1, %p2;\n\
                       xor.pred %p5, %p1, %p2;\n\
                       not.pred %p6, %p1;\n\
                       mov.pred %p7, %p2;\n\
                       mov.pred %p8, 1;\n\
                       mul.wide.u32 %rd2, %r1, 32;\n\
                       add.s64 %rd3, %rd1, %rd2;\n\
                       selp.u32 %r4, 1, 0, %p3;\nst.global.u32 [%rd3], %r4;\n\
                       selp.u32 %r5, 1, 0, %p4;\nst.global.u32 [%rd3+4], %r5;\n\
                       selp.u32 %r6, 1, 0, %p5;\nst.global.u32 [%rd3+8], %r6;\n\
                       selp.u32 %r7, 1, 0, %p6;\nst.global.u32 [%rd3+12], %r7;\n\
                       selp.u32 %r8, 1, 0, %p7;\nst.global.u32 [%rd3+16], %r8;\n\
                       selp.u32 %r9, 1, 0, %p8;\nst.global.u32 [%rd3+20], %r9;\n\
                       ret;\n}\n";
    const LAUNCH: &str = "grid = 1\nblock = 4\nparams = [{ buffer = \"out\" }]\n\
                          [buffers.out]\ntype = \"u32\"\ncount = 32\ninit = \"constant\"\nvalue = 7\n";

    #[test]
    fn predicate_logic_follows_its_truth_tables() {
        let k = load(PTX, &launch::parse(LAUNCH).unwrap()).unwrap();
        let memory = crate::func::run(&k.kernel, 32).unwrap().memory;
        let out = k.buffer("out").unwrap().addr;
        for t in 0..4u32 {
            let (a, b) = (t & 1, t >> 1);
            let got: Vec<u32> = (0..6).map(|i| memory.read(out + 32 * t + 4 * i)).collect();
            assert_eq!(got, [a & b, a | b, a ^ b, 1 - a, b, 1], "a = {a}, b = {b}");
        }
    }

    /// Thread t stores both halves of 2^32 + t - 3: a borrow out of the low half for t < 3.
    #[test]
    fn a_64_bit_subtraction_borrows_across_its_halves() {
        let text = ".version 6.0\n.target sm_70\n.address_size 64\n\
                    .visible .entry k(.param .u64 k_param_0)\n{\n\
                    .reg .b32 %r<2>;\n.reg .b64 %rd<7>;\n\
                    ld.param.u64 %rd1, [k_param_0];\n\
                    mov.u32 %r1, %tid.x;\n\
                    cvt.u64.u32 %rd2, %r1;\n\
                    add.s64 %rd3, %rd2, 4294967296;\n\
                    sub.s64 %rd4, %rd3, 3;\n\
                    mul.wide.u32 %rd5, %r1, 8;\n\
                    add.s64 %rd6, %rd1, %rd5;\n\
                    st.global.u64 [%rd6], %rd4;\n\
                    ret;\n}\n";
        let launch = "grid = 1\nblock = 6\nparams = [{ buffer = \"out\" }]\n\
                      [buffers.out]\ntype = \"u32\"\ncount = 12\ninit = \"zero\"\n";
        let k = load(text, &launch::parse(launch).unwrap()).unwrap();
        let memory = crate::func::run(&k.kernel, 32).unwrap().memory;
        let out = k.buffer("out").unwrap().addr;
        for t in 0..6u32 {
            let want = (1u64 << 32) + u64::from(t) - 3;
            let got = u64::from(memory.read(out + 8 * t)) | u64::from(memory.read(out + 8 * t + 4)) << 32;
            assert_eq!(got, want, "thread {t}");
        }
    }

    /// `fma.f64` reads six words: three handed over, three brought by the operation, then the
    /// high word written; a conversion to f32 reads its two words in one pass.
    #[test]
    fn a_double_operation_takes_its_words_in_passes_of_three() {
        let text = ".version 6.0\n.target sm_70\n.address_size 64\n\
                    .visible .entry k(.param .u64 k_param_0)\n{\n\
                    .reg .f32 %f<2>;\n.reg .b64 %rd<2>;\n.reg .f64 %fd<4>;\n\
                    ld.param.u64 %rd1, [k_param_0];\n\
                    ld.global.f64 %fd1, [%rd1];\n\
                    fma.rn.f64 %fd2, %fd1, %fd1, 0d3FF8000000000000;\n\
                    cvt.rn.f32.f64 %f1, %fd2;\n\
                    st.global.f32 [%rd1], %f1;\n\
                    ret;\n}\n";
        let launch = "grid = 1\nblock = 1\nparams = [{ buffer = \"d\" }]\n\
                      [buffers.d]\ntype = \"f64\"\ncount = 1\ninit = \"constant\"\nvalue = 0.5\n";
        let k = load(text, &launch::parse(launch).unwrap()).unwrap();
        let ops: Vec<Op> = k.kernel.code.iter().map(|i| i.op).collect();
        let fma = ops.iter().position(|&op| op == Op::Dp(Dop::Fma)).unwrap();
        assert_eq!(&ops[fma - 1..fma + 3], [Op::DpOperands, Op::Dp(Dop::Fma), Op::DpHigh, Op::Dp(Dop::F32FromF64)]);
        let (hand, fma_ins) = (&k.kernel.code[fma - 1], &k.kernel.code[fma]);
        assert_eq!(hand.src_regs().count(), 3, "a.lo a.hi b.lo");
        assert_eq!(fma_ins.srcs[1..], [Src::Imm(0), Src::Imm(0x3ff8_0000)], "b.hi, then c's words");
        let memory = crate::func::run(&k.kernel, 32).unwrap().memory;
        assert_eq!(memory.read(k.buffer("d").unwrap().addr), 1.75f32.to_bits());
    }

    #[test]
    fn constant_data_is_laid_out_in_order_at_its_alignment_little_endian() {
        let text = ".version 6.0\n.target sm_70\n.address_size 64\n\
                    .const .b8 bytes[3] = {1, 2, 3};\n\
                    .const .align 8 .u16 halves[3] = {0x1234, -1};\n\
                    .const .f32 one = 0f3F800000;\n";
        let module = crate::kernel::ptx::parse::parse(text).unwrap();
        let (addresses, data) = super::const_layout(&module.consts).unwrap();
        let at = |name: &str| addresses[name] - super::CONST_BASE;
        assert_eq!((at("bytes"), at("halves"), at("one")), (0, 8, 16));
        assert_eq!(data.len(), 1);
        assert_eq!(data[0].addr, super::CONST_BASE);
        assert_eq!(data[0].words, [0x0003_0201, 0, 0xffff_1234, 0, 1f32.to_bits()]);
    }

    #[test]
    fn guarded_predicate_logic_is_refused() {
        let ptx = PTX.replace("and.pred %p3", "@%p1 and.pred %p3");
        let e = load(&ptx, &launch::parse(LAUNCH).unwrap()).unwrap_err();
        assert!(e.to_string().contains("unsupported guarded `and.pred`"), "{e}");
    }
}
