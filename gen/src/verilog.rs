//! Small typed helpers for writing Verilog-2005: ports, declarations, literals, instances.
//! Generators build a [`Module`] from these; a block that others instantiate declares its ports
//! once in a typed struct ([`Ports`]), and its instances are connected through that struct.
//! Widths and connections are checked here, so a generator bug fails in `cargo test` instead of
//! producing lint warnings.

use serde::{Deserialize, Serialize};
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    Input,
    Output,
}

/// A module port, as declared and as listed in `manifest.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub width: u32,
    pub comment: String,
    /// Output driven from an `always` block (declared `output reg`).
    #[serde(skip)]
    pub is_reg: bool,
    /// Declared with a range even when 1 bit wide (a vector that may have one element).
    #[serde(skip)]
    pub vector: bool,
}

impl Port {
    /// The port as a signal of its module's body.
    pub fn sig(&self) -> Sig {
        Sig::new(&self.name, self.width)
    }

    pub fn input(name: &str, width: u32, comment: &str) -> Port {
        Port { name: name.into(), dir: Dir::Input, width, comment: comment.into(), is_reg: false, vector: width > 1 }
    }
    pub fn output(name: &str, width: u32, comment: &str) -> Port {
        Port { dir: Dir::Output, ..Port::input(name, width, comment) }
    }
    /// Forces a range declaration (`[0:0]` for one bit) for per-element vectors.
    pub fn vector(mut self) -> Port {
        self.vector = true;
        self
    }
    /// Declares an output as `reg`.
    pub fn reg(mut self) -> Port {
        self.is_reg = true;
        self
    }
}

/// A Verilog expression with its width: what an instance port is connected to. The width is
/// the generator's claim about the expression; [`Module::instance`] checks it against the port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sig {
    pub expr: String,
    pub width: u32,
}

impl Sig {
    pub fn new(expr: impl Into<String>, width: u32) -> Sig {
        Sig { expr: expr.into(), width }
    }

    /// The wire an output nothing reads is connected to, on purpose: `unused_<name>` (the lint
    /// waives `unused` names).
    pub fn unused(name: &str, width: u32) -> Sig {
        Sig::new(format!("unused_{name}"), width)
    }

    /// A sized decimal literal.
    pub fn lit(width: u32, value: u64) -> Sig {
        Sig::new(lit(width, value), width)
    }

    /// Bit `i` of a named vector.
    pub fn bit(&self, i: u32) -> Sig {
        assert!(i < self.width, "bit {i} of {} ({} bits)", self.expr, self.width);
        Sig::new(format!("{}[{i}]", self.expr), 1)
    }

    /// Element `i` of a named vector of `width`-bit elements (see [`slice`]).
    pub fn slice(&self, i: u32, width: u32) -> Sig {
        assert!((i + 1) * width <= self.width, "element {i} x {width} of {} ({} bits)", self.expr, self.width);
        Sig::new(slice(&self.expr, i, width), width)
    }

    /// The signal replicated `n` times: `{n{expr}}`.
    pub fn repeat(&self, n: u32) -> Sig {
        Sig::new(format!("{{{n}{{{}}}}}", self.expr), n * self.width)
    }
}

impl std::fmt::Display for Sig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.expr)
    }
}

/// Where element `i` of a port made of equal elements sits, with the numbers of this design:
/// `"lane i at [32i+31:32i]"`, `"slot i at bit i"`.
pub fn packing(element: &str, width: u32) -> String {
    if width == 1 {
        format!("{element} i at bit i")
    } else {
        format!("{element} i at [{width}i+{}:{width}i]", width - 1)
    }
}

/// `[w-1:0] ` or nothing for a scalar.
pub fn range(width: u32, vector: bool) -> String {
    if width > 1 || vector { format!("[{}:0] ", width - 1) } else { String::new() }
}

/// `wire [w-1:0] name;`
pub fn wire(name: &str, width: u32) -> String {
    format!("  wire {}{name};\n", range(width, false))
}

/// `wire [w-1:0] name;` with a range even for one bit: a per-element vector that is indexed.
pub fn vector_wire(name: &str, width: u32) -> String {
    format!("  wire {}{name};\n", range(width, true))
}

