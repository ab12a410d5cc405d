//! The ports of a bank group's power gating (`<prefix>_bank_power`), declared once for its
//! generator and the compressed bank group's instance of it.

use crate::layout::bdi::Layout;
use crate::verilog::{Port, Ports};

/// Every port of the power gating, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankPowerPorts<P> {
    pub clk: P,
    pub rst: P,
    pub empty: P,
    pub wake_req: P,
    pub usable: P,
    pub gated: P,
}

impl BankPowerPorts<Port> {
    pub fn new(l: &Layout) -> Self {
        let c = l.clusters;
        BankPowerPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high: every bank gated"),
            empty: Port::input("empty", c, "bank c holds no valid entry").vector(),
            wake_req: Port::input("wake_req", c, "the write port's register needs bank c").vector(),
            usable: Port::output("usable", c, "bank c is powered and awake").vector(),
            gated: Port::output("gated", c, "bank c is power-gated (drives its sleep transistor)").vector(),
        }
    }
}

impl<P> Ports<P> for BankPowerPorts<P> {
    type Of<Q> = BankPowerPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let BankPowerPorts { clk, rst, empty, wake_req, usable, gated } = self;
        [clk, rst, empty, wake_req, usable, gated].map(Some).into()
    }
}
