//! Turns a checked config into a [`Design`]: the rendered files (one module per file, filelist,
//! FuseSoC core, `manifest.json`) and their atomic write to an output folder.

use crate::blocks;
use crate::config::{Checked, Config, ConfigError};
use crate::templates::render;
use crate::verilog::{Memory, Module, Port};
use serde::{Deserialize, Serialize};
use std::io;
use std::path::Path;
use tera::Context;

/// Version of the generator, written into every file header and the manifest.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How memory leaves are emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SramKind {
    /// Behavioural array, for simulation and FPGA inference.
    #[default]
    Behavioural,
    /// Port-compatible stub to be replaced by an SRAM macro.
    Blackbox,
}

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
    let compression = checked
        .config
        .compression
        .enabled
        .then(|| crate::bdi::Layout::new(&checked.geometry, &checked.config.compression).expect("validated"));
    let modules = blocks::mrf::modules(&prefix, &checked.geometry, sram, compression.as_ref());
    let description = match compression {
        None => "Banked main register file with operand collectors",
        Some(_) => "Banked main register file with operand collectors and BDI register compression",
    };
    assemble(checked, sram, modules, description)
}

/// Generates the BDI codec of a config (compressor, decompressor, top `<prefix>_bdi_codec`), from
/// its `[compression]` section whether or not the MRF is compressed. Fails when a mode cannot
/// save a bank in this geometry.
pub fn generate_bdi_codec(checked: &Checked) -> Result<Design, ConfigError> {
    let layout = crate::bdi::Layout::new(&checked.geometry, &checked.config.compression)?;
    let modules = blocks::bdi::codec_modules(&checked.prefix(), &layout);
    Ok(assemble(checked, SramKind::Behavioural, modules, "BDI register compressor feeding a decompressor"))
}

fn assemble(checked: &Checked, sram: SramKind, modules: Vec<Module>, description: &str) -> Design {
    let hash = checked.hash();
    let name = &checked.config.name;
    let top = modules.last().expect("a design has a top module").name.clone();
    let mut header_ctx = Context::new();
    header_ctx.insert("version", VERSION);
    header_ctx.insert("config_name", name);
    header_ctx.insert("config_hash", &hash);

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

    let manifest = Manifest {
        generator: format!("rfgen {VERSION}"),
        config_name: name.clone(),
        config_hash: hash,
        sram,
        top,
        modules: manifest_modules,
        config: checked.config.clone(),
    };
    let json = serde_json::to_string_pretty(&manifest).expect("the manifest serializes") + "\n";
    files.push(("manifest.json".into(), json));
    Design { manifest, files }
}

impl Design {
    /// Verilog sources in dependency order.
    pub fn sources(&self) -> impl Iterator<Item = &(String, String)> {
        self.files.iter().filter(|(f, _)| f.ends_with(".v"))
    }

    /// Writes every file into `out`, replacing its previous contents atomically: the files go to
    /// a temporary sibling folder that is renamed into place, so `out` is never half-written.
    pub fn write(&self, out: &Path) -> io::Result<()> {
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => Path::new(".").to_path_buf(),
        };
        std::fs::create_dir_all(&parent)?;
        let tmp = tempfile::Builder::new().prefix(".rfgen-new-").tempdir_in(&parent)?;
        for (name, text) in &self.files {
            std::fs::write(tmp.path().join(name), text)?;
        }
        let tmp = tmp.keep();
        if out.exists() {
            let old = tempfile::Builder::new().prefix(".rfgen-old-").tempdir_in(&parent)?.keep();
            std::fs::remove_dir(&old)?;
            std::fs::rename(out, &old)?;
            if let Err(e) = std::fs::rename(&tmp, out) {
                let _ = std::fs::rename(&old, out);
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(e);
            }
            std::fs::remove_dir_all(&old)?;
        } else if let Err(e) = std::fs::rename(&tmp, out) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        Ok(())
    }
}
