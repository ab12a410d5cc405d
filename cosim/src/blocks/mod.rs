//! The blocks `rfgen cosim --block` can check: for each, the design to build and the model side
//! of the lockstep run.

pub mod mrf;

use crate::lockstep::Lockstep;
use crate::verilator::Layout;
use anyhow::{Result, bail};
use rfgen_gen::{Checked, Design, SramKind};

pub struct BlockInfo {
    pub name: &'static str,
    pub about: &'static str,
}

pub const BLOCKS: &[BlockInfo] =
    &[BlockInfo { name: "mrf", about: "banked main register file with operand collectors (top <prefix>_mrf)" }];

pub fn check_name(block: &str) -> Result<()> {
    if BLOCKS.iter().any(|b| b.name == block) {
        Ok(())
    } else {
        let names: Vec<&str> = BLOCKS.iter().map(|b| b.name).collect();
        bail!("unknown block `{block}` (allowed: {})", names.join(", "))
    }
}

/// The RTL to cosimulate for `block` (always with behavioural memories).
pub fn design(_block: &str, checked: &Checked) -> Design {
    rfgen_gen::generate(checked, SramKind::Behavioural)
}

/// The model side of a random lockstep run.
pub fn random_lockstep(_block: &str, checked: &Checked, layout: &Layout, seed: u64) -> Box<dyn Lockstep> {
    let g = &checked.geometry;
    Box::new(mrf::MrfLockstep::new(g, layout, mrf::RandomStimulus::new(g, seed, mrf::Knobs::default())))
}
