//! The Verilator bridge: a C++ shim generated from the manifest, built into a shared library
//! once per content hash, loaded with libloading and driven one cycle per call.

pub mod cache;
pub mod layout;
pub mod rtl;
pub mod shim;

pub use cache::{BuildPlan, TraceKind, default_cache_dir};
pub use layout::{Layout, PortSlot};
pub use rtl::{Rtl, RtlLib};
