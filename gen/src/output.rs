//! Writing a design into its output folder without ever losing a user's data.
//!
//! Rules (README, "Errors and output folders"):
//! - `out` may be missing, an empty folder, or a folder rfgen wrote (its `manifest.json` lists
//!   every other file with its SHA-256). Anything else — a file, a device, a symbolic link, a
//!   folder rfgen did not write — is refused before anything is touched, even with `force`.
//! - An rfgen folder whose files were edited, added or removed since is refused too, unless
//!   `force`: then it is replaced as a whole.
//! - The new output is written into a staging folder beside `out` and swapped in with one
//!   `renameat2(RENAME_EXCHANGE)`, so at every instant `out` is either the complete old output
//!   or the complete new one. (Where the exchange is unsupported, the swap falls back to two
//!   renames, with a moment without `out`.)
//! - Writers into one parent folder are serialized by a lock on that folder, and staging
//!   folders that dead runs left behind are removed by the next run.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Why an output folder was not written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// `out` holds something rfgen may not replace; nothing was touched.
    #[error("{0}")]
    Refused(String),
    // `error`, not `source`: the message says it once, not again as its cause.
    #[error("cannot write {}: {error}", path.display())]
    Io { path: PathBuf, error: io::Error },
}

impl OutputError {
    /// The folder the user named is at fault: bad input.
    pub fn is_input_error(&self) -> bool {
        match self {
            OutputError::Refused(_) => true,
            OutputError::Io { error, .. } => crate::input::path_at_fault(error),
        }
    }
}

/// Name of the manifest every rfgen output folder carries.
pub const MANIFEST: &str = "manifest.json";

/// What rfgen needs to recognize one of its folders: the generator and every file's hash.
#[derive(serde::Deserialize)]
struct Recognized {
    generator: String,
    #[serde(default)]
    files: Option<BTreeMap<String, String>>,
}

/// SHA-256 of a file's content, hex.
pub fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

const STAGE_PREFIX: &str = ".rfgen-stage-";
/// An old output on its way out; only ever created by renaming a stage that holds one.
const TRASH_PREFIX: &str = ".rfgen-trash-";
/// Present in a staging folder while it is being filled.
const STAGE_MARKER: &str = ".rfgen-staging";

/// Writes `files` (`manifest.json` among them) as the folder `out`, replacing what is there
/// when the rules above allow it.
pub fn write_folder(out: &Path, files: &[(String, String)], force: bool) -> Result<(), OutputError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |error| OutputError::Io { path, error }
    };
    let name = out
        .file_name()
        .ok_or_else(|| OutputError::Refused(format!("`{}` does not name a folder", out.display())))?
        .to_string_lossy()
        .into_owned();
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(io_err(out))?;
    let _lock = lock(&parent).map_err(io_err(&parent))?;
    // Checked under the lock only: unlocked, another run may be swapping `out` and deleting
    // the old folder, and a listing taken mid-deletion looks like files removed by the user.
    // (A refused `out` exists, so its parent did: creating the parent touched nothing.)
    let exists = check_replaceable(out, force)?;
    remove_dead_stages(&parent, &name);

    let stage = parent.join(format!("{STAGE_PREFIX}{name}-{}", std::process::id()));
    let trash = parent.join(format!("{TRASH_PREFIX}{name}-{}", std::process::id()));
    let written = (|| {
        fs::create_dir(&stage)?;
        fs::write(stage.join(STAGE_MARKER), "")?;
        // The manifest last: a staging folder with a manifest is complete.
        for (file, text) in
            files.iter().filter(|(f, _)| f != MANIFEST).chain(files.iter().filter(|(f, _)| f == MANIFEST))
        {
            fs::write(stage.join(file), text)?;
        }
        fs::remove_file(stage.join(STAGE_MARKER))?;
        if exists { swap(&stage, out, &trash) } else { fs::rename(&stage, out) }
    })();
    if let Err(e) = written {
        let _ = fs::remove_dir_all(&stage);
        return Err(OutputError::Io { path: out.to_path_buf(), error: e });
    }
    // After the exchange the stage holds the old output: renamed to trash in one step (a
    // run killed while deleting it leaves only trash), then deleted.
    if exists {
        fs::rename(&stage, &trash).map_err(io_err(&stage))?;
        fs::remove_dir_all(&trash).map_err(io_err(&trash))?;
    }
    Ok(())
}

