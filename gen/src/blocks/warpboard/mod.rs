//! The warpboard (seed 002 §4): per warp, what its instructions still waiting in operand
//! collectors hold, so that the issue stage stalls a write-after-read hazard. Release-on-commit
//! and release-on-read keep one bit per warp; the bloomboards one counter of pending source
//! reads per bin, a register's bin being its bank group (`reg_map`, the MRF's own mapping).
//! Cycle behaviour: `model::sm::warpboard::Warpboard`; the issue stage's stall check reads these
//! outputs (docs/warpboard.md).

pub mod interface;

use crate::blocks::mrf::{self, RegMapPorts};
use crate::config::WarPolicy;
use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR, index_bits};
use crate::verilog::{Module, Port, Sig, lit, resize, slice, vector_wire, wire};
use interface::WarpboardPorts;

/// What a policy's warpboard holds, derived once for the generator, the model and the cosim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub warps: u32,
    pub warp_bits: u32,
    pub reg_bits: u32,
    pub groups: u32,
    pub releases_on_commit: bool,
    pub releases_on_read: bool,
    pub bloom: Option<Bins>,
}

/// A bloomboard's bins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bins {
    /// The largest count (1: a 1-bit mark).
    pub max: u32,
    pub counter_bits: u32,
}

impl Shape {
    /// None for `none`: there is no warpboard.
    pub fn new(g: &Geometry, policy: WarPolicy) -> Option<Shape> {
        let bins = |max: u32| Some(Bins { max, counter_bits: index_bits(max + 1) });
        let bloom = match policy {
            WarPolicy::None => return None,
            WarPolicy::ReleaseOnCommit | WarPolicy::ReleaseOnRead => None,
            WarPolicy::Bloom1 => bins(1),
            WarPolicy::Bloom2 => bins(3),
            // Every collector's sources in one bin: the most reads that can wait at once.
            WarPolicy::BloomUnbounded => bins(SLOTS_PER_COLLECTOR * g.collectors),
        };
        Some(Shape {
            warps: g.warps,
            warp_bits: g.warp_bits(),
            reg_bits: g.reg_bits(),
            groups: g.groups,
            releases_on_commit: policy == WarPolicy::ReleaseOnCommit,
            releases_on_read: policy == WarPolicy::ReleaseOnRead,
            bloom,
        })
    }
}

