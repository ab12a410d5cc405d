//! The memory leaf in ECP5 block RAMs: each 32-bit lane in one DP16KD used as a 512 x 36
//! pseudo-dual-port RAM (port A writes, port B reads), with the behavioural leaf's ports and
//! timing. Yosys 0.23 infers DP16KDs from the behavioural leaf but neither uses their output
//! register nor keeps its read-first logic off the block RAM's output, whose 5.8 ns
//! clock-to-output then takes most of a cycle.
//!
//! A DP16KD's read of the word its other port writes in the same cycle is undefined, so writes
//! land in the block RAM a cycle after they are offered; a read of the word landing that cycle
//! takes the lanes written from a bypass register. A read in the cycle of its write still gets
//! the old word (read-first). Under `SYNTHESIS` the leaf instantiates the primitives; otherwise
//! a model of the same use of them, whose collided read returns the old word inverted, so that a
//! lockstep run tells a missing bypass.

use crate::layout::geometry::{LANE_BITS, index_bits};
use crate::verilog::{reg, vector_reg, wire};

/// Words of one DP16KD in 36-bit mode.
pub const MAX_DEPTH: u32 = 512;

/// Address bits of a DP16KD port; a 36-bit word's address is `AD[13:5]`.
const AD_BITS: u32 = 14;
const AD_WORD_LSB: u32 = 5;

pub fn body(depth: u32, lanes: u32, read_cycles: u32) -> String {
    let (a, w) = (index_bits(depth), lanes * LANE_BITS);
    let two = read_cycles == 2;
    let mut b = String::new();
    b += &format!(
        "\n  // ECP5 block RAMs: lane i in DP16KD u_lane<i>, 512 x 36, port A writing, port B reading{}.\n",
        if two {
            ", the\n  // read data in the DP16KD's output register (REGMODE OUTREG): a read takes two cycles"
        } else {
            ""
        }
    );
    b += "  // Writes land a cycle after they are offered (a DP16KD's read of the word its other port\n";
    b += "  // writes is undefined); a read of the word landing that cycle takes the lanes written from\n";
    b += "  // the bypass. A read in the cycle of its write still gets the old word (read-first).\n";
    b += &[reg("wq_en", 1), reg("wq_addr", a), vector_reg("wq_mask", lanes), reg("wq_data", w), wire("ebr_data", w)]
        .concat();
    b += "  always @(posedge clk) begin\n    wq_en <= wr_en;\n    wq_addr <= wr_addr;\n    wq_mask <= wr_mask;\n    wq_data <= wr_data;\n  end\n\n";
    if two {
        b += "  // The bypass is decided a cycle ahead into `hit_q`, which resets the lanes' output registers\n";
        b += "  // (RSTB, synchronous) as the collided word would enter them; the bypass register holds\n";
        b += "  // the written lanes or zeros, so the read data is an OR, not a multiplexer after the block\n";
        b += "  // RAM: the collectors' capture of it stays in one LUT level. The output registers load only\n";
        b += "  // at a read's second edge (OCEB): the read data is held until the next read.\n";
        b += &[reg("rd_en_q", 1), vector_reg("hit_q", lanes), reg("byp_q", w), reg("byp_qq", w)].concat();
        b += "  always @(posedge clk) begin\n    rd_en_q <= rd_en;\n";
        b += &format!("    hit_q <= {{{lanes}{{rd_en & wq_en & (rd_addr == wq_addr)}}}} & wq_mask;\n");
        b += "    byp_q <= wq_data;\n  end\n";
        // Zeros by the flip-flops' synchronous reset, not a gate per bit.
        for l in 0..lanes {
            let (hi, lo) = (l * LANE_BITS + LANE_BITS - 1, l * LANE_BITS);
            b += &format!(
                "  always @(posedge clk) begin\n    if (rd_en_q & ~hit_q[{l}]) byp_qq[{hi}:{lo}] <= {LANE_BITS}'b0;\n    else if (rd_en_q) byp_qq[{hi}:{lo}] <= byp_q[{hi}:{lo}];\n  end\n"
            );
        }
        b += "  assign rd_data = ebr_data | byp_qq;\n";
    } else {
        b += &[vector_reg("hit_q", lanes), reg("byp_q", w)].concat();
        b += "  always @(posedge clk) begin\n    if (rd_en) begin\n";
        b += &format!(
            "      hit_q <= {{{lanes}{{wq_en & (rd_addr == wq_addr)}}}} & wq_mask;\n      byp_q <= wq_data;\n    end\n  end\n"
        );
        for l in 0..lanes {
            let (hi, lo) = (l * LANE_BITS + LANE_BITS - 1, l * LANE_BITS);
            b += &format!("  assign rd_data[{hi}:{lo}] = hit_q[{l}] ? byp_q[{hi}:{lo}] : ebr_data[{hi}:{lo}];\n");
        }
    }
    b += "\n`ifdef SYNTHESIS\n";
    for l in 0..lanes {
        b += &primitive(l, a, two);
    }
    b += "`else\n";
    b += &model(depth, lanes, two);
    b += "`endif\n";
    b
}

