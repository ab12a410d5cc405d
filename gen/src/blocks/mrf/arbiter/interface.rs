//! The ports of the round-robin arbiter (`<prefix>_rr_arbiter_<n>`), declared once for its
//! generator and every instance of it.

use crate::verilog::{Port, Ports};

/// Every port of the arbiter, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArbiterPorts<P> {
    pub clk: P,
    pub rst: P,
    pub req: P,
    pub advance: P,
    pub grant: P,
    pub grant_valid: P,
}

impl ArbiterPorts<Port> {
    /// Over `n` requesters.
    pub fn new(n: u32) -> Self {
        ArbiterPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high"),
            req: Port::input("req", n, "request per requester").vector(),
            advance: Port::input("advance", 1, "the grant is taken this cycle (else it is held next cycle)"),
            grant: Port::output("grant", n, "one-hot grant, zero when nothing requests").vector(),
            grant_valid: Port::output("grant_valid", 1, "some requester is granted"),
        }
    }
}

impl<P> Ports<P> for ArbiterPorts<P> {
    type Of<Q> = ArbiterPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let ArbiterPorts { clk, rst, req, advance, grant, grant_valid } = self;
        [clk, rst, req, advance, grant, grant_valid].map(Some).into()
    }
}
