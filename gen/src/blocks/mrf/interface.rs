//! The ports of the MRF subsystem top (`<prefix>_mrf`), declared once: the generator declares
//! the module from [`MrfPorts::new`], the golden model's `MrfIn`/`MrfOut` have one field per
//! port, and the cosim glue binds each field to its place in the Verilated model with
//! [`MrfPorts::map`]. A port renamed here is renamed everywhere, or the code does not compile.

use crate::layout::bdi::Layout;
use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::layout::orf::OrfLayout;
use crate::layout::rfc::RfcLayout;
use crate::verilog::{Port, Ports, packing};

const SLOTS: usize = SLOTS_PER_COLLECTOR as usize;

/// Every port of the MRF top, in declaration order; `P` is what each port is for the user: a
/// [`Port`] declaration in the generator, a buffer slot in the cosim bridge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MrfPorts<P> {
    pub clk: P,
    pub rst: P,
    /// Register-limited occupancy: the running kernel's rows per warp (`Geometry::register_limited`).
    pub rows_per_warp: Option<P>,
    pub issue_valid: P,
    pub issue_ready: P,
    pub issue_warp: P,
    pub issue_src_valid: P,
    pub issue_src_reg: [P; SLOTS],
    pub issue_tag: P,
    pub disp_valid: P,
    pub disp_ready: P,
    pub disp_warp: P,
    pub disp_tag: P,
    pub disp_src_valid: P,
    pub disp_src_data: [P; SLOTS],
    pub wb_valid: P,
    /// A write-back can be refused (compressed MRF, register file cache, TFET rows).
    pub wb_ready: Option<P>,
    pub wb_warp: P,
    pub wb_reg: P,
    pub wb_mask: P,
    pub wb_data: P,
    /// A write-back is stored later than the edge it is taken (compressed MRF: the write port's
    /// commit; TFET rows: the cycle after a write to a TFET row).
    pub wb_commit: Option<P>,
    /// The compressed MRF's bank strobes.
    pub compressed: Option<CompressedPorts<P>>,
    /// The register file cache's hints and events.
    pub rfc: Option<RfcPorts<P>>,
    /// The operand register file and last result file's encodings and fill hold.
    pub orf: Option<OrfPorts<P>>,
}

/// Ports only an MRF with an operand register file and last result file has (docs/orf-lrf.md):
/// the compiler's level of each operand, encoded in the instruction, the fill hold and, with
/// slots per active warp, the warps that lose their slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrfPorts<P> {
    pub issue_src_level: P,
    pub issue_src_entry: P,
    pub issue_src_fill: P,
    pub issue_strand: P,
    pub wb_mrf: P,
    pub wb_upper: P,
    pub wb_entry: P,
    pub fill_busy: P,
    /// Warp slots taken and released (the two-level scheduler): the released warps.
    pub rel_mask: Option<P>,
}

/// Ports only the compressed MRF has: the banks' strobes are outputs (bit `j·C + c` is group
/// `j`, cluster `c`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompressedPorts<P> {
    pub free_valid: P,
    pub free_warp: P,
    pub bank_gated: P,
    pub bank_rd_en: P,
    pub bank_wr_en: P,
}

/// Ports only an MRF behind a register file cache has (docs/rfc.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RfcPorts<P> {
    /// Only with liveness.
    pub issue_src_last: Option<P>,
    pub wb_long: P,
    pub act_valid: P,
    pub act_warp: P,
    pub act_ready: P,
    pub flush_valid: P,
    pub flush_warp: P,
    pub flush_ready: P,
    pub rel_mask: P,
}

/// Bit of bank (group `group`, cluster `cluster`) in the bank strobe ports.
pub fn bank_bit(group: u32, cluster: u32, clusters: u32) -> u32 {
    group * clusters + cluster
}

