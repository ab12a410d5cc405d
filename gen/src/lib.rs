//! rfgen's generator: configuration schema and validation, the register-to-bank mapping, and
//! the Verilog emitters of every block. It knows nothing about simulation.

pub mod bdi;
pub mod blocks;
pub mod config;
pub mod emit;
pub mod geometry;
pub mod input;
pub mod orf;
pub mod output;
pub mod registry;
pub mod rename;
pub mod rfc;
pub mod templates;
pub mod verilog;

pub use config::{Checked, Config, ConfigError};
pub use emit::{Design, Manifest, SramKind, generate};
pub use geometry::Geometry;
pub use registry::Block;
