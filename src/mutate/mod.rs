//! `rfgen mutate`'s engine, in the manner of YosysHQ mcy: Yosys draws mutants of a block's
//! flattened netlist and builds all of them into one netlist, mutant `k` active when the extra
//! input [`SELECT`] is `k` (0: none). One Verilator build then serves the whole campaign; each
//! mutant runs in lockstep against the block's model, random stimulus first and then kernel
//! traffic, until a run tells it from the model (docs/mutate.md).

pub mod equiv;
pub mod invariants;
pub mod parts;

use crate::synth::yosys;
use anyhow::{Context, Result, bail};
use rfgen_cosim::blocks;
use rfgen_cosim::kernel::KernelOptions;
use rfgen_cosim::random::RunOptions;
use rfgen_cosim::verilator::rtl::RtlLib;
use rfgen_cosim::verilator::x_seed_of;
use rfgen_gen::{Block, Checked, Design};
use rfgen_model::kernel::Kernel;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The input selecting the active mutant: 16 bits, so a campaign holds up to 65,535.
pub const SELECT: &str = "rfgen_mutant";
pub const SELECT_BITS: u32 = 16;
pub const MAX_MUTANTS: u32 = (1 << SELECT_BITS) - 1;

/// One edit Yosys drew: what it does and where, as `mutate -list` describes it.
#[derive(Clone, Debug, Serialize)]
pub struct Mutant {
    /// Its value of [`SELECT`], from 1.
    pub index: u32,
    /// `inv` (a bit inverted), `const0` / `const1` (a bit stuck), `cnot0` / `cnot1` (a bit
    /// inverted where another bit of the same port, `ctrlbit`, is 0 / is 1: XNOR / XOR with it).
    pub mode: String,
    /// The netlist cell, its port and bit.
    pub cell: String,
    pub port: String,
    pub bit: u32,
    /// `cnot0` / `cnot1`: the other bit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ctrlbit: Option<u32>,
    /// The generated Verilog it comes from, `file:line.column-line.column`, outermost first.
    pub src: Vec<String>,
}

impl Mutant {
    /// Parses one line of `mutate -list … -ctrl`.
    fn parse(line: &str) -> Option<Mutant> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let value = |flag: &str| words.iter().position(|w| *w == flag).and_then(|i| words.get(i + 1)).copied();
        let index = words.iter().position(|w| *w == "-ctrl").and_then(|i| words.get(i + 3))?.parse().ok()?;
        let src = words.windows(2).filter(|w| w[0] == "-src").map(|w| w[1].to_string()).collect();
        Some(Mutant {
            index,
            mode: value("-mode")?.into(),
            cell: value("-cell")?.into(),
            port: value("-port")?.into(),
            bit: value("-portbit")?.parse().ok()?,
            ctrlbit: value("-ctrlbit").and_then(|b| b.parse().ok()),
            src,
        })
    }

    /// The edit as `mutate` options, without the cell: it applies to a design holding the cell
    /// under any name.
    pub fn edit(&self) -> String {
        let ctrl = self.ctrlbit.map_or(String::new(), |b| format!(" -ctrlbit {b}"));
        format!("-mode {} -port {} -portbit {}{ctrl}", self.mode, self.port, self.bit)
    }

    /// Whether Yosys can write the edited netlist: not an edit of a read port's enable, which
    /// before the memory passes is an asynchronous port's and must stay 1.
    fn writable(&self) -> bool {
        !(self.cell.contains("$memrd") && self.port == "EN")
    }

    /// The innermost source location: the expression the edit is in.
    pub fn location(&self) -> &str {
        self.src.last().map_or("?", String::as_str)
    }
}

/// The mutants of a design and the one netlist holding them all.
pub struct Mutants {
    pub mutants: Vec<Mutant>,
    /// The block's interface plus [`SELECT`], one flattened module named as the block's top.
    pub netlist: Design,
    /// The block's top module, and its design as Yosys read it (RTLIL, hierarchy kept, cells
    /// named as in the mutants' netlist before flattening): what one mutant is applied to.
    pub top: String,
    pub design: PathBuf,
    /// The design's instances: (module, instance) → module ([`equiv::instances`]).
    pub instances: HashMap<(String, String), String>,
    /// Drawn edits left out because Yosys cannot write them ([`Mutant::writable`]).
    pub unwritable: usize,
    /// The design's memory leaves, and the files that replace them by what they observe
    /// (`rfgen_gen::blocks::sram::observed`): the black boxes' declarations, the techmap rules.
    pub leaves: Vec<String>,
    pub observed: (PathBuf, PathBuf),
    /// The invariants of the design's modules (`rfgen_gen::formal::invariants`): (module,
    /// Verilog expressions over its own names), proved with an edit of that module.
    pub invariants: Vec<(String, Vec<String>)>,
    /// The modules issuing reads to memory leaves, each with its register of those reads
    /// (`rfgen_gen::formal::issued_reads`), after which the leaves' reads are observed.
    pub issued_reads: Vec<(String, String)>,
    /// The modules no read of a leaf passes through (`rfgen_gen::formal::beside_reads`), cut
    /// out where the leaves' reads are observed.
    pub beside_reads: Vec<String>,
}

