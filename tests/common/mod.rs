//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod kernels;

use rfgen_cosim::session::{Event, load};
use rfgen_cosim::verilator::{RtlLib, TraceKind};
use rfgen_gen::{Checked, Design};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Arc;

/// Verilator build cache shared by every test binary of this workspace.
pub fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rfgen-cache")
}

pub fn rfgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rfgen"))
        .args(args)
        .env("RFGEN_CACHE_DIR", cache_dir())
        .output()
        .expect("rfgen runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Small configurations covering the corners of the geometry: one cluster, one bank per
/// cluster, non-power-of-two warps and collectors, 64 lanes (two-word masks).
pub const SMALL: &[(&str, &str)] = &[
    (
        "tiny",
        "name = \"tiny\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 1\nregisters_per_thread = 4\n[mrf]\nbanks = 2\nentries = 4\ncollectors = 1\ntag_bits = 1\n",
    ),
    (
        "small",
        "name = \"small\"\n[sm]\nwarps = 4\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 4\nentries = 16\ncollectors = 2\ntag_bits = 4\n",
    ),
    (
        "odd",
        "name = \"odd\"\n[sm]\nwarps = 6\nlanes = 16\nclusters = 4\nregisters_per_thread = 8\n[mrf]\nbanks = 16\nentries = 16\ncollectors = 3\ntag_bits = 3\n",
    ),
    (
        "onebank",
        "name = \"onebank\"\n[sm]\nwarps = 3\nlanes = 2\nclusters = 2\nregisters_per_thread = 2\n[mrf]\nbanks = 2\nentries = 8\ncollectors = 2\n",
    ),
    (
        "wide",
        "name = \"wide\"\n[sm]\nwarps = 4\nlanes = 64\nclusters = 8\nregisters_per_thread = 4\n[mrf]\nbanks = 16\nentries = 8\ncollectors = 2\n",
    ),
];

pub fn small(name: &str) -> Checked {
    let (_, text) = SMALL.iter().find(|(n, _)| *n == name).expect("a small config of that name");
    rfgen_gen::config::parse(text).expect("small configs are valid")
}

pub fn baseline() -> Checked {
    rfgen_gen::config::preset("baseline").unwrap()
}

pub fn build(design: &Design) -> Arc<RtlLib> {
    load(design, TraceKind::None, &cache_dir(), &mut |_: Event| {}).expect("the Verilator build succeeds")
}
