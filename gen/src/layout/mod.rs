//! What a configuration implies for the hardware, derived once from its sections: the register
//! file's geometry and register-to-bank mapping, and the layouts of the optional parts (BDI
//! modes and banks, the register file cache, the ORF/LRF encoding, the renamed register file).
//! Below the checked config, which validates a configuration by building them; generator, model
//! and cosim read them from [`crate::Checked`].

pub mod bdi;
pub mod geometry;
pub mod orf;
pub mod rename;
pub mod rfc;