/// `reg [w-1:0] name;`
pub fn reg(name: &str, width: u32) -> String {
    format!("  reg  {}{name};\n", range(width, false))
}

/// `reg [w-1:0] name;` with a range even for one bit: a per-element vector that is indexed.
pub fn vector_reg(name: &str, width: u32) -> String {
    format!("  reg  {}{name};\n", range(width, true))
}

/// Sized decimal literal.
pub fn lit(width: u32, value: u64) -> String {
    format!("{width}'d{value}")
}

/// Zero- or truncation-resizes `expr` (of width `from`) to `to` bits without width warnings.
pub fn resize(expr: &str, from: u32, to: u32) -> String {
    use std::cmp::Ordering::*;
    match to.cmp(&from) {
        Equal => expr.to_string(),
        Less if to == 1 => format!("{expr}[0]"),
        Less => format!("{expr}[{}:0]", to - 1),
        Greater => format!("{{{{{}{{1'b0}}}}, {expr}}}", to - from),
    }
}

/// Bit slice `expr[(i+1)*w-1 : i*w]` of a flattened array of `w`-bit elements.
pub fn slice(expr: &str, index: u32, width: u32) -> String {
    if width == 1 {
        format!("{expr}[{index}]")
    } else {
        format!("{expr}[{}:{}]", (index + 1) * width - 1, index * width)
    }
}

/// The binary index of the set bit of the one-hot `n`-bit vector `v` (`crate::layout::geometry::index_bits(n)` bits).
pub fn onehot_index(v: &str, n: u32) -> String {
    if n == 1 {
        return "1'b0".into();
    }
    let bits: Vec<String> = (0..crate::layout::geometry::index_bits(n))
        .rev()
        .map(|bit| {
            let mask: String = (0..n).rev().map(|i| if (i >> bit) & 1 == 1 { '1' } else { '0' }).collect();
            format!("|({v} & {n}'b{mask})")
        })
        .collect();
    format!("{{{}}}", bits.join(", "))
}

/// One-hot AND-OR multiplexer: `|(sel[i] ? data_i : 0)` over `(select, data)` pairs of width `w`.
pub fn onehot_mux(terms: &[(String, String)], width: u32) -> String {
    terms
        .iter()
        .map(
            |(sel, data)| {
                if width == 1 { format!("({sel} & {data})") } else { format!("({{{width}{{{sel}}}}} & {data})") }
            },
        )
        .collect::<Vec<_>>()
        .join("\n      | ")
}

/// The lowest set bit of the `n`-bit vector `v`, one-hot. Up to `PREFIX_MAX` bits, each bit is
/// kept when no lower bit is set (`v & ~{|v[n-2:0], ..., v[0], 1'b0}`): plain logic the
/// synthesizer merges with what feeds and follows it, where the adder form `v & (~v + 1)`
/// becomes a carry chain it cannot see through (on ECP5 the round-robin arbiters' carry chain
/// sat on the MRF's critical path). Wider vectors keep the adder: their carry chain is the
/// faster path.
pub fn lowest_set(v: &str, n: u32) -> String {
    if n == 1 {
        return v.to_string();
    }
    if n > PREFIX_MAX {
        return format!("{v} & (~{v} + {})", lit(n, 1));
    }
    let below: Vec<String> = (1..n)
        .rev()
        .map(|i| if i == 1 { format!("{v}[0]") } else { format!("(|{v}[{}:0])", i - 1) })
        .chain(["1'b0".to_string()])
        .collect();
    format!("{v} & ~{{{}}}", below.join(", "))
}

/// The widest vector `lowest_set` writes without an adder.
const PREFIX_MAX: u32 = 8;

/// `onehot = 1 << index`, an `n`-bit one-hot decode of the binary `index`.
pub fn onehot_decode(onehot: &str, index: &str, n: u32) -> String {
    if n == 1 {
        return format!("  assign {onehot} = 1'b1;\n");
    }
    format!("  assign {onehot} = {{{}, 1'b1}} << {index};\n", lit(n - 1, 0))
}

