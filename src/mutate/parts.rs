//! Which stimulus reaches a survivor of a block built of others: its edit run through the
//! lockstep of each part around it that has one of its own (a scoreboard's edit in the composed
//! top through `--block scoreboard`, then `--block issue`). A part's random stimulus drives its
//! ports directly, with coincidences the whole block's programs meet rarely; the test suite runs
//! both, so a part's lockstep that tells the mutant from the part's model catches it.

use super::{Mutant, Mutants, SELECT, SELECT_BITS, Stimulus, Verdict, equiv};
use crate::synth::yosys;
use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use rfgen_cosim::session;
use rfgen_gen::registry::BLOCKS;
use rfgen_gen::{Block, Checked, Design, SramKind};
use std::collections::HashMap;
use std::path::Path;

/// A block generated inside another: its lockstep checks the same module.
pub struct Part {
    pub block: Block,
    design: Design,
}

impl Part {
    pub fn top(&self) -> &str {
        &self.design.manifest.top
    }
}

/// The parts of `block`'s `design` for `checked`: every other block of the config whose
/// generated sources are all in `design`, the same but for their comments (a header names the
/// `rfgen gen` command that wrote it).
pub fn find(block: Block, checked: &Checked, design: &Design) -> Vec<Part> {
    let code = |text: &str| text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let held: HashMap<&str, String> = design.sources().map(|(name, text)| (name.as_str(), code(text))).collect();
    BLOCKS
        .into_iter()
        .filter(|&b| b != block && b.in_config(checked))
        .filter_map(|b| b.generate(checked, SramKind::Behavioural).ok().map(|design| Part { block: b, design }))
        .filter(|p| p.design.sources().all(|(name, text)| held.get(name.as_str()) == Some(&code(text))))
        .collect()
}

/// Runs each of `survivors` through the lockstep of every part of `parts` around its edit,
/// inner part first, until one catches it: its verdict by mutant index. One Verilator build per
/// part holds all its survivors' edits (selected by [`SELECT`] as in the campaign's netlist);
/// scripts and logs go to `part_<block>` in the campaign's folder. `note` hears of each part as
/// it starts, and of one that cannot run (its survivors are left as they are: the campaign's
/// checks so far stand).
pub fn run(
    drawn: &Mutants,
    parts: &[Part],
    survivors: &[&Mutant],
    checked: &Checked,
    stimulus: &Stimulus,
    cache: &Path,
    note: &mut dyn FnMut(String),
) -> HashMap<u32, Verdict> {
    // Each survivor's enclosing modules, outermost first, with its cell's name in each.
    let paths: Vec<Vec<(String, String)>> =
        survivors.iter().map(|m| equiv::enclosing(&drawn.top, &m.cell, &drawn.instances)).collect();
    let depth = |p: &Part| paths.iter().filter_map(|path| path.iter().position(|(m, _)| m == p.top())).max();
    let mut order: Vec<(usize, &Part)> = parts.iter().filter_map(|p| depth(p).map(|d| (d, p))).collect();
    order.sort_by_key(|(d, _)| std::cmp::Reverse(*d));
    let mut verdicts = HashMap::new();
    for (_, part) in order {
        let edits: Vec<(&Mutant, &str)> = survivors
            .iter()
            .zip(&paths)
            .filter(|(m, _)| !verdicts.contains_key(&m.index))
            .filter_map(|(m, path)| path.iter().find(|(module, _)| module == part.top()).map(|(_, c)| (*m, c.as_str())))
            .collect();
        if edits.is_empty() {
            continue;
        }
        let (block, top) = (part.block.name(), part.top());
        note(format!("running {} survivors under the lockstep of --block {block} ({top})", edits.len()));
        match run_part(drawn, part, &edits, checked, stimulus, cache) {
            Ok(caught) => verdicts.extend(caught),
            Err(e) => note(format!("--block {block} could not run its survivors, left as they are: {e:#}")),
        }
    }
    verdicts
}

