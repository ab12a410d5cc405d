//! One generator module per hardware block. Each returns the Verilog modules it needs,
//! leaves first, top last.

pub mod bdi;
pub mod issue;
pub mod mrf;
pub mod rename;
pub mod scheduler;
pub mod scoreboard;
pub mod sm_rf;
pub mod sram;
pub mod warpboard;
