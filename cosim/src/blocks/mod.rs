//! The blocks `rfgen cosim --block` can check. Each entry says which design to build (and its
//! top module) and how to make the model side of a lockstep run.

pub mod bdi;
pub mod mrf;

use crate::lockstep::Lockstep;
use crate::verilator::Layout;
use anyhow::{Result, bail};
use rfgen_gen::{Checked, Design, SramKind};

pub struct BlockInfo {
    pub name: &'static str,
    pub about: &'static str,
    /// The RTL to cosimulate (behavioural memories), with the block's module as top; an error
    /// when the config does not contain the block.
    pub design: fn(&Checked) -> Result<Design>,
    /// The model side of a random lockstep run with a seed.
    pub random: fn(&Checked, &Layout, u64) -> Box<dyn Lockstep>,
}

pub const BLOCKS: &[BlockInfo] = &[
    BlockInfo {
        name: "mrf",
        about: "banked main register file with operand collectors, compressed when the config says so (top <prefix>_mrf)",
        design: |checked| Ok(rfgen_gen::generate(checked, SramKind::Behavioural)),
        random: |checked, layout, seed| {
            let g = &checked.geometry;
            let knobs =
                if checked.config.compression.enabled { mrf::Knobs::compressed() } else { mrf::Knobs::default() };
            Box::new(mrf::MrfLockstep::for_config(checked, layout, mrf::RandomStimulus::new(g, seed, knobs)))
        },
    },
    BlockInfo {
        name: "bdi",
        about: "BDI compressor feeding a decompressor, from the config's [compression] section (top <prefix>_bdi_codec)",
        design: |checked| Ok(rfgen_gen::emit::generate_bdi_codec(checked)?),
        random: |checked, layout, seed| {
            let l = bdi_layout(checked).expect("the design was generated, so the layout is valid");
            let stimulus = bdi::RandomCodecStimulus::new(l.lanes, seed, bdi::CodecKnobs::default());
            Box::new(bdi::CodecLockstep::new(&l, layout, stimulus))
        },
    },
];

/// The compressed layout of a config's `[compression]` section.
pub fn bdi_layout(checked: &Checked) -> Result<rfgen_gen::bdi::Layout, rfgen_gen::ConfigError> {
    checked.codec_layout()
}

pub fn find(name: &str) -> Result<&'static BlockInfo> {
    match BLOCKS.iter().find(|b| b.name == name) {
        Some(b) => Ok(b),
        None => {
            let names: Vec<&str> = BLOCKS.iter().map(|b| b.name).collect();
            bail!("unknown block `{name}` (allowed: {})", names.join(", "))
        }
    }
}
