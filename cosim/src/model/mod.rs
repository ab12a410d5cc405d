//! The golden cycle model: one Rust model per generated block, with the same ports and timing.
//! Each model computes its outputs from the current state (`outputs`) and commits one clock
//! edge from the current state and inputs (`tick`), exactly like the RTL.

pub mod arbiter;
pub mod bdi;
pub mod mrf;
mod mrf_bdi;
pub mod sm;
