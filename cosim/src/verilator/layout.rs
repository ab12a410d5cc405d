//! Where each port lives in the flat `u32` buffers exchanged with the C++ shim: inputs and
//! outputs each in manifest order, every port starting on a word, least significant word first
//! (Verilator's own layout for wide ports). `clk` is driven by the shim and has no slot.

use rfgen_gen::emit::ManifestModule;
use rfgen_gen::verilog::{Dir, Port};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortSlot {
    pub name: String,
    /// Position among the ports of its direction (manifest order, `clk` left out).
    pub index: usize,
    pub width: u32,
    /// First word in its buffer.
    pub offset: usize,
    pub words: usize,
}

impl PortSlot {
    pub fn range(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.words
    }

    /// Writes a value of at most 64 bits.
    pub fn put(&self, buf: &mut [u32], value: u64) {
        buf[self.offset] = value as u32;
        if self.words > 1 {
            buf[self.offset + 1] = (value >> 32) as u32;
        }
    }

    /// Reads a value of at most 64 bits.
    pub fn get(&self, buf: &[u32]) -> u64 {
        let lo = buf[self.offset] as u64;
        if self.words > 1 { lo | (buf[self.offset + 1] as u64) << 32 } else { lo }
    }

    /// Mask words covering exactly the port's bits.
    pub fn full_mask(&self, mask: &mut [u32]) {
        let words = &mut mask[self.range()];
        words.fill(u32::MAX);
        if !self.width.is_multiple_of(32) {
            words[self.words - 1] = (1u32 << (self.width % 32)) - 1;
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub inputs: Vec<PortSlot>,
    pub outputs: Vec<PortSlot>,
    pub in_words: usize,
    pub out_words: usize,
}

impl Layout {
    pub fn new(module: &ManifestModule) -> Layout {
        Layout::of(&module.ports)
    }

    /// The layout a module with `ports` would have.
    pub fn of(ports: &[Port]) -> Layout {
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let (mut in_words, mut out_words) = (0, 0);
        for p in ports {
            if p.name == "clk" {
                continue;
            }
            let words = p.width.div_ceil(32) as usize;
            let (list, next) = match p.dir {
                Dir::Input => (&mut inputs, &mut in_words),
                Dir::Output => (&mut outputs, &mut out_words),
            };
            list.push(PortSlot { name: p.name.clone(), index: list.len(), width: p.width, offset: *next, words });
            *next += words;
        }
        Layout { inputs, outputs, in_words, out_words }
    }

    /// The slot of a port a block's interface declares, checked against this RTL's direction
    /// and width. `clk` is driven by the shim and gets an empty slot.
    pub fn bind(&self, p: &Port) -> Result<PortSlot, String> {
        if p.name == "clk" {
            return Ok(PortSlot { name: p.name.clone(), index: usize::MAX, width: 1, offset: 0, words: 0 });
        }
        let (list, dir) = match p.dir {
            Dir::Input => (&self.inputs, "input"),
            Dir::Output => (&self.outputs, "output"),
        };
        let slot = list.iter().find(|s| s.name == p.name).ok_or_else(|| format!("no {dir} port `{}`", p.name))?;
        if slot.width != p.width {
            return Err(format!("{dir} port `{}` is {} bits, the interface needs {}", p.name, slot.width, p.width));
        }
        Ok(slot.clone())
    }

    pub fn input(&self, name: &str) -> &PortSlot {
        self.inputs.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no input port {name}"))
    }

    pub fn output(&self, name: &str) -> &PortSlot {
        self.outputs.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no output port {name}"))
    }
}
