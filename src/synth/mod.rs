//! Area of generated RTL (docs/area.md). Yosys maps one module of a design at a time, flattened
//! with everything below it, to a target; its statistics come back as a [`ModuleArea`]. In the
//! ASIC view (`generic`, optionally with a Liberty file) memory leaves — the manifest modules
//! with a `memory` shape — are black boxes costed by an [`SramModel`]; FPGA targets infer RAM
//! from the behavioural leaves.

mod liberty;
pub mod pnr;
mod report;
mod sram;
mod stat;
mod target;
pub mod yosys;

pub use liberty::Liberty;
pub use pnr::Pnr;
pub use report::{Metric, ModuleArea};
pub use sram::{FAKERAM45_UM2_PER_BIT, SramModel};
pub use target::Target;

use anyhow::{Context, Result, anyhow};
use rfgen_gen::Design;
use sram::SramCost;
use stat::Stat;
use std::path::{Path, PathBuf};
use target::Class;

/// Revision of the Yosys scripts and of how their output is read: bump it whenever either
/// changes, so that results stored by sweeps are measured again.
const FLOW_REVISION: u32 = 1;

/// Names the synthesis flow (rfgen's scripts and the installed Yosys) for stored results.
pub fn flow() -> Result<String> {
    Ok(format!("rfgen flow {FLOW_REVISION}, {}", yosys::version()?))
}

/// How to synthesize.
#[derive(Debug)]
pub struct Options {
    pub target: Target,
    /// Map the gates to this library and report µm² (`generic` only).
    pub liberty: Option<Liberty>,
    pub sram: SramModel,
    /// [`flow`], recorded with the results.
    pub flow: String,
}

impl Options {
    /// Flow name used in work-file names: the target, or `liberty`.
    fn flow(&self) -> &'static str {
        if self.liberty.is_some() { "liberty" } else { self.target.name() }
    }
}

/// A design written out for Yosys into a work folder that keeps every script and log.
pub struct Synth<'a> {
    design: &'a Design,
    opts: &'a Options,
    dir: PathBuf,
}

