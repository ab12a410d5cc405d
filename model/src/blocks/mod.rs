//! One cycle model per generated block, with the block's ports and timing. Each computes its
//! outputs from the current state (the issue stage and scheduler also their decision from the
//! cycle's inputs) and commits one clock edge from the current state and inputs, exactly like
//! the RTL.

pub mod arbiter;
pub mod bdi;
pub mod issue;
pub mod mrf;
pub mod rename;
pub mod scheduler;
pub mod scoreboard;
pub mod sm_rf;
pub mod warpboard;
