//! Calls to `.func` functions, inlined at the call site before lowering (docs/ptx.md): the model
//! has no call stack, and inlining is what ptxas does with most device functions anyway. Each
//! inlined copy gets its own registers and labels; the parameter variables of a call
//! (`.param .b32 param0;` in its `{ }` scope) become registers, so `st.param`, the callee's
//! `ld.param` of its parameters, its `st.param` of the result and the caller's `ld.param` of it
//! become `mov`s, and the callee's `ret` a branch to the end of its copy.

use super::PtxError;
use super::parse::{Call, Entry, Func, Instruction, Operand, RegDecl, Statement};
use std::collections::{HashMap, HashSet};

/// Largest body after inlining, in statements: a call tree that grows past it is refused
/// rather than filling memory.
const MAX_STATEMENTS: usize = 1 << 20;

fn fail<T>(line: u32, message: impl Into<String>) -> Result<T, PtxError> {
    Err(PtxError { line, message: message.into() })
}

/// `entry` with every call replaced by the callee's body.
pub fn inline_calls(entry: &Entry, funcs: &[Func]) -> Result<Entry, PtxError> {
    let mut inliner = Inliner {
        funcs: funcs.iter().map(|f| (f.entry.name.as_str(), f)).collect(),
        regs: entry.regs.clone(),
        body: Vec::new(),
        sites: 0,
        call_params: 0,
    };
    let frame = Frame { site: None, own: Declared::of(&entry.regs), labels: HashSet::new(), params: HashMap::new() };
    let mut stack = vec![entry.name.clone()];
    inliner.expand(&entry.body, frame, &mut stack)?;
    Ok(Entry { regs: inliner.regs, body: inliner.body, ..entry.clone() })
}

struct Inliner<'a> {
    funcs: HashMap<&'a str, &'a Func>,
    regs: Vec<RegDecl>,
    body: Vec<Statement>,
    sites: u32,
    call_params: u32,
}

/// The registers a body declares: family prefixes and single names.
struct Declared {
    families: HashSet<String>,
    singles: HashSet<String>,
}

impl Declared {
    fn of(regs: &[RegDecl]) -> Declared {
        let families = regs.iter().filter(|r| r.count.is_some()).map(|r| r.name.clone()).collect();
        let singles = regs.iter().filter(|r| r.count.is_none()).map(|r| r.name.clone()).collect();
        Declared { families, singles }
    }

    fn has(&self, name: &str) -> bool {
        let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
        self.singles.contains(name) || prefix.len() < name.len() && self.families.contains(prefix)
    }
}

/// One body being copied: the entry's own (`site` None, names kept) or a callee's copy.
struct Frame {
    site: Option<u32>,
    own: Declared,
    labels: HashSet<String>,
    /// Parameter names (the callee's parameters and result, a call's `.param` variables) and
    /// the registers holding them.
    params: HashMap<String, String>,
}

impl Frame {
    /// A callee's register or label under its copy's own name; the trailing digits stay last,
    /// as they index a register family.
    fn rename(&self, name: &str) -> String {
        let Some(site) = self.site else { return name.to_string() };
        let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
        format!("{prefix}#{site}_{}", &name[prefix.len()..])
    }

    fn operand(&self, o: &Operand) -> Operand {
        match o {
            Operand::Reg(name) if self.own.has(name) => Operand::Reg(self.rename(name)),
            Operand::Symbol(label) if self.labels.contains(label) => Operand::Symbol(self.rename(label)),
            Operand::Address { base, offset } if self.own.has(base) => {
                Operand::Address { base: self.rename(base), offset: *offset }
            }
            Operand::Vector(regs) => {
                Operand::Vector(regs.iter().map(|r| if self.own.has(r) { self.rename(r) } else { r.clone() }).collect())
            }
            other => other.clone(),
        }
    }
}