impl<'a> Synth<'a> {
    pub fn new(design: &'a Design, opts: &'a Options, dir: &Path) -> Result<Self> {
        let rtl = dir.join("rtl");
        std::fs::create_dir_all(&rtl).with_context(|| format!("cannot create {}", rtl.display()))?;
        for (name, text) in design.sources() {
            std::fs::write(rtl.join(name), text).with_context(|| format!("cannot write {}", rtl.display()))?;
        }
        Ok(Synth { design, opts, dir: dir.to_path_buf() })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Synthesizes `module` (a module of the design's manifest) with everything below it.
    pub fn module(&self, module: &str) -> Result<ModuleArea> {
        let manifest = &self.design.manifest;
        let this = manifest.module(module).ok_or_else(|| anyhow!("{module} is not a module of the design"))?;
        let asic = !self.opts.target.is_fpga();
        if asic && let Some(mem) = this.memory {
            // A black-boxed leaf on its own is just its SRAM.
            let mut sram = SramCost::default();
            self.opts.sram.add(&mut sram, 1, mem.words as u64 * mem.width as u64);
            let gates = Stat { transistors: Some(0), ..Stat::default() };
            let mapped = self.opts.liberty.is_some().then(|| Stat { chip_area: Some(0.0), ..Stat::default() });
            return Ok(self.area(module, &gates, mapped.as_ref(), sram));
        }

        let base = format!("{module}.{}", self.opts.flow());
        let script_file = format!("{base}.ys");
        std::fs::write(self.dir.join(&script_file), self.script(module, &base))
            .context("cannot write the Yosys script")?;
        let log = format!("{base}.log");
        yosys::run(&self.dir, &script_file, &log).with_context(|| format!("synthesis of {module}"))?;

        let read = |file: String| -> Result<Stat> {
            let text = std::fs::read_to_string(self.dir.join(&file)).unwrap_or_default();
            stat::parse(&text).ok_or_else(|| {
                anyhow!("Yosys wrote no statistics to {file} for {module}; log: {}", self.dir.join(&log).display())
            })
        };
        let gates = read(format!("{base}.gates.stat"))?;
        let mapped = self.opts.liberty.as_ref().map(|_| read(format!("{base}.mapped.stat"))).transpose()?;

        // Black-box instances left in the netlist are the memory leaves.
        let mut sram = SramCost::default();
        for m in manifest.modules.iter().filter(|_| asic) {
            if let (Some(mem), Some(&n)) = (m.memory, mapped.as_ref().unwrap_or(&gates).cells.get(&m.name)) {
                self.opts.sram.add(&mut sram, n, mem.words as u64 * mem.width as u64);
            }
        }
        Ok(self.area(module, &gates, mapped.as_ref(), sram))
    }

    /// Synthesizes the top inside its place-and-route wrapper for the FPGA target and places
    /// and routes it ([`pnr`]).
    pub fn place_and_route(&self, settings: pnr::PnrSettings) -> Result<pnr::Pnr> {
        let manifest = &self.design.manifest;
        let top = manifest.module(&manifest.top).expect("the top is in the manifest");
        let wrap = format!("{}_pnr", top.name);
        std::fs::write(self.dir.join("rtl").join(format!("{wrap}.v")), pnr::wrapper(&top.name, &top.ports))
            .context("cannot write the place-and-route wrapper")?;
        let mut script: String = manifest.modules.iter().map(|m| format!("read_verilog rtl/{}\n", m.file)).collect();
        script += &format!("read_verilog rtl/{wrap}.v\n{} -json {wrap}.json\n", self.opts.target.synth_command(&wrap));
        let script_file = format!("{wrap}.ys");
        std::fs::write(self.dir.join(&script_file), script).context("cannot write the Yosys script")?;
        yosys::run(&self.dir, &script_file, &format!("{wrap}.log")).with_context(|| format!("synthesis of {wrap}"))?;
        pnr::run(&self.dir, &format!("{wrap}.json"), self.opts.target, settings)
    }

    /// The Yosys script for `module`; it writes its statistics to `<base>.gates.stat` (and
    /// `<base>.mapped.stat` with a Liberty file).
    fn script(&self, module: &str, base: &str) -> String {
        let asic = !self.opts.target.is_fpga();
        let mut script = String::new();
        for m in &self.design.manifest.modules {
            let lib = if asic && m.memory.is_some() { "-lib " } else { "" };
            script += &format!("read_verilog {lib}rtl/{}\n", m.file);
        }
        script += &self.opts.target.synth_command(module);
        script += "\n";
        if !asic {
            script += &format!("tee -q -o {base}.gates.stat stat\n");
        } else {
            // Yosys 0.23 has a transistor cost only for plain D flip-flops: make enables and
            // synchronous resets explicit gates so that the estimate counts every flip-flop.
            // The Liberty flow maps the netlist as synthesized, with the library's own flops.
            let liberty = self.opts.liberty.is_some();
            script += if liberty { "design -save synthesized\n" } else { "" };
            script += &format!("dfflegalize -cell $_DFF_P_ 01\ntee -q -o {base}.gates.stat stat -tech cmos\n");
            script += if liberty { "design -load synthesized\n" } else { "" };
        }
        if let Some(lib) = &self.opts.liberty {
            let lib = format!("\"{}\"", lib.path().display());
            script += &format!(
                "dfflibmap -liberty {lib}\nabc -liberty {lib}\nopt_clean\ntee -q -o {base}.mapped.stat stat -liberty {lib}\n"
            );
        }
        script
    }

    fn area(&self, module: &str, gates: &Stat, mapped: Option<&Stat>, sram: SramCost) -> ModuleArea {
        let target = self.opts.target;
        let manifest = &self.design.manifest;
        let cells_by_type: std::collections::BTreeMap<String, u64> = mapped
            .unwrap_or(gates)
            .cells
            .iter()
            .filter(|(cell, _)| manifest.module(cell).is_none_or(|m| m.memory.is_none()))
            .map(|(c, &n)| (c.clone(), n))
            .collect();
        let count =
            |stat: &Stat, class| stat.cells.iter().filter(|(c, _)| target.classify(c) == class).map(|(_, n)| n).sum();
        let fpga = |class| target.is_fpga().then(|| count(gates, class));
        ModuleArea {
            module: module.to_string(),
            cells: cells_by_type.values().sum(),
            cells_by_type,
            flip_flops: count(gates, Class::FlipFlop),
            transistors: gates.transistors.filter(|_| !target.is_fpga()),
            luts: fpga(Class::Lut),
            lut_ram: fpga(Class::LutRam),
            block_ram: fpga(Class::BlockRam),
            dsp: fpga(Class::Dsp),
            logic_um2: mapped.and_then(|s| s.chip_area),
            sram: (!target.is_fpga()).then_some(sram),
        }
    }
}
