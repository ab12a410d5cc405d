//! Parser of the kernel IR text (grammar in `docs/kernel-ir.md`). Errors carry line and column.

use super::*;
use std::collections::HashMap;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Num(i64),
    Sym(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    col: u32,
}

fn err<T>(line: u32, col: u32, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError { line, col, message: message.into() })
}

fn tokenize(text: &str, line: u32) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i as u32 + 1;
        if c == ';' || (c == '/' && chars.get(i + 1) == Some(&'/')) {
            break;
        }
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let s: String = chars[start..i].iter().filter(|&&c| c != '_').collect();
            let value = if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                i64::from_str_radix(hex, 16)
            } else {
                s.parse()
            };
            match value {
                Ok(v) if v <= u32::MAX as i64 => out.push(Token { tok: Tok::Num(v), col }),
                _ => return err(line, col, format!("bad number `{s}` (decimal or 0x hex, at most 32 bits)")),
            }
        } else if c.is_ascii_alphabetic() || c == '_' || c == '.' || c == '%' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | '.' | '%')) {
                i += 1;
            }
            out.push(Token { tok: Tok::Word(chars[start..i].iter().collect()), col });
        } else if ",[]+-*/:@!".contains(c) {
            out.push(Token { tok: Tok::Sym(c), col });
            i += 1;
        } else {
            return err(line, col, format!("unexpected character `{}`", c.escape_default()));
        }
    }
    Ok(out)
}

/// Operand shapes of each mnemonic.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// d, a, b
    Binary,
    /// d, a, b, c
    Ternary,
    /// d, a
    Unary,
    /// d, a, b, p
    Select,
    /// p, a, b
    Compare,
    /// d, [a + off]
    Load,
    /// [a + off], v
    Store,
    /// label
    Branch,
    /// no operands
    Bare,
}

fn mnemonic(word: &str) -> Option<(Op, Shape)> {
    use Op::*;
    use Shape::*;
    let cmp = |s: &str| {
        Some(match s {
            "eq" => Cmp::Eq,
            "ne" => Cmp::Ne,
            "lt" => Cmp::Lt,
            "le" => Cmp::Le,
            "gt" => Cmp::Gt,
            "ge" => Cmp::Ge,
            "ltu" => Cmp::Ltu,
            "leu" => Cmp::Leu,
            "gtu" => Cmp::Gtu,
            "geu" => Cmp::Geu,
            _ => return None,
        })
    };
    if let Some(c) = word.strip_prefix("setp.") {
        return cmp(c).map(|c| (Setp(c), Compare));
    }
    Some(match word {
        "add" => (Add, Binary),
        "sub" => (Sub, Binary),
        "mul" => (Mul, Binary),
        "mad" => (Mad, Ternary),
        "and" => (And, Binary),
        "or" => (Or, Binary),
        "xor" => (Xor, Binary),
        "shl" => (Shl, Binary),
        "shr" => (Shr, Binary),
        "sra" => (Sra, Binary),
        "min" => (Min, Binary),
        "max" => (Max, Binary),
        "mov" => (Mov, Unary),
        "selp" => (Selp, Select),
        "popc" => (Popc, Unary),
        "clz" => (Clz, Unary),
        "isqrt" => (Isqrt, Unary),
        "rcp" => (Rcp, Unary),
        "ld.global" => (LdGlobal, Load),
        "st.global" => (StGlobal, Store),
        "ld.shared" => (LdShared, Load),
        "st.shared" => (StShared, Store),
        "ld.tex" => (LdTex, Load),
        "bra" => (Bra, Branch),
        "exit" => (Exit, Bare),
        "bar" => (Bar, Bare),
        _ => return Option::None,
    })
}

const MNEMONICS: &str = "add sub mul mad and or xor shl shr sra min max mov selp setp.<cmp> popc clz isqrt rcp \
                         ld.global st.global ld.shared st.shared ld.tex bra exit bar";

/// The mnemonic of `op` as kernel files write it (`setp` without its comparison), or for an
/// operation only PTX reaches, its PTX name.
pub fn mnemonic_of(op: Op) -> &'static str {
    if let Some(name) = op.ptx_only_name() {
        return name;
    }
    if matches!(op, Op::Setp(_)) {
        return "setp";
    }
    MNEMONICS.split_whitespace().find(|w| mnemonic(w).is_some_and(|(o, _)| o == op)).expect("every op has a mnemonic")
}