/// Lane `l`'s DP16KD.
fn primitive(l: u32, a: u32, two: bool) -> String {
    let reg = if two { "OUTREG" } else { "NOREG" };
    let reset = if two { " .RESETMODE(\"SYNC\")," } else { "" };
    let bit = |v: &str, i: u32| format!("{v}[{i}]");
    let mut pins: Vec<String> = vec![
        "CLKA(clk)".into(),
        "WEA(1'b1)".into(),
        format!("CEA(wq_en & wq_mask[{l}])"),
        "OCEA(1'b1)".into(),
        "RSTA(1'b0)".into(),
        "CLKB(clk)".into(),
        "WEB(1'b0)".into(),
        // Two-cycle: the port reads every cycle and its output register takes the word only at a
        // read's second edge, so the read enable reaches no block RAM pin.
        if two { "CEB(1'b1)".into() } else { "CEB(rd_en)".into() },
        if two { "OCEB(rd_en_q)".into() } else { "OCEB(1'b1)".into() },
        if two { format!("RSTB(hit_q[{l}])") } else { "RSTB(1'b0)".into() },
    ];
    pins.extend((0..3).flat_map(|i| [format!("CSA{i}(1'b0)"), format!("CSB{i}(1'b0)")]));
    // The word's address at AD[13:5]; below it port A takes its byte enables (AD[3:0], all four:
    // a lane is written whole) and port B zeros.
    let address = |v: &str, port: char, low: fn(u32) -> &'static str| -> Vec<String> {
        (0..AD_BITS)
            .map(|i| {
                let s = if i < AD_WORD_LSB {
                    low(i).to_string()
                } else if i - AD_WORD_LSB < a {
                    bit(v, i - AD_WORD_LSB)
                } else {
                    "1'b0".into()
                };
                format!("AD{port}{i}({s})")
            })
            .collect()
    };
    pins.extend(address("wq_addr", 'A', |i| if i < 4 { "1'b1" } else { "1'b0" }));
    pins.extend(address("rd_addr", 'B', |_| "1'b0"));
    // 36-bit words: bits 0..17 on the A pins, 18..35 on the B pins; bits 32..35 unused.
    let lane_bit = |i: u32| if i < LANE_BITS { format!("wq_data[{}]", l * LANE_BITS + i) } else { "1'b0".into() };
    pins.extend((0..18).map(|i| format!("DIA{i}({})", lane_bit(i))));
    pins.extend((0..18).map(|i| format!("DIB{i}({})", lane_bit(18 + i))));
    pins.extend((0..18).map(|i| format!("DOA{i}(lane{l}_do[{i}])")));
    pins.extend((0..18).map(|i| format!("DOB{i}(lane{l}_do[{}])", 18 + i)));
    let mut s = format!("  wire [35:0] lane{l}_do;\n");
    s += &format!(
        "  DP16KD #(\n    .DATA_WIDTH_A(36), .DATA_WIDTH_B(36), .REGMODE_A(\"{reg}\"), .REGMODE_B(\"{reg}\"),{reset}\n    .CSDECODE_A(\"0b000\"), .CSDECODE_B(\"0b000\"), .WRITEMODE_A(\"NORMAL\"), .WRITEMODE_B(\"NORMAL\"), .GSR(\"DISABLED\")\n  ) u_lane{l} (\n"
    );
    for chunk in pins.chunks(6) {
        s += &format!("    {},\n", chunk.iter().map(|p| format!(".{p}")).collect::<Vec<_>>().join(", "));
    }
    s.truncate(s.len() - 2);
    s += "\n  );\n";
    s += &format!("  assign ebr_data[{}:{}] = lane{l}_do[31:0];\n", l * LANE_BITS + LANE_BITS - 1, l * LANE_BITS);
    s
}

/// The simulation model of the primitives' use above.
fn model(depth: u32, lanes: u32, two: bool) -> String {
    let w = lanes * LANE_BITS;
    let mut s =
        String::from("  // Model of the DP16KDs above: a read of the word being written returns the old word\n");
    s += "  // inverted in the lanes written (the hardware's is undefined), so a missing bypass shows.\n";
    s += &format!("  reg  [{}:0] ebr [0:{}];\n", w - 1, depth - 1);
    s += &[reg("ebr_read", w), wire("collided", w)].concat();
    let lanes_hit: Vec<String> = (0..lanes).rev().map(|l| format!("{{32{{wq_mask[{l}]}}}}")).collect();
    s += &format!("  assign collided = {{{w}{{wq_en & (rd_addr == wq_addr)}}}} & {{{}}};\n", lanes_hit.join(", "));
    s += "  always @(posedge clk) begin\n    if (rd_en) ebr_read <= ebr[rd_addr] ^ collided;\n    if (wq_en) begin\n";
    for l in 0..lanes {
        let (hi, lo) = (l * LANE_BITS + LANE_BITS - 1, l * LANE_BITS);
        s += &format!("      if (wq_mask[{l}]) ebr[wq_addr][{hi}:{lo}] <= wq_data[{hi}:{lo}];\n");
    }
    s += "    end\n  end\n";
    if two {
        // The output registers: loaded at a read's second edge, the lanes of a collided read reset.
        let lanes_kept: Vec<String> = (0..lanes).rev().map(|l| format!("{{{LANE_BITS}{{~hit_q[{l}]}}}}")).collect();
        s += &reg("ebr_out", w);
        s += &format!(
            "  always @(posedge clk) if (rd_en_q) ebr_out <= ebr_read & {{{}}};\n  assign ebr_data = ebr_out;\n",
            lanes_kept.join(", ")
        );
    } else {
        s += "  assign ebr_data = ebr_read;\n";
    }
    s
}
