//! The operand register file and last result file beside the operand collectors, as modelled
//! by `model::blocks::mrf::Orf`: per warp slot, the ORF's and the LRF's entries of one warp
//! register with a valid bit; three reads at issue, one write port, strand invalidation. Under
//! the two-level scheduler there is a slot per active warp, found by comparing the issuing,
//! writing and invalidated warps with each slot's owner: a warp takes the lowest free slot with
//! its first accepted instruction and loses it on `rel_mask`. Otherwise slot `w` is warp `w`'s.

pub mod interface;

use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::layout::orf::{LEVEL_LRF, LEVEL_ORF, OrfLayout};
use crate::verilog::{
    Module, Port, Ports, Submodule, lit, lowest_set, onehot_index, onehot_mux, reg, slice, vector_reg, vector_wire,
    wire,
};
use interface::OrfLrfPorts;

pub fn orf(prefix: &str, g: &Geometry, o: &OrfLayout) -> Submodule<OrfLrfPorts<Port>> {
    let (a, wr, eb, k) = (o.slots, g.warp_reg_bits(), o.entry_bits(), SLOTS_PER_COLLECTOR);
    let levels = [("orf", LEVEL_ORF, o.entries), ("lrf", LEVEL_LRF, o.lrf_entries())];
    let arrays: Vec<(String, u64, u32)> =
        levels.iter().flat_map(|&(name, level, n)| (0..n).map(move |e| (format!("{name}{e}"), level, e))).collect();
    let mut b = String::new();
    for (name, _, _) in &arrays {
        b += &format!("  reg  [{}:0] {name}_data [0:{}];\n", wr - 1, a - 1);
        b += &vector_reg(&format!("{name}_valid"), a);
        b += &wire(&format!("{name}_we"), 1);
    }
    b += &wire("wr_lanes", wr);
    b += &vector_wire("wr_sel", a);
    b += &vector_wire("inv_sel", a);
    let lanes: Vec<String> = (0..g.lanes).rev().map(|l| format!("{{32{{wr_mask[{l}]}}}}")).collect();
    b += &format!("\n  assign wr_lanes = {{{}}};\n", lanes.join(", "));
    // Per slot: which slot each port addresses (one-hot), and the slots freed at this edge.
    let (rd_slot, rd_has, freed) = if o.mapped { slots(&mut b, g, o) } else { identity(&mut b, a) };
    b += "\n  // One write port: the masked lanes of one entry; the entry becomes valid. A strand start\n";
    b += "  // invalidates every entry of its warp (before this edge's write)";
    b += if o.mapped {
        "; a released slot has\n  // every entry invalid, so a free slot is taken empty.\n"
    } else {
        ".\n"
    };
    for (name, level, e) in &arrays {
        b += &format!(
            "  assign {name}_we = wr_en & (wr_level == {}) & (wr_entry == {});\n",
            lit(2, *level),
            lit(eb, *e as u64)
        );
        let (en, at) =
            if o.mapped { (format!("{name}_we & (|wr_sel)"), "wr_slot") } else { (format!("{name}_we"), "wr_warp") };
        b += &format!(
            "  always @(posedge clk) begin\n    if ({en}) {name}_data[{at}] <= ({name}_data[{at}] & ~wr_lanes) | (wr_data & wr_lanes);\n  end\n"
        );
        b += &format!(
            "  always @(posedge clk) begin\n    if (rst) {name}_valid <= {};\n    else {name}_valid <= (({name}_valid & ~inv_sel) | ({{{a}{{{name}_we}}}} & wr_sel)){freed};\n  end\n",
            lit(a, 0)
        );
    }
    b += "\n  // Reads at issue, from the state before the edge: an invalid or absent entry, or a warp\n";
    b += "  // without a slot, reads zero.\n";
    for s in 0..k {
        let terms: Vec<(String, String)> = arrays
            .iter()
            .map(|(name, level, e)| {
                (
                    format!(
                        "({} == {}) & ({} == {}) & {name}_valid[{rd_slot}]{rd_has}",
                        slice("rd_level", s, 2),
                        lit(2, *level),
                        slice("rd_entry", s, eb),
                        lit(eb, *e as u64)
                    ),
                    format!("{name}_data[{rd_slot}]"),
                )
            })
            .collect();
        b += &format!("  assign {} = {};\n", slice("rd_data", s, wr), onehot_mux(&terms, wr));
    }
    let lrf = match o.lrf_entries() {
        0 => "no LRF".to_string(),
        1 => "a unified LRF entry".to_string(),
        n => format!("a split LRF ({n} entries, one per operand slot)"),
    };
    let per = if o.mapped { format!("per active warp slot ({a})") } else { "per warp".into() };
    let ports = OrfLrfPorts::new(g, o);
    let module = Module {
        name: format!("{prefix}_orf"),
        doc: vec![
            format!("Operand register file and last result file: {per}, {} ORF entries", o.entries),
            format!("and {lrf}, each one warp register ({} lanes x 32 bits)", g.lanes),
            "with a valid bit. See docs/orf-lrf.md.".into(),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}

/// Slot `w` is warp `w`'s: the ports address their warp's slot. Returns the read's slot index,
/// its extra read condition and the slots freed at an edge (none).
fn identity(b: &mut String, a: u32) -> (String, String, String) {
    let one = |warp: &str| format!("{{{}, 1'b1}} << {warp}", lit(a - 1, 0));
    *b += &format!("  assign wr_sel = {};\n", one("wr_warp"));
    *b += &format!("  assign inv_sel = {{{a}{{inv_en}}}} & ({});\n", one("inv_warp"));
    ("rd_warp".into(), String::new(), String::new())
}

/// Slots per active warp: each slot's owner, and the slot each port addresses found by
/// comparing its warp with the owners. A warp with an accepted instruction and no slot takes the
/// lowest slot free before the edge or released at it, unless it is released itself.
fn slots(b: &mut String, g: &Geometry, o: &OrfLayout) -> (String, String, String) {
    let (a, wb, sb) = (o.slots, g.warp_bits(), o.slot_bits());
    for s in 0..a {
        *b += &reg(&format!("owner{s}"), wb);
    }
    *b += &vector_reg("owner_valid", a);
    for name in ["rd_sel", "rel_slot", "free_slot", "take_sel"] {
        *b += &vector_wire(name, a);
    }
    *b += &wire("take", 1);
    *b += &wire("rd_slot", sb);
    *b += &wire("wr_slot", sb);
    *b += "\n  // The slot of the issuing, the written and the invalidated warp, and the released slots.\n";
    for s in 0..a {
        *b += &format!("  assign rd_sel[{s}] = owner_valid[{s}] & (owner{s} == rd_warp);\n");
        *b += &format!("  assign wr_sel[{s}] = owner_valid[{s}] & (owner{s} == wr_warp);\n");
        *b += &format!("  assign inv_sel[{s}] = inv_en & owner_valid[{s}] & (owner{s} == inv_warp);\n");
        *b += &format!("  assign rel_slot[{s}] = owner_valid[{s}] & rel_mask[owner{s}];\n");
    }
    *b += &format!("  assign rd_slot = {};\n", onehot_index("rd_sel", a));
    *b += &format!("  assign wr_slot = {};\n", onehot_index("wr_sel", a));
    *b += "  // A warp issuing without a slot takes the lowest free one (lowest set bit).\n";
    *b += "  assign free_slot = ~owner_valid | rel_slot;\n";
    *b += "  assign take = take_en & ~(|rd_sel) & ~rel_mask[rd_warp];\n";
    *b += &format!("  assign take_sel = {{{a}{{take}}}} & {};\n", lowest_set("free_slot", a));
    *b += "  always @(posedge clk) begin\n";
    *b += &format!("    if (rst) owner_valid <= {};\n", lit(a, 0));
    *b += "    else owner_valid <= (owner_valid & ~rel_slot) | take_sel;\n";
    *b += "  end\n";
    for s in 0..a {
        *b += &format!("  always @(posedge clk) begin\n    if (take_sel[{s}]) owner{s} <= rd_warp;\n  end\n");
    }
    ("rd_slot".into(), " & (|rd_sel)".into(), " & ~rel_slot".into())
}
