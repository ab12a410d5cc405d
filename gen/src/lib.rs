//! rfgen's generator: configuration schema and validation, the register-to-bank mapping, and
//! the Verilog emitters of every block. It knows nothing about simulation.

pub mod blocks;
pub mod config;
pub mod emit;
pub mod formal;
pub mod input;
pub mod layout;
pub mod output;
pub mod registry;
pub mod schema;
pub mod templates;
pub mod verilog;

pub use config::{Checked, Config, ConfigError};
pub use emit::{Design, Manifest, SramKind, generate};
pub use layout::geometry::Geometry;
pub use registry::Block;
