//! The BDI decompressor (seed 004 §4): chunks and range indicator in, the warp register out
//! `decompress_latency` cycles later, one register per cycle: every value is the base plus its
//! sign-extended delta. Modelled by `model::blocks::bdi::Decompressor`; see docs/bdi.md.

pub mod interface;

use super::{Field, declare_stage, stage};
use crate::layout::bdi::Layout;
use crate::layout::geometry::LANE_BITS;
use crate::verilog::{Module, Port, Ports, Submodule, lit, onehot_mux, slice, vector_reg, vector_wire, wire};
use interface::DecompressorPorts;

/// Adders one registered copy of the base drives, with the decompressor split.
const BASE_FANOUT: u32 = 8;

pub fn decompressor(prefix: &str, l: &Layout) -> Submodule<DecompressorPorts<Port>> {
    let (w, n, k, rb) = (l.register_bits(), l.decompress_latency, l.modes.len() as u32, l.ri_bits());
    let mut b = String::new();
    b += &vector_wire("is", k);
    b += &wire("raw", 1);
    b += &wire("s0_valid", 1);
    b += &wire("s0_data", w);
    // With the decompressor split (`timing.bdi_split_decompressor`), the mode's flags, the chunks
    // and every value's selected delta are registered (`d1_`) before the adders.
    let at = if l.split_decompressor { "d1_" } else { "" };
    let mut split = vec![Field::new("raw", 1), Field::new("chunks", w)];
    b += "\n  // The mode the range indicator names; a code no mode uses reads as uncompressed.\n";
    for (i, m) in l.modes.iter().enumerate() {
        b += &format!("  assign is[{i}] = (in_ri == {});  // <{}>\n", lit(rb, m.ri as u64), m.mode.name());
    }
    b += "  assign raw = ~(|is);\n";

    let chunks = format!("{}chunks", if l.split_decompressor { at } else { "in_" });
    let mut results = vec![(format!("{at}raw"), chunks.clone())];
    let mut adders = String::new();
    let mut base_copies = String::new();
    for base in [4, 8].into_iter().filter(|&base| l.has_base(base)) {
        let (bits, values, lo) = (8 * base, l.lanes * LANE_BITS / (8 * base), l.max_delta_bits(base));
        let of_base: Vec<(usize, &crate::layout::bdi::ModeLayout)> =
            l.modes.iter().enumerate().filter(|(_, m)| m.mode.base == base).collect();
        let any = format!("any{base}");
        b += &format!(
            "\n  // Base {base} bytes: value 0 is the base; value j is the base plus delta j, sign-extended.\n"
        );
        b += &wire(&any, 1);
        b += &format!(
            "  assign {any} = {};\n",
            of_base.iter().map(|(i, _)| format!("is[{i}]")).collect::<Vec<_>>().join(" | ")
        );
        split.push(Field::new(&any, 1));
        let whole = if lo == 0 {
            // Only a zero-delta mode: every value is the base.
            format!("{{{values}{{{chunks}[{}:0]}}}}", bits - 1)
        } else {
            let (dv, sv) = (format!("delta{base}"), format!("value{base}"));
            b += &wire(&dv, (values - 1) * bits);
            // Without the split the adders follow their deltas, as they always have.
            let adder_wire = wire(&sv, (values - 1) * bits);
            if l.split_decompressor {
                adders += &adder_wire
            } else {
                b += &adder_wire
            }
            split.push(Field::new(&dv, (values - 1) * bits));
            // With the split, the base has a register of its own per `BASE_FANOUT` values, so
            // that no one register drives every adder (on an FPGA, nets across the datapath).
            let copies = if l.split_decompressor { values.div_ceil(BASE_FANOUT) } else { 1 };
            let base_of = |j: u32| {
                if copies > 1 {
                    format!("{at}base{base}_{}", j / BASE_FANOUT)
                } else {
                    format!("{chunks}[{}:0]", bits - 1)
                }
            };
            if copies > 1 {
                base_copies += &format!(
                    "\n  // The base {base} bytes once per {BASE_FANOUT} values; `keep` stops synthesis merging the copies.\n"
                );
                for c in 0..copies {
                    base_copies += &vector_reg(&format!("{at}base{base}_{c}"), bits);
                }
                for c in 0..copies {
                    base_copies += &format!(
                        "  (* keep *) always @(posedge clk) begin\n    if (in_valid) {at}base{base}_{c} <= in_chunks[{}:0];\n  end\n",
                        bits - 1
                    );
                }
            }
            for j in 1..values {
                let terms: Vec<(String, String)> = of_base
                    .iter()
                    .filter(|(_, m)| m.mode.delta > 0)
                    .map(|(i, m)| {
                        let d = m.mode.delta_bits();
                        let at = bits + (j - 1) * d;
                        let field = format!("in_chunks[{}:{at}]", at + d - 1);
                        let sign = format!("in_chunks[{}]", at + d - 1);
                        (format!("is[{i}]"), format!("{{{{{}{{{sign}}}}}, {field}}}", bits - d))
                    })
                    .collect();
                b += &format!("  assign {} = {};\n", slice(&dv, j - 1, bits), onehot_mux(&terms, bits));
                let adder = format!(
                    "  assign {} = {} + {};\n",
                    slice(&sv, j - 1, bits),
                    base_of(j),
                    slice(&format!("{at}{dv}"), j - 1, bits)
                );
                if l.split_decompressor { adders += &adder } else { b += &adder }
            }
            format!("{{{sv}, {chunks}[{}:0]}}", bits - 1)
        };
        results.push((format!("{at}{any}"), whole));
    }
    if l.split_decompressor {
        b += "\n  // Stage 1 register: the mode's flags, the chunks and the selected deltas.\n";
        // The stage loads `d1_<field>` from `in_<field>`: the ports, and these names for the rest.
        for f in split.iter().filter(|f| f.name != "chunks") {
            b += &wire(&format!("in_{}", f.name), f.width);
            b += &format!("  assign in_{0} = {0};\n", f.name);
        }
        b += &declare_stage(at, &split);
        b += &stage(at, "in_", &split, None);
        b += &base_copies;
        b += "\n  // Stage 2 logic: add the base to every delta.\n";
    }
    b += &adders;
    b += &format!("\n  assign s0_valid = {}valid;\n", if l.split_decompressor { at } else { "in_" });
    b += &format!("  assign s0_data = {};\n", onehot_mux(&results, w));

    let data = [Field::new("data", w)];
    let mut from = "s0_".to_string();
    for st in 1 + u32::from(l.split_decompressor)..=n {
        let at = if st == n { "out_".to_string() } else { format!("s{st}_") };
        b += &format!("\n  // Stage {st} register{}.\n", if st == n { ": the outputs" } else { "" });
        if st < n {
            b += &declare_stage(&at, &data);
        }
        b += &stage(&at, &from, &data, None);
        from = at;
    }

    let modes: Vec<String> = l.modes.iter().map(|m| format!("{} = <{}>", m.ri, m.mode.name())).collect();
    let ports = DecompressorPorts::new(l);
    let module = Module {
        name: format!("{prefix}_decompressor"),
        doc: vec![
            format!(
                "BDI decompressor for {} lanes x 32 bit; range indicator {}, else uncompressed.",
                l.lanes,
                modes.join(", ")
            ),
            format!("{n}-stage pipeline, one register per cycle. See docs/bdi.md."),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}
