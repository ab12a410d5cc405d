//! Lexer and parser of the PTX subset clang's NVPTX back end emits (docs/ptx.md): a module of
//! `.entry` kernels with their parameters, register and shared-memory declarations, labels and
//! instructions. Instructions are kept as opcode and operands; which ones are supported is
//! decided by lowering (`lower.rs`), so the parser accepts any instruction-shaped line.

use super::PtxError;

/// A `.shared` variable: bytes of the block's shared memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedVar {
    pub name: String,
    pub align: u32,
    pub bytes: u32,
    pub line: u32,
}

/// A module-level `.const` variable: its bytes (the initializer, zero-filled to its size).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstVar {
    pub name: String,
    pub align: u32,
    pub bytes: Vec<u8>,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    /// The type without its dot: `u64`, `f32`, ... (`b8` for a struct).
    pub ty: String,
    /// A struct passed by value (`.param .align A .b8 name[N]`): its bytes.
    pub bytes: Option<u32>,
    pub line: u32,
}

/// `.reg .TYPE %name<count>;` (a family `%name0 .. %name{count-1}`) or `.reg .TYPE %name;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegDecl {
    pub name: String,
    pub ty: String,
    pub count: Option<u32>,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register (`%r1`) or special register (`%tid.x`).
    Reg(String),
    Int(i64),
    /// An f32 literal's bits (`0f3F800000`).
    F32(u32),
    /// An f64 literal's bits (`0d3FF0000000000000`).
    F64(u64),
    /// A label, variable or parameter name.
    Symbol(String),
    /// `[base]` or `[base+offset]`: base a register or symbol.
    Address {
        base: String,
        offset: i64,
    },
    /// `{%a, %b}` or `{%a, %b, %c, %d}`: the registers of a vector load or store.
    Vector(Vec<String>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub line: u32,
    /// `@%p` (false) or `@!%p` (true).
    pub guard: Option<(String, bool)>,
    pub opcode: String,
    pub operands: Vec<Operand>,
}

/// `call (ret), callee, (args);`: the result and arguments are the call's `.param` variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub line: u32,
    pub guard: Option<(String, bool)>,
    pub opcode: String,
    pub callee: String,
    pub ret: Option<String>,
    pub args: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    Label(String, u32),
    Instruction(Instruction),
    /// `.param .TYPE name;` in a body: a parameter variable of a call.
    Param(RegDecl),
    Call(Call),
}

impl Statement {
    pub fn line(&self) -> u32 {
        match self {
            Statement::Label(_, line) => *line,
            Statement::Instruction(i) => i.line,
            Statement::Param(d) => d.line,
            Statement::Call(c) => c.line,
        }
    }
}

/// A `.func` defined in the module: its body as an entry's, and its result parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    pub entry: Entry,
    pub ret: Option<Param>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub name: String,
    pub line: u32,
    pub params: Vec<Param>,
    pub regs: Vec<RegDecl>,
    pub shared: Vec<SharedVar>,
    /// `.local` variables: laid out as shared ones, in each thread's own window of memory.
    pub local: Vec<SharedVar>,
    pub body: Vec<Statement>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    pub entries: Vec<Entry>,
    /// Module-level `.shared` variables, visible to every entry.
    pub shared: Vec<SharedVar>,
    /// Module-level `.const` variables, in declaration order.
    pub consts: Vec<ConstVar>,
    /// Functions with a body (declarations without one are skipped).
    pub funcs: Vec<Func>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// Identifiers, directives, opcodes and registers: letters, digits, `_ $ % .`.
    Word(String),
    Int(i64),
    F32(u32),
    F64(u64),
    Punct(char),
}

struct Lexer {
    toks: Vec<(Tok, u32)>,
}

fn fail<T>(line: u32, message: impl Into<String>) -> Result<T, PtxError> {
    Err(PtxError { line, message: message.into() })
}

fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.')
}

