//! The operand register file and last result file beside the operand collectors, as modelled
//! by `model::blocks::mrf::Orf`: per warp, the ORF's and the LRF's entries of one warp register
//! with a valid bit; three reads at issue, one write port, strand invalidation.

pub mod interface;

use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::layout::orf::{LEVEL_LRF, LEVEL_ORF, OrfLayout};
use crate::verilog::{Module, Port, Ports, Submodule, lit, onehot_mux, reg, slice, wire};
use interface::OrfLrfPorts;

pub fn orf(prefix: &str, g: &Geometry, o: &OrfLayout) -> Submodule<OrfLrfPorts<Port>> {
    let (w, wr, eb, k) = (g.warps, g.warp_reg_bits(), o.entry_bits(), SLOTS_PER_COLLECTOR);
    let levels = [("orf", LEVEL_ORF, o.entries), ("lrf", LEVEL_LRF, o.lrf_entries())];
    let arrays: Vec<(String, u64, u32)> =
        levels.iter().flat_map(|&(name, level, n)| (0..n).map(move |e| (format!("{name}{e}"), level, e))).collect();
    let mut b = String::new();
    for (name, _, _) in &arrays {
        b += &format!("  reg  [{}:0] {name}_data [0:{}];\n", wr - 1, w - 1);
        b += &reg(&format!("{name}_valid"), w);
        b += &wire(&format!("{name}_we"), 1);
    }
    b += &wire("wr_lanes", wr);
    b += &wire("wr_onehot", w);
    b += &wire("inv_onehot", w);
    let lanes: Vec<String> = (0..g.lanes).rev().map(|l| format!("{{32{{wr_mask[{l}]}}}}")).collect();
    b += &format!("\n  assign wr_lanes = {{{}}};\n", lanes.join(", "));
    let one = |warp: &str| format!("{{{}, 1'b1}} << {warp}", lit(w - 1, 0));
    b += &format!("  assign wr_onehot = {};\n", one("wr_warp"));
    b += &format!("  assign inv_onehot = {{{w}{{inv_en}}}} & ({});\n", one("inv_warp"));
    b += "\n  // One write port: the masked lanes of one entry; the entry becomes valid. A strand start\n";
    b += "  // invalidates every entry of its warp (before this edge's write).\n";
    for (name, level, e) in &arrays {
        b += &format!(
            "  assign {name}_we = wr_en & (wr_level == {}) & (wr_entry == {});\n",
            lit(2, *level),
            lit(eb, *e as u64)
        );
        b += &format!(
            "  always @(posedge clk) begin\n    if ({name}_we) {name}_data[wr_warp] <= ({name}_data[wr_warp] & ~wr_lanes) | (wr_data & wr_lanes);\n  end\n"
        );
        b += &format!(
            "  always @(posedge clk) begin\n    if (rst) {name}_valid <= {};\n    else {name}_valid <= ({name}_valid & ~inv_onehot) | ({{{w}{{{name}_we}}}} & wr_onehot);\n  end\n",
            lit(w, 0)
        );
    }
    b += "\n  // Reads at issue, from the state before the edge: an invalid or absent entry reads zero.\n";
    for s in 0..k {
        let terms: Vec<(String, String)> = arrays
            .iter()
            .map(|(name, level, e)| {
                (
                    format!(
                        "({} == {}) & ({} == {}) & {name}_valid[rd_warp]",
                        slice("rd_level", s, 2),
                        lit(2, *level),
                        slice("rd_entry", s, eb),
                        lit(eb, *e as u64)
                    ),
                    format!("{name}_data[rd_warp]"),
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
    let ports = OrfLrfPorts::new(g, o);
    let module = Module {
        name: format!("{prefix}_orf"),
        doc: vec![
            format!("Operand register file and last result file: per warp, {} ORF entries and {lrf},", o.entries),
            format!("each one warp register ({} lanes x 32 bits) with a valid bit. See docs/orf-lrf.md.", g.lanes),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}
