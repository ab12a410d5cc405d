//! The one memory leaf, shared by every block: a 1R1W array with a per-32-bit-lane write mask
//! (template `sram_1r1w.v`), or a black-box stub with the same ports for ASIC flows
//! (`sram_blackbox.v`). Its shape is recorded in the manifest for area models.

use crate::geometry::{LANE_BITS, index_bits};
use crate::templates::render;
use crate::verilog::{Memory, Module, Port};
use serde::{Deserialize, Serialize};
use tera::Context;

/// How memory leaves are emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SramKind {
    /// Behavioural array, for simulation and FPGA inference.
    #[default]
    Behavioural,
    /// Port-compatible stub to be replaced by an SRAM macro.
    Blackbox,
}

/// A `depth` x `width` leaf; `depth` is a power of two and `width` a multiple of 32.
pub fn sram(prefix: &str, depth: u32, width: u32, kind: SramKind) -> Module {
    assert!(depth.is_power_of_two() && width.is_multiple_of(LANE_BITS));
    let lanes = width / LANE_BITS;
    let a = index_bits(depth);
    let mut rd_data = Port::output("rd_data", width, "word read in the previous cycle (held until the next read)");
    let template = match kind {
        SramKind::Behavioural => {
            rd_data = rd_data.reg();
            "sram_1r1w.v"
        }
        SramKind::Blackbox => "sram_blackbox.v",
    };
    let mut ctx = Context::new();
    ctx.insert("depth", &depth);
    ctx.insert("width", &width);
    ctx.insert("lanes", &lanes);
    Module {
        name: format!("{prefix}_sram_1r1w_{depth}x{width}"),
        doc: vec![
            format!("{depth} x {width}-bit SRAM, one read and one write port, {lanes}-lane write mask."),
            match kind {
                SramKind::Behavioural => "Behavioural model; swap for a macro with `rfgen gen --sram blackbox`.".into(),
                SramKind::Blackbox => "Black-box stub: replace with an SRAM macro of the same ports and timing.".into(),
            },
        ],
        ports: vec![
            Port::input("clk", 1, "clock"),
            Port::input("rd_en", 1, "read enable"),
            Port::input("rd_addr", a, "read address"),
            rd_data,
            Port::input("wr_en", 1, "write enable"),
            Port::input("wr_addr", a, "write address"),
            Port::input("wr_mask", lanes, "per-lane write enable, lane i (data bits [32i+31:32i]) at bit i").vector(),
            Port::input("wr_data", width, "write data"),
        ],
        body: render(template, &ctx),
        memory: Some(Memory { words: depth, width }),
    }
}
