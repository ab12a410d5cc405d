//! The synthesis targets: the Yosys command that maps a module to each, and which of its cells
//! are look-up tables, flip-flops, block RAM, LUT RAM or DSP blocks.

use rfgen_gen::SramKind;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// Yosys internal gates (ASIC view): cells, flip-flops, transistor estimate; µm² with --liberty
    Generic,
    /// Lattice iCE40: SB_LUT4, SB_DFF*, SB_RAM40_4K, SB_MAC16
    Ice40,
    /// Xilinx 7-series: LUT1-6, FD*, RAMB18/36, LUT RAM, DSP48E1
    Xilinx,
    /// Lattice ECP5: LUT4, TRELLIS_FF, DP16KD, TRELLIS_DPR16X4, MULT18X18D
    Ecp5,
}

/// What a mapped cell is, for the summary columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Lut,
    FlipFlop,
    BlockRam,
    LutRam,
    Dsp,
    Other,
}

use Class::*;

/// Cell-type prefixes per target, first match wins (so `RAMB` comes before `RAM`).
const GENERIC: &[(&str, Class)] =
    &[("$_DFF", FlipFlop), ("$_SDFF", FlipFlop), ("$_ALDFF", FlipFlop), ("$_DLATCH", FlipFlop)];
const ICE40: &[(&str, Class)] = &[("SB_LUT", Lut), ("SB_DFF", FlipFlop), ("SB_RAM", BlockRam), ("SB_MAC", Dsp)];
const XILINX: &[(&str, Class)] = &[
    ("LUT", Lut),
    ("FD", FlipFlop),
    ("LD", FlipFlop),
    ("RAMB", BlockRam),
    ("RAM", LutRam),
    ("SRL", LutRam),
    ("DSP", Dsp),
];
const ECP5: &[(&str, Class)] = &[
    ("LUT4", Lut),
    ("TRELLIS_FF", FlipFlop),
    ("DP16KD", BlockRam),
    ("PDPW16KD", BlockRam),
    ("TRELLIS_DPR", LutRam),
    ("MULT18", Dsp),
    ("ALU54", Dsp),
];

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Generic => "generic",
            Target::Ice40 => "ice40",
            Target::Xilinx => "xilinx",
            Target::Ecp5 => "ecp5",
        }
    }

    /// FPGA targets keep the behavioural memory leaves so that Yosys infers block or LUT RAM,
    /// as an FPGA user's flow would; the ASIC view black-boxes them.
    pub fn is_fpga(self) -> bool {
        self != Target::Generic
    }

    /// The memory leaves a design of `rows`-row banks is generated with for this target: on ECP5
    /// the block-RAM leaf (`rfgen gen --sram ecp5`) where it holds the banks, since Yosys 0.23
    /// cannot use a DP16KD's output register; elsewhere the behavioural leaf.
    pub fn sram_kind(self, rows: u32) -> SramKind {
        match self {
            Target::Ecp5 if SramKind::Ecp5.refuses(rows).is_none() => SramKind::Ecp5,
            _ => SramKind::Behavioural,
        }
    }

    /// The Yosys command mapping `top` and everything below it, flattened into one module.
    pub fn synth_command(self, top: &str) -> String {
        match self {
            Target::Generic => format!("synth -flatten -top {top}"),
            Target::Ice40 => format!("synth_ice40 -top {top}"),
            // Out of context: no I/O buffers on the module's ports.
            Target::Xilinx => format!("synth_xilinx -flatten -noiopad -top {top}"),
            Target::Ecp5 => format!("synth_ecp5 -top {top}"),
        }
    }

    pub fn classify(self, cell: &str) -> Class {
        let table = match self {
            Target::Generic => GENERIC,
            Target::Ice40 => ICE40,
            Target::Xilinx => XILINX,
            Target::Ecp5 => ECP5,
        };
        table.iter().find(|(prefix, _)| cell.starts_with(prefix)).map_or(Other, |&(_, class)| class)
    }
}