impl Lexer {
    fn new(text: &str) -> Result<Lexer, PtxError> {
        let mut toks = Vec::new();
        let mut line = 1u32;
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '\n' {
                line += 1;
                i += 1;
            } else if c.is_whitespace() {
                i += 1;
            } else if c == '/' && chars.get(i + 1) == Some(&'/') {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            } else if c == '/' && chars.get(i + 1) == Some(&'*') {
                let start = line;
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    line += (chars[i] == '\n') as u32;
                    i += 1;
                }
                if i >= chars.len() {
                    return fail(start, "unterminated `/*` comment");
                }
                i += 2;
            } else if c.is_ascii_digit() {
                let start = i;
                while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                // A decimal point makes a version (`.version 6.0`) or a decimal float literal.
                if chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                    while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                        i += 1;
                    }
                    toks.push((Tok::Word(chars[start..i].iter().collect()), line));
                    continue;
                }
                let s: String = chars[start..i].iter().collect();
                toks.push((number(&s, line)?, line));
            } else if word_char(c) {
                let start = i;
                while i < chars.len() && word_char(chars[i]) {
                    i += 1;
                }
                toks.push((Tok::Word(chars[start..i].iter().collect()), line));
            } else if c == '"' {
                // A string (`.pragma "nounroll";`, `.file 1 "k.cu"`): one word, so the directive
                // it belongs to is what gets refused.
                let start = i;
                i += 1;
                while i < chars.len() && chars[i] != '"' && chars[i] != '\n' {
                    i += 1;
                }
                if chars.get(i) != Some(&'"') {
                    return fail(line, "unterminated string");
                }
                i += 1;
                toks.push((Tok::Word(chars[start..i].iter().collect()), line));
            } else if ",;:[](){}<>@!+-=".contains(c) {
                toks.push((Tok::Punct(c), line));
                i += 1;
            } else {
                return fail(line, format!("unexpected character `{}`", c.escape_debug()));
            }
        }
        Ok(Lexer { toks })
    }
}

fn number(s: &str, line: u32) -> Result<Tok, PtxError> {
    let bad = || PtxError { line, message: format!("bad number `{s}`") };
    if let Some(hex) = s.strip_prefix("0f").or_else(|| s.strip_prefix("0F")) {
        if hex.len() != 8 {
            return Err(bad());
        }
        return u32::from_str_radix(hex, 16).map(Tok::F32).map_err(|_| bad());
    }
    if let Some(hex) = s.strip_prefix("0d").or_else(|| s.strip_prefix("0D")) {
        if hex.len() != 16 {
            return Err(bad());
        }
        return u64::from_str_radix(hex, 16).map(Tok::F64).map_err(|_| bad());
    }
    let s = s.strip_suffix('U').unwrap_or(s);
    let v = if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).map(|v| v as i64)
    } else {
        s.parse::<u64>().map(|v| v as i64)
    };
    v.map(Tok::Int).map_err(|_| bad())
}

struct Parser {
    toks: Vec<(Tok, u32)>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }
    fn line(&self) -> u32 {
        self.toks.get(self.i).or(self.toks.last()).map_or(1, |t| t.1)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.i).map(|t| t.0.clone());
        self.i += 1;
        t
    }
    fn is(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }
    fn eat(&mut self, c: char) -> bool {
        let yes = self.is(c);
        self.i += yes as usize;
        yes
    }
    fn expect(&mut self, c: char) -> Result<(), PtxError> {
        if self.eat(c) { Ok(()) } else { fail(self.line(), format!("expected `{c}`{}", self.found())) }
    }
    fn found(&self) -> String {
        match self.peek() {
            Some(Tok::Word(w)) => format!(", found `{w}`"),
            Some(Tok::Punct(c)) => format!(", found `{c}`"),
            Some(Tok::Int(v)) => format!(", found `{v}`"),
            Some(Tok::F32(b)) => format!(", found `0f{b:08X}`"),
            Some(Tok::F64(b)) => format!(", found `0d{b:016X}`"),
            None => ", found the end of the file".into(),
        }
    }
    fn word(&mut self, what: &str) -> Result<String, PtxError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.i += 1;
                Ok(w)
            }
            _ => fail(self.line(), format!("expected {what}{}", self.found())),
        }
    }
    fn int(&mut self, what: &str) -> Result<i64, PtxError> {
        let negative = self.eat('-');
        match self.peek() {
            Some(&Tok::Int(v)) => {
                self.i += 1;
                Ok(if negative { v.wrapping_neg() } else { v })
            }
            _ => fail(self.line(), format!("expected {what}{}", self.found())),
        }
    }
    fn size(&mut self, what: &str) -> Result<u32, PtxError> {
        let line = self.line();
        let v = self.int(what)?;
        u32::try_from(v)
            .map_err(|_| PtxError { line, message: format!("{what} {v} is out of range (allowed: 0 to {})", u32::MAX) })
    }
    /// A type directive such as `.u64`, returned without its dot.
    fn ty(&mut self) -> Result<String, PtxError> {
        let line = self.line();
        let w = self.word("a type such as `.u32`")?;
        match w.strip_prefix('.') {
            Some(t) if !t.contains('.') && TYPES.contains(&t) => Ok(t.to_string()),
            _ => fail(line, format!("unsupported type `{w}`")),
        }
    }
    fn skip_to(&mut self, c: char) {
        while self.peek().is_some() && !self.eat(c) {
            self.i += 1;
        }
    }
}

