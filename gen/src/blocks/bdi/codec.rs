//! The codec top: one compressor feeding one decompressor, the way a register travels from the
//! write-back port through the banks to an operand collector. `rfgen cosim --block bdi` checks
//! it; every compressor output is a port too.

use crate::bdi::Layout;
use crate::verilog::{Module, Port};

pub fn codec(prefix: &str, l: &Layout, compressor: &Module, decompressor: &Module) -> Module {
    let w = l.register_bits();
    let mut b = String::new();
    b += &compressor.instance(
        "u_compressor",
        &[
            ("clk", "clk".into()),
            ("rst", "rst".into()),
            ("en", "en".into()),
            ("in_valid", "in_valid".into()),
            ("in_bypass", "in_bypass".into()),
            ("in_data", "in_data".into()),
            ("out_valid", "cmp_valid".into()),
            ("out_ri", "cmp_ri".into()),
            ("out_banks", "cmp_banks".into()),
            ("out_bank_en", "cmp_bank_en".into()),
            ("out_chunks", "cmp_chunks".into()),
        ],
    );
    b += "\n  // A compressed register enters the decompressor when it leaves the compressor.\n";
    b += &decompressor.instance(
        "u_decompressor",
        &[
            ("clk", "clk".into()),
            ("rst", "rst".into()),
            ("in_valid", "cmp_valid & en".into()),
            ("in_ri", "cmp_ri".into()),
            ("in_chunks", "cmp_chunks".into()),
            ("out_valid", "out_valid".into()),
            ("out_data", "out_data".into()),
        ],
    );
    let (lc, ld) = (l.compress_latency, l.decompress_latency);
    Module {
        name: format!("{prefix}_bdi_codec"),
        doc: vec![
            "BDI compressor feeding a BDI decompressor: a register entering in cycle t leaves compressed".into(),
            format!("{lc} advances later and decompressed {ld} cycles after that. See docs/bdi.md."),
        ],
        ports: vec![
            Port::input("clk", 1, "clock"),
            Port::input("rst", 1, "synchronous reset, active high"),
            Port::input("en", 1, "advance the compressor; while low it holds"),
            Port::input("in_valid", 1, "a register enters the compressor (when en)"),
            Port::input("in_bypass", 1, "store it uncompressed"),
            Port::input("in_data", w, "the register, lane i at [32i+31:32i]"),
            Port::output("cmp_valid", 1, "a compressed register leaves the compressor (when en)"),
            Port::output("cmp_ri", l.ri_bits(), "its range indicator"),
            Port::output("cmp_banks", l.banks_bits(), "its bank count"),
            Port::output("cmp_bank_en", l.clusters, "its bank-enable mask").vector(),
            Port::output("cmp_chunks", w, "its chunks"),
            Port::output("out_valid", 1, "a decompressed register leaves"),
            Port::output("out_data", w, "the register"),
        ],
        body: b,
        memory: None,
    }
}