fn special(word: &str) -> Option<Special> {
    Some(match word {
        "%tid" => Special::Tid,
        "%ntid" => Special::Ntid,
        "%ctaid" => Special::Ctaid,
        "%nctaid" => Special::Nctaid,
        "%ctaid.x" => Special::CtaidX,
        "%ctaid.y" => Special::CtaidY,
        "%nctaid.x" => Special::NctaidX,
        "%nctaid.y" => Special::NctaidY,
        "%lane" => Special::Lane,
        "%warp" => Special::Warp,
        "%gtid" => Special::Gtid,
        _ => return None,
    })
}

fn register(word: &str, prefix: char, max: u32) -> Option<u32> {
    let digits = word.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    digits.parse().ok().filter(|&n| n <= max)
}

/// Cursor over the tokens of one line.
struct Cursor<'a> {
    toks: &'a [Token],
    i: usize,
    line: u32,
    end_col: u32,
    /// Value and line of each `.const`.
    consts: &'a HashMap<String, (Expr, u32)>,
    /// Operands of this line's instruction derived from the threads per block.
    derived: Vec<(Operand, Expr)>,
}

impl Cursor<'_> {
    fn col(&self) -> u32 {
        self.toks.get(self.i).map(|t| t.col).unwrap_or(self.end_col)
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.i).map(|t| t.tok.clone());
        self.i += 1;
        t
    }

    fn fail<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        err(self.line, self.col(), message)
    }

    fn expect_sym(&mut self, c: char) -> Result<(), ParseError> {
        match self.peek() {
            Some(Tok::Sym(s)) if *s == c => {
                self.i += 1;
                Ok(())
            }
            _ => self.fail(format!("expected `{c}`")),
        }
    }

    fn done(&self) -> Result<(), ParseError> {
        if self.i < self.toks.len() { self.fail("unexpected text at the end of the line") } else { Ok(()) }
    }

    fn word(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.i += 1;
                Ok(w)
            }
            _ => self.fail(format!("expected {what}")),
        }
    }

    /// A number, optionally negative, a `.const` name or `%ntid` (the threads per block, which
    /// makes the value derived).
    fn term(&mut self) -> Result<Expr, ParseError> {
        let negative = matches!(self.peek(), Some(Tok::Sym('-')));
        if negative {
            self.i += 1;
        }
        let col = self.col();
        let e = match self.next() {
            Some(Tok::Num(n)) => Expr::Num(n as u32),
            Some(Tok::Word(w)) if self.consts.contains_key(&w) => self.consts[&w].0.clone(),
            Some(Tok::Word(w)) if w == "%ntid" => Expr::Ntid,
            Some(Tok::Word(w)) if register(&w, 'r', u32::MAX).is_some() => {
                return err(self.line, col, format!("expected a number or a constant, found register `{w}`"));
            }
            Some(Tok::Word(w)) => {
                return err(self.line, col, format!("unknown constant `{w}` (define it with .const)"));
            }
            _ => return err(self.line, col, "expected a number or a constant"),
        };
        Ok(match (negative, e) {
            (false, e) => e,
            (true, Expr::Num(v)) => Expr::Num(v.wrapping_neg()),
            (true, e) => Expr::bin(BinOp::Sub, Expr::Num(0), e),
        })
    }

    /// A number, optionally negative, or a `.const` name not derived from the block size.
    fn constant(&mut self) -> Result<u32, ParseError> {
        let col = self.col();
        match self.term()? {
            Expr::Num(v) => Ok(v),
            _ => err(
                self.line,
                col,
                "this value depends on the threads per block (%ntid): only instruction operands and the blocks of `.grid` may",
            ),
        }
    }

    /// An instruction's immediate at `at`: its value, or 0 until a derived one is evaluated.
    fn immediate(&mut self, e: Expr, at: Operand) -> u32 {
        match e {
            Expr::Num(v) => v,
            e => {
                self.derived.push((at, e));
                0
            }
        }
    }

    fn reg(&mut self) -> Result<Reg, ParseError> {
        let col = self.col();
        let w = self.word("a register r0..r255")?;
        match register(&w, 'r', 255) {
            Some(r) => Ok(r as Reg),
            None => err(self.line, col, format!("expected a register r0..r255, found `{w}`")),
        }
    }

    fn pred(&mut self) -> Result<u8, ParseError> {
        let col = self.col();
        let w = self.word("a predicate p0..p7")?;
        match register(&w, 'p', 7) {
            Some(p) => Ok(p as u8),
            None => err(self.line, col, format!("expected a predicate p0..p7, found `{w}`")),
        }
    }

    /// A count or size (a number or constant, not negative) within `lo..=hi`.
    fn size(&mut self, what: &str, lo: u32, hi: u32) -> Result<u32, ParseError> {
        let col = self.col();
        if matches!(self.peek(), Some(Tok::Sym('-'))) {
            return err(self.line, col, format!("{what} cannot be negative (allowed: {lo} to {hi})"));
        }
        let v = self.constant()?;
        if !(lo..=hi).contains(&v) {
            return err(self.line, col, format!("{what} {v} is out of range (allowed: {lo} to {hi})"));
        }
        Ok(v)
    }

    /// A value operand (source `slot`): register, special register, number or constant.
    fn value(&mut self, slot: usize) -> Result<Src, ParseError> {
        let col = self.col();
        match self.peek() {
            Some(Tok::Word(w)) if w.starts_with('%') => {
                let w = w.clone();
                self.i += 1;
                special(&w).map(Src::Special).ok_or(()).or_else(|_| {
                    err(
                        self.line,
                        col,
                        format!(
                            "unknown special register `{w}` (allowed: %tid %ntid %ctaid %nctaid %ctaid.x %ctaid.y %nctaid.x %nctaid.y %lane %warp %gtid)"
                        ),
                    )
                })
            }
            Some(Tok::Word(w)) if register(w, 'r', u32::MAX).is_some() => self.reg().map(Src::Reg),
            _ => {
                let e = self.term()?;
                Ok(Src::Imm(self.immediate(e, Operand::Src(slot))))
            }
        }
    }

    /// `[base]`, `[base + k]` or `[base - k]`; base is a register or a constant.
    fn address(&mut self) -> Result<(Src, i32), ParseError> {
        self.expect_sym('[')?;
        let base = match self.peek() {
            Some(Tok::Word(w)) if register(w, 'r', u32::MAX).is_some() => Src::Reg(self.reg()?),
            _ => {
                let e = self.term()?;
                Src::Imm(self.immediate(e, Operand::Src(0)))
            }
        };
        let offset = match self.peek() {
            Some(Tok::Sym('+')) => {
                self.i += 1;
                let e = self.term()?;
                self.immediate(e, Operand::Offset) as i32
            }
            Some(Tok::Sym('-')) => {
                self.i += 1;
                let e = match self.term()? {
                    Expr::Num(v) => Expr::Num(v.wrapping_neg()),
                    e => Expr::bin(BinOp::Sub, Expr::Num(0), e),
                };
                self.immediate(e, Operand::Offset) as i32
            }
            _ => 0,
        };
        if !matches!(self.peek(), Some(Tok::Sym(']'))) {
            return self.fail("expected `]`: an address is a register or constant plus a constant");
        }
        self.i += 1;
        Ok((base, offset))
    }
}