/// One warp's element of a per-warp vector, by a multiplexer tree on the binary `warp`
/// (`warp_bits` bits): element `per_warp·w + i` of `vector` (elements of `width` bits) for
/// `w = warp`. Returns the declaration of `name`, the elements laid out again at a power-of-two
/// stride (zero above each, and for warp ids past `warps`), and the select. A part-select of
/// `vector` at `width·(per_warp·warp + i)` would make its index a multiplication, which FPGA
/// synthesis maps to DSP blocks on the path; a power-of-two stride makes it a shift.
pub fn warp_pick(
    name: &str,
    vector: &str,
    warp: &str,
    (warps, warp_bits): (u32, u32),
    (per_warp, i, width): (u32, u32, u32),
) -> (String, String) {
    let stride = width.next_power_of_two();
    let shift = stride.trailing_zeros();
    let index = if shift == 0 { warp.to_string() } else { format!("{{{warp}, {}}}", lit(shift, 0)) };
    let select = |v: &str| if width == 1 { format!("{v}[{index}]") } else { format!("{v}[{index} +: {width}]") };
    if per_warp == 1 && i == 0 && stride == width {
        // The vector's own stride is a power of two already.
        return (String::new(), select(vector));
    }
    let slots = 1u32 << warp_bits;
    let element = |w: u32| {
        let e = slice(vector, per_warp * w + i, width);
        match (w < warps, stride - width) {
            (false, _) => lit(stride, 0),
            (true, 0) => e,
            (true, pad) => format!("{}, {e}", lit(pad, 0)),
        }
    };
    let elements: Vec<String> = (0..slots).rev().map(element).collect();
    let mut decl = vector_wire(name, slots * stride);
    decl += &format!("  assign {name} = {{{}}};\n", elements.join(", "));
    (decl, select(name))
}

/// A Verilog module: name, doc lines, ports and body text (declarations and logic).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    pub name: String,
    /// Short description; becomes the first header lines of the file.
    pub doc: Vec<String>,
    pub ports: Vec<Port>,
    pub body: String,
    /// Set for memory leaves: their storage, for area models.
    pub memory: Option<Memory>,
}

/// Storage of a memory leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    pub words: u32,
    pub width: u32,
    /// Cycles from a read's address to its data: 1, or 2 with the read data registered.
    pub read_cycles: u32,
}

impl Module {
    /// `module name ( ports );` with aligned declarations and port comments.
    pub fn declaration(&self) -> String {
        let rw = self.ports.iter().map(|p| range(p.width, p.vector).len()).max().unwrap_or(0);
        let decls: Vec<String> = self
            .ports
            .iter()
            .map(|p| {
                let dir = match p.dir {
                    Dir::Input => "input  wire",
                    Dir::Output if p.is_reg => "output reg ",
                    Dir::Output => "output wire",
                };
                format!("{dir} {:>rw$}{}", range(p.width, p.vector), p.name)
            })
            .collect();
        let width = decls.iter().map(|d| d.len()).max().unwrap_or(0) + 1;
        let mut s = format!("module {} (\n", self.name);
        for (i, (d, p)) in decls.iter().zip(&self.ports).enumerate() {
            let sep = if i + 1 < decls.len() { "," } else { " " };
            let line = format!("  {d}{sep}");
            let _ = writeln!(s, "{line:<w$} // {}", p.comment, w = width + 3);
        }
        s.push_str(");\n");
        s
    }
}

/// A block's ports as a struct with one field per port, declared once: `P` is a [`Port`] where
/// the block is declared and a [`Sig`] where an instance of it is connected. Ports that only
/// some configurations have are `Option`s.
pub trait Ports<P> {
    /// The same struct with a `Q` for each port (`XPorts<Sig>` for `XPorts<Port>`).
    type Of<Q>: Ports<Q>;

    /// Every port in field order, `None` for one this configuration does not have. An instance
    /// lists its connections in this order.
    fn slots(&self) -> Vec<Option<&P>>;

    /// The ports this configuration has, in field order.
    fn declared(&self) -> Vec<P>
    where
        P: Clone,
    {
        self.slots().into_iter().flatten().cloned().collect()
    }
}

/// A module that other modules instantiate, with its typed ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submodule<T> {
    pub module: Module,
    pub ports: T,
}

