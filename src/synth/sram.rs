//! Area model of the black-boxed memory leaves in the ASIC view (docs/area.md):
//! `macros × um2_per_macro + bits × um2_per_bit`.

use serde::{Deserialize, Serialize};

/// FakeRAM45 `fakeram45_1024x32` (OpenROAD flow scripts, Nangate45 platform): a
/// 152.19 µm × 107.80 µm = 16,406 µm² macro of 32,768 bits, the capacity of one default MRF bank
/// (256 × 128): 0.5007 µm² per bit.
pub const FAKERAM45_UM2_PER_BIT: f64 = 0.5007;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SramModel {
    pub um2_per_bit: f64,
    pub um2_per_macro: f64,
}

impl Default for SramModel {
    fn default() -> Self {
        SramModel { um2_per_bit: FAKERAM45_UM2_PER_BIT, um2_per_macro: 0.0 }
    }
}

/// The memory leaves of one synthesized module, costed by the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SramCost {
    pub macros: u64,
    pub bits: u64,
    pub um2: f64,
}

impl SramModel {
    /// Adds `count` macros of `bits` bits each.
    pub fn add(&self, cost: &mut SramCost, count: u64, bits: u64) {
        cost.macros += count;
        cost.bits += count * bits;
        cost.um2 += count as f64 * (self.um2_per_macro + bits as f64 * self.um2_per_bit);
    }
}
