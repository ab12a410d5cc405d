//! rfgen's Verilator lockstep cosimulation: the generated RTL runs beside the golden model
//! (`rfgen-model`) and every output is compared every cycle (`verilator`, `lockstep`,
//! `blocks`, `session`).

pub mod bench;
pub mod blocks;
pub mod children;
pub mod glue;
pub mod kernel;
pub mod lockstep;
pub mod random;
pub mod session;
pub mod shrink;
pub mod user_rtl;
pub mod verilator;
pub mod wave;
