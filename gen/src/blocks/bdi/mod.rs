//! BDI register compression (seed 004): the compressor, the decompressor, and a codec top that
//! chains them for cosimulation and synthesis. The mode table is `crate::layout::bdi`.

mod codec;
mod compressor;
mod decompressor;
pub mod interface;

pub use compressor::{compressor, interface::CompressorPorts};
pub use decompressor::{decompressor, interface::DecompressorPorts};

use crate::layout::bdi::Layout;
use crate::verilog::{Module, reg, vector_reg, vector_wire, wire};

/// The codec design's modules, leaves first: compressor, decompressor, `<prefix>_bdi_codec`.
pub fn codec_modules(prefix: &str, l: &Layout) -> Vec<Module> {
    let c = compressor(prefix, l);
    let d = decompressor(prefix, l);
    let top = codec::codec(prefix, l, &c, &d);
    vec![c.module, d.module, top]
}

/// A signal carried by a pipeline stage.
#[derive(Clone)]
struct Field {
    name: String,
    width: u32,
    /// Indexed per element, so declared with a range even when 1 bit wide.
    vector: bool,
}

impl Field {
    fn new(name: &str, width: u32) -> Field {
        Field { name: name.into(), width, vector: false }
    }
    fn vector(name: &str, width: u32) -> Field {
        Field { name: name.into(), width, vector: true }
    }
}

/// Declares wires `<at><field>`: the signals a stage loads from.
fn declare_wires(at: &str, fields: &[Field]) -> String {
    let mut s = wire(&format!("{at}valid"), 1);
    for f in fields {
        let name = format!("{at}{}", f.name);
        s += &if f.vector { vector_wire(&name, f.width) } else { wire(&name, f.width) };
    }
    s
}

/// Declares the registers `<at>valid` and `<at><field>` of one stage.
fn declare_stage(at: &str, fields: &[Field]) -> String {
    let mut s = reg(&format!("{at}valid"), 1);
    for f in fields {
        let name = format!("{at}{}", f.name);
        s += &if f.vector { vector_reg(&name, f.width) } else { reg(&name, f.width) };
    }
    s
}

/// One pipeline register: `<at>valid` resets and loads `<from>valid`; the fields load from
/// `<from><field>` only when a valid item enters, so an idle stage does not toggle. With an
/// `enable`, the whole stage holds while it is low.
fn stage(at: &str, from: &str, fields: &[Field], enable: Option<&str>) -> String {
    let (when, gate) = enable_terms(enable);
    let mut s = format!(
        "  always @(posedge clk) begin\n    if (rst) {at}valid <= 1'b0;\n    {when}{at}valid <= {from}valid;\n  end\n"
    );
    s += &format!("  always @(posedge clk) begin\n    if ({gate}{from}valid) begin\n");
    for f in fields {
        s += &format!("      {at}{0} <= {from}{0};\n", f.name);
    }
    s += "    end\n  end\n";
    s
}

/// How a stage register's `valid` (`else if (e) `) and its data (`e & `) take `enable`.
fn enable_terms(enable: Option<&str>) -> (String, String) {
    match enable {
        Some(e) => (format!("else if ({e}) "), format!("{e} & ")),
        None => ("else ".to_string(), String::new()),
    }
}

/// Register bits one copy of a stage's `valid` enables, in a stage loaded in groups.
const GROUP_BITS: u32 = 128;

/// The bits of `fields` in groups of at most [`GROUP_BITS`]: each field cut at every
/// `GROUP_BITS` bits of its own, the pieces placed first-fit in order. A piece is the field's
/// name and, when it is not the whole field, its `[hi:lo]` range.
fn groups(fields: &[Field]) -> Vec<Vec<(String, String)>> {
    let mut groups: Vec<(u32, Vec<(String, String)>)> = Vec::new();
    for f in fields {
        for lo in (0..f.width).step_by(GROUP_BITS as usize) {
            let bits = GROUP_BITS.min(f.width - lo);
            let range = if bits == f.width {
                String::new()
            } else if bits == 1 {
                format!("[{lo}]")
            } else {
                format!("[{}:{lo}]", lo + bits - 1)
            };
            let piece = (f.name.clone(), range);
            match groups.iter_mut().find(|(used, _)| used + bits <= GROUP_BITS) {
                Some((used, pieces)) => {
                    *used += bits;
                    pieces.push(piece);
                }
                None => groups.push((bits, vec![piece])),
            }
        }
    }
    groups.into_iter().map(|(_, pieces)| pieces).collect()
}

/// Copies of the register `<prev>valid` (loaded from `<prev_from>valid` while `enable` is high)
/// and the stage `at`, loaded from `from` as [`stage`] loads it but in [`groups`], each group
/// when its own copy of `<prev>valid` (the register behind `<from>valid`) is set. Every copy
/// holds `<prev>valid`, so the stage loads as one; on an FPGA one register driving the load
/// enable of every bit of a wide stage is the longest path. `keep` on a copy's `always` block
/// stops synthesis merging the copies back into one (on the declaration it does not).
fn stage_in_groups(
    at: &str,
    from: &str,
    fields: &[Field],
    enable: Option<&str>,
    prev: &str,
    prev_from: &str,
) -> String {
    let groups = groups(fields);
    let (when, gate) = enable_terms(enable);
    let mut s = format!(
        "  // {prev}valid once per {GROUP_BITS} bits of this stage, each the load enable of its bits; `keep`\n  // stops synthesis merging the copies (one register enabling them all is too slow on an FPGA).\n"
    );
    for g in 0..groups.len() {
        s += &reg(&format!("{prev}valid_{g}"), 1);
    }
    for g in 0..groups.len() {
        s += &format!(
            "  (* keep *) always @(posedge clk) begin\n    if (rst) {prev}valid_{g} <= 1'b0;\n    {when}{prev}valid_{g} <= {prev_from}valid;\n  end\n"
        );
    }
    s += &format!(
        "  always @(posedge clk) begin\n    if (rst) {at}valid <= 1'b0;\n    {when}{at}valid <= {from}valid;\n  end\n"
    );
    for (g, pieces) in groups.iter().enumerate() {
        s += &format!("  always @(posedge clk) begin\n    if ({gate}{prev}valid_{g}) begin\n");
        for (name, range) in pieces {
            s += &format!("      {at}{name}{range} <= {from}{name}{range};\n");
        }
        s += "    end\n  end\n";
    }
    s
}
