//! Harness of the BDI codec: the round trip through compressor and decompressor. It follows one free register `x` that enters at step 0 with
//! `en` high and `rst` low, every other input free at every step, the design's registers starting
//! in an arbitrary state (so the check covers every cycle of every run with `en` high).

use super::{BDI_ROUND_TRIP, BDI_SMALLEST, Harness, Proof, module_head, step_counter};
use crate::blocks::bdi::interface::CodecPorts;
use crate::layout::bdi::Layout;
use crate::layout::geometry::{LANE_BITS, index_bits};
use crate::verilog::{Module, Ports, Sig, Submodule, lit, slice};

pub fn harnesses(prefix: &str, l: &Layout) -> Vec<Harness> {
    // Lane by lane: the whole register at once is too large a problem for the solver (docs/prove.md).
    let mut h: Vec<Harness> = (0..l.lanes).map(|lane| round_trip(prefix, l, lane)).collect();
    h.extend(smallest(prefix, l));
    h
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
    let latency = l.compress_latency + l.decompress_latency;
    let top = format!("{prefix}_prove_bdi_round_trip");
    let (mut b, sources) = head(prefix, l, &top, &format!("{}, lane {lane}", BDI_ROUND_TRIP.statement), latency);
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
        sources,
        proof: Proof::AnyState { depth: latency + 1 },
        probes: Vec::new(),
    }
}

/// The codec fed `x` at step 0: `compress_latency` steps later its choice must need
/// no more banks than any enabled mode that fits `x`, and be "uncompressed" when `x` was
/// bypassed or no mode fits. Whether a mode fits is written here from the paper's rule, not
/// read from the RTL. One check per enabled mode (the mode chosen fits; when it fits, the
/// choice needs no more banks than it does) and one that the choice is "uncompressed" or an
/// enabled mode, "uncompressed" when bypassed: together the property, where the whole of it at
/// once is too large a problem for 32 lanes (docs/prove.md).
fn smallest(prefix: &str, l: &Layout) -> Vec<Harness> {
    let ri = |v: u32| lit(l.ri_bits(), v as u64);
    let codes: Vec<String> = l.modes.iter().map(|m| format!("cmp_ri == {}", ri(m.ri))).collect();
    let mut h = vec![smallest_part(
        prefix,
        l,
        "bypass".into(),
        String::new(),
        format!(
            "    if (bypass) assert(cmp_ri == {z});\n    assert(cmp_ri == {z} || {});\n",
            codes.join(" || "),
            z = ri(0)
        ),
    )];
    for m in &l.modes {
        let (base, delta) = (m.mode.base_bits(), m.mode.delta_bits());
        let mut each = Vec::new();
        // Over the codec's input, which is x at step 0, kept from there: the differences are
        // the very subtractions the compressor makes of its input, which the solver then sees
        // at once are equal (of x itself, 32 lanes' worth took it beyond half an hour).
        let mut wires =
            String::from("\n  // Whether the mode fits the input: every value's difference to the first in range.\n");
        for j in 1..m.values {
            // The paper's rule: a difference fits `delta` bits when sign-extending its low
            // `delta` bits gives it back (zero bits: it is zero).
            let d = format!("diff_{j}");
            wires += &format!(
                "  wire [{}:0] {d} = {} - {};\n",
                base - 1,
                slice("in_data", j, base),
                slice("in_data", 0, base)
            );
            each.push(if delta == 0 {
                format!("{d} == {}", lit(base, 0))
            } else {
                format!("{d} == {{{{{}{{{d}[{}]}}}}, {d}[{}:0]}}", base - delta, delta - 1, delta - 1)
            });
        }
        wires += &format!(
            "  wire fits_in = {};\n  // Whether it fits x.\n  reg fits_x;\n  always @(posedge clk) if (first) fits_x <= fits_in;\n  wire fits = first ? fits_in : fits_x;\n",
            each.iter().map(|c| format!("({c})")).collect::<Vec<_>>().join("\n    && ")
        );
        let asserts = format!(
            "    if (!bypass && cmp_ri == {}) assert(fits);\n    if (!bypass && fits) assert(cmp_banks <= {});\n",
            ri(m.ri),
            lit(l.banks_bits(), m.banks as u64)
        );
        h.push(smallest_part(prefix, l, format!("mode <{}>", m.mode.name()), wires, asserts));
    }
    h
}

/// One check of [`smallest`]: `wires` over `x`, `asserts` on the compressor's outputs
/// `compress_latency` steps after `x` entered.
fn smallest_part(prefix: &str, l: &Layout, part: String, wires: String, asserts: String) -> Harness {
    let latency = l.compress_latency;
    let top = format!("{prefix}_prove_bdi_smallest");
    let (mut b, sources) = head(prefix, l, &top, &format!("{}, {part}", BDI_SMALLEST.statement), latency);
    b += &wires;
    b += &format!("\n  always @* if (t == {latency}) begin\n    assert(cmp_valid);\n{asserts}  end\nendmodule\n");
    Harness {
        property: BDI_SMALLEST,
        part,
        top,
        text: b,
        sources,
        proof: Proof::AnyStateSat { depth: latency + 1 },
        probes: Vec::new(),
    }
}

/// The harness module `top` (`about` its comment) up to its checks: the free inputs, a step
/// counter past `latency` and the codec fed `x` at step 0; returns it with the files it needs.
fn head(prefix: &str, l: &Layout, top: &str, about: &str, latency: u32) -> (String, Vec<String>) {
    let mut b = module_head(top, about);
    b += &free_inputs(l.register_bits());
    b += &step_counter(index_bits(latency + 2));
    b += "  wire first = (t == 0);\n";
    let sources = codec(prefix, l, &mut b);
    (b, sources)
}

/// The codec under test, fed `x` at step 0 and anything at every other step (`en` high, no
/// reset), its outputs on wires of their own names; returns the design files it needs.
fn codec(prefix: &str, l: &Layout, b: &mut String) -> Vec<String> {
    let w = l.register_bits();
    let ports = CodecPorts::new(l);
    let outs = ports.map(|p| Sig::new(p.name.clone(), p.width));
    *b += &format!("  wire [{}:0] in_data = first ? x : other_data;\n", w - 1);
    for p in ports.list().into_iter().skip(6) {
        *b += &crate::verilog::wire(&p.name, p.width);
    }
    let conns = CodecPorts {
        clk: Sig::new("clk", 1),
        rst: Sig::new("1'b0", 1),
        en: Sig::new("1'b1", 1),
        in_valid: Sig::new("first | other_valid", 1),
        in_bypass: Sig::new("first ? bypass : other_bypass", 1),
        in_data: Sig::new("in_data", w),
        ..outs
    };
    let top = Submodule { module: declared(&format!("{prefix}_bdi_codec"), &ports), ports };
    *b += &top.instance("dut", &conns);
    ["compressor", "decompressor", "bdi_codec"].map(|f| format!("{prefix}_{f}.v")).into()
}

/// A module with `ports`, only to instantiate it by its typed ports.
fn declared<T: Ports<crate::verilog::Port>>(name: &str, ports: &T) -> Module {
    Module { name: name.into(), doc: vec![], ports: ports.declared(), body: String::new(), memory: None }
}
