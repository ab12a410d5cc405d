//! rfgen's golden cycle model of the SM (`model`) and the Verilator lockstep cosimulation
//! that checks the generated RTL against it (`verilator`, `lockstep`, `blocks`, `session`).

pub mod bench;
pub mod blocks;
pub mod func;
pub mod kernel;
pub mod lockstep;
pub mod model;
pub mod session;
pub mod sim;
pub mod verilator;