impl Inliner<'_> {
    fn push(&mut self, s: Statement, line: u32) -> Result<(), PtxError> {
        if self.body.len() >= MAX_STATEMENTS {
            return fail(line, format!("inlining the calls makes more than {MAX_STATEMENTS} statements"));
        }
        self.body.push(s);
        Ok(())
    }

    fn expand(&mut self, body: &[Statement], mut frame: Frame, stack: &mut Vec<String>) -> Result<(), PtxError> {
        frame.labels =
            body.iter().filter_map(|s| if let Statement::Label(l, _) = s { Some(l.clone()) } else { None }).collect();
        let end = frame.site.map(|site| format!("$return#{site}"));
        for s in body {
            match s {
                Statement::Label(name, line) => self.push(Statement::Label(frame.rename(name), *line), *line)?,
                Statement::Param(decl) => {
                    // A call's parameter variable: a register of its own for this call.
                    let reg = format!("%{}#param{}_", decl.name, self.call_params);
                    self.call_params += 1;
                    frame.params.insert(decl.name.clone(), reg.clone());
                    self.regs.push(RegDecl { name: reg, ty: decl.ty.clone(), count: None, line: decl.line });
                }
                Statement::Call(call) => self.call(call, &frame, stack)?,
                Statement::Instruction(ins) => {
                    let ins = self.instruction(ins, &frame, end.as_deref())?;
                    self.push(Statement::Instruction(ins), s.line())?;
                }
            }
        }
        if let Some(end) = end {
            self.push(Statement::Label(end, 0), 0)?;
        }
        Ok(())
    }

    /// An instruction of a body with its names renamed, parameter accesses turned into `mov`s
    /// and, in a callee, `ret` into a branch to the end of its copy.
    fn instruction(&self, ins: &Instruction, frame: &Frame, end: Option<&str>) -> Result<Instruction, PtxError> {
        let guard =
            ins.guard.as_ref().map(|(p, negate)| (if frame.own.has(p) { frame.rename(p) } else { p.clone() }, *negate));
        let mut out = Instruction {
            line: ins.line,
            guard,
            opcode: ins.opcode.clone(),
            operands: ins.operands.iter().map(|o| frame.operand(o)).collect(),
        };
        let base = ins.opcode.split('.').next().unwrap_or_default();
        if let (Some(end), "ret") = (end, base) {
            out.opcode = "bra".into();
            out.operands = vec![Operand::Symbol(end.to_string())];
            return Ok(out);
        }
        let is_param = ins.opcode.starts_with("ld.param.") || ins.opcode.starts_with("st.param.");
        let addr = if base == "ld" { out.operands.get(1) } else { out.operands.first() };
        let param = match addr {
            Some(Operand::Address { base, offset }) if is_param => {
                frame.params.get(base).map(|reg| (base.clone(), *offset, reg.clone()))
            }
            _ => None,
        };
        if let Some((name, offset, reg)) = param {
            if offset != 0 {
                return fail(ins.line, format!("unsupported offset into parameter `{name}` (structs passed by value)"));
            }
            let ty = ins.opcode.rsplit('.').next().unwrap_or_default();
            if !matches!(ty, "b32" | "u32" | "s32" | "f32" | "b64" | "u64" | "s64") {
                return fail(ins.line, format!("unsupported type `.{ty}` of parameter `{name}` (32- and 64-bit only)"));
            }
            let value = if base == "ld" { &out.operands[0] } else { &out.operands[1] };
            let (dst, src) =
                if base == "ld" { (value.clone(), Operand::Reg(reg)) } else { (Operand::Reg(reg), value.clone()) };
            out.opcode = format!("mov.{ty}");
            out.operands = vec![dst, src];
        }
        Ok(out)
    }

    fn call(&mut self, call: &Call, frame: &Frame, stack: &mut Vec<String>) -> Result<(), PtxError> {
        let line = call.line;
        let Some(&func) = self.funcs.get(call.callee.as_str()) else {
            let f = &call.callee;
            return fail(line, format!("unsupported `{}` of `{f}`: the module defines no function `{f}`", call.opcode));
        };
        if stack.contains(&call.callee) {
            let chain = format!("{} → {}", stack.join(" → "), call.callee);
            return fail(
                line,
                format!(
                    "recursive call of `{}` ({chain}): calls are inlined, so recursion is not supported",
                    call.callee
                ),
            );
        }
        if call.guard.is_some() {
            return fail(line, format!("unsupported guarded `{}`: branch around the call", call.opcode));
        }
        if call.args.len() != func.entry.params.len() || call.ret.is_some() != func.ret.is_some() {
            return fail(
                line,
                format!(
                    "`{}` takes {} parameters{}, the call gives {}{}",
                    call.callee,
                    func.entry.params.len(),
                    if func.ret.is_some() { " and returns a value" } else { "" },
                    call.args.len(),
                    if call.ret.is_some() { " and a result" } else { "" }
                ),
            );
        }
        if let Some(d) = func.entry.params.iter().find(|d| d.bytes.is_some()) {
            let message = format!("unsupported struct parameter `{}` of function `{}`", d.name, call.callee);
            return fail(d.line, message);
        }
        for (space, vars) in [("shared", &func.entry.shared), ("local", &func.entry.local)] {
            if let Some(s) = vars.first() {
                return fail(
                    s.line,
                    format!("unsupported `.{space}` variable `{}` inside function `{}`", s.name, call.callee),
                );
            }
        }
        let site = self.sites;
        self.sites += 1;
        let callee_frame = Frame {
            site: Some(site),
            own: Declared::of(&func.entry.regs),
            labels: HashSet::new(),
            params: HashMap::new(),
        };
        let mut params = HashMap::new();
        let names = func.entry.params.iter().map(|p| &p.name).chain(func.ret.as_ref().map(|r| &r.name));
        let given = call.args.iter().chain(&call.ret);
        for (name, arg) in names.zip(given) {
            let Some(reg) = frame.params.get(arg) else {
                return fail(
                    line,
                    format!("`{arg}` in the call of `{}` is not a `.param` variable declared before it", call.callee),
                );
            };
            params.insert(name.clone(), reg.clone());
        }
        for d in &func.entry.regs {
            self.regs.push(RegDecl { name: callee_frame.rename(&d.name), ..d.clone() });
        }
        stack.push(call.callee.clone());
        self.expand(&func.entry.body, Frame { params, ..callee_frame }, stack)?;
        stack.pop();
        Ok(())
    }
}