/// The mutants of `edits` that `part`'s lockstep catches, with their verdicts.
fn run_part(
    drawn: &Mutants,
    part: &Part,
    edits: &[(&Mutant, &str)],
    checked: &Checked,
    stimulus: &Stimulus,
    cache: &Path,
) -> Result<Vec<(u32, Verdict)>> {
    let folder = drawn.design.parent().context("the campaign's design is in a folder")?;
    let netlist = netlist(drawn, part, edits, &folder.join(format!("part_{}", part.block.name())))?;
    let lib = session::load_variants(&netlist, SELECT, cache, &mut |_| {})?;
    if let Verdict::Caught { by, .. } = super::run(part.block, checked, &lib, 0, stimulus)? {
        bail!("the unmutated {} differs from its model under {by}: its netlist is not the generated RTL", part.top());
    }
    let verdicts: Vec<(u32, Verdict)> = edits
        .par_iter()
        .map(|(m, _)| Ok((m.index, super::run(part.block, checked, &lib, m.index, stimulus)?)))
        .collect::<Result<_>>()?;
    Ok(verdicts
        .into_iter()
        .filter_map(|(index, verdict)| match verdict {
            Verdict::Caught { by, x_seed, cycle, output } => {
                let by = format!("{by} of --block {}", part.block.name());
                Some((index, Verdict::Caught { by, x_seed, cycle, output }))
            }
            Verdict::Survived => None,
        })
        .collect())
}

/// `part`'s top flattened from the campaign's design, with each of `edits` (a mutant and its
/// cell's name there) active when [`SELECT`] is the mutant's index: the part's interface plus
/// [`SELECT`], as the campaign's netlist is the block's.
fn netlist(drawn: &Mutants, part: &Part, edits: &[(&Mutant, &str)], dir: &Path) -> Result<Design> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let top = part.top();
    let mutations: String = edits
        .iter()
        .map(|(m, cell)| {
            format!("mutate -ctrl {SELECT} {SELECT_BITS} {} -module {top} -cell {cell} {}\n", m.index, m.edit())
        })
        .collect();
    let file = format!("{top}_mutants.v");
    let script = format!(
        "read_rtlil \"{}\"\nhierarchy -top {top}\nproc\nflatten\n{mutations}opt_clean\nwrite_verilog -noattr {file}\n",
        drawn.design.display()
    );
    std::fs::write(dir.join("part.ys"), script)?;
    yosys::run(dir, "part.ys", "part.log")?;
    let text = std::fs::read_to_string(dir.join(&file)).with_context(|| format!("Yosys wrote no {file}"))?;
    Ok(Design { manifest: part.design.manifest.clone(), files: vec![(file, text)] })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tops(preset: &str, block: Block) -> Vec<String> {
        let checked = rfgen_gen::config::preset(preset).unwrap();
        let design = block.generate(&checked, SramKind::Behavioural).unwrap();
        find(block, &checked, &design).iter().map(|p| p.top().to_string()).collect()
    }

    #[test]
    fn a_blocks_parts_are_the_blocks_generated_inside_it() {
        assert_eq!(tops("small", Block::Sm), ["small_mrf", "small_issue", "small_scheduler", "small_scoreboard"]);
        assert_eq!(tops("small", Block::Issue), ["small_scheduler", "small_scoreboard"]);
        assert_eq!(
            tops("war-warpboard", Block::Issue),
            ["war_warpboard_scheduler", "war_warpboard_scoreboard", "war_warpboard_warpboard"]
        );
        assert!(tops("small", Block::Mrf).is_empty());
        assert!(tops("isca15-bdi", Block::Mrf).is_empty(), "the codec's top is a wrapper the MRF does not hold");
    }

    /// The scoreboard's long-latency bits, which the `small` issue stage leaves unconnected: an
    /// edit of them no issue-stage stimulus shows, and the scoreboard's own shows at once.
    #[test]
    fn an_edit_the_block_never_shows_is_caught_by_the_lockstep_of_its_part() {
        use crate::mutate::equiv::tests::{drawn_cell, drawn_from};
        let checked = rfgen_gen::config::preset("small").unwrap();
        let (_dir, drawn) = drawn_from("small", Block::Issue);
        let design = Block::Issue.generate(&checked, SramKind::Behavioural).unwrap();
        let parts = find(Block::Issue, &checked, &design);
        let cell = drawn_cell(&drawn, "small_scoreboard", "$and", "small_scoreboard.v:34");
        let stuck =
            Mutant { index: 3, mode: "const1".into(), cell, port: "B".into(), bit: 3, ctrlbit: None, src: vec![] };
        let stimulus = Stimulus { seeds: &[1], cycles: 2_000, kernels: &[], max_cycles: 0, x_seeds: 1 };
        let cache = rfgen_cosim::verilator::default_cache_dir();
        let verdicts = run(&drawn, &parts, &[&stuck], &checked, &stimulus, &cache, &mut |_| {});
        match &verdicts[&3] {
            Verdict::Caught { by, output, .. } => {
                assert_eq!(by, "random seed 1 of --block scoreboard");
                assert!(output.contains("long"), "{output}");
            }
            v => panic!("not caught: {v:?}"),
        }
    }
}