/// Every PTX fundamental type; lowering decides which it supports.
const TYPES: &[&str] =
    &["pred", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "f32", "f64"];

/// Parses a PTX module.
pub fn parse(text: &str) -> Result<Module, PtxError> {
    let mut p = Parser { toks: Lexer::new(text)?.toks, i: 0 };
    let mut module = Module::default();
    while let Some(tok) = p.peek().cloned() {
        let line = p.line();
        let Tok::Word(w) = tok else {
            return fail(line, format!("expected a directive{}", p.found()));
        };
        p.i += 1;
        match w.as_str() {
            ".version" | ".target" | ".address_size" => {
                let value = match p.next() {
                    Some(Tok::Word(v)) => v,
                    Some(Tok::Int(v)) => v.to_string(),
                    _ => return fail(line, format!("`{w}` needs a value")),
                };
                if w == ".address_size" && value != "64" {
                    return fail(line, format!("unsupported `.address_size {value}` (only 64)"));
                }
            }
            ".visible" | ".weak" | ".extern" => {}
            ".entry" => {
                let mut e = header(&mut p, line)?;
                body(&mut p, &mut e)?;
                module.entries.push(e);
            }
            ".func" => {
                let ret = if p.eat('(') {
                    let r = param(&mut p)?;
                    p.expect(')')?;
                    Some(r)
                } else {
                    None
                };
                let mut e = header(&mut p, line)?;
                if !p.eat(';') {
                    body(&mut p, &mut e)?;
                    module.funcs.push(Func { entry: e, ret });
                }
            }
            ".shared" => module.shared.push(variable(&mut p, line, "shared")?),
            ".const" => module.consts.push(const_var(&mut p, line)?),
            ".global" | ".local" | ".tex" | ".surf" | ".samplerref" | ".texref" => {
                return fail(
                    line,
                    format!("unsupported module-level variable in `{w}` (state space not supported yet)"),
                );
            }
            other => return fail(line, format!("unsupported directive `{other}`")),
        }
    }
    Ok(module)
}

/// `.param .TYPE name` (scalars only).
fn param(p: &mut Parser) -> Result<Param, PtxError> {
    let pline = p.line();
    let w = p.word("`.param`")?;
    if w != ".param" {
        return fail(pline, format!("expected `.param`, found `{w}`"));
    }
    let aligned = matches!(p.peek(), Some(Tok::Word(w)) if w == ".align");
    alignment(p, pline)?;
    let ty = p.ty()?;
    if matches!(p.peek(), Some(Tok::Word(w)) if w.starts_with(".ptr")) {
        return fail(pline, "unsupported `.param .ptr` attributes");
    }
    let name = p.word("a parameter name")?;
    // A struct passed by value is an aligned byte array.
    let bytes = if p.eat('[') {
        if !aligned || ty != "b8" {
            return fail(pline, format!("unsupported array parameter `{name}[...]` (only `.align A .b8` structs)"));
        }
        let n = p.size("the struct's bytes")?;
        p.expect(']')?;
        Some(n)
    } else if aligned {
        return fail(pline, format!("unsupported `.param .align` of the scalar `{name}`"));
    } else {
        None
    };
    Ok(Param { name, ty, bytes, line: pline })
}

/// A kernel's or function's name and parameter list.
fn header(p: &mut Parser, line: u32) -> Result<Entry, PtxError> {
    let name = p.word("the kernel's name")?;
    let mut e = Entry {
        name,
        line,
        params: Vec::new(),
        regs: Vec::new(),
        shared: Vec::new(),
        local: Vec::new(),
        body: Vec::new(),
    };
    p.expect('(')?;
    while !p.eat(')') {
        e.params.push(param(p)?);
        if !p.eat(',') && !p.is(')') {
            return fail(p.line(), format!("expected `,` or `)` after a parameter{}", p.found()));
        }
    }
    Ok(e)
}

