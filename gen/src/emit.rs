//! Turns a checked config into a [`Design`]: the rendered files (one module per file, filelist,
//! FuseSoC core, `manifest.json`) and their atomic write to an output folder.

use crate::blocks;
pub use crate::blocks::sram::SramKind;
use crate::config::{Checked, Config, ConfigError};
use crate::output::{self, OutputError};
use crate::templates::render;
use crate::verilog::{Memory, Module, Port};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use tera::Context;

/// Version of the generator, written into every file header and the manifest.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Everything `manifest.json` records; the cosim bridge reads ports from here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub generator: String,
    pub config_name: String,
    pub config_hash: String,
    pub sram: SramKind,
    pub top: String,
    pub modules: Vec<ManifestModule>,
    pub config: Config,
    /// SHA-256 of every other file of the folder: how rfgen recognizes an unchanged output.
    pub files: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestModule {
    pub name: String,
    pub file: String,
    pub ports: Vec<Port>,
    /// Present for memory leaves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Memory>,
}

impl Manifest {
    pub fn module(&self, name: &str) -> Option<&ManifestModule> {
        self.modules.iter().find(|m| m.name == name)
    }
    pub fn top_module(&self) -> &ManifestModule {
        self.module(&self.top).expect("the top module is in the manifest")
    }
}

/// A generated design: the files to write, in a fixed order.
#[derive(Clone, Debug)]
pub struct Design {
    pub manifest: Manifest,
    /// `(file name, content)`; Verilog sources first, in dependency order.
    pub files: Vec<(String, String)>,
}

/// Generates the RTL of a validated config.
pub fn generate(checked: &Checked, sram: SramKind) -> Design {
    let prefix = checked.prefix();
    let modules = blocks::mrf::modules(
        &prefix,
        &checked.geometry,
        sram,
        checked.compression.as_ref(),
        checked.rfc.as_ref(),
        checked.orf.as_ref(),
    );
    let description = match (&checked.compression, &checked.rfc) {
        (Some(_), _) => "Banked main register file with operand collectors and BDI register compression",
        (None, Some(_)) => "Banked main register file with operand collectors behind a register file cache",
        (None, None) => "Banked main register file with operand collectors",
    };
    assemble(checked, sram, modules, description, "rfgen gen --block mrf")
}

/// Generates the BDI codec of a config (compressor, decompressor, top `<prefix>_bdi_codec`), from
/// its `[compression]` section whether or not the MRF is compressed. Fails when a mode cannot
/// save a bank in this geometry.
pub fn generate_bdi_codec(checked: &Checked) -> Result<Design, ConfigError> {
    let layout = checked.codec_layout()?;
    let modules = blocks::bdi::codec_modules(&checked.prefix(), &layout);
    let description = "BDI register compressor feeding a decompressor";
    Ok(assemble(checked, SramKind::Behavioural, modules, description, "rfgen gen --block bdi"))
}

/// Generates the warpboard of a config's `warpboard.policy` (top `<prefix>_warpboard`); fails
/// for `none`, which has none.
pub fn generate_warpboard(checked: &Checked) -> Result<Design, ConfigError> {
    let g = &checked.geometry;
    let shape = blocks::warpboard::Shape::new(g, checked.config.warpboard.policy).ok_or_else(|| ConfigError::Rule {
        path: "warpboard.policy".into(),
        value: "\"none\"".into(),
        rule: "there is no warpboard to generate".into(),
        allowed: "release_on_commit, release_on_read, bloom1, bloom2, bloom_unbounded".into(),
    })?;
    let prefix = checked.prefix();
    let modules = blocks::warpboard::modules(&prefix, g, &shape);
    let description = "WAR-hazard warpboard of the issue stage (seed 002)";
    Ok(assemble(checked, SramKind::Behavioural, modules, description, "rfgen gen --block warpboard"))
}

/// Generates the scoreboard of a config (top `<prefix>_scoreboard`).
pub fn generate_scoreboard(checked: &Checked) -> Design {
    let module = blocks::scoreboard::scoreboard(&checked.prefix(), &checked.geometry);
    let description = "Scoreboard of the issue stage";
    assemble(checked, SramKind::Behavioural, vec![module], description, "rfgen gen --block scoreboard")
}