impl MrfPorts<Port> {
    pub fn new(g: &Geometry, compression: Option<&Layout>, rfc: Option<&RfcLayout>, orf: Option<&OrfLayout>) -> Self {
        let (wb, rb, k) = (g.warp_bits(), g.mrf_reg_bits(), SLOTS_PER_COLLECTOR);
        let reg_id = if g.renamed { "physical register id" } else { "register id" };
        let lanes = packing("lane", 32);
        let valid_with = |s: usize| format!("source {s}, {lanes} (valid with disp_src_valid[{s}])");
        let compressed = compression.map(|l| {
            let banks = g.groups * l.clusters;
            let strobe = |name: &str, what: &str| {
                Port::output(name, banks, &format!("{what}; group j cluster c at bit {}j+c", l.clusters)).vector()
            };
            CompressedPorts {
                free_valid: Port::input(
                    "free_valid",
                    1,
                    "warp free_warp has finished and every write-back of it has committed: its registers become invalid at this edge",
                ),
                free_warp: Port::input("free_warp", wb, "warp id"),
                bank_gated: strobe("bank_gated", "bank power-gated"),
                bank_rd_en: strobe("bank_rd_en", "bank read this cycle"),
                bank_wr_en: strobe("bank_wr_en", "bank written this cycle"),
            }
        });
        let rfc = rfc.map(|r| RfcPorts {
            issue_src_last: r.liveness.then(|| {
                Port::input(
                    "issue_src_last",
                    k,
                    &format!("the source register is read for the last time (liveness), {}", packing("source", 1)),
                )
                .vector()
            }),
            wb_long: Port::input("wb_long", 1, "the write-back is a long-latency result: it bypasses the RFC"),
            act_valid: Port::input("act_valid", 1, "warp act_warp becomes active (hold until act_ready)"),
            act_warp: Port::input("act_warp", wb, "warp id"),
            act_ready: Port::output("act_ready", 1, "a cache slot is free: the activation is taken this cycle"),
            flush_valid: Port::input("flush_valid", 1, "warp flush_warp was descheduled (hold until flush_ready)"),
            flush_warp: Port::input("flush_warp", wb, "warp id"),
            flush_ready: Port::output("flush_ready", 1, "no flush is under way (and, before a compressed MRF, no eviction waits): the request is taken this cycle"),
            rel_mask: Port::input(
                "rel_mask",
                g.warps,
                &format!("warps that finished: their slots are freed without write-backs, {}", packing("warp", 1)),
            )
            .vector(),
        });
        let orf = orf.map(|o| {
            let eb = o.entry_bits();
            let levels = "0 MRF, 1 ORF, 2 LRF";
            OrfPorts {
                issue_src_level: Port::input(
                    "issue_src_level",
                    2 * k,
                    &format!("where each source is read: {levels}; {}", packing("source", 2)),
                ),
                issue_src_entry: Port::input(
                    "issue_src_entry",
                    eb * k,
                    &format!(
                        "ORF entry, or LRF entry (split: the source slot; unified: 0), of each upper-level source or fill, {}",
                        packing("source", eb)
                    ),
                ),
                issue_src_fill: Port::input(
                    "issue_src_fill",
                    2 * k,
                    &format!(
                        "an MRF source also fills this level's entry (0 none, 1 ORF, 2 LRF), {}",
                        packing("source", 2)
                    ),
                ),
                issue_strand: Port::input(
                    "issue_strand",
                    1,
                    "the instruction starts a strand: its warp's ORF and LRF entries are invalid after this edge",
                ),
                wb_mrf: Port::input("wb_mrf", 1, "the write-back writes the MRF (with wb_valid)"),
                wb_upper: Port::input("wb_upper", 2, "the write-back also writes this level: 0 none, 1 ORF, 2 LRF"),
                wb_entry: Port::input("wb_entry", eb, "its ORF or LRF entry"),
                fill_busy: Port::output(
                    "fill_busy",
                    g.warps,
                    &format!(
                        "warps with a fill not yet written: hold their next instruction, {}",
                        packing("warp", 1)
                    ),
                )
                .vector(),
                rel_mask: o.mapped.then(|| {
                    Port::input(
                        "rel_mask",
                        g.warps,
                        &format!(
                            "warps outside the active set: their ORF/LRF slots are freed at this edge, {}",
                            packing("warp", 1)
                        ),
                    )
                    .vector()
                }),
            }
        });
        let tfet = g.has_tfet();
        let wb_commit = match (compression, &rfc) {
            (Some(_), None) => {
                Some("the oldest write-back taken is stored at this edge (read by grants from the next cycle)")
            }
            (Some(_), Some(_)) => {
                Some("the write port's oldest register (from the RFC: bypass, eviction or flush) is stored at this edge")
            }
            (None, _) if tfet => Some(
                "the write-back taken in the previous cycle, to a TFET row, finishes at this edge (release its register)",
            ),
            (None, _) => None,
        }
        .map(|comment| Port::output("wb_commit", 1, comment));
        let (wb_valid, wb_mask) = match (compression, &rfc) {
            (None, None) if tfet => (
                "a write-back is offered (hold it until wb_ready)",
                "per-lane write enable (active mask), lane i at bit i",
            ),
            (None, None) => (
                "write a warp register this cycle (never blocked)",
                "per-lane write enable (active mask), lane i at bit i",
            ),
            (Some(_), None) => (
                "a write-back is offered (hold it until wb_ready)",
                "per-lane write enable (active mask), lane i at bit i; partial: stored uncompressed",
            ),
            (Some(_), Some(_)) => (
                "a write-back is offered (hold it until wb_ready)",
                "per-lane write enable (active mask), lane i at bit i; partial: kept in the RFC only if it holds the register, else stored uncompressed",
            ),
            (None, Some(_)) => (
                "a write-back is offered (hold it until wb_ready)",
                "per-lane write enable (active mask), lane i at bit i; partial: kept in the RFC only if it holds the register",
            ),
        };
        let wb_ready = match (compression, &rfc) {
            (Some(_), None) => Some("the write port takes the offer this cycle"),
            (Some(_), Some(_)) => {
                Some("the offer is taken this cycle (no eviction waits, no flush is under way, the write port is free)")
            }
            (None, Some(_)) => Some("the offer is taken this cycle (no eviction waits and no flush is under way)"),
            (None, None) if tfet => {
                Some("the offer is taken this cycle (low in the cycle after a write-back to a TFET row)")
            }
            (None, None) => None,
        }
        .map(|comment| Port::output("wb_ready", 1, comment));
        MrfPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high"),
            rows_per_warp: g
                .register_limited
                .then(|| Port::input("rows_per_warp", g.stride_bits(), &super::reg_map::rows_per_warp_doc(g))),
            issue_valid: Port::input(
                "issue_valid",
                1,
                "an instruction is offered (hold it and its fields until accepted)",
            ),
            issue_ready: Port::output("issue_ready", 1, "a collector is free: the offer is accepted this cycle"),
            issue_warp: Port::input("issue_warp", wb, "warp id"),
            issue_src_valid: Port::input(
                "issue_src_valid",
                k,
                &format!("which of the 3 source operands exist, {}", packing("source", 1)),
            )
            .vector(),
            issue_src_reg: std::array::from_fn(|s| {
                Port::input(&format!("issue_src{s}_reg"), rb, &format!("{reg_id} of source {s}"))
            }),
            issue_tag: Port::input("issue_tag", g.tag_bits, "opaque tag, returned with the instruction at dispatch"),
            disp_valid: Port::output("disp_valid", 1, "a collected instruction is offered (held until accepted)"),
            disp_ready: Port::input("disp_ready", 1, "execution takes the offered instruction this cycle"),
            disp_warp: Port::output("disp_warp", wb, "warp id (valid with disp_valid)"),
            disp_tag: Port::output("disp_tag", g.tag_bits, "tag given at issue (valid with disp_valid)"),
            disp_src_valid: Port::output(
                "disp_src_valid",
                k,
                &format!("which sources exist, {} (valid with disp_valid)", packing("source", 1)),
            )
            .vector(),
            disp_src_data: std::array::from_fn(|s| {
                Port::output(&format!("disp_src{s}_data"), g.warp_reg_bits(), &valid_with(s))
            }),
            wb_valid: Port::input("wb_valid", 1, wb_valid),
            wb_ready,
            wb_warp: Port::input("wb_warp", wb, "warp id"),
            wb_reg: Port::input("wb_reg", rb, reg_id),
            wb_mask: Port::input("wb_mask", g.lanes, wb_mask).vector(),
            wb_data: Port::input("wb_data", g.warp_reg_bits(), &format!("value, {lanes}")),
            wb_commit,
            compressed,
            rfc,
            orf,
        }
    }
}

