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
    let (when, gate) = match enable {
        Some(e) => (format!("else if ({e}) "), format!("{e} & ")),
        None => ("else ".to_string(), String::new()),
    };
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
