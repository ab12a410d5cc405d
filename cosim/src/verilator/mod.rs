//! The Verilator bridge: a C++ shim generated from the manifest, built into a shared library
//! once per content hash, loaded with libloading and driven one cycle per call.

pub mod cache;
pub mod layout;
pub mod rtl;
pub mod shim;

pub use cache::{BuildPlan, TraceKind, default_cache_dir};
pub use layout::{Layout, PortSlot};
pub use rtl::{Rtl, RtlLib};

/// The x-seed a run derives from a stimulus seed: its low 32 bits, but never 0, which Verilator
/// takes as "draw a seed from the system" — a run must repeat from its seeds.
pub fn x_seed_of(seed: u64) -> u32 {
    (seed as u32).max(1)
}