/// Limits of a kernel file (docs/kernel-ir.md).
pub const MAX_BLOCKS: u32 = 4096;
pub const MAX_THREADS: u32 = 4096;
pub const MAX_SHARED_BYTES: u32 = 1 << 20;
/// Global-memory words `.data` and `.fill` may initialize together (16 MiB).
pub const MAX_DATA_WORDS: u32 = 1 << 22;
/// Directives a kernel gives at most once.
const ONCE: [&str; 4] = [".kernel", ".grid", ".shared", ".min_threads"];

struct Fixup {
    instr: usize,
    label: String,
    line: u32,
    col: u32,
}

/// Parses kernel text and runs the static analyses.
pub fn parse(text: &str) -> Result<Kernel, ParseError> {
    let mut name = None;
    let mut grid = None;
    let mut min_threads = None;
    let mut shared_bytes = 0;
    let mut data = Vec::new();
    let mut code: Vec<Instr> = Vec::new();
    let mut pos = Vec::new();
    let mut consts: HashMap<String, (Expr, u32)> = HashMap::new();
    let mut derived = Derived::default();
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut data_words = 0u32;
    let mut labels: HashMap<String, (usize, u32)> = HashMap::new();
    let mut fixups = Vec::new();

    for (n, raw) in text.lines().enumerate() {
        let line = n as u32 + 1;
        let toks = tokenize(raw, line)?;
        let mut c = Cursor {
            toks: &toks,
            i: 0,
            line,
            end_col: raw.chars().count() as u32 + 1,
            consts: &consts,
            derived: Vec::new(),
        };
        // Labels.
        while let (Some(Tok::Word(w)), Some(Tok::Sym(':'))) =
            (c.toks.get(c.i).map(|t| &t.tok), c.toks.get(c.i + 1).map(|t| &t.tok))
        {
            if !w.chars().next().is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_') || w.contains(['.', '%']) {
                return c.fail(format!("bad label name `{w}`"));
            }
            if let Some((_, first)) = labels.get(w) {
                return c.fail(format!("label `{w}` is already defined on line {first}"));
            }
            labels.insert(w.clone(), (code.len(), line));
            c.i += 2;
        }
        let mut new_const = None;
        let Some(first) = c.peek().cloned() else { continue };
        let col = c.col();
        match first {
            Tok::Word(w) if w.starts_with('.') => {
                c.i += 1;
                if let Some(first) = seen.get(w.as_str()).filter(|_| ONCE.contains(&w.as_str())) {
                    return err(line, col, format!("`{w}` is given twice (first on line {first})"));
                }
                seen.insert(w.clone(), line);
                match w.as_str() {
                    ".kernel" => name = Some(c.word("a kernel name")?),
                    ".grid" => grid = Some(grid_line(&mut c)?),
                    ".min_threads" => {
                        min_threads = Some((c.size("the fewest threads per block", 1, MAX_THREADS)?, col))
                    }
                    ".shared" => {
                        let bytes = c.size("shared memory bytes", 0, MAX_SHARED_BYTES)?;
                        if bytes % 4 != 0 {
                            return err(line, col, "shared memory must be a multiple of 4 bytes");
                        }
                        shared_bytes = bytes;
                    }
                    ".const" => {
                        let name_col = c.col();
                        let k = c.word("a constant name")?;
                        if register(&k, 'r', u32::MAX).is_some()
                            || register(&k, 'p', u32::MAX).is_some()
                            || k.contains(['.', '%'])
                        {
                            return err(line, name_col, format!("`{k}` cannot be a constant name"));
                        }
                        if let Some((_, first)) = consts.get(&k) {
                            return err(line, name_col, format!("constant `{k}` is already defined on line {first}"));
                        }
                        new_const = Some((k, const_value(&mut c)?));
                    }
                    ".data" | ".fill" => {
                        let addr = c.constant()?;
                        if addr % 4 != 0 {
                            return err(line, col, format!("data address 0x{addr:x} is not a multiple of 4"));
                        }
                        let left = MAX_DATA_WORDS - data_words;
                        let too_many = || {
                            format!(
                                "more than {MAX_DATA_WORDS} initialized words in the kernel (`.data` and `.fill` together; {data_words} before this line)"
                            )
                        };
                        let words = if w == ".data" {
                            let mut words = Vec::new();
                            while c.peek().is_some() {
                                if words.len() as u32 == left {
                                    return c.fail(too_many());
                                }
                                words.push(c.constant()?);
                            }
                            words
                        } else {
                            let count_col = c.col();
                            let count = c.size("the word count", 1, MAX_DATA_WORDS)?;
                            if count > left {
                                return err(line, count_col, too_many());
                            }
                            let value = c.constant()?;
                            vec![value; count as usize]
                        };
                        if addr as u64 + 4 * words.len() as u64 > 1 << 32 {
                            return err(line, col, "the words run past the end of the 4 GiB address space");
                        }
                        data_words += words.len() as u32;
                        data.push(DataInit { addr, words });
                    }
                    _ => {
                        return err(
                            line,
                            col,
                            format!(
                                "unknown directive `{w}` (allowed: .kernel .grid .min_threads .shared .const .data .fill)"
                            ),
                        );
                    }
                }
                c.done()?;
                if let Some((k, v)) = new_const {
                    consts.insert(k, (v, line));
                }
            }
            _ => {
                let ins = instruction(&mut c, code.len(), &mut fixups)?;
                c.done()?;
                derived.operands.extend(c.derived.drain(..).map(|(at, e)| (code.len(), at, e)));
                code.push(ins);
                pos.push(Pos { line, col });
            }
        }
    }

    let last_line = text.lines().count() as u32;
    let Some(name) = name else { return err(1, 1, "missing `.kernel NAME`") };
    let Some(grid) = grid else { return err(1, 1, "missing `.grid BLOCKS THREADS`") };
    let threads = grid.threads;
    let min_threads = match min_threads {
        Some((m, col)) if m > threads => {
            return err(
                seen[".min_threads"],
                col,
                format!("`.min_threads` {m} is more than the {threads} threads per block of `.grid`"),
            );
        }
        Some((m, _)) => m,
        None => 1,
    };
    // Derived values at the declared block size.
    let blocks_x = match &grid.blocks_x {
        Expr::Num(v) => *v,
        e => {
            let v = e.eval(threads).unwrap_or(0);
            if !(1..=MAX_BLOCKS).contains(&v) {
                return err(
                    grid.line,
                    grid.col,
                    format!(
                        "{} {v} (at %ntid = {threads}) is out of range (allowed: 1 to {MAX_BLOCKS}; a division by zero gives 0)",
                        grid.what
                    ),
                );
            }
            derived.blocks_x = Some(e.clone());
            v
        }
    };
    if blocks_x * grid.blocks_y > MAX_BLOCKS {
        return err(
            grid.line,
            grid.col,
            format!("the grid has {} blocks (allowed: 1 to {MAX_BLOCKS})", blocks_x * grid.blocks_y),
        );
    }
    if code.is_empty() {
        return err(last_line.max(1), 1, "the kernel has no instructions");
    }
    resolve(&mut code, &fixups, &labels)?;
    let last = code.last().unwrap();
    if last.guard.is_some() || !matches!(last.op, Op::Exit | Op::Bra) {
        let p = pos.last().unwrap();
        return err(p.line, p.col, "control can run past the last instruction: end the kernel with `exit` or `bra`");
    }
    let regs = code
        .iter()
        .flat_map(|i| i.dst.into_iter().chain(i.src_regs().map(|(_, r)| r)))
        .map(|r| r as u32 + 1)
        .max()
        .unwrap_or(0);
    let reconverge = cfg::reconvergence(&code);
    for (i, operand, e) in &derived.operands {
        let Some(v) = e.eval(threads) else {
            return err(pos[*i].line, pos[*i].col, format!("a constant divides by zero at %ntid = {threads}"));
        };
        match operand {
            Operand::Src(s) => code[*i].srcs[*s] = Src::Imm(v),
            Operand::Offset => code[*i].offset = v as i32,
        }
    }
    let mut kernel = Kernel {
        name,
        blocks: blocks_x * grid.blocks_y,
        blocks_y: grid.blocks_y,
        threads,
        min_threads,
        derived,
        shared_bytes,
        data,
        code,
        pos,
        regs,
        reconverge,
        notes: Vec::new(),
    };
    kernel.notes = passes::annotate(&kernel);
    Ok(kernel)
}

