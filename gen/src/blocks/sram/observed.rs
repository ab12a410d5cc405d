//! What the memory leaf's behaviour depends on, for equivalence checks that cut it out.
//!
//! A check that cuts a module at its instances compares what the module drives into them. For
//! the memory leaf that is too strict: its read address matters only in a cycle that reads, its
//! write address only when some lane writes, and a lane's write data only when that lane
//! writes (`sram_1r1w.v`: read-first, per-lane write mask). An edit that changes the address
//! of a cycle with no read, or the enable of a write whose mask is empty, is invisible in the
//! leaf's read data yet differs at its ports. So the check replaces each leaf by these observed
//! inputs feeding a black box ([`core_name`]): equal observed inputs into identical leaves give
//! equal read data, whatever the raw ports carry.

use crate::layout::geometry::{LANE_BITS, index_bits};

/// The black box holding a leaf's state in a check: the leaf's name with `_observed`.
pub fn core_name(leaf: &str) -> String {
    format!("{leaf}_observed")
}

/// Verilog for a leaf `leaf` of `words` x `width` bits: the black box's declaration (read as a
/// library), and a techmap rule replacing the leaf by its observed inputs into that black box.
pub fn shim(leaf: &str, words: u32, width: u32) -> (String, String) {
    let a = index_bits(words);
    let lanes = width / LANE_BITS;
    let core = core_name(leaf);
    let declaration = format!(
        "(* blackbox *)\nmodule {core} (\n  input wire rd_en,\n  input wire [{am}:0] rd_addr,\n  \
         output wire [{wm}:0] rd_data,\n  input wire [{lm}:0] lane_write,\n  input wire [{am}:0] wr_addr,\n  \
         input wire [{wm}:0] wr_data\n);\nendmodule\n",
        am = a - 1,
        wm = width - 1,
        lm = lanes - 1,
    );
    let lane_data: Vec<String> = (0..lanes).rev().map(|l| format!("{{{LANE_BITS}{{lane_write[{l}]}}}}")).collect();
    let rule = format!(
        "module {leaf} (\n  input wire clk,\n  input wire rd_en,\n  input wire [{am}:0] rd_addr,\n  \
         output wire [{wm}:0] rd_data,\n  input wire wr_en,\n  input wire [{am}:0] wr_addr,\n  \
         input wire [{lm}:0] wr_mask,\n  input wire [{wm}:0] wr_data\n);\n  \
         wire [{lm}:0] lane_write = wr_mask & {{{lanes}{{wr_en}}}};\n  \
         {core} observed (\n    .rd_en      (rd_en),\n    .rd_addr    (rd_en ? rd_addr : {a}'d0),\n    \
         .rd_data    (rd_data),\n    .lane_write (lane_write),\n    .wr_addr    ((|lane_write) ? wr_addr : {a}'d0),\n    \
         .wr_data    (wr_data & {{{}}})\n  );\nendmodule\n",
        lane_data.join(", "),
        am = a - 1,
        wm = width - 1,
        lm = lanes - 1,
    );
    (declaration, rule)
}
