//! BDI register compression (seed 004): the mode table and the compressed layout of a warp
//! register. This is the one definition of modes, payload sizes, bank counts, the choice order
//! and the range-indicator codes: config validation, the compressor and decompressor generators
//! and the golden model all read it. `docs/bdi.md` explains the layout.

use crate::layout::geometry::{Geometry, LANE_BITS, index_bits};
use crate::schema::error::ConfigError;
use crate::schema::{Compression, Timing};

/// A `<base, delta>` mode, sizes in bytes: the register is cut into `base`-byte values; the first
/// is stored whole, every other one as a `delta`-byte signed difference to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    pub base: u32,
    pub delta: u32,
}

/// Every mode, in canonical order. The order numbers the range indicator (1 for the first
/// enabled mode) and breaks ties between modes that need the same number of banks.
pub const MODES: [Mode; 7] = [
    Mode { base: 4, delta: 0 },
    Mode { base: 4, delta: 1 },
    Mode { base: 4, delta: 2 },
    Mode { base: 8, delta: 0 },
    Mode { base: 8, delta: 1 },
    Mode { base: 8, delta: 2 },
    Mode { base: 8, delta: 4 },
];

impl Mode {
    /// `"4,1"`, as written in the config.
    pub fn name(&self) -> String {
        format!("{},{}", self.base, self.delta)
    }

    pub fn parse(text: &str) -> Option<Mode> {
        MODES.iter().copied().find(|m| m.name() == text)
    }

    pub fn base_bits(&self) -> u32 {
        8 * self.base
    }

    pub fn delta_bits(&self) -> u32 {
        8 * self.delta
    }

    /// Values a register of `lanes` 32-bit lanes is cut into.
    pub fn values(&self, lanes: u32) -> u32 {
        lanes * LANE_BITS / self.base_bits()
    }

    /// Compressed size in bits: one base plus a delta for every other value (seed 004 eq. 1).
    pub fn payload_bits(&self, lanes: u32) -> u32 {
        self.base_bits() + self.delta_bits() * (self.values(lanes) - 1)
    }
}

/// An enabled mode, sized for one geometry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeLayout {
    pub mode: Mode,
    /// Its range-indicator code (0 means uncompressed).
    pub ri: u32,
    pub values: u32,
    pub payload_bits: u32,
    /// Banks (chunks of one bank entry) the payload occupies.
    pub banks: u32,
}

/// How warp registers are compressed in one configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub lanes: u32,
    /// Banks a warp register spans uncompressed (one per cluster).
    pub clusters: u32,
    /// Bits of one chunk = one bank entry.
    pub chunk_bits: u32,
    /// Enabled modes in canonical order; `modes[i].ri == i + 1`.
    pub modes: Vec<ModeLayout>,
    /// Indices into `modes` in choice order: fewest banks first, ties in canonical order.
    pub priority: Vec<usize>,
    /// Compressor stages: `compression.compress_latency`, one more with the first stage split
    /// and one more with each value's fit registered.
    pub compress_latency: u32,
    pub decompress_latency: u32,
    pub wakeup_cycles: u32,
    pub gate_delay: u32,
    /// `timing.bdi_split_compressor`: the differences from the base are registered before
    /// their fit check.
    pub split_deltas: bool,
    /// `timing.bdi_registered_fit`: whether each difference fits each mode is registered before
    /// the reductions to the modes' fit flags.
    pub registered_fit: bool,
    /// `timing.bdi_split_decompressor`: each value's delta, selected by the range indicator, is
    /// registered before its adder.
    pub split_decompressor: bool,
}