impl<P> MrfPorts<P> {
    /// The same ports, each turned into something else by `f` (in declaration order).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> MrfPorts<Q> {
        let MrfPorts {
            clk,
            rst,
            rows_per_warp,
            issue_valid,
            issue_ready,
            issue_warp,
            issue_src_valid,
            issue_src_reg,
            issue_tag,
            disp_valid,
            disp_ready,
            disp_warp,
            disp_tag,
            disp_src_valid,
            disp_src_data,
            wb_valid,
            wb_ready,
            wb_warp,
            wb_reg,
            wb_mask,
            wb_data,
            wb_commit,
            compressed,
            rfc,
            orf,
        } = self;
        MrfPorts {
            clk: f(clk),
            rst: f(rst),
            rows_per_warp: rows_per_warp.as_ref().map(&mut f),
            issue_valid: f(issue_valid),
            issue_ready: f(issue_ready),
            issue_warp: f(issue_warp),
            issue_src_valid: f(issue_src_valid),
            issue_src_reg: issue_src_reg.each_ref().map(&mut f),
            issue_tag: f(issue_tag),
            disp_valid: f(disp_valid),
            disp_ready: f(disp_ready),
            disp_warp: f(disp_warp),
            disp_tag: f(disp_tag),
            disp_src_valid: f(disp_src_valid),
            disp_src_data: disp_src_data.each_ref().map(&mut f),
            wb_valid: f(wb_valid),
            wb_ready: wb_ready.as_ref().map(&mut f),
            wb_warp: f(wb_warp),
            wb_reg: f(wb_reg),
            wb_mask: f(wb_mask),
            wb_data: f(wb_data),
            wb_commit: wb_commit.as_ref().map(&mut f),
            compressed: compressed.as_ref().map(|c| CompressedPorts {
                free_valid: f(&c.free_valid),
                free_warp: f(&c.free_warp),
                bank_gated: f(&c.bank_gated),
                bank_rd_en: f(&c.bank_rd_en),
                bank_wr_en: f(&c.bank_wr_en),
            }),
            rfc: rfc.as_ref().map(|r| RfcPorts {
                issue_src_last: r.issue_src_last.as_ref().map(&mut f),
                wb_long: f(&r.wb_long),
                act_valid: f(&r.act_valid),
                act_warp: f(&r.act_warp),
                act_ready: f(&r.act_ready),
                flush_valid: f(&r.flush_valid),
                flush_warp: f(&r.flush_warp),
                flush_ready: f(&r.flush_ready),
                rel_mask: f(&r.rel_mask),
            }),
            orf: orf.as_ref().map(|o| OrfPorts {
                issue_src_level: f(&o.issue_src_level),
                issue_src_entry: f(&o.issue_src_entry),
                issue_src_fill: f(&o.issue_src_fill),
                issue_strand: f(&o.issue_strand),
                wb_mrf: f(&o.wb_mrf),
                wb_upper: f(&o.wb_upper),
                wb_entry: f(&o.wb_entry),
                fill_busy: f(&o.fill_busy),
                rel_mask: o.rel_mask.as_ref().map(&mut f),
            }),
        }
    }

    /// Every port in declaration order (`wb_ready` beside `wb_valid`, each block's hints beside
    /// the ports they qualify, its events last).
    pub fn list(&self) -> Vec<&P> {
        self.slots().into_iter().flatten().collect()
    }
}

