//! Harness of the BDI codec: the round trip through compressor and decompressor. It follows one free register `x` that enters at step 0 with
//! `en` high and `rst` low, every other input free at every step, the design's registers starting
//! in an arbitrary state (so the check covers every cycle of every run with `en` high).

use super::{BDI_ROUND_TRIP, Harness, Proof, module_head, step_counter};
use crate::blocks::bdi::interface::CodecPorts;
use crate::layout::bdi::Layout;
use crate::layout::geometry::{LANE_BITS, index_bits};
use crate::verilog::{Module, Ports, Sig, Submodule, slice};

pub fn harnesses(prefix: &str, l: &Layout) -> Vec<Harness> {
    // Lane by lane: the whole register at once is too large a problem for the solver (docs/prove.md).
    (0..l.lanes).map(|lane| round_trip(prefix, l, lane)).collect()
}

/// Free inputs of the steps other than 0, and the followed register `x`.
fn free_inputs(w: u32) -> String {
    let mut s = String::from("  // The register followed, and whether it is written bypassed.\n");
    s += &format!("  (* anyconst *) reg [{}:0] x;\n  (* anyconst *) reg bypass;\n", w - 1);
    s += "  // Every other step: any input at all.\n";
    s += &format!(
        "  (* anyseq *) wire other_valid;\n  (* anyseq *) wire other_bypass;\n  (* anyseq *) wire [{}:0] other_data;\n",
        w - 1
    );
    s
}

fn round_trip(prefix: &str, l: &Layout, lane: u32) -> Harness {
    let w = l.register_bits();
    let latency = l.compress_latency + l.decompress_latency;
    let top = format!("{prefix}_prove_bdi_round_trip");
    let mut b = module_head(&top, &format!("{}, lane {lane}", BDI_ROUND_TRIP.statement));
    b += &free_inputs(w);
    b += &step_counter(index_bits(latency + 2));
    b += "  wire first = (t == 0);\n";
    let ports = CodecPorts::new(l);
    let outs = ports.map(|p| Sig::new(p.name.clone(), p.width));
    for p in ports.list().into_iter().skip(6) {
        b += &crate::verilog::wire(&p.name, p.width);
    }
    let conns = CodecPorts {
        clk: Sig::new("clk", 1),
        rst: Sig::new("1'b0", 1),
        en: Sig::new("1'b1", 1),
        in_valid: Sig::new("first | other_valid", 1),
        in_bypass: Sig::new("first ? bypass : other_bypass", 1),
        in_data: Sig::new("first ? x : other_data", w),
        ..outs
    };
    let codec = Submodule { module: declared(&format!("{prefix}_bdi_codec"), &ports), ports };
    b += &codec.instance("dut", &conns);
    b += &format!("\n  // {latency} steps later x leaves the decompressor whole.\n");
    b += &format!(
        "  always @* if (t == {latency}) assert(out_valid && {} == {});\nendmodule\n",
        slice("out_data", lane, LANE_BITS),
        slice("x", lane, LANE_BITS)
    );
    Harness {
        property: BDI_ROUND_TRIP,
        part: format!("lane {lane}"),
        top,
        text: b,
        sources: [
            format!("{prefix}_compressor.v"),
            format!("{prefix}_decompressor.v"),
            format!("{prefix}_bdi_codec.v"),
        ]
        .into(),
        proof: Proof::AnyState { depth: latency + 1 },
        probes: Vec::new(),
    }
}

/// A module with `ports`, only to instantiate it by its typed ports.
fn declared<T: Ports<crate::verilog::Port>>(name: &str, ports: &T) -> Module {
    Module { name: name.into(), doc: vec![], ports: ports.declared(), body: String::new(), memory: None }
}
