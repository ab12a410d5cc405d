//! The BDI compressor (seed 004 §5.1, Fig. 7): a warp register in; its range indicator, bank
//! count, bank-enable mask and chunks out `compress_latency` cycles later; one register per cycle.
//! Modelled by `model::blocks::bdi::Compressor`; payload layout and timing in docs/bdi.md.

pub mod interface;

use super::{Field, declare_stage, declare_wires, stage, stage_in_groups};
use crate::layout::bdi::Layout;
use crate::layout::geometry::LANE_BITS;
use crate::verilog::{Module, Port, Ports, Submodule, lit, onehot_mux, slice, vector_wire, wire};
use interface::CompressorPorts;

pub fn compressor(prefix: &str, l: &Layout) -> Submodule<CompressorPorts<Port>> {
    let (w, c, n, k) = (l.register_bits(), l.clusters, l.compress_latency, l.modes.len() as u32);
    // Base sizes in use, with the bits and the count of their values.
    let bases: Vec<(u32, u32, u32)> = [4, 8]
        .into_iter()
        .filter(|&base| l.has_base(base))
        .map(|base| (base, 8 * base, l.lanes * LANE_BITS / (8 * base)))
        .collect();
    let mut b = String::new();
    // With a compressor option on, a stage that loads from another loads in groups, each on its
    // own copy of that stage's `valid` (`stage_in_groups`); `prev` is the last stage registered
    // and where it loads from.
    let copies = l.split_deltas || l.registered_fit;
    let mut prev: Option<(String, String)> = None;
    let mut load = |at: &str, from: &str, fields: &[Field]| {
        let s = match &prev {
            Some((p, p_from)) if copies => stage_in_groups(at, from, fields, Some("en"), p, p_from),
            _ => stage(at, from, fields, Some("en")),
        };
        prev = Some((at.to_string(), from.to_string()));
        s
    };

    // Stage 0 names the inputs and the stage-1 logic, so every stage loads `s<k>_` from `s<k-1>_`.
    let mut front = vec![Field::new("bypass", 1), Field::new("data", w), Field::vector("fit", k)];
    for &(base, _, values) in &bases {
        let lo = l.max_delta_bits(base);
        if lo > 0 {
            front.push(Field::new(&format!("lo{base}"), (values - 1) * lo));
        }
    }

    // With each value's fit registered (`timing.bdi_registered_fit`), the fit check's domain
    // carries every difference's fit per mode (`ok<base>_<delta>`) instead of the modes' flags.
    let oks: Vec<Field> =
        l.modes.iter().map(|m| Field::vector(&format!("ok{}_{}", m.mode.base, m.mode.delta), m.values - 1)).collect();
    let checked: Vec<Field> = if l.registered_fit {
        front.iter().filter(|f| f.name != "fit").cloned().chain(oks.iter().cloned()).collect()
    } else {
        front.clone()
    };

    // With the first stage split (`timing.bdi_split_compressor`), the differences are
    // registered on their own and the fit check reads them from that register.
    let deltas = |base: u32| if l.split_deltas { format!("s1_d{base}") } else { format!("d{base}") };
    if l.split_deltas {
        let mut diff = vec![Field::new("bypass", 1), Field::new("data", w)];
        diff.extend(bases.iter().map(|&(base, bits, values)| Field::new(&format!("d{base}"), (values - 1) * bits)));
        b += "\n  // Stage 1 logic: subtract the base (value 0) from every other value.\n";
        b += &declare_wires("s0_", &diff);
        b += "  assign s0_valid = in_valid;\n  assign s0_bypass = in_bypass;\n  assign s0_data = in_data;\n";
        for &(base, bits, values) in &bases {
            for j in 1..values {
                b += &format!(
                    "  assign {} = {} - {};\n",
                    slice(&format!("s0_d{base}"), j - 1, bits),
                    slice("in_data", j, bits),
                    slice("in_data", 0, bits)
                );
            }
        }
        b += "\n  // Stage 1 register: the register and its differences.\n";
        b += &declare_stage("s1_", &diff);
        b += &load("s1_", "s0_", &diff);
        b += "\n  // Stage 2 logic: check by sign extension which delta widths each difference fits.\n";
        b += &declare_wires("f_", &checked);
        b += "  assign f_valid = s1_valid;\n  assign f_bypass = s1_bypass;\n  assign f_data = s1_data;\n";
    } else {
        b += &declare_wires("s0_", &checked);
        b += "  assign s0_valid = in_valid;\n  assign s0_bypass = in_bypass;\n  assign s0_data = in_data;\n";
        b += "\n  // Stage 1 logic: subtract the base (value 0) from every other value, then check by sign\n";
        b += "  // extension which delta widths each difference fits.\n";
    }
    let fit = if l.split_deltas { "f_" } else { "s0_" };
    for &(base, bits, values) in &bases {
        let dv = deltas(base);
        if !l.split_deltas {
            b += &wire(&dv, (values - 1) * bits);
            for j in 1..values {
                b += &format!(
                    "  assign {} = {} - {};\n",
                    slice(&dv, j - 1, bits),
                    slice("in_data", j, bits),
                    slice("in_data", 0, bits)
                );
            }
        }
        let lo = l.max_delta_bits(base);
        if lo > 0 {
            b += &format!("  // The low {lo} bits of every difference, for packing.\n");
            for j in 1..values {
                let low = (j - 1) * bits;
                b += &format!(
                    "  assign {} = {dv}[{}:{low}];\n",
                    slice(&format!("{fit}lo{base}"), j - 1, lo),
                    low + lo - 1
                );
            }
        }
    }
    for (i, m) in l.modes.iter().enumerate() {
        let (base, bits, d) = (m.mode.base, m.mode.base_bits(), m.mode.delta_bits());
        let dv = deltas(base);
        let ok = format!("{}ok{base}_{}", if l.registered_fit { fit } else { "" }, m.mode.delta);
        let what = if d == 0 { "is zero".to_string() } else { format!("is the sign extension of its low {d} bits") };
        b += &format!("  // <{}>: every difference {what}.\n", m.mode.name());
        if !l.registered_fit {
            b += &vector_wire(&ok, m.values - 1);
        }
        for j in 1..m.values {
            let low = (j - 1) * bits;
            let test = if d == 0 {
                format!("~(|{dv}[{}:{low}])", low + bits - 1)
            } else {
                let top = format!("{dv}[{}:{}]", low + bits - 1, low + d - 1);
                format!("(&{top}) | ~(|{top})")
            };
            b += &format!("  assign {ok}[{}] = {test};\n", j - 1);
        }
        if !l.registered_fit {
            b += &format!("  assign {fit}fit[{i}] = &{ok};\n");
        }
    }
    let checked_at = if l.split_deltas { 2 } else { 1 };
    let fit = if l.registered_fit {
        let (at, flags) = (format!("s{checked_at}_"), "g_");
        b += &format!(
            "\n  // Stage {checked_at} register: the register, whether each difference fits each mode, and the\n  // delta bits to pack.\n"
        );
        b += &declare_stage(&at, &checked);
        b += &load(&at, fit, &checked);
        b += &format!("\n  // Stage {} logic: a mode fits when every difference does.\n", checked_at + 1);
        b += &declare_wires(flags, &front);
        for f in ["valid", "bypass", "data"]
            .into_iter()
            .chain(front.iter().filter(|f| f.name.starts_with("lo")).map(|f| f.name.as_str()))
        {
            b += &format!("  assign {flags}{f} = {at}{f};\n");
        }
        for (i, ok) in oks.iter().enumerate() {
            b += &format!("  assign {flags}fit[{i}] = &{at}{};\n", ok.name);
        }
        flags
    } else {
        fit
    };

    // The stage whose logic chooses the mode: after the fit flags' register, if there is one.
    let first = checked_at + u32::from(l.registered_fit);
    let s = if n > first {
        let at = format!("s{}_", first);
        b += &format!("\n  // Stage {first} register: the register, its fit flags and the delta bits to pack.\n");
        b += &declare_stage(&at, &front);
        b += &load(&at, fit, &front);
        at
    } else {
        fit.to_string()
    };
    let choose = n.min(first + 1);

    b += &format!(
        "\n  // Stage {choose} logic: the mode that fits with the fewest banks wins (ties: canonical order);\n"
    );
    b += "  // a bypassed register stays uncompressed. The payload is the base, then the deltas, zero above.\n";
    let out = [
        Field::new("ri", l.ri_bits()),
        Field::new("banks", l.banks_bits()),
        Field::vector("bank_en", c),
        Field::new("chunks", w),
    ];
    b += &vector_wire("sel", k);
    b += &wire("keep", 1);
    b += &declare_wires("c_", &out);
    b += &format!("  assign c_valid = {s}valid;\n");
    let mut higher: Vec<String> = Vec::new();
    for &i in &l.priority {
        let mut terms = vec![format!("~{s}bypass"), format!("{s}fit[{i}]")];
        terms.extend(higher.iter().cloned());
        b += &format!("  assign sel[{i}] = {};  // <{}>\n", terms.join(" & "), l.modes[i].mode.name());
        higher.push(format!("~{s}fit[{i}]"));
    }
    b += "  assign keep = ~(|sel);\n";
    for bit in 0..l.ri_bits() {
        let terms: Vec<String> = l
            .modes
            .iter()
            .enumerate()
            .filter(|(_, m)| m.ri >> bit & 1 == 1)
            .map(|(i, _)| format!("sel[{i}]"))
            .collect();
        let target = if l.ri_bits() == 1 { "c_ri".to_string() } else { format!("c_ri[{bit}]") };
        b += &format!("  assign {target} = {};\n", if terms.is_empty() { "1'b0".into() } else { terms.join(" | ") });
    }
    let bb = l.banks_bits();
    let mut counts = vec![("keep".to_string(), lit(bb, c as u64))];
    counts.extend(l.modes.iter().enumerate().map(|(i, m)| (format!("sel[{i}]"), lit(bb, m.banks as u64))));
    b += &format!("  assign c_banks = {};\n", onehot_mux(&counts, bb));
    for cl in 0..c {
        let mut terms = vec!["keep".to_string()];
        terms.extend(l.modes.iter().enumerate().filter(|(_, m)| m.banks > cl).map(|(i, _)| format!("sel[{i}]")));
        b += &format!("  assign c_bank_en[{cl}] = {};\n", terms.join(" | "));
    }
    let mut payloads = vec![("keep".to_string(), format!("{s}data"))];
    for (i, m) in l.modes.iter().enumerate() {
        let (base, d) = (m.mode.base, m.mode.delta_bits());
        let lo = l.max_delta_bits(base);
        let mut parts = vec![format!("{}'d0", w - m.payload_bits)];
        if d > 0 {
            parts
                .extend((1..m.values).rev().map(|j| format!("{s}lo{base}[{}:{}]", (j - 1) * lo + d - 1, (j - 1) * lo)));
        }
        parts.push(format!("{s}data[{}:0]", m.mode.base_bits() - 1));
        payloads.push((format!("sel[{i}]"), format!("{{{}}}", parts.join(", "))));
    }
    b += &format!("  assign c_chunks = {};\n", onehot_mux(&payloads, w));

    // The chosen result goes through the remaining stages; the last one drives the outputs.
    let mut from = "c_".to_string();
    for st in choose..=n {
        let at = if st == n { "out_".to_string() } else { format!("p{st}_") };
        b += &format!("\n  // Stage {st} register{}.\n", if st == n { ": the outputs" } else { "" });
        if st < n {
            b += &declare_stage(&at, &out);
        }
        b += &load(&at, &from, &out);
        from = at;
    }

    let modes: Vec<String> = l.modes.iter().map(|m| format!("<{}> = {}", m.mode.name(), m.ri)).collect();
    let ports = CompressorPorts::new(l);
    let module = Module {
        name: format!("{prefix}_compressor"),
        doc: vec![
            format!(
                "BDI compressor for {} lanes x 32 bit; range indicator {}, 0 = uncompressed.",
                l.lanes,
                modes.join(", ")
            ),
            format!(
                "{n}-stage pipeline, one register per cycle; {} chunks of {} bits, one per bank. See docs/bdi.md.",
                c, l.chunk_bits
            ),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}
