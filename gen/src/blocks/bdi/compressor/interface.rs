//! The ports of the BDI compressor (`<prefix>_compressor`), declared once for its generator and
//! its instances (the codec top, the compressed MRF's write port).

use crate::layout::bdi::Layout;
use crate::verilog::{Port, Ports};

/// Every port of the compressor, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompressorPorts<P> {
    pub clk: P,
    pub rst: P,
    pub en: P,
    pub in_valid: P,
    pub in_bypass: P,
    pub in_data: P,
    pub out_valid: P,
    pub out_ri: P,
    pub out_banks: P,
    pub out_bank_en: P,
    pub out_chunks: P,
}

impl CompressorPorts<Port> {
    pub fn new(l: &Layout) -> Self {
        let (w, c, n) = (l.register_bits(), l.clusters, l.compress_latency);
        CompressorPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high"),
            en: Port::input("en", 1, "advance the pipeline; while low every stage holds"),
            in_valid: Port::input("in_valid", 1, "a register enters (when en)"),
            in_bypass: Port::input("in_bypass", 1, "store it uncompressed (a partial-mask write)"),
            in_data: Port::input("in_data", w, "the register, lane i at [32i+31:32i]"),
            out_valid: Port::output("out_valid", 1, &format!("a register leaves, {n} advances after it entered")).reg(),
            out_ri: Port::output("out_ri", l.ri_bits(), "range indicator: the mode used, 0 = uncompressed").reg(),
            out_banks: Port::output("out_banks", l.banks_bits(), "chunks (banks) the register occupies").reg(),
            out_bank_en: Port::output("out_bank_en", c, "bank c holds chunk c: the low out_banks bits set")
                .vector()
                .reg(),
            out_chunks: Port::output(
                "out_chunks",
                w,
                &format!("chunk c at [{0}c+{1}:{0}c]; payload from bit 0, zero above", l.chunk_bits, l.chunk_bits - 1),
            )
            .reg(),
        }
    }
}

impl<P> Ports<P> for CompressorPorts<P> {
    type Of<Q> = CompressorPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let CompressorPorts {
            clk,
            rst,
            en,
            in_valid,
            in_bypass,
            in_data,
            out_valid,
            out_ri,
            out_banks,
            out_bank_en,
            out_chunks,
        } = self;
        [clk, rst, en, in_valid, in_bypass, in_data, out_valid, out_ri, out_banks, out_bank_en, out_chunks]
            .map(Some)
            .into()
    }
}