/// Refuses what may not be replaced; returns whether `out` exists (as a replaceable folder).
fn check_replaceable(out: &Path, force: bool) -> Result<bool, OutputError> {
    let shown = out.display();
    let only = "rfgen replaces only a folder it wrote (one with its manifest.json), even with --force";
    let meta = match fs::symlink_metadata(out) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(OutputError::Io { path: out.to_path_buf(), error: e }),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err(OutputError::Refused(format!("`{shown}` is a symbolic link; {only}")));
    }
    if !kind.is_dir() {
        let what = if kind.is_file() { "a file" } else { "a device, socket or pipe" };
        return Err(OutputError::Refused(format!("`{shown}` is {what}; {only}")));
    }
    let entries = list(out).map_err(|error| OutputError::Io { path: out.to_path_buf(), error })?;
    if entries.is_empty() {
        return Ok(true);
    }
    let recognized = crate::input::read_bytes(&out.join(MANIFEST), crate::input::Input::Manifest)
        .ok()
        .and_then(|b| serde_json::from_slice::<Recognized>(&b).ok())
        .filter(|r| r.generator.starts_with("rfgen "));
    let Some(manifest) = recognized else {
        let sample: Vec<&str> = entries.iter().take(3).map(String::as_str).collect();
        let more = if entries.len() > 3 { format!(" and {} more", entries.len() - 3) } else { String::new() };
        return Err(OutputError::Refused(format!(
            "`{shown}` is a folder rfgen did not write (no rfgen {MANIFEST}; it holds {}{more}); {only}",
            sample.join(", ")
        )));
    };
    if force {
        return Ok(true);
    }
    let changes = match &manifest.files {
        None => vec![format!("its {MANIFEST} is from an rfgen that recorded no file hashes")],
        Some(files) => changes(out, &entries, files),
    };
    if changes.is_empty() {
        return Ok(true);
    }
    Err(OutputError::Refused(format!(
        "`{shown}` was written by rfgen but has changed since ({}); --force replaces it, losing those changes",
        changes.join("; ")
    )))
}

/// Differences between a folder and the files its manifest lists.
fn changes(out: &Path, entries: &[String], files: &BTreeMap<String, String>) -> Vec<String> {
    let mut edited = Vec::new();
    let mut added = Vec::new();
    for e in entries.iter().filter(|e| *e != MANIFEST) {
        match files.get(e) {
            None => added.push(e.as_str()),
            Some(hash) => {
                if fs::read(out.join(e)).map(|b| digest(&b)).ok().as_ref() != Some(hash) {
                    edited.push(e.as_str());
                }
            }
        }
    }
    let removed: Vec<&str> = files.keys().filter(|f| !entries.contains(f)).map(String::as_str).collect();
    [("edited", edited), ("added", added), ("removed", removed)]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(what, v)| format!("{what}: {}", v.join(", ")))
        .collect()
}

fn list(dir: &Path) -> io::Result<Vec<String>> {
    let mut v: Vec<String> = fs::read_dir(dir)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    v.sort();
    Ok(v)
}

/// An exclusive lock on a folder, held until dropped (released by the kernel if the process dies).
fn lock(dir: &Path) -> io::Result<fs::File> {
    let f = fs::File::open(dir)?;
    f.lock()?;
    Ok(f)
}

/// Folders of `name` left by runs that died (under the lock, no live run has one): trash, and
/// stages still being filled (marker), complete (manifest) or empty. A stage is renamed to
/// trash before it is deleted, so a run killed while deleting leaves only trash behind.
fn remove_dead_stages(parent: &Path, name: &str) {
    let Ok(entries) = fs::read_dir(parent) else { return };
    let is_pid = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
    for e in entries.flatten() {
        if !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let file_name = e.file_name().to_string_lossy().into_owned();
        let pid_of = |prefix: &str| file_name.strip_prefix(prefix)?.strip_prefix(name)?.strip_prefix('-');
        let path = e.path();
        if pid_of(TRASH_PREFIX).is_some_and(is_pid) {
            let _ = fs::remove_dir_all(&path);
        } else if let Some(pid) = pid_of(STAGE_PREFIX).filter(|p| is_pid(p)) {
            let abandoned = path.join(STAGE_MARKER).exists()
                || path.join(MANIFEST).exists()
                || list(&path).is_ok_and(|l| l.is_empty());
            let trash = parent.join(format!("{TRASH_PREFIX}{name}-{pid}"));
            if abandoned && fs::rename(&path, &trash).is_ok() {
                let _ = fs::remove_dir_all(&trash);
            }
        }
    }
}

/// Atomically exchanges two folders.
#[cfg(target_os = "linux")]
fn swap(a: &Path, b: &Path, aside: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => swap_by_renames(a, b, aside),
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(target_os = "linux"))]
fn swap(a: &Path, b: &Path, aside: &Path) -> io::Result<()> {
    swap_by_renames(a, b, aside)
}

/// Fallback for file systems without an atomic exchange: `b` is briefly absent (moved to
/// `aside`, which the next run removes if this one dies).
fn swap_by_renames(a: &Path, b: &Path, aside: &Path) -> io::Result<()> {
    fs::rename(b, aside)?;
    if let Err(e) = fs::rename(a, b) {
        let _ = fs::rename(aside, b);
        return Err(e);
    }
    fs::rename(aside, a)
}
