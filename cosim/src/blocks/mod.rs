//! The blocks `rfgen cosim --block` can check. Each entry says which design to build (and its
//! top module) and how to make the model side of a lockstep run.

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

pub const BLOCKS: &[BlockInfo] = &[BlockInfo {
    name: "mrf",
    about: "banked main register file with operand collectors (top <prefix>_mrf)",
    design: |checked| Ok(rfgen_gen::generate(checked, SramKind::Behavioural)),
    random: |checked, layout, seed| {
        let g = &checked.geometry;
        Box::new(mrf::MrfLockstep::new(g, layout, mrf::RandomStimulus::new(g, seed, mrf::Knobs::default())))
    },
}];

pub fn find(name: &str) -> Result<&'static BlockInfo> {
    match BLOCKS.iter().find(|b| b.name == name) {
        Some(b) => Ok(b),
        None => {
            let names: Vec<&str> = BLOCKS.iter().map(|b| b.name).collect();
            bail!("unknown block `{name}` (allowed: {})", names.join(", "))
        }
    }
}
