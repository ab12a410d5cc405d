//! The blocks rfgen generates, one entry each: the name `--block` takes, what the block is, and
//! its generator. `rfgen gen`, `synth`, `sweep` and the docs read it here; the cosim binds its
//! glue, random stimulus and the block's place in the SM to the same [`Block`]
//! (`rfgen_cosim::blocks`).

use crate::config::{Checked, ConfigError};
use crate::emit::{self, Design, SramKind};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Block {
    Sm,
    Mrf,
    Bdi,
    Issue,
    Rename,
    Scheduler,
    Scoreboard,
    Warpboard,
}

/// Every block, in the order `rfgen cosim --list` shows them.
pub const BLOCKS: [Block; 8] = [
    Block::Sm,
    Block::Mrf,
    Block::Bdi,
    Block::Issue,
    Block::Rename,
    Block::Scheduler,
    Block::Scoreboard,
    Block::Warpboard,
];

impl Block {
    pub fn name(self) -> &'static str {
        match self {
            Block::Sm => "sm",
            Block::Mrf => "mrf",
            Block::Bdi => "bdi",
            Block::Issue => "issue",
            Block::Rename => "rename",
            Block::Scheduler => "scheduler",
            Block::Scoreboard => "scoreboard",
            Block::Warpboard => "warpboard",
        }
    }

    pub fn about(self) -> &'static str {
        match self {
            Block::Sm => {
                "the SM's register-file pipeline: the issue stage and the MRF with the wires between them (top <prefix>_sm_rf; configs without renaming)"
            }
            Block::Mrf => {
                "banked main register file with operand collectors, with the compressor, register file cache or ORF/LRF the config enables (top <prefix>_mrf)"
            }
            Block::Bdi => {
                "BDI compressor feeding a decompressor, from the config's [compression] section (top <prefix>_bdi_codec)"
            }
            Block::Issue => {
                "issue stage: scoreboard, warpboard and warp scheduler with the check between them (top <prefix>_issue)"
            }
            Block::Rename => {
                "rename stage: rename table, CMOS and TFET free lists, MEM_RA counters, from the config's [rename] section (top <prefix>_rename)"
            }
            Block::Scheduler => {
                "warp scheduler of the issue stage, the config's scheduler.policy (top <prefix>_scheduler)"
            }
            Block::Scoreboard => {
                "scoreboard of the issue stage: pending registers, long-latency results, predicates (top <prefix>_scoreboard)"
            }
            Block::Warpboard => "WAR-hazard warpboard of the config's warpboard.policy (top <prefix>_warpboard)",
        }
    }

    /// The block named `name`, or an error listing the names.
    pub fn parse(name: &str) -> Result<Block, String> {
        BLOCKS.into_iter().find(|b| b.name() == name).ok_or_else(|| {
            let names: Vec<&str> = BLOCKS.iter().map(|b| b.name()).collect();
            format!("unknown block `{name}` (allowed: {})", names.join(", "))
        })
    }

    /// The SM `checked` describes contains this block: it must generate. The others may be
    /// generated from their sections anyway (`bdi`, `rename`), or not at all (a warpboard of
    /// policy `none`).
    pub fn in_config(self, checked: &Checked) -> bool {
        let c = &checked.config;
        match self {
            Block::Sm | Block::Mrf | Block::Issue | Block::Scheduler | Block::Scoreboard => true,
            Block::Warpboard => c.warpboard.policy != crate::config::WarPolicy::None,
            Block::Rename => c.rename.enabled,
            Block::Bdi => c.compression.enabled,
        }
    }

    /// Only the MRF (alone or in the composed top) has memory leaves, which `--sram blackbox`
    /// emits as stubs.
    pub fn has_sram(self) -> bool {
        matches!(self, Block::Mrf | Block::Sm)
    }

    /// The block's design: every module, leaves first, its top last.
    pub fn generate(self, checked: &Checked, sram: SramKind) -> Result<Design, ConfigError> {
        Ok(match self {
            Block::Sm => emit::generate_sm_rf(checked, sram),
            Block::Mrf => emit::generate(checked, sram),
            Block::Bdi => emit::generate_bdi_codec(checked)?,
            Block::Issue => emit::generate_issue(checked),
            Block::Rename => emit::generate_rename(checked),
            Block::Scheduler => emit::generate_scheduler(checked),
            Block::Scoreboard => emit::generate_scoreboard(checked),
            Block::Warpboard => emit::generate_warpboard(checked)?,
        })
    }
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Block {
    type Err = String;
    fn from_str(name: &str) -> Result<Block, String> {
        Block::parse(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_unknown_ones_are_listed() {
        for b in BLOCKS {
            assert_eq!(Block::parse(b.name()), Ok(b));
        }
        assert_eq!(
            Block::parse("alu").unwrap_err(),
            "unknown block `alu` (allowed: sm, mrf, bdi, issue, rename, scheduler, scoreboard, warpboard)"
        );
    }

    #[test]
    fn every_block_of_every_preset_generates_with_its_top() {
        for name in crate::config::preset_names() {
            let checked = crate::config::preset(name).unwrap();
            for b in BLOCKS.into_iter().filter(|b| b.in_config(&checked)) {
                let design = b.generate(&checked, SramKind::Behavioural).unwrap();
                assert!(design.manifest.top.ends_with(match b {
                    Block::Bdi => "_bdi_codec",
                    Block::Sm => "_sm_rf",
                    _ => b.name(),
                }));
            }
        }
    }
}
