//! Builds a Verilated model plus its shim into a shared library, once per content hash.
//!
//! The key covers the Verilog sources, the shim, the Verilator version, the flags and the trace
//! kind, so a cached library is valid by construction. Builds take a lock in the cache folder:
//! concurrent test processes wait for each other instead of oversubscribing the cores, and a
//! library appears under its key only when complete (built in a temporary folder, then renamed).

use super::layout::Layout;
use super::shim::shim_cpp;
use anyhow::{Context as _, Result, anyhow, bail};
use rfgen_gen::Design;
use sha2::{Digest, Sha256};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Waveform support compiled into a library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    None,
    Vcd,
    Fst,
}

impl TraceKind {
    /// The format implied by a file name (`.fst`, else VCD).
    pub fn for_path(path: &Path) -> TraceKind {
        match path.extension().and_then(|e| e.to_str()) {
            Some("fst") => TraceKind::Fst,
            _ => TraceKind::Vcd,
        }
    }
    fn define(self) -> u32 {
        self as u32
    }
}

/// Cache folder: `$RFGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/rfgen`, else `~/.cache/rfgen`.
pub fn default_cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("RFGEN_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("rfgen");
    }
    match std::env::var_os("HOME") {
        Some(h) => PathBuf::from(h).join(".cache").join("rfgen"),
        None => PathBuf::from(".rfgen-cache"),
    }
}

/// `verilator --version`, or a clear error when Verilator is missing.
pub fn verilator_version() -> Result<String> {
    let out = Command::new("verilator").arg("--version").output().map_err(|e| {
        anyhow!("cannot run verilator ({e}); install Verilator >= 5.006 (Debian: apt-get install verilator)")
    })?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

const FLAGS: &[&str] = &["-O3", "--x-assign", "unique", "--x-initial", "unique", "-Wno-fatal"];
const CFLAGS: &str = "-fPIC -O2";
/// For a library of many variants: a flattened netlist compiles for minutes at -O2, and a
/// campaign's runs are short, so compile time dominates.
const VARIANT_CFLAGS: &str = "-fPIC -O1";

/// One library to build: the top module of a design, with a trace kind.
pub struct BuildPlan<'a> {
    design: &'a Design,
    trace: TraceKind,
    shim: String,
    cflags: &'static str,
    key: String,
    dir: PathBuf,
}

impl<'a> BuildPlan<'a> {
    pub fn new(design: &'a Design, trace: TraceKind, cache: &Path) -> Result<Self> {
        Self::with_shim(design, trace, cache, None)
    }

    /// A library of a design whose top has, besides the block's interface, the input
    /// `variant_port` selecting one of the designs built into it ([`super::rtl::RtlLib::with_variant`]).
    pub fn with_variant_port(design: &'a Design, cache: &Path, variant_port: &str) -> Result<Self> {
        Self::with_shim(design, TraceKind::None, cache, Some(variant_port))
    }