/// `{ declarations, labels and instructions }`; nested scopes (clang's call sequences) are
/// flattened.
fn body(p: &mut Parser, e: &mut Entry) -> Result<(), PtxError> {
    if let Some(Tok::Word(w)) = p.peek() {
        return fail(p.line(), format!("unsupported directive `{w}` before the body of `{}`", e.name));
    }
    p.expect('{')?;
    let mut depth = 0u32;
    loop {
        let sline = p.line();
        match p.peek().cloned() {
            None => return fail(sline, format!("the body of `{}` is not closed by `}}`", e.name)),
            Some(Tok::Punct('}')) => {
                p.i += 1;
                if depth == 0 {
                    return Ok(());
                }
                depth -= 1;
            }
            Some(Tok::Punct('{')) => {
                p.i += 1;
                depth += 1;
            }
            Some(Tok::Word(w)) if w == ".param" => {
                let d = param(p)?;
                if d.bytes.is_some() {
                    return fail(sline, format!("unsupported struct `{}` passed by value to a call", d.name));
                }
                p.expect(';')?;
                e.body.push(Statement::Param(RegDecl { name: d.name, ty: d.ty, count: None, line: d.line }));
            }
            Some(Tok::Word(w)) if w == ".reg" => {
                p.i += 1;
                let ty = p.ty()?;
                loop {
                    let name = p.word("a register name")?;
                    let count = if p.eat('<') {
                        let n = p.size("a register count")?;
                        p.expect('>')?;
                        Some(n)
                    } else {
                        None
                    };
                    let decl = RegDecl { name, ty: ty.clone(), count, line: sline };
                    // clang declares the same register in every call's scope.
                    if !e.regs.iter().any(|r| (&r.name, &r.ty, r.count) == (&decl.name, &decl.ty, decl.count)) {
                        e.regs.push(decl);
                    }
                    if !p.eat(',') {
                        break;
                    }
                }
                p.expect(';')?;
            }
            Some(Tok::Word(w)) if w == ".shared" => {
                p.i += 1;
                e.shared.push(variable(p, sline, "shared")?);
            }
            Some(Tok::Word(w)) if w == ".local" => {
                p.i += 1;
                e.local.push(variable(p, sline, "local")?);
            }
            Some(Tok::Word(w)) if w.starts_with('.') => {
                return fail(sline, format!("unsupported directive `{w}` in a kernel body"));
            }
            Some(Tok::Word(w)) if p.toks.get(p.i + 1).map(|t| &t.0) == Some(&Tok::Punct(':')) => {
                p.i += 2;
                e.body.push(Statement::Label(w, sline));
            }
            Some(_) => e.body.push(instruction(p)?),
        }
    }
}

/// An optional `.align N` (a power of two) before a variable's type; 1 without it.
fn alignment(p: &mut Parser, line: u32) -> Result<u32, PtxError> {
    if !matches!(p.peek(), Some(Tok::Word(w)) if w == ".align") {
        return Ok(1);
    }
    p.i += 1;
    let align = p.size("an alignment")?;
    if !align.is_power_of_two() {
        return fail(line, format!("alignment {align} is not a power of two"));
    }
    Ok(align)
}

/// `[.align N] .TYPE name[N];` after `.shared` or `.local` (`space`): the type's size times the
/// count, in bytes.
fn variable(p: &mut Parser, line: u32, space: &str) -> Result<SharedVar, PtxError> {
    let align = alignment(p, line)?;
    let ty = p.ty()?;
    let elem =
        type_bytes(&ty).ok_or_else(|| PtxError { line, message: format!("unsupported {space} type `.{ty}`") })?;
    let name = p.word("a variable name")?;
    let count = if p.eat('[') {
        if p.is(']') {
            let what = if space == "shared" { " (dynamic shared memory)" } else { "" };
            return fail(line, format!("unsupported `.{space}` array `{name}[]` of unknown size{what}"));
        }
        let n = p.size("an array length")?;
        p.expect(']')?;
        n
    } else {
        1
    };
    if p.is('=') {
        return fail(line, format!("unsupported initializer of {space} variable `{name}`"));
    }
    p.expect(';')?;
    let bytes = count.checked_mul(elem).ok_or_else(|| PtxError { line, message: format!("`{name}` is too large") })?;
    Ok(SharedVar { name, align: align.max(elem), bytes, line })
}

/// Largest constant data of a module: the 64 KiB of CUDA's `__constant__` memory.
pub const MAX_CONST_BYTES: u32 = 64 * 1024;

