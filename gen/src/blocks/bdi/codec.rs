//! The codec top: one compressor feeding one decompressor, the way a register travels from the
//! write-back port through the banks to an operand collector. `rfgen cosim --block bdi` checks
//! it; every compressor output is a port too.

use super::interface::CodecPorts;
use super::{CompressorPorts, DecompressorPorts};
use crate::layout::bdi::Layout;
use crate::verilog::{Module, Port, Sig, Submodule};

pub fn codec(
    prefix: &str,
    l: &Layout,
    compressor: &Submodule<CompressorPorts<Port>>,
    decompressor: &Submodule<DecompressorPorts<Port>>,
) -> Module {
    let w = l.register_bits();
    let mut b = String::new();
    let v = |name: &str, width: u32| Sig::new(name, width);
    let (rb, c) = (l.ri_bits(), l.clusters);
    b += &compressor.instance(
        "u_compressor",
        &CompressorPorts {
            clk: v("clk", 1),
            rst: v("rst", 1),
            en: v("en", 1),
            in_valid: v("in_valid", 1),
            in_bypass: v("in_bypass", 1),
            in_data: v("in_data", w),
            out_valid: v("cmp_valid", 1),
            out_ri: v("cmp_ri", rb),
            out_banks: v("cmp_banks", l.banks_bits()),
            out_bank_en: v("cmp_bank_en", c),
            out_chunks: v("cmp_chunks", w),
        },
    );
    b += "\n  // A compressed register enters the decompressor when it leaves the compressor.\n";
    b += &decompressor.instance(
        "u_decompressor",
        &DecompressorPorts {
            clk: v("clk", 1),
            rst: v("rst", 1),
            in_valid: v("cmp_valid & en", 1),
            in_ri: v("cmp_ri", rb),
            in_chunks: v("cmp_chunks", w),
            out_valid: v("out_valid", 1),
            out_data: v("out_data", w),
        },
    );
    let (lc, ld) = (l.compress_latency, l.decompress_latency);
    Module {
        name: format!("{prefix}_bdi_codec"),
        doc: vec![
            "BDI compressor feeding a BDI decompressor: a register entering in cycle t leaves compressed".into(),
            format!("{lc} advances later and decompressed {ld} cycles after that. See docs/bdi.md."),
        ],
        ports: CodecPorts::new(l).list().into_iter().cloned().collect(),
        body: b,
        memory: None,
    }
}