    fn with_shim(design: &'a Design, trace: TraceKind, cache: &Path, variant_port: Option<&str>) -> Result<Self> {
        let top = design.manifest.top_module();
        let shim = shim_cpp(top, &Layout::new(top), variant_port);
        let cflags = if variant_port.is_some() { VARIANT_CFLAGS } else { CFLAGS };
        let mut h = Sha256::new();
        for part in [verilator_version()?.as_str(), &FLAGS.join(" "), cflags, &format!("{trace:?}"), &shim, &top.name] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        for (name, text) in design.sources() {
            h.update(name.as_bytes());
            h.update([0]);
            h.update(text.as_bytes());
            h.update([0]);
        }
        let key: String = h.finalize()[..10].iter().map(|b| format!("{b:02x}")).collect();
        let dir = cache.join(format!("{}-{key}", top.name));
        Ok(BuildPlan { design, trace, shim, cflags, key, dir })
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn library(&self) -> PathBuf {
        self.dir.join("librtl.so")
    }

    pub fn is_built(&self) -> bool {
        self.library().is_file()
    }

    /// Builds unless cached; returns the library path.
    pub fn build(&self) -> Result<PathBuf> {
        if self.is_built() {
            return Ok(self.library());
        }
        let cache = self.dir.parent().expect("cache entries live in a folder");
        fs::create_dir_all(cache).with_context(|| format!("cannot create cache folder {}", cache.display()))?;
        let lock = File::create(cache.join(".build.lock"))?;
        lock.lock()?;
        if self.is_built() {
            return Ok(self.library()); // built by someone else while we waited
        }
        remove_dead_builds(cache);
        let work = tempfile::Builder::new().prefix(".build-").tempdir_in(cache)?;
        for (name, text) in self.design.sources() {
            fs::write(work.path().join(name), text)?;
        }
        fs::write(work.path().join("shim.cpp"), &self.shim)?;
        let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).to_string();
        let mut cmd = Command::new("verilator");
        cmd.current_dir(work.path());
        // Every build compiles Verilator's runtime (verilated.cpp, most of a small block's build
        // time) from the same source: with ccache on PATH, Verilator's makefile reuses it.
        // `OBJCACHE=` (empty) in the environment turns this off.
        if std::env::var_os("OBJCACHE").is_none() && Command::new("ccache").arg("--version").output().is_ok() {
            cmd.env("OBJCACHE", "ccache");
        }
        cmd.args(["--cc", "--exe", "--build", "-j", &jobs])
            .args(["--top-module", &self.design.manifest.top, "--prefix", "Vtop"])
            .args(FLAGS)
            .args(["-CFLAGS", &format!("{} -DRFGEN_TRACE={}", self.cflags, self.trace.define())])
            .args(["-LDFLAGS", "-shared", "-o", "librtl.so", "--Mdir", "obj"]);
        match self.trace {
            TraceKind::None => {}
            TraceKind::Vcd => {
                cmd.arg("--trace");
            }
            TraceKind::Fst => {
                cmd.arg("--trace-fst");
            }
        }
        cmd.args(self.design.sources().map(|(n, _)| n.as_str())).arg("shim.cpp");
        // Watched: stopped with rfgen, not left compiling alone when it is interrupted.
        let output = crate::children::output(&mut cmd).context("cannot run verilator")?;
        let log = [output.stdout, output.stderr].concat();
        fs::write(work.path().join("build.log"), &log)?;
        if !output.status.success() {
            let failed = cache.join(format!("{}-{}.failed", self.design.manifest.top, self.key));
            let _ = fs::remove_dir_all(&failed);
            fs::rename(work.keep(), &failed)?;
            bail!(
                "Verilator build of {} failed; log: {}",
                self.design.manifest.top,
                failed.join("build.log").display()
            );
        }
        fs::rename(work.path().join("obj").join("librtl.so"), work.path().join("librtl.so"))?;
        fs::remove_dir_all(work.path().join("obj"))?;
        fs::rename(work.keep(), &self.dir).with_context(|| format!("cannot store {}", self.dir.display()))?;
        Ok(self.library())
    }
}

/// Build folders of runs that died mid-build. Every build holds the cache lock, so while we
/// hold it no `.build-*` folder belongs to a live run.
fn remove_dead_builds(cache: &Path) {
    let Ok(entries) = fs::read_dir(cache) else { return };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(".build-") && e.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dead_build_folders_are_removed_and_nothing_else() {
        let cache = tempfile::tempdir().unwrap();
        let dead = cache.path().join(".build-AbC123");
        fs::create_dir_all(dead.join("obj")).unwrap();
        fs::write(dead.join("obj").join("x.o"), "").unwrap();
        let kept = ["baseline_mrf-0123456789", "top-key.failed", ".build.lock"];
        fs::create_dir(cache.path().join(kept[0])).unwrap();
        fs::create_dir(cache.path().join(kept[1])).unwrap();
        fs::write(cache.path().join(kept[2]), "").unwrap();
        remove_dead_builds(cache.path());
        let mut left: Vec<String> = fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut want = kept.map(String::from).to_vec();
        want.sort();
        assert_eq!(left, want);
    }
}
