//! The ports of a free list (`<prefix>_free_list_<kind>`), declared once for its generator and
//! the rename stage's instances of it.

use crate::layout::geometry::{SLOTS_PER_COLLECTOR, index_bits};
use crate::layout::rename::RenameLayout;
use crate::verilog::{Port, Ports};

/// Every port of a free list, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreeListPorts<P> {
    pub clk: P,
    pub rst: P,
    pub pop: P,
    pub push_valid: P,
    pub push_id: P,
    pub head_valid: P,
    pub head_id: P,
    pub free: P,
}

impl FreeListPorts<Port> {
    /// Of `n` registers.
    pub fn new(l: &RenameLayout, n: u32) -> Self {
        let (k, pb) = (SLOTS_PER_COLLECTOR, l.phys_bits());
        FreeListPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high: every register free"),
            pop: Port::input("pop", 1, "the head is handed out at this edge"),
            push_valid: Port::input("push_valid", k, "registers released at this edge, slot i at bit i").vector(),
            push_id: Port::input("push_id", k * pb, &format!("their ids, slot i at [{pb}i+{}:{pb}i]", pb - 1)),
            head_valid: Port::output("head_valid", 1, "a register is free"),
            head_id: Port::output("head_id", pb, "the register handed out next"),
            free: Port::output("free", index_bits(n + 1), "free registers"),
        }
    }
}

impl<P> Ports<P> for FreeListPorts<P> {
    type Of<Q> = FreeListPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let FreeListPorts { clk, rst, pop, push_valid, push_id, head_valid, head_id, free } = self;
        [clk, rst, pop, push_valid, push_id, head_valid, head_id, free].map(Some).into()
    }
}