/// Draws `count` mutants of `design`'s top, generated for `checked`, with `seed` in `dir`
/// (scripts and logs kept there).
pub fn draw(design: &Design, checked: &Checked, count: u32, seed: u32, dir: &Path) -> Result<Mutants> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut read = String::new();
    for (name, text) in design.sources() {
        std::fs::write(dir.join(name), text).with_context(|| format!("cannot write into {}", dir.display()))?;
        read += &format!("read_verilog -sv {name}\n");
    }
    let top = &design.manifest.top;
    // `opt_clean` only: a stronger optimization would fold away logic a mutant may edit.
    let design_file = format!("{top}_design.il");
    let flat = format!("{read}hierarchy -top {top}\nproc\nflatten\nopt_clean\n");
    let list = format!(
        "{read}hierarchy -top {top}\nproc\nwrite_rtlil {design_file}\nflatten\nopt_clean\nmutate -list {count} -seed {seed} -ctrl {SELECT} {SELECT_BITS} 1 -o mutants.ys\n"
    );
    std::fs::write(dir.join("list.ys"), list)?;
    yosys::run(dir, "list.ys", "list.log")?;
    let text = std::fs::read_to_string(dir.join("mutants.ys")).context("Yosys wrote no mutants.ys")?;
    // Yosys draws edits of an asynchronous read port's enable (which must stay 1: a register
    // file cache's entries are read combinationally) and then cannot write the netlist; those
    // are left out, the others keep their numbers.
    type Drawn<'t> = Vec<(&'t str, Mutant)>;
    let (kept, dropped): (Drawn, Drawn) = text
        .lines()
        .filter(|l| l.starts_with("mutate "))
        .filter_map(|l| Mutant::parse(l).map(|m| (l, m)))
        .partition(|(_, m)| m.writable());
    let script = |list: &Drawn| list.iter().map(|(l, _)| format!("{l}\n")).collect::<String>();
    std::fs::write(dir.join("mutants.ys"), script(&kept))?;
    std::fs::write(dir.join("dropped.ys"), script(&dropped))?;
    let unwritable = dropped.len();
    let mutants: Vec<Mutant> = kept.into_iter().map(|(_, m)| m).collect();
    if mutants.is_empty() {
        bail!("Yosys drew no mutants of {top} (see {})", dir.join("list.log").display());
    }
    let apply = format!("{flat}script mutants.ys\nopt_clean\nwrite_verilog -noattr {top}_mutants.v\n");
    std::fs::write(dir.join("apply.ys"), apply)?;
    yosys::run(dir, "apply.ys", "apply.log")?;
    let file = format!("{top}_mutants.v");
    let text = std::fs::read_to_string(dir.join(&file)).with_context(|| format!("Yosys wrote no {file}"))?;
    let (leaves, observed) = write_observed(design, dir)?;
    Ok(Mutants {
        mutants,
        netlist: Design { manifest: design.manifest.clone(), files: vec![(file, text)] },
        top: top.clone(),
        instances: equiv::instances(&std::fs::read_to_string(dir.join(&design_file))?),
        design: std::path::absolute(dir.join(design_file))?,
        unwritable,
        leaves,
        observed,
        invariants: rfgen_gen::formal::invariants(checked),
        issued_reads: rfgen_gen::formal::issued_reads(checked),
        beside_reads: rfgen_gen::formal::beside_reads(checked),
    })
}

/// Writes `observed_leaves.v` and `observed_rules.v` into `dir` for every memory leaf of
/// `design`; returns the leaves' names and the two files.
fn write_observed(design: &Design, dir: &Path) -> Result<(Vec<String>, (PathBuf, PathBuf))> {
    let (mut leaves, mut declarations, mut rules) = (Vec::new(), String::new(), String::new());
    for module in &design.manifest.modules {
        if let Some(memory) = &module.memory {
            let (declaration, rule) = rfgen_gen::blocks::sram::observed::shim(&module.name, memory.words, memory.width);
            declarations += &declaration;
            rules += &rule;
            leaves.push(module.name.clone());
        }
    }
    let files =
        (std::path::absolute(dir.join("observed_leaves.v"))?, std::path::absolute(dir.join("observed_rules.v"))?);
    std::fs::write(&files.0, declarations)?;
    std::fs::write(&files.1, rules)?;
    Ok((leaves, files))
}

