//! `rfgen gen --out`: it replaces only a folder rfgen wrote, refuses everything else before
//! touching anything, swaps the new output in atomically, cleans up after killed runs and
//! serializes concurrent runs.

mod common;

use common::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Every file below `dir` (recursively) with its content; symbolic links as their target.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let path = e.path();
            let key = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            let t = e.file_type().unwrap();
            if t.is_symlink() {
                files.insert(key, std::fs::read_link(&path).unwrap().to_string_lossy().as_bytes().to_vec());
            } else if t.is_dir() {
                files.insert(key + "/", Vec::new());
                todo.push(path);
            } else if t.is_file() {
                files.insert(key, std::fs::read(&path).unwrap());
            } else {
                files.insert(key, b"<special>".to_vec());
            }
        }
    }
    files
}

fn run_gen(out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["gen", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    rfgen(&args)
}

/// A folder holds a complete rfgen output: every file its manifest lists, with its hash.
fn complete(out: &Path) -> Result<(), String> {
    let manifest = std::fs::read(out.join("manifest.json")).map_err(|e| format!("no manifest: {e}"))?;
    let manifest: serde_json::Value = serde_json::from_slice(&manifest).map_err(|e| e.to_string())?;
    let files = manifest["files"].as_object().ok_or("no file list")?;
    for (name, hash) in files {
        let bytes = std::fs::read(out.join(name)).map_err(|e| format!("{name}: {e}"))?;
        if rfgen_gen::output::digest(&bytes) != hash.as_str().unwrap() {
            return Err(format!("{name} differs from the manifest"));
        }
    }
    let on_disk = std::fs::read_dir(out).unwrap().count();
    if on_disk != files.len() + 1 {
        return Err(format!("{on_disk} entries for {} listed files", files.len()));
    }
    Ok(())
}

#[test]
fn gen_refuses_what_rfgen_did_not_write_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let rfgen_dir = root.join("rtl");
    assert!(run_gen(&rfgen_dir, &[]).status.success());

    std::fs::write(root.join("notes.txt"), "my notes").unwrap();
    let mine = root.join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("hand_edited.v"), "module keep; endmodule\n").unwrap();
    std::os::unix::fs::symlink(&rfgen_dir, root.join("link")).unwrap();
    let fifo = root.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // An rfgen-looking manifest written by someone else does not make a folder rfgen's.
    let fake = root.join("fake");
    std::fs::create_dir(&fake).unwrap();
    std::fs::write(fake.join("manifest.json"), "{\"generator\": \"other 1.0\"}").unwrap();

    let before = snapshot(root);
    let cases = [
        ("notes.txt", "is a file; rfgen replaces only a folder it wrote"),
        ("mine", "is a folder rfgen did not write (no rfgen manifest.json; it holds hand_edited.v)"),
        ("link", "is a symbolic link; rfgen replaces only a folder it wrote"),
        ("fifo", "is a device, socket or pipe"),
        ("fake", "is a folder rfgen did not write"),
    ];
    for (name, message) in cases {
        for force in [&[][..], &["--force"][..]] {
            let o = run_gen(&root.join(name), force);
            assert_eq!(o.status.code(), Some(2), "{name} {force:?}: {}", stderr(&o));
            let err = stderr(&o);
            assert!(err.contains(message), "{name}: {err}");
            assert!(err.contains("even with --force"), "{name}: {err}");
        }
    }
    assert_eq!(snapshot(root), before, "nothing was touched");
}

#[test]
fn gen_replaces_its_own_folder_and_asks_for_force_after_edits() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rtl");
    // An empty folder may be filled.
    std::fs::create_dir(&out).unwrap();
    assert!(run_gen(&out, &[]).status.success());
    complete(&out).unwrap();
    // An unchanged rfgen folder is replaced by another config's output.
    let small = dir.path().join("small.toml");
    std::fs::write(&small, SMALL[1].1).unwrap();
    assert!(run_gen(&out, &["--config", small.to_str().unwrap()]).status.success());
    complete(&out).unwrap();
    assert!(out.join("small_mrf.v").exists() && !out.join("baseline_mrf.v").exists(), "replaced, not merged");

    // Edited, added and removed files: refused without --force, and named.
    let top = out.join("small_mrf.v");
    std::fs::write(&top, "// my fix\n").unwrap();
    std::fs::write(out.join("notes.txt"), "keep me").unwrap();
    std::fs::remove_file(out.join("small.core")).unwrap();
    let before = snapshot(dir.path());
    let o = run_gen(&out, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("was written by rfgen but has changed since (edited: small_mrf.v; added: notes.txt; removed: small.core); --force replaces it"),
        "{err}"
    );
    assert_eq!(snapshot(dir.path()), before);
    let o = run_gen(&out, &["--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    complete(&out).unwrap();
    assert!(!out.join("notes.txt").exists());
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.starts_with(".rfgen")), "no staging folders left: {names:?}");
}

/// Killing `gen` at any moment leaves either the old or the new output, complete; the next run
/// removes what the killed one left behind.
#[test]
fn killed_runs_never_leave_an_incomplete_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rtl");
    // A large config, so that a kill often lands while files are written.
    let big = dir.path().join("big.toml");
    std::fs::write(&big, "name = \"big\"\n[sm]\nwarps = 64\nlanes = 64\nregisters_per_thread = 64\n[mrf]\nbanks = 256\nentries = 512\ncollectors = 16\n").unwrap();
    assert!(run_gen(&out, &[]).status.success());
    let state = |i: u32| {
        let config =
            if i.is_multiple_of(2) { big.to_str().unwrap().to_string() } else { "configs/baseline.toml".into() };
        let mut child = Command::new(env!("CARGO_BIN_EXE_rfgen"))
            .args(["gen", "--config", &config, "--out", out.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(50 * u64::from(i % 200)));
        let _ = child.kill();
        let status = child.wait().unwrap();
        complete(&out).unwrap_or_else(|e| panic!("kill {i} after {} µs: {e}", 50 * (i % 200)));
        status.success()
    };
    let finished: u32 = (0..200).map(|i| state(i) as u32).sum();
    assert!(finished < 200, "some runs were killed mid-way");
    assert!(run_gen(&out, &[]).status.success());
    complete(&out).unwrap();
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "leftovers of killed runs: {left:?}");
}

#[test]
fn concurrent_runs_into_one_folder_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rtl");
    for _ in 0..5 {
        let children: Vec<_> = (0..6)
            .map(|_| {
                Command::new(env!("CARGO_BIN_EXE_rfgen"))
                    .args(["gen", "--out", out.to_str().unwrap()])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        complete(&out).unwrap();
    }
}