impl<T: Ports<Port>> Submodule<T> {
    /// An instance connected field by field: every port this configuration has to a signal of
    /// its width (an output nothing reads to a [`Sig::unused`] wire), and no other.
    pub fn instance(&self, inst: &str, conns: &T::Of<Sig>) -> String {
        let here = format!("instance {inst} of {}", self.module.name);
        let mut lines = Vec::new();
        for (port, sig) in self.ports.slots().into_iter().zip(conns.slots()) {
            match (port, sig) {
                (Some(p), Some(sig)) => {
                    assert_eq!(
                        p.width, sig.width,
                        "{here}: port {} is {} bits, connected to `{sig}` of {} bits",
                        p.name, p.width, sig.width
                    );
                    lines.push((p.name.as_str(), sig));
                }
                (Some(p), None) if p.dir == Dir::Input => panic!("{here}: input {} is not driven", p.name),
                (Some(p), None) => {
                    panic!("{here}: output {} is not connected (Sig::unused if nothing reads it)", p.name)
                }
                (None, Some(sig)) => panic!("{here}: `{sig}` is connected to a port this configuration does not have"),
                (None, None) => {}
            }
        }
        let w = lines.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        let lines: Vec<String> = lines.iter().map(|(n, e)| format!("    .{n:<w$} ({e})")).collect();
        format!("  {} {inst} (\n{}\n  );\n", self.module.name, lines.join(",\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resize_extends_truncates_and_keeps() {
        assert_eq!(resize("a", 3, 5), "{{2{1'b0}}, a}");
        assert_eq!(resize("a", 5, 3), "a[2:0]");
        assert_eq!(resize("a", 5, 1), "a[0]");
        assert_eq!(resize("a", 4, 4), "a");
    }

    /// A block with an input, and an input and an output that only some configurations have.
    struct TestPorts<P> {
        a: P,
        b: Option<P>,
        y: Option<P>,
    }

    impl<P> Ports<P> for TestPorts<P> {
        type Of<Q> = TestPorts<Q>;
        fn slots(&self) -> Vec<Option<&P>> {
            let TestPorts { a, b, y } = self;
            vec![Some(a), b.as_ref(), y.as_ref()]
        }
    }

    fn block(full: bool) -> Submodule<TestPorts<Port>> {
        let ports = TestPorts {
            a: Port::input("a", 4, ""),
            b: full.then(|| Port::input("b", 1, "")),
            y: full.then(|| Port::output("y", 1, "")),
        };
        let module =
            Module { name: "m".into(), doc: vec![], ports: ports.declared(), body: String::new(), memory: None };
        Submodule { module, ports }
    }

    fn conns(b: bool, y: bool) -> TestPorts<Sig> {
        TestPorts { a: Sig::new("x", 4), b: b.then(|| Sig::new("z", 1)), y: y.then(|| Sig::unused("y", 1)) }
    }

    #[test]
    fn instance_connects_each_field_to_its_port() {
        assert_eq!(
            block(true).instance("u", &conns(true, true)),
            "  m u (\n    .a (x),\n    .b (z),\n    .y (unused_y)\n  );\n"
        );
        assert_eq!(block(false).instance("u", &conns(false, false)), "  m u (\n    .a (x)\n  );\n");
    }

    #[test]
    #[should_panic(expected = "instance u of m: `z` is connected to a port this configuration does not have")]
    fn instance_rejects_missing_port() {
        block(false).instance("u", &conns(true, false));
    }

    #[test]
    #[should_panic(expected = "instance u of m: input b is not driven")]
    fn instance_rejects_an_undriven_input() {
        block(true).instance("u", &conns(false, true));
    }

    #[test]
    #[should_panic(expected = "instance u of m: output y is not connected")]
    fn instance_rejects_a_dangling_output() {
        block(true).instance("u", &conns(true, false));
    }

    #[test]
    #[should_panic(expected = "instance u of m: port a is 4 bits, connected to `x` of 3 bits")]
    fn instance_rejects_a_connection_of_another_width() {
        block(false).instance("u", &TestPorts { a: Sig::new("x", 3), b: None, y: None });
    }

    #[test]
    fn packing_names_concrete_bits() {
        assert_eq!(packing("lane", 32), "lane i at [32i+31:32i]");
        assert_eq!(packing("source", 1), "source i at bit i");
    }
}