/// `[.align N] .TYPE name[[N]] [= VALUE | = {VALUE, ...}];` after `.const`: integer or f32
/// values, each stored little-endian in the type's size; missing ones are zero.
fn const_var(p: &mut Parser, line: u32) -> Result<ConstVar, PtxError> {
    let align = alignment(p, line)?;
    let ty = p.ty()?;
    let elem = match type_bytes(&ty) {
        Some(n) if ty != "f16" => n,
        _ => return fail(line, format!("unsupported `.const` type `.{ty}` (integers of 8 to 64 bits, f32, f64)")),
    };
    let name = p.word("a variable name")?;
    let count = if p.eat('[') {
        let n = if p.is(']') { None } else { Some(p.size("an array length")?) };
        p.expect(']')?;
        n
    } else {
        Some(1)
    };
    let mut values = Vec::new();
    if p.eat('=') {
        let braced = p.eat('{');
        loop {
            let vline = p.line();
            let negative = p.eat('-');
            let v = match p.next() {
                Some(Tok::Int(v)) => {
                    if negative {
                        v.wrapping_neg()
                    } else {
                        v
                    }
                }
                Some(Tok::F32(bits)) if ty == "f32" && !negative => i64::from(bits),
                Some(Tok::F64(bits)) if ty == "f64" && !negative => bits as i64,
                _ => {
                    p.i -= 1;
                    return fail(
                        vline,
                        format!("expected an integer, f32 or f64 value in `{name}`'s initializer{}", p.found()),
                    );
                }
            };
            let bits = 8 * elem;
            if bits < 64 && !(-(1i64 << (bits - 1))..1i64 << bits).contains(&v) {
                return fail(vline, format!("value {v} in `{name}`'s initializer does not fit `.{ty}`"));
            }
            values.push(v);
            if !braced || !p.eat(',') {
                break;
            }
        }
        if braced {
            p.expect('}')?;
        }
    }
    p.expect(';')?;
    let count = count.unwrap_or(values.len() as u32);
    if values.len() as u64 > u64::from(count) {
        return fail(line, format!("`{name}` has {count} elements, its initializer gives {}", values.len()));
    }
    let size = u64::from(count) * u64::from(elem);
    if size > u64::from(MAX_CONST_BYTES) {
        return fail(line, format!("`{name}` is {size} bytes; constant data holds at most {MAX_CONST_BYTES}"));
    }
    let mut bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()[..elem as usize].to_vec()).collect();
    bytes.resize(size as usize, 0);
    Ok(ConstVar { name, align: align.max(elem), bytes, line })
}

/// Bytes of a fundamental type.
pub fn type_bytes(ty: &str) -> Option<u32> {
    Some(match ty {
        "b8" | "u8" | "s8" => 1,
        "b16" | "u16" | "s16" | "f16" => 2,
        "b32" | "u32" | "s32" | "f32" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        _ => return None,
    })
}

fn instruction(p: &mut Parser) -> Result<Statement, PtxError> {
    let line = p.line();
    let guard = if p.eat('@') {
        let negate = p.eat('!');
        Some((p.word("a guard predicate")?, negate))
    } else {
        None
    };
    let opcode = p.word("an instruction")?;
    let base = opcode.split('.').next().unwrap_or_default();
    if base == "call" {
        return call(p, line, guard, opcode);
    }
    if TEXTURE_OPCODES.contains(&base) {
        p.skip_to(';');
        return fail(line, format!("unsupported instruction `{opcode}` (textures and surfaces are not supported)"));
    }
    let mut operands = Vec::new();
    if !p.eat(';') {
        loop {
            operands.push(operand(p, &opcode)?);
            if p.eat(';') {
                break;
            }
            if !p.eat(',') {
                let found = p.found();
                p.skip_to(';');
                return fail(line, format!("expected `,` or `;` in `{opcode}`{found}"));
            }
        }
    }
    Ok(Statement::Instruction(Instruction { line, guard, opcode, operands }))
}

/// `call (ret), callee, (arg, ...);` with the result and the arguments optional.
fn call(p: &mut Parser, line: u32, guard: Option<(String, bool)>, opcode: String) -> Result<Statement, PtxError> {
    let ret = if p.eat('(') {
        let r = p.word("the call's result parameter")?;
        p.expect(')')?;
        p.expect(',')?;
        Some(r)
    } else {
        None
    };
    let callee = p.word("the called function")?;
    if callee.starts_with('%') {
        p.skip_to(';');
        return fail(
            line,
            format!("unsupported indirect `{opcode}` through `{callee}`: only calls of a named `.func`"),
        );
    }
    let mut args = Vec::new();
    if p.eat(',') {
        p.expect('(')?;
        while !p.eat(')') {
            args.push(p.word("a parameter of the call")?);
            if !p.eat(',') && !p.is(')') {
                return fail(p.line(), format!("expected `,` or `)` in the call of `{callee}`{}", p.found()));
            }
        }
    }
    if !p.eat(';') {
        let found = p.found();
        p.skip_to(';');
        return fail(line, format!("expected `;` after the call of `{callee}`{found}"));
    }
    Ok(Statement::Call(Call { line, guard, opcode, callee, ret, args }))
}

