//! The ports of the rename stage (`<prefix>_rename`), declared once for the generator, the
//! golden model's `RenameIn`/`RenameOut` and the cosim glue.

use crate::layout::geometry::SLOTS_PER_COLLECTOR;
use crate::layout::rename::{COUNTER_BITS, RenameLayout};
use crate::verilog::{Port, Ports, packing};

/// Every port of the rename stage, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenamePorts<P> {
    pub clk: P,
    pub rst: P,
    pub ren_valid: P,
    pub ren_warp: P,
    pub ren_src_reg: P,
    pub ren_dst_new: P,
    pub ren_dst_reg: P,
    pub ren_dst_load: P,
    pub ren_src_phys: [P; SLOTS_PER_COLLECTOR as usize],
    pub ren_dst_phys: P,
    pub ren_dst_tfet: P,
    pub ren_ready: P,
    pub rel_valid: P,
    pub rel_phys: P,
    pub mem_start_valid: P,
    pub mem_start_warp: P,
    pub mem_done_valid: P,
    pub mem_done_warp: P,
    pub sample_acc: P,
    pub tfet_hint: P,
    pub cmos_free: P,
    pub tfet_free: P,
}

impl RenamePorts<Port> {
    pub fn new(l: &RenameLayout) -> Self {
        let (k, pb) = (SLOTS_PER_COLLECTOR, l.phys_bits());
        let wb = crate::layout::geometry::index_bits(l.warps);
        let rb = crate::layout::geometry::index_bits(l.registers);
        RenamePorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high: every register free, no counter running"),
            ren_valid: Port::input("ren_valid", 1, "an instruction is renamed this cycle"),
            ren_warp: Port::input("ren_warp", wb, "its warp"),
            ren_src_reg: Port::input(
                "ren_src_reg",
                k * rb,
                &format!("architectural register of each source, {}", packing("source", rb)),
            ),
            ren_dst_new: Port::input(
                "ren_dst_new",
                1,
                "its destination starts a value: it gets a free physical register (when ren_ready)",
            ),
            ren_dst_reg: Port::input("ren_dst_reg", rb, "the destination's architectural register"),
            ren_dst_load: Port::input(
                "ren_dst_load",
                1,
                "the destination is a load result: never a TFET register by request",
            ),
            ren_src_phys: std::array::from_fn(|s| {
                Port::output(
                    &format!("ren_src{s}_phys"),
                    pb,
                    &format!("physical register of source {s} (this cycle's table)"),
                )
            }),
            ren_dst_phys: Port::output(
                "ren_dst_phys",
                pb,
                "physical register of the destination: the one allocated with ren_dst_new, else its current one",
            ),
            ren_dst_tfet: Port::output("ren_dst_tfet", 1, "the destination's physical register is a TFET one"),
            ren_ready: Port::output("ren_ready", 1, "a physical register of some kind is free"),
            rel_valid: Port::input(
                "rel_valid",
                k,
                &format!("physical registers released (read for the last time), {}", packing("release", 1)),
            )
            .vector(),
            rel_phys: Port::input("rel_phys", k * pb, &format!("the released registers, {}", packing("release", pb))),
            mem_start_valid: Port::input("mem_start_valid", 1, "a global memory access of warp mem_start_warp starts"),
            mem_start_warp: Port::input("mem_start_warp", wb, "its warp: its counter restarts from 0"),
            mem_done_valid: Port::input("mem_done_valid", 1, "a global memory access of warp mem_done_warp completes"),
            mem_done_warp: Port::input("mem_done_warp", wb, "its warp: its counter takes the predicted stall"),
            sample_acc: Port::input("sample_acc", COUNTER_BITS, "the SM's latest sampled memory latency (cycles)"),
            tfet_hint: Port::output(
                "tfet_hint",
                l.warps,
                &format!("warps whose counter predicts a stall (TRWS priority), {}", packing("warp", 1)),
            )
            .vector(),
            cmos_free: Port::output("cmos_free", l.count_bits(), "free CMOS physical registers"),
            tfet_free: Port::output("tfet_free", l.count_bits(), "free TFET physical registers"),
        }
    }
}

impl<P> RenamePorts<P> {
    /// The same ports, each turned into something else by `f` (in declaration order).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> RenamePorts<Q> {
        RenamePorts {
            clk: f(&self.clk),
            rst: f(&self.rst),
            ren_valid: f(&self.ren_valid),
            ren_warp: f(&self.ren_warp),
            ren_src_reg: f(&self.ren_src_reg),
            ren_dst_new: f(&self.ren_dst_new),
            ren_dst_reg: f(&self.ren_dst_reg),
            ren_dst_load: f(&self.ren_dst_load),
            ren_src_phys: self.ren_src_phys.each_ref().map(&mut f),
            ren_dst_phys: f(&self.ren_dst_phys),
            ren_dst_tfet: f(&self.ren_dst_tfet),
            ren_ready: f(&self.ren_ready),
            rel_valid: f(&self.rel_valid),
            rel_phys: f(&self.rel_phys),
            mem_start_valid: f(&self.mem_start_valid),
            mem_start_warp: f(&self.mem_start_warp),
            mem_done_valid: f(&self.mem_done_valid),
            mem_done_warp: f(&self.mem_done_warp),
            sample_acc: f(&self.sample_acc),
            tfet_hint: f(&self.tfet_hint),
            cmos_free: f(&self.cmos_free),
            tfet_free: f(&self.tfet_free),
        }
    }
}

impl<P> Ports<P> for RenamePorts<P> {
    type Of<Q> = RenamePorts<Q>;

    /// Every port in declaration order (the stage has all of them in every configuration).
    fn slots(&self) -> Vec<Option<&P>> {
        let mut v = vec![
            &self.clk,
            &self.rst,
            &self.ren_valid,
            &self.ren_warp,
            &self.ren_src_reg,
            &self.ren_dst_new,
            &self.ren_dst_reg,
            &self.ren_dst_load,
        ];
        v.extend(&self.ren_src_phys);
        v.extend([
            &self.ren_dst_phys,
            &self.ren_dst_tfet,
            &self.ren_ready,
            &self.rel_valid,
            &self.rel_phys,
            &self.mem_start_valid,
            &self.mem_start_warp,
            &self.mem_done_valid,
            &self.mem_done_warp,
            &self.sample_acc,
            &self.tfet_hint,
            &self.cmos_free,
            &self.tfet_free,
        ]);
        v.into_iter().map(Some).collect()
    }
}
