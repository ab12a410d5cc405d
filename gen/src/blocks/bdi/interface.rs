//! The ports of the BDI codec top (`<prefix>_bdi_codec`), declared once for the generator, the
//! golden model's `CodecIn`/`CodecOut` and the cosim glue (see `blocks::mrf::interface`).

use crate::layout::bdi::Layout;
use crate::verilog::{Port, Ports, packing};

/// Every port of the codec, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodecPorts<P> {
    pub clk: P,
    pub rst: P,
    pub en: P,
    pub in_valid: P,
    pub in_bypass: P,
    pub in_data: P,
    pub cmp_valid: P,
    pub cmp_ri: P,
    pub cmp_banks: P,
    pub cmp_bank_en: P,
    pub cmp_chunks: P,
    pub out_valid: P,
    pub out_data: P,
}

impl CodecPorts<Port> {
    pub fn new(l: &Layout) -> Self {
        let w = l.register_bits();
        let lanes = packing("lane", 32);
        CodecPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high"),
            en: Port::input("en", 1, "advance the compressor; while low it holds"),
            in_valid: Port::input("in_valid", 1, "a register enters the compressor (when en)"),
            in_bypass: Port::input("in_bypass", 1, "store it uncompressed"),
            in_data: Port::input("in_data", w, &format!("the register, {lanes}")),
            cmp_valid: Port::output("cmp_valid", 1, "a compressed register leaves the compressor (when en)"),
            cmp_ri: Port::output("cmp_ri", l.ri_bits(), "its range indicator"),
            cmp_banks: Port::output("cmp_banks", l.banks_bits(), "its bank count"),
            cmp_bank_en: Port::output(
                "cmp_bank_en",
                l.clusters,
                &format!("its bank-enable mask, {}", packing("bank", 1)),
            )
            .vector(),
            cmp_chunks: Port::output(
                "cmp_chunks",
                w,
                &format!("its chunks, {} (payload from bit 0)", packing("chunk", l.chunk_bits)),
            ),
            out_valid: Port::output("out_valid", 1, "a decompressed register leaves"),
            out_data: Port::output("out_data", w, &format!("the register, {lanes}")),
        }
    }
}

impl<P> CodecPorts<P> {
    /// The same ports, each turned into something else by `f` (in declaration order).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> CodecPorts<Q> {
        let CodecPorts {
            clk,
            rst,
            en,
            in_valid,
            in_bypass,
            in_data,
            cmp_valid,
            cmp_ri,
            cmp_banks,
            cmp_bank_en,
            cmp_chunks,
            out_valid,
            out_data,
        } = self;
        CodecPorts {
            clk: f(clk),
            rst: f(rst),
            en: f(en),
            in_valid: f(in_valid),
            in_bypass: f(in_bypass),
            in_data: f(in_data),
            cmp_valid: f(cmp_valid),
            cmp_ri: f(cmp_ri),
            cmp_banks: f(cmp_banks),
            cmp_bank_en: f(cmp_bank_en),
            cmp_chunks: f(cmp_chunks),
            out_valid: f(out_valid),
            out_data: f(out_data),
        }
    }

    /// Every port in declaration order.
    pub fn list(&self) -> Vec<&P> {
        let p = self;
        vec![
            &p.clk,
            &p.rst,
            &p.en,
            &p.in_valid,
            &p.in_bypass,
            &p.in_data,
            &p.cmp_valid,
            &p.cmp_ri,
            &p.cmp_banks,
            &p.cmp_bank_en,
            &p.cmp_chunks,
            &p.out_valid,
            &p.out_data,
        ]
    }
}

impl<P> Ports<P> for CodecPorts<P> {
    type Of<Q> = CodecPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        self.list().into_iter().map(Some).collect()
    }
}