impl Layout {
    /// The layout of a geometry's `[compression]` section. Refuses a mode that cannot save a
    /// bank here: its hardware would never be used.
    pub fn new(g: &Geometry, c: &Compression, timing: &Timing) -> Result<Layout, ConfigError> {
        let (lanes, clusters) = (g.lanes, g.clusters);
        let chunk_bits = g.entry_bits();
        let banks = |m: &Mode| m.payload_bits(lanes).div_ceil(chunk_bits);
        let usable = |m: &Mode| m.values(lanes) >= 2 && banks(m) < clusters;
        for text in &c.modes {
            let Some(mode) = Mode::parse(text) else {
                return Err(ConfigError::Rule {
                    path: "compression.modes".into(),
                    value: format!("{text:?}"),
                    rule: "unknown mode".into(),
                    allowed: MODES.map(|m| m.name()).join(" "),
                });
            };
            if !usable(&mode) {
                let useful: Vec<String> = MODES.iter().filter(|m| usable(m)).map(Mode::name).collect();
                let rule = if mode.values(lanes) < 2 {
                    format!("cuts a register of {lanes} lanes into fewer than 2 values")
                } else {
                    format!(
                        "needs {} of the {clusters} banks of a register, saving none (sm.lanes = {lanes}, sm.clusters = {clusters})",
                        banks(&mode)
                    )
                };
                return Err(ConfigError::Rule {
                    path: "compression.modes".into(),
                    value: format!("{text:?}"),
                    rule,
                    allowed: if useful.is_empty() {
                        "none: with one bank per register nothing can be saved".into()
                    } else {
                        useful.join(" ")
                    },
                });
            }
        }
        let modes: Vec<ModeLayout> = MODES
            .iter()
            .filter(|m| c.modes.iter().any(|t| *t == m.name()))
            .enumerate()
            .map(|(i, m)| ModeLayout {
                mode: *m,
                ri: i as u32 + 1,
                values: m.values(lanes),
                payload_bits: m.payload_bits(lanes),
                banks: banks(m),
            })
            .collect();
        let mut priority: Vec<usize> = (0..modes.len()).collect();
        priority.sort_by_key(|&i| (modes[i].banks, i));
        Ok(Layout {
            lanes,
            clusters,
            chunk_bits,
            modes,
            priority,
            compress_latency: c.compress_latency
                + u32::from(timing.bdi_split_compressor)
                + u32::from(timing.bdi_registered_fit),
            decompress_latency: c.decompress_latency + u32::from(timing.bdi_split_decompressor),
            wakeup_cycles: c.wakeup_cycles,
            gate_delay: c.gate_delay,
            split_deltas: timing.bdi_split_compressor,
            registered_fit: timing.bdi_registered_fit,
            split_decompressor: timing.bdi_split_decompressor,
        })
    }

    /// Width of a range indicator: enough for every mode and "uncompressed".
    pub fn ri_bits(&self) -> u32 {
        index_bits(self.modes.len() as u32 + 1)
    }

    /// Width of a bank count (0 to `clusters`).
    pub fn banks_bits(&self) -> u32 {
        index_bits(self.clusters + 1)
    }

    /// Bits of a whole warp register.
    pub fn register_bits(&self) -> u32 {
        self.lanes * LANE_BITS
    }

    /// The mode a range indicator names; `None` for 0 (uncompressed) and for codes no mode
    /// uses, which the decompressor also reads as uncompressed.
    pub fn mode(&self, ri: u32) -> Option<&ModeLayout> {
        self.modes.get((ri as usize).wrapping_sub(1))
    }

    /// Banks a register with this range indicator occupies.
    pub fn banks(&self, ri: u32) -> u32 {
        self.mode(ri).map_or(self.clusters, |m| m.banks)
    }

    /// Widest delta among enabled modes of a base size, in bits (0 if none has a delta).
    pub fn max_delta_bits(&self, base: u32) -> u32 {
        self.modes.iter().filter(|m| m.mode.base == base).map(|m| m.mode.delta_bits()).max().unwrap_or(0)
    }

    /// Some enabled mode has this base size.
    pub fn has_base(&self, base: u32) -> bool {
        self.modes.iter().any(|m| m.mode.base == base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_table_1_sizes_and_banks() {
        let checked = crate::config::parse(
            "[compression]\nmodes = [\"4,0\", \"4,1\", \"4,2\", \"8,0\", \"8,1\", \"8,2\", \"8,4\"]",
        )
        .unwrap();
        let l = Layout::new(&checked.geometry, &checked.config.compression, &checked.config.timing).unwrap();
        let got: Vec<(String, u32, u32)> =
            l.modes.iter().map(|m| (m.mode.name(), m.payload_bits / 8, m.banks)).collect();
        let want = [
            ("4,0", 4, 1),
            ("4,1", 35, 3),
            ("4,2", 66, 5),
            ("8,0", 8, 1),
            ("8,1", 23, 2),
            ("8,2", 38, 3),
            ("8,4", 68, 5),
        ];
        assert_eq!(got, want.map(|(n, s, b)| (n.to_string(), s, b)));
        // Fewest banks first; <4,0> before <8,0>, <4,1> before <8,2>, <4,2> before <8,4>.
        let order: Vec<String> = l.priority.iter().map(|&i| l.modes[i].mode.name()).collect();
        assert_eq!(order, ["4,0", "8,0", "8,1", "4,1", "8,2", "4,2", "8,4"]);
        assert_eq!((l.ri_bits(), l.banks_bits(), l.banks(0), l.banks(2)), (3, 4, 8, 3));
    }
}