/// What the campaign runs on each mutant.
pub struct Stimulus<'a> {
    /// Random-stimulus runs: seeds and cycles.
    pub seeds: &'a [u64],
    pub cycles: u64,
    /// Then these kernels on the SM model (blocks the SM drives), each to at most `max_cycles`.
    pub kernels: &'a [Kernel],
    pub max_cycles: u64,
    /// Power-up states each seed and kernel runs from ([`Stimulus::runs`]), at least 1.
    pub x_seeds: u32,
}

/// One lockstep run of a campaign: a random seed or a kernel, from the power-up state of an
/// x-seed.
#[derive(Clone, Copy, Debug)]
pub enum Run<'a> {
    Random { seed: u64, x_seed: u32 },
    Kernel { kernel: &'a Kernel, x_seed: u32 },
}

impl Stimulus<'_> {
    /// Every run, in order. Random seed `s` runs under x-seeds `s`, `s + K`, …, `s + (N-1)·K`
    /// (K seeds, N x-seeds): first under its own, as `rfgen cosim --seed s` runs it, and with
    /// seeds 1 to K no two runs from the same power-up state. Kernels run under x-seeds 1 to N, as `rfgen cosim
    /// --kernel k --x-seeds N`. Each seed's first x-seed comes first: a mutant any power-up
    /// state shows is caught as early as with one x-seed.
    pub fn runs(&self) -> Vec<Run<'_>> {
        let stride = self.seeds.len() as u64;
        let random = (0..self.x_seeds).flat_map(|i| {
            self.seeds
                .iter()
                .map(move |&seed| Run::Random { seed, x_seed: x_seed_of(seed.wrapping_add(u64::from(i) * stride)) })
        });
        let kernels =
            (1..=self.x_seeds).flat_map(|x_seed| self.kernels.iter().map(move |kernel| Run::Kernel { kernel, x_seed }));
        random.chain(kernels).collect()
    }
}

/// Which run told a mutant from the model: its stimulus, x-seed and cycle.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    Caught {
        by: String,
        x_seed: u32,
        cycle: u64,
        output: String,
    },
    /// No run told it from the model: an escape, or an edit that changes nothing observable.
    Survived,
}

/// Runs `variant` of `lib` (0: the unmutated netlist) under `stimulus` until a run mismatches.
pub fn run(block: Block, checked: &Checked, lib: &Arc<RtlLib>, variant: u32, stimulus: &Stimulus) -> Result<Verdict> {
    let lib = lib.with_variant(variant);
    let info = blocks::find(block);
    for run in stimulus.runs() {
        let (by, x_seed, mismatch) = match run {
            Run::Random { seed, x_seed } => {
                let opts = RunOptions { cycles: stimulus.cycles, x_seed, waveform: None };
                let o = (info.random)(checked, &lib, seed, &opts, &mut |_| {})?;
                let program = o.program.map_or(String::new(), |p| format!(" (its program --kernel {p})"));
                (format!("random seed {seed}{program}"), x_seed, o.mismatch)
            }
            Run::Kernel { kernel, x_seed } => {
                let Some(mode) = &info.kernel else { continue };
                let opts = KernelOptions { x_seed, max_cycles: stimulus.max_cycles, waveform: None };
                let o = (mode.run)(checked, &lib, kernel, &opts, &mut |_| {})?;
                (format!("kernel {}", kernel.name), x_seed, o.mismatch)
            }
        };
        if let Some(m) = mismatch {
            return Ok(Verdict::Caught { by, x_seed, cycle: m.cycle, output: outputs(&m) });
        }
    }
    Ok(Verdict::Survived)
}

/// The outputs that differ, by name.
fn outputs(m: &rfgen_cosim::lockstep::Mismatch) -> String {
    m.ports.iter().map(|p| p.port.to_string()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as Yosys 0.23 draws them for the `small` MRF with a register file cache.
    #[test]
    fn an_edit_of_a_read_ports_enable_is_left_out_and_others_are_kept() {
        let line = |cell: &str, port: &str| {
            format!(
                "mutate -ctrl rfgen_mutant 16 7 -mode const0 -module m -cell {cell} -port {port} -portbit 0 -src m.v:1.1-1.2"
            )
        };
        let read = "$flatten\\u_rfc.$memrd$\\entries$rsmall_rfc.v:40$12";
        let write = "$flatten\\u_rfc.$auto$proc_memwr.cc:45:proc_memwr$7992";
        let parse = |l: String| Mutant::parse(&l).unwrap();
        assert!(!parse(line(read, "EN")).writable());
        assert!(parse(line(read, "ADDR")).writable());
        assert!(parse(line(write, "EN")).writable(), "a write port's enable is any signal");
        assert!(parse(line("$and$m.v:3$1", "A")).writable());
        assert_eq!(parse(line(read, "EN")).index, 7);
    }
}