/// Texture and surface instructions: refused by name before their `{...}` operands are.
const TEXTURE_OPCODES: &[&str] = &["tex", "tld4", "txq", "suld", "sust", "sured", "suq"];

fn operand(p: &mut Parser, opcode: &str) -> Result<Operand, PtxError> {
    let line = p.line();
    if p.eat('[') {
        let base = p.word("an address register or variable")?;
        // `[%rd+4]`, `[%rd+-4]` (clang's negative offsets) or `[%rd-4]`.
        let offset = if p.eat('+') || p.is('-') { p.int("an address offset")? } else { 0 };
        p.expect(']')?;
        return Ok(Operand::Address { base, offset });
    }
    if p.eat('{') {
        let mut regs = Vec::new();
        loop {
            match p.next() {
                Some(Tok::Word(w)) if w.starts_with('%') => regs.push(w),
                _ => return fail(line, format!("unsupported vector operand in `{opcode}`: registers only")),
            }
            if !p.eat(',') {
                break;
            }
        }
        p.expect('}')?;
        return Ok(Operand::Vector(regs));
    }
    if p.is('-') {
        return Ok(Operand::Int(p.int("a number")?));
    }
    match p.next() {
        Some(Tok::Word(w)) if w.starts_with('%') => Ok(Operand::Reg(w)),
        Some(Tok::Word(w)) if w.starts_with(|c: char| c.is_ascii_digit()) => {
            fail(line, format!("unsupported decimal literal `{w}` in `{opcode}` (floats as 0fXXXXXXXX)"))
        }
        Some(Tok::Word(w)) => Ok(Operand::Symbol(w)),
        Some(Tok::Int(v)) => Ok(Operand::Int(v)),
        Some(Tok::F32(b)) => Ok(Operand::F32(b)),
        Some(Tok::F64(b)) => Ok(Operand::F64(b)),
        _ => fail(line, format!("expected an operand of `{opcode}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_an_entry_with_params_registers_shared_memory_and_guards() {
        let m = parse(
            ".version 6.0\n.target sm_70\n.address_size 64\n.visible .entry k(\n .param .u64 k_param_0,\n .param .f32 k_param_1\n)\n{\n .reg .pred %p<2>;\n .reg .b64 %rd<3>;\n .shared .align 4 .b8 buf[64];\n ld.param.u64 %rd1, [k_param_0];\n@!%p1 bra LBB0_2;\n st.shared.f32 [buf+8], 0f3F800000;\nLBB0_2:\n ret;\n}\n",
        )
        .unwrap();
        let e = &m.entries[0];
        assert_eq!((e.name.as_str(), e.params.len(), e.params[1].ty.as_str()), ("k", 2, "f32"));
        assert_eq!(e.regs[1], RegDecl { name: "%rd".into(), ty: "b64".into(), count: Some(3), line: 10 });
        assert_eq!(e.shared[0], SharedVar { name: "buf".into(), align: 4, bytes: 64, line: 11 });
        let Statement::Instruction(bra) = &e.body[1] else { panic!() };
        assert_eq!((bra.guard.clone(), bra.line), (Some(("%p1".into(), true)), 13));
        let Statement::Instruction(st) = &e.body[2] else { panic!() };
        assert_eq!(st.operands, vec![Operand::Address { base: "buf".into(), offset: 8 }, Operand::F32(0x3f80_0000)]);
        assert_eq!(e.body[3], Statement::Label("LBB0_2".into(), 15));
    }

    #[test]
    fn unsupported_constructs_name_their_line() {
        let e = parse(".version 6.0\n\n.global .u32 counter;\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains(".global"), "{e}");
        let e = parse(".entry k()\n{\n mov.f64 %fd1, 0d3FF00000;\n}\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("0d3FF00000"), "{e}");
        let e = parse(".const .f16 half = 1;\n").unwrap_err();
        assert!(e.message.contains(".f16"), "{e}");
    }
}
