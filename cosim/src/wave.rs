//! The model's expected outputs in the RTL's waveform: while a lockstep run records a VCD, the
//! expected value of every output port is kept per cycle; afterwards it is added to Verilator's
//! file as scope `rfgen_model`, one signal `<port>_expected` per output, with `x` for the bits
//! not compared that cycle. One file then shows the RTL and what it should have done, side by
//! side, in GTKWave or Surfer. (An FST file keeps the RTL's signals only.)

use crate::verilator::{Layout, PortSlot};
use anyhow::{Context, Result};
use std::fmt::Write;
use std::path::Path;

pub struct ExpectedTrace {
    ports: Vec<PortSlot>,
    /// Last value written per port (to write changes only).
    last: Vec<String>,
    /// `(time, changes)` in cycle order.
    changes: Vec<(u64, String)>,
}

impl ExpectedTrace {
    pub fn new(layout: &Layout) -> Self {
        ExpectedTrace {
            ports: layout.outputs.clone(),
            last: vec![String::new(); layout.outputs.len()],
            changes: Vec::new(),
        }
    }

    /// Signal identifier of output `i` (Verilator's own are at most four characters).
    fn id(i: usize) -> String {
        format!("rfgen{i}")
    }

    /// Keeps the expected outputs (`values`, compared bits `mask`) of the cycle evaluated at
    /// waveform time `time`.
    pub fn record(&mut self, time: u64, values: &[u32], mask: &[u32]) {
        let mut text = String::new();
        for (i, p) in self.ports.iter().enumerate() {
            let mut bits = String::with_capacity(p.width as usize);
            for b in (0..p.width as usize).rev() {
                let (w, s) = (p.offset + b / 32, b % 32);
                bits.push(match (mask[w] >> s & 1, values[w] >> s & 1) {
                    (0, _) => 'x',
                    (_, 1) => '1',
                    _ => '0',
                });
            }
            if bits != self.last[i] {
                if p.width == 1 {
                    let _ = writeln!(text, "{bits}{}", Self::id(i));
                } else {
                    let _ = writeln!(text, "b{bits} {}", Self::id(i));
                }
                self.last[i] = bits;
            }
        }
        self.changes.push((time, text));
    }

    /// Adds the kept values to the VCD Verilator wrote at `path` (an FST is left as it is).
    pub fn merge_into(self, path: &Path) -> Result<()> {
        if path.extension().and_then(|e| e.to_str()) != Some("vcd") {
            return Ok(());
        }
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let Some(end) = text.find("$enddefinitions") else {
            anyhow::bail!("{} is not a VCD file Verilator wrote (no $enddefinitions)", path.display());
        };
        let mut out = String::with_capacity(text.len() * 2);
        out += &text[..end];
        out += " $scope module rfgen_model $end\n";
        for (i, p) in self.ports.iter().enumerate() {
            let range = if p.width > 1 { format!(" [{}:0]", p.width - 1) } else { String::new() };
            let _ = writeln!(out, "  $var wire {} {} {}_expected{range} $end", p.width, Self::id(i), p.name);
        }
        out += " $upscope $end\n";
        let body = &text[end..];
        let mut ours = self.changes.into_iter().peekable();
        for line in body.split_inclusive('\n') {
            if let Some(t) = line.strip_prefix('#').and_then(|t| t.trim().parse::<u64>().ok()) {
                while let Some((time, changes)) = ours.next_if(|(time, _)| *time < t) {
                    let _ = write!(out, "#{time}\n{changes}");
                }
                out += line;
                if let Some((_, changes)) = ours.next_if(|(time, _)| *time == t) {
                    out += &changes;
                }
            } else {
                out += line;
            }
        }
        for (time, changes) in ours {
            let _ = write!(out, "#{time}\n{changes}");
        }
        std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))
    }
}