/// A `.const` value: a number, constant or `%ntid`, or two of them joined by `+ - * /`
/// (evaluated now unless `%ntid` is involved).
fn const_value(c: &mut Cursor) -> Result<Expr, ParseError> {
    let a = c.term()?;
    let op = match c.peek() {
        Some(Tok::Sym('+')) => BinOp::Add,
        Some(Tok::Sym('-')) => BinOp::Sub,
        Some(Tok::Sym('*')) => BinOp::Mul,
        Some(Tok::Sym('/')) => BinOp::Div,
        _ => return Ok(a),
    };
    let col = c.col();
    c.i += 1;
    let e = Expr::bin(op, a, c.term()?);
    if e.derived() {
        if e.values() > MAX_DERIVED_VALUES {
            return err(
                c.line,
                col,
                format!("a constant derived from %ntid may combine at most {MAX_DERIVED_VALUES} values"),
            );
        }
        return Ok(e);
    }
    match e.eval(0) {
        Some(v) => Ok(Expr::Num(v)),
        None => err(c.line, col, "division by zero"),
    }
}

/// A `.grid` line as written.
struct Grid {
    /// Blocks along x: derived from `%ntid` or a number.
    blocks_x: Expr,
    blocks_y: u32,
    threads: u32,
    /// Where the blocks are, and what they are called in errors.
    line: u32,
    col: u32,
    what: &'static str,
}

