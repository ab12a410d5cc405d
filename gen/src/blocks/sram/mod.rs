//! The one memory leaf, shared by every block: a 1R1W array with a per-32-bit-lane write mask
//! (template `sram_1r1w.v`), a black-box stub with the same ports for ASIC flows
//! (`sram_blackbox.v`), or the same array in ECP5 block RAMs (`ecp5`). Its shape is recorded in
//! the manifest for area models.

mod ecp5;
pub mod interface;
pub mod observed;

use crate::layout::geometry::LANE_BITS;
use crate::templates::render;
use crate::verilog::{Memory, Module, Port, Ports, Submodule};
use interface::SramPorts;
use serde::{Deserialize, Serialize};
use tera::Context;

pub use ecp5::MAX_DEPTH as ECP5_MAX_DEPTH;

/// How memory leaves are emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SramKind {
    /// Behavioural array, for simulation and FPGA inference.
    #[default]
    Behavioural,
    /// Port-compatible stub to be replaced by an SRAM macro.
    Blackbox,
    /// One ECP5 DP16KD block RAM per 32-bit lane (its output register the read register of a
    /// two-cycle read); simulators other than a synthesizer get a model of the primitives.
    Ecp5,
}

impl SramKind {
    /// Why this kind cannot hold a leaf of `depth` words, if it cannot.
    pub fn refuses(self, depth: u32) -> Option<String> {
        (self == SramKind::Ecp5 && depth > ECP5_MAX_DEPTH).then(|| {
            format!(
                "the ECP5 memory leaf holds at most {ECP5_MAX_DEPTH} words (one DP16KD per 32-bit lane); this design's banks have {depth} rows"
            )
        })
    }
}

/// A `depth` x `width` leaf; `depth` is a power of two and `width` a multiple of 32. Its read
/// takes `read_cycles` cycles from address to data: 1, or 2 with the read data registered inside
/// the leaf (`timing.mrf_registered_read`; on an FPGA the block RAM's own output register).
pub fn sram(prefix: &str, depth: u32, width: u32, kind: SramKind, read_cycles: u32) -> Submodule<SramPorts<Port>> {
    assert!(depth.is_power_of_two() && width.is_multiple_of(LANE_BITS) && (1..=2).contains(&read_cycles));
    let lanes = width / LANE_BITS;
    let ports = SramPorts::new(depth, width, kind, read_cycles);
    let mut ctx = Context::new();
    ctx.insert("depth", &depth);
    ctx.insert("width", &width);
    ctx.insert("lanes", &lanes);
    ctx.insert("read_cycles", &read_cycles);
    let body = match kind {
        SramKind::Behavioural => render("sram_1r1w.v", &ctx),
        SramKind::Blackbox => render("sram_blackbox.v", &ctx),
        SramKind::Ecp5 => ecp5::body(depth, lanes, read_cycles),
    };
    let registered = if read_cycles == 2 { "_r2" } else { "" };
    let kind_line = match kind {
        SramKind::Behavioural => "Behavioural model; swap for a macro with `rfgen gen --sram blackbox`.".into(),
        SramKind::Blackbox => "Black-box stub: replace with an SRAM macro of the same ports and timing.".into(),
        SramKind::Ecp5 => format!(
            "ECP5 block RAM: one DP16KD (512 x 36) per lane{} (`rfgen gen --sram ecp5`).",
            if read_cycles == 2 { ", its output register the read register" } else { "" }
        ),
    };
    let module = Module {
        name: format!("{prefix}_sram_1r1w_{depth}x{width}{registered}"),
        doc: vec![
            format!(
                "{depth} x {width}-bit SRAM, one read and one write port, {lanes}-lane write mask{}.",
                if read_cycles == 2 { ", read data registered (2-cycle read)" } else { "" }
            ),
            kind_line,
        ],
        ports: ports.declared(),
        body,
        memory: Some(Memory { words: depth, width, read_cycles }),
    };
    Submodule { module, ports }
}