impl<P> Ports<P> for MrfPorts<P> {
    type Of<Q> = MrfPorts<Q>;

    /// In declaration order; a block this configuration lacks leaves a `None` per port.
    fn slots(&self) -> Vec<Option<&P>> {
        let (c, r, o) = (self.compressed.as_ref(), self.rfc.as_ref(), self.orf.as_ref());
        let mut v = vec![Some(&self.clk), Some(&self.rst), self.rows_per_warp.as_ref()];
        v.extend([&self.issue_valid, &self.issue_ready, &self.issue_warp, &self.issue_src_valid].map(Some));
        v.extend(self.issue_src_reg.each_ref().map(Some));
        v.push(Some(&self.issue_tag));
        v.push(r.and_then(|r| r.issue_src_last.as_ref()));
        v.extend([
            o.map(|o| &o.issue_src_level),
            o.map(|o| &o.issue_src_entry),
            o.map(|o| &o.issue_src_fill),
            o.map(|o| &o.issue_strand),
        ]);
        v.extend([&self.disp_valid, &self.disp_ready, &self.disp_warp, &self.disp_tag, &self.disp_src_valid].map(Some));
        v.extend(self.disp_src_data.each_ref().map(Some));
        v.extend([Some(&self.wb_valid), self.wb_ready.as_ref()]);
        v.extend([&self.wb_warp, &self.wb_reg, &self.wb_mask, &self.wb_data].map(Some));
        v.extend([o.map(|o| &o.wb_mrf), o.map(|o| &o.wb_upper), o.map(|o| &o.wb_entry)]);
        v.push(self.wb_commit.as_ref());
        v.extend([
            c.map(|c| &c.free_valid),
            c.map(|c| &c.free_warp),
            c.map(|c| &c.bank_gated),
            c.map(|c| &c.bank_rd_en),
            c.map(|c| &c.bank_wr_en),
        ]);
        v.extend([
            r.map(|r| &r.wb_long),
            r.map(|r| &r.act_valid),
            r.map(|r| &r.act_warp),
            r.map(|r| &r.act_ready),
            r.map(|r| &r.flush_valid),
            r.map(|r| &r.flush_warp),
            r.map(|r| &r.flush_ready),
            r.map(|r| &r.rel_mask),
        ]);
        v.extend([o.map(|o| &o.fill_busy), o.and_then(|o| o.rel_mask.as_ref())]);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `list` names every port `map` visits, once.
    #[test]
    fn list_covers_every_field() {
        let renamed = "[rename]\nenabled = true\ncmos_rows = 100";
        for text in ["", "[compression]\nenabled = true", "[rfc]\nenabled = true", "[orf]\nenabled = true", renamed] {
            let c = crate::config::parse(text).unwrap();
            let ports = MrfPorts::new(&c.geometry, c.compression.as_ref(), c.rfc.as_ref(), c.orf.as_ref());
            let mut mapped = Vec::new();
            ports.map(|p| mapped.push(p.name.clone()));
            let mut listed: Vec<String> = ports.list().iter().map(|p| p.name.clone()).collect();
            listed.sort();
            mapped.sort();
            assert_eq!(listed, mapped);
            listed.dedup();
            assert_eq!(listed.len(), mapped.len());
        }
    }
}