/// The warpboard design's modules, leaves first: the register map (bloomboards), the top.
pub fn modules(prefix: &str, g: &Geometry, s: &Shape) -> Vec<Module> {
    // Bins are bank groups of architectural registers, renamed or not (`Geometry::architectural`).
    let g = &g.architectural();
    let reg_map = mrf::reg_map(prefix, g);
    let ports = WarpboardPorts::new(s);
    let p = ports.map(Port::sig);
    let mut b = String::new();
    let mut doc = vec![];
    // `name`: the one-hot vector of `warp` while `valid`.
    let onehot = |name: &str, valid: &Sig, warp: &Sig| {
        format!("  assign {name} = {{{}{{{valid}}}}} & ({} << {warp});\n", s.warps, lit(s.warps, 1))
    };
    let mut modules = vec![];
    if let Some(busy) = &p.busy {
        let (name, released) = if s.releases_on_commit {
            ("Release-on-commit", "cleared when it commits")
        } else {
            ("Release-on-read", "cleared when it leaves the collector")
        };
        doc.push(format!("{name} warpboard: one bit per warp, set when an instruction goes to a collector,"));
        doc.push(format!("{released}; the warp issues nothing while set. See docs/warpboard.md."));
        b += &vector_wire("iss_here", s.warps);
        b += &vector_wire("released", s.warps);
        b += "\n  // The issuing warp's bit is set, the released warps' bits cleared (both: cleared).\n";
        b += &onehot("iss_here", &p.iss_valid, &p.iss_warp);
        b += &match (&p.commit, &p.lv_valid, &p.lv_warp) {
            (Some(commit), _, _) => format!("  assign released = {commit};\n"),
            (None, Some(valid), Some(warp)) => onehot("released", valid, warp),
            _ => unreachable!("release-on-read has the leave ports"),
        };
        b += &format!(
            "  always @(posedge clk) begin\n    if (rst) {busy} <= {};\n    else {busy} <= ({busy} | iss_here) & ~released;\n  end\n",
            lit(s.warps, 0)
        );
    }
    if let (Some(bp), Some(bn)) = (&p.bloom, &s.bloom) {
        let (gb, k, cw, gs) = (g.group_bits(), SLOTS_PER_COLLECTOR, bn.counter_bits, s.groups);
        doc.push(format!(
            "Bloomboard: per warp {gs} bins (bank groups) of {cw}-bit counters of pending source reads (max {}); a",
            bn.max
        ));
        doc.push("source read counts when its instruction goes to a collector and stops when it leaves.".into());
        doc.push("See docs/warpboard.md.".into());
        for event in ["iss", "lv"] {
            b += &vector_wire(&format!("{event}_here"), s.warps);
            b += &vector_wire(&format!("{event}_group"), k * gb);
            b += &vector_wire(&format!("{event}_count"), 2 * gs);
            for i in 0..k {
                b += &wire(&format!("unused_{event}_row{i}"), g.row_bits());
            }
        }
        let events = [
            ("iss", &p.iss_valid, &p.iss_warp, &bp.iss_src_valid, &bp.iss_src_reg),
            ("lv", p.lv_valid.as_ref().unwrap(), p.lv_warp.as_ref().unwrap(), &bp.lv_src_valid, &bp.lv_src_reg),
        ];
        for (event, valid, warp, src_valid, src_reg) in events {
            b += &format!("\n  // The {event} event's sources: their bins, and how many fall in each.\n");
            b += &onehot(&format!("{event}_here"), valid, warp);
            for i in 0..k {
                b += &reg_map.instance(
                    &format!("u_map_{event}{i}"),
                    &RegMapPorts {
                        rows_per_warp: mrf::group_only_stride(g),
                        warp: warp.clone(),
                        reg_id: src_reg[i as usize].clone(),
                        group: Sig::new(format!("{event}_group"), k * gb).slice(i, gb),
                        // Bins are bank groups: the row is not needed.
                        row: Sig::unused(&format!("{event}_row{i}"), g.row_bits()),
                    },
                );
            }
            for bin in 0..gs {
                let terms: Vec<String> = (0..k)
                    .map(|i| {
                        let hit = format!(
                            "({valid} & {src_valid}[{i}] & ({} == {}))",
                            slice(&format!("{event}_group"), i, gb),
                            lit(gb, bin as u64)
                        );
                        format!("{{1'b0, {hit}}}")
                    })
                    .collect();
                b += &format!("  assign {event}_count[{}:{}] = {};\n", 2 * bin + 1, 2 * bin, terms.join(" + "));
            }
        }
        b += "\n  // Each bin: add the issued reads (up to the maximum), take the leaving ones off (down to 0).\n";
        b += "  genvar w, b;\n  generate\n";
        b += &format!("    for (w = 0; w < {}; w = w + 1) begin : g_warp\n", s.warps);
        b += &format!("      for (b = 0; b < {gs}; b = b + 1) begin : g_bin\n");
        let at = format!("{}*({gs}*w+b)", cw);
        let cnt = format!("{}[{at} +: {cw}]", bp.bins);
        if bn.max == 1 {
            b += &format!(
                "        always @(posedge clk) begin\n          if (rst) {cnt} <= 1'b0;\n          else {cnt} <= ({cnt} | (iss_here[w] & (|iss_count[2*b +: 2]))) & ~(lv_here[w] & (|lv_count[2*b +: 2]));\n        end\n"
            );
        } else {
            let up_w = cw + 1;
            b += &vector_wire("up", up_w).replace("  wire", "        wire");
            b += &vector_wire("capped", cw).replace("  wire", "        wire");
            b += &vector_wire("down", cw).replace("  wire", "        wire");
            b += &format!(
                "        assign up = {} + (iss_here[w] ? {} : {});\n",
                resize(&cnt, cw, up_w),
                resize("iss_count[2*b +: 2]", 2, up_w),
                lit(up_w, 0)
            );
            b += &format!(
                "        assign capped = (up > {}) ? {} : up[{}:0];\n",
                lit(up_w, bn.max as u64),
                lit(cw, bn.max as u64),
                cw - 1
            );
            b += &format!(
                "        assign down = lv_here[w] ? {} : {};\n",
                resize("lv_count[2*b +: 2]", 2, cw),
                lit(cw, 0)
            );
            b += &format!(
                "        always @(posedge clk) begin\n          if (rst) {cnt} <= {z};\n          else {cnt} <= (capped > down) ? capped - down : {z};\n        end\n",
                z = lit(cw, 0)
            );
        }
        b += "      end\n    end\n  endgenerate\n";
        modules.push(reg_map.module);
    }
    modules.push(Module {
        name: format!("{prefix}_warpboard"),
        doc,
        // The state is the outputs.
        ports: ports
            .list()
            .into_iter()
            .cloned()
            .map(|port| if port.name == "busy" || port.name == "bin_count" { port.reg() } else { port })
            .collect(),
        body: b,
        memory: None,
    });
    modules
}
