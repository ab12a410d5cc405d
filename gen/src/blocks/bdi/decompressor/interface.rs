//! The ports of the BDI decompressor (`<prefix>_decompressor`), declared once for its generator
//! and its instances (the codec top, every compressed MRF bank group).

use crate::layout::bdi::Layout;
use crate::verilog::{Port, Ports};

/// Every port of the decompressor, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecompressorPorts<P> {
    pub clk: P,
    pub rst: P,
    pub in_valid: P,
    pub in_ri: P,
    pub in_chunks: P,
    pub out_valid: P,
    pub out_data: P,
}

impl DecompressorPorts<Port> {
    pub fn new(l: &Layout) -> Self {
        let (w, n) = (l.register_bits(), l.decompress_latency);
        DecompressorPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high"),
            in_valid: Port::input("in_valid", 1, "chunks enter this cycle"),
            in_ri: Port::input("in_ri", l.ri_bits(), "their range indicator"),
            in_chunks: Port::input(
                "in_chunks",
                w,
                &format!(
                    "chunk c at [{0}c+{1}:{0}c]; only the chunks of the mode are used",
                    l.chunk_bits,
                    l.chunk_bits - 1
                ),
            ),
            out_valid: Port::output(
                "out_valid",
                1,
                &format!("the register leaves, {n} cycles after its chunks entered"),
            )
            .reg(),
            out_data: Port::output("out_data", w, "the register, lane i at [32i+31:32i]").reg(),
        }
    }
}

impl<P> Ports<P> for DecompressorPorts<P> {
    type Of<Q> = DecompressorPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let DecompressorPorts { clk, rst, in_valid, in_ri, in_chunks, out_valid, out_data } = self;
        [clk, rst, in_valid, in_ri, in_chunks, out_valid, out_data].map(Some).into()
    }
}
