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
    Module, Port, Ports, Submodule, lit, lowest_set, onehot_index, reg, slice, vector_reg, vector_wire, wire,
};
use interface::OrfLrfPorts;

pub fn orf(prefix: &str, g: &Geometry, o: &OrfLayout) -> Submodule<OrfLrfPorts<Port>> {
    let (a, wr, eb, k) = (o.slots, g.warp_reg_bits(), o.entry_bits(), SLOTS_PER_COLLECTOR);
    let levels = [("orf", LEVEL_ORF, o.entries), ("lrf", LEVEL_LRF, o.lrf_entries())];
    let arrays: Vec<(String, u64, u32)> =
        levels.iter().flat_map(|&(name, level, n)| (0..n).map(move |e| (format!("{name}{e}"), level, e))).collect();
    let mut b = String::new();
    for (name, _, _) in &arrays {
        b += &wire(&format!("{name}_rd"), wr);
        b += &vector_reg(&format!("{name}_valid"), a);
        b += &wire(&format!("{name}_we"), 1);
    }
    b += &vector_wire("wr_sel", a);
    b += &vector_wire("inv_sel", a);
    // Per slot: which slot each port addresses (one-hot), and the slots freed at this edge.
    let (rd_slot, freed) = if o.mapped { slots(&mut b, g, o) } else { identity(&mut b, a) };
    b += "\n  // One write port: the masked lanes of one entry; the entry becomes valid. A strand start\n";
    b += "  // invalidates every entry of its warp (before this edge's write)";
    b += if o.mapped {
        "; a released slot has\n  // every entry invalid, so a free slot is taken empty.\n"
    } else {
        ".\n"
    };
    let (at, slot_en) = if o.mapped { ("wr_slot", " & (|wr_sel)") } else { ("wr_warp", "") };
    for (name, level, e) in &arrays {
        b += &format!(
            "  assign {name}_we = wr_en & (wr_level == {}) & (wr_entry == {});\n",
            lit(2, *level),
            lit(eb, *e as u64)
        );
        b += &format!(
            "  always @(posedge clk) begin\n    if (rst) {name}_valid <= {};\n    else {name}_valid <= (({name}_valid & ~inv_sel) | ({{{a}{{{name}_we}}}} & wr_sel)){freed};\n  end\n",
            lit(a, 0)
        );
    }
    // A lane's word of an entry is written alone, so no write reads the entry to merge lanes:
    // on an FPGA each array is LUT RAM with the lane's write enable, one read port each.
    b += "\n  // The entries' words, an array per entry and lane (slot-indexed), read at the issuing\n";
    b += "  // warp's slot.\n  genvar lane;\n  generate\n";
    b += &format!("    for (lane = 0; lane < {}; lane = lane + 1) begin : g_lane\n", g.lanes);
    for (name, _, _) in &arrays {
        b += &format!("      reg  [31:0] {name}_data [0:{}];\n", a - 1);
        b += &format!(
            "      always @(posedge clk) begin\n        if ({name}_we{slot_en} & wr_mask[lane]) {name}_data[{at}] <= wr_data[32*lane +: 32];\n      end\n"
        );
        b += &format!("      assign {name}_rd[32*lane +: 32] = {name}_data[{rd_slot}];\n");
    }
    b += "    end\n  endgenerate\n";
    b += "\n  // Reads at issue, from the state before the edge: an invalid or absent entry, or a warp\n";
    b += "  // without a slot, reads zero. Each source first picks its array by number (the conditions\n";
    b += "  // exclude each other), then a multiplexer per bit: the same function as an AND-OR of the\n";
    b += "  // conditions, which logic synthesis copied into every bit's cone (ten times the LUTs).\n";
    b += "  // `keep` makes each pick one net synthesis cannot copy (without it the copies came back\n";
    b += "  // with some orders of the design's files).\n";
    // With slots, a warp holds at most one (it takes one only without): its entry's valid bit
    // is the one-hot AND-OR, which also reads 0 for a warp without a slot.
    let valid =
        |name: &str| if o.mapped { format!("|({name}_valid & rd_sel)") } else { format!("{name}_valid[{rd_slot}]") };
    let (none, pb) = (arrays.len() as u64, u64::BITS - (arrays.len() as u64).leading_zeros());
    for s in 0..k {
        b += &format!("  (* keep *) {}", reg(&format!("pick{s}"), pb).trim_start());
        b += &format!("  always @* begin\n    pick{s} = {};\n", lit(pb, none));
        for (i, (name, level, e)) in arrays.iter().enumerate() {
            b += &format!(
                "    if (({} == {}) & ({} == {}) & {}) pick{s} = {};\n",
                slice("rd_level", s, 2),
                lit(2, *level),
                slice("rd_entry", s, eb),
                lit(eb, *e as u64),
                valid(name),
                lit(pb, i as u64)
            );
        }
        b += "  end\n";
        let chain: Vec<String> = arrays
            .iter()
            .enumerate()
            .map(|(i, (name, _, _))| format!("(pick{s} == {}) ? {name}_rd", lit(pb, i as u64)))
            .collect();
        b += &format!("  assign {} = {}\n      : {};\n", slice("rd_data", s, wr), chain.join("\n      : "), lit(wr, 0));
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

/// Slot `w` is warp `w`'s: the ports address their warp's slot. Returns the read's slot index
/// and the slots freed at an edge (none).
fn identity(b: &mut String, a: u32) -> (String, String) {
    let one = |warp: &str| format!("{{{}, 1'b1}} << {warp}", lit(a - 1, 0));
    *b += &format!("  assign wr_sel = {};\n", one("wr_warp"));
    *b += &format!("  assign inv_sel = {{{a}{{inv_en}}}} & ({});\n", one("inv_warp"));
    ("rd_warp".into(), String::new())
}

/// Slots per active warp: each slot's owner, and the slot each port addresses found by
/// comparing its warp with the owners. A warp with an accepted instruction and no slot takes the
/// lowest slot free before the edge or released at it, unless it is released itself. Returns
/// the read's slot index and the slots freed at an edge.
fn slots(b: &mut String, g: &Geometry, o: &OrfLayout) -> (String, String) {
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
    ("rd_slot".into(), " & ~rel_slot".into())
}
