//! The one memory leaf, shared by every block: a 1R1W array with a per-32-bit-lane write mask
//! (template `sram_1r1w.v`), or a black-box stub with the same ports for ASIC flows
//! (`sram_blackbox.v`). Its shape is recorded in the manifest for area models.

pub mod interface;

use crate::layout::geometry::LANE_BITS;
use crate::templates::render;
use crate::verilog::{Memory, Module, Port, Ports, Submodule};
use interface::SramPorts;
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
pub fn sram(prefix: &str, depth: u32, width: u32, kind: SramKind) -> Submodule<SramPorts<Port>> {
    assert!(depth.is_power_of_two() && width.is_multiple_of(LANE_BITS));
    let lanes = width / LANE_BITS;
    let ports = SramPorts::new(depth, width, kind);
    let template = match kind {
        SramKind::Behavioural => "sram_1r1w.v",
        SramKind::Blackbox => "sram_blackbox.v",
    };
    let mut ctx = Context::new();
    ctx.insert("depth", &depth);
    ctx.insert("width", &width);
    ctx.insert("lanes", &lanes);
    let module = Module {
        name: format!("{prefix}_sram_1r1w_{depth}x{width}"),
        doc: vec![
            format!("{depth} x {width}-bit SRAM, one read and one write port, {lanes}-lane write mask."),
            match kind {
                SramKind::Behavioural => "Behavioural model; swap for a macro with `rfgen gen --sram blackbox`.".into(),
                SramKind::Blackbox => "Black-box stub: replace with an SRAM macro of the same ports and timing.".into(),
            },
        ],
        ports: ports.declared(),
        body: render(template, &ctx),
        memory: Some(Memory { words: depth, width }),
    };
    Submodule { module, ports }
}