/// `.grid BLOCKS THREADS` or `.grid BLOCKS_X BLOCKS_Y THREADS`.
fn grid_line(c: &mut Cursor) -> Result<Grid, ParseError> {
    let two_d = c.toks[c.i..].iter().filter(|t| t.tok != Tok::Sym('-')).count() >= 3;
    let what = if two_d { "blocks along x" } else { "blocks in the grid" };
    let col = c.col();
    if matches!(c.peek(), Some(Tok::Sym('-'))) {
        return c.fail(format!("{what} cannot be negative (allowed: 1 to {MAX_BLOCKS})"));
    }
    let blocks_x = match c.term()? {
        Expr::Num(v) if !(1..=MAX_BLOCKS).contains(&v) => {
            return err(c.line, col, format!("{what} {v} is out of range (allowed: 1 to {MAX_BLOCKS})"));
        }
        e => e,
    };
    let blocks_y = if two_d { c.size("blocks along y", 1, MAX_BLOCKS)? } else { 1 };
    let threads = c.size("threads per block", 1, MAX_THREADS)?;
    Ok(Grid { blocks_x, blocks_y, threads, line: c.line, col, what })
}

/// One instruction (its guard, mnemonic and operands), the `at`-th of the kernel; a branch's
/// label is resolved once every label is known (`fixups`).
fn instruction(c: &mut Cursor, at: usize, fixups: &mut Vec<Fixup>) -> Result<Instr, ParseError> {
    let guard = if matches!(c.peek(), Some(Tok::Sym('@'))) {
        c.i += 1;
        let negate = matches!(c.peek(), Some(Tok::Sym('!')));
        if negate {
            c.i += 1;
        }
        Some(Guard { pred: c.pred()?, negate })
    } else {
        None
    };
    let mcol = c.col();
    let m = c.word("an instruction")?;
    let Some((op, shape)) = mnemonic(&m) else {
        return err(c.line, mcol, format!("unknown instruction `{m}` (allowed: {MNEMONICS})"));
    };
    let mut ins = Instr { op, guard, dst: None, pdst: None, srcs: [Src::None; 3], psrc: None, offset: 0, target: 0 };
    match shape {
        Shape::Binary | Shape::Ternary | Shape::Unary | Shape::Select => {
            ins.dst = Some(c.reg()?);
            let n = match shape {
                Shape::Unary => 1,
                Shape::Ternary => 3,
                _ => 2,
            };
            for s in 0..n {
                c.expect_sym(',')?;
                ins.srcs[s] = c.value(s)?;
            }
            if shape == Shape::Select {
                c.expect_sym(',')?;
                ins.psrc = Some(c.pred()?);
            }
        }
        Shape::Compare => {
            ins.pdst = Some(c.pred()?);
            for s in 0..2 {
                c.expect_sym(',')?;
                ins.srcs[s] = c.value(s)?;
            }
        }
        Shape::Load => {
            ins.dst = Some(c.reg()?);
            c.expect_sym(',')?;
            (ins.srcs[0], ins.offset) = c.address()?;
        }
        Shape::Store => {
            (ins.srcs[0], ins.offset) = c.address()?;
            c.expect_sym(',')?;
            ins.srcs[1] = c.value(1)?;
        }
        Shape::Branch => {
            let lcol = c.col();
            let label = c.word("a label")?;
            fixups.push(Fixup { instr: at, label, line: c.line, col: lcol });
        }
        Shape::Bare => {}
    }
    Ok(ins)
}

/// Sets every branch's target to its label's instruction.
fn resolve(code: &mut [Instr], fixups: &[Fixup], labels: &HashMap<String, (usize, u32)>) -> Result<(), ParseError> {
    for f in fixups {
        match labels.get(&f.label) {
            Some(&(target, _)) if target < code.len() => code[f.instr].target = target as u32,
            Some(_) => {
                return err(
                    f.line,
                    f.col,
                    format!("label `{}` is at the end of the kernel, after every instruction", f.label),
                );
            }
            None => return err(f.line, f.col, format!("unknown label `{}`", f.label)),
        }
    }
    Ok(())
}