/// Generates the rename stage of a config's `[rename]` section (top `<prefix>_rename`), whether
/// or not renaming is enabled (the SM does not run it yet).
pub fn generate_rename(checked: &Checked) -> Design {
    let layout =
        crate::layout::rename::RenameLayout::new(&checked.geometry, &checked.config.rename, &checked.config.timing);
    let modules = blocks::rename::modules(&checked.prefix(), &layout);
    let description = "Rename stage: rename table, CMOS and TFET free lists, MEM_RA counters (seed 003)";
    assemble(checked, SramKind::Behavioural, modules, description, "rfgen gen --block rename")
}

/// Generates the warp scheduler of a config's `[scheduler]` (top `<prefix>_scheduler`).
pub fn generate_scheduler(checked: &Checked) -> Design {
    let shape = blocks::scheduler::Shape::new(&checked.geometry, &checked.config);
    let module = blocks::scheduler::scheduler(&checked.prefix(), &shape);
    let description = "Warp scheduler of the issue stage";
    assemble(checked, SramKind::Behavioural, vec![module], description, "rfgen gen --block scheduler")
}

/// Generates the issue stage of a config (top `<prefix>_issue`): scoreboard, warpboard of
/// `warpboard.policy` and warp scheduler with the check between them.
pub fn generate_issue(checked: &Checked) -> Design {
    let shape = blocks::issue::Shape::new(&checked.geometry, &checked.config);
    let modules = blocks::issue::modules(&checked.prefix(), &checked.geometry, &shape);
    let description = "Issue stage: scoreboard, warpboard and warp scheduler";
    assemble(checked, SramKind::Behavioural, modules, description, "rfgen gen --block issue")
}

/// Generates the composed register-file top of a config (top `<prefix>_sm_rf`): the issue stage
/// feeding the MRF (through the rename stage when renaming), every module of the parts, and the
/// glue between them.
pub fn generate_sm_rf(checked: &Checked, sram: SramKind) -> Design {
    let modules = blocks::sm_rf::modules(checked, sram);
    let description = if checked.config.rename.enabled {
        "Register files of one SM scheduler: the issue stage feeding the MRF through the rename stage"
    } else {
        "Register files of one SM scheduler: the issue stage feeding the MRF"
    };
    assemble(checked, sram, modules, description, "rfgen gen")
}

/// `command` regenerates the design (named in every file's header).
fn assemble(checked: &Checked, sram: SramKind, modules: Vec<Module>, description: &str, command: &str) -> Design {
    let hash = checked.hash();
    let name = &checked.config.name;
    let top = modules.last().expect("a design has a top module").name.clone();
    let mut header_ctx = Context::new();
    header_ctx.insert("version", VERSION);
    header_ctx.insert("config_name", name);
    header_ctx.insert("config_hash", &hash);
    header_ctx.insert("command", command);

    let mut files = Vec::new();
    let mut manifest_modules = Vec::new();
    for m in &modules {
        let mut ctx = header_ctx.clone();
        ctx.insert("doc", &m.doc);
        let text = format!("{}{}{}{}", render("header.v", &ctx), m.declaration(), m.body, render("footer.v", &ctx));
        let file = format!("{}.v", m.name);
        manifest_modules.push(ManifestModule {
            name: m.name.clone(),
            file: file.clone(),
            ports: m.ports.clone(),
            memory: m.memory,
        });
        files.push((file, text));
    }
    let sources: Vec<String> = files.iter().map(|(f, _)| f.clone()).collect();
    let mut ctx = header_ctx.clone();
    ctx.insert("files", &sources);
    ctx.insert("top", &top);
    ctx.insert("description", description);
    files.push((format!("{top}.f"), render("filelist.f", &ctx)));
    files.push((format!("{}.core", checked.prefix()), render("core", &ctx)));

    let hashes = files.iter().map(|(f, text)| (f.clone(), output::digest(text.as_bytes()))).collect();
    let manifest = Manifest {
        generator: format!("rfgen {VERSION}"),
        config_name: name.clone(),
        config_hash: hash,
        sram,
        top,
        modules: manifest_modules,
        config: checked.config.clone(),
        files: hashes,
    };
    let json = serde_json::to_string_pretty(&manifest).expect("the manifest serializes") + "\n";
    files.push((output::MANIFEST.into(), json));
    Design { manifest, files }
}

impl Design {
    /// Verilog sources in dependency order.
    pub fn sources(&self) -> impl Iterator<Item = &(String, String)> {
        self.files.iter().filter(|(f, _)| f.ends_with(".v"))
    }

    /// Writes every file into the folder `out` (see [`output`] for what may be replaced).
    pub fn write(&self, out: &Path, force: bool) -> Result<(), OutputError> {
        output::write_folder(out, &self.files, force)
    }
}
