//! The ports of the scoreboard (`<prefix>_scoreboard`), declared once for the generator, the
//! golden model's `ScoreboardIn`/`ScoreboardOut` and the cosim glue.

use super::PREDICATES;
use crate::layout::geometry::Geometry;
use crate::verilog::{Port, Ports};

/// Every port of the scoreboard, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoreboardPorts<P> {
    pub clk: P,
    pub rst: P,
    pub set_valid: P,
    pub set_warp: P,
    pub set_reg_valid: P,
    pub set_reg: P,
    pub set_long: P,
    pub set_pred_valid: P,
    pub set_pred: P,
    pub clr_valid: P,
    pub clr_warp: P,
    pub clr_reg: P,
    pub clr_preds: P,
    pub pending: P,
    pub long_pending: P,
    pub pending_preds: P,
}

impl ScoreboardPorts<Port> {
    pub fn new(g: &Geometry) -> Self {
        let (w, r, p) = (g.warps, g.registers, PREDICATES);
        let bits = |what: &str, per: u32, n: &str| format!("{what}, warp w {n} at bit {per}w+{}", &n[..1]);
        ScoreboardPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high: nothing pending"),
            set_valid: Port::input(
                "set_valid",
                1,
                "an instruction goes to an operand collector: its destinations become pending",
            ),
            set_warp: Port::input("set_warp", g.warp_bits(), "its warp"),
            set_reg_valid: Port::input("set_reg_valid", 1, "it writes a register"),
            set_reg: Port::input("set_reg", g.reg_bits(), "the register"),
            set_long: Port::input("set_long", 1, "a long-latency result (global load, texture)"),
            set_pred_valid: Port::input("set_pred_valid", 1, "it writes a predicate"),
            set_pred: Port::input("set_pred", 3, "the predicate"),
            clr_valid: Port::input("clr_valid", 1, "a register result is written back (committed)"),
            clr_warp: Port::input("clr_warp", g.warp_bits(), "its warp"),
            clr_reg: Port::input("clr_reg", g.reg_bits(), "the register"),
            clr_preds: Port::input("clr_preds", w * p, &bits("predicate results completing", p, "predicate")).vector(),
            pending: Port::output("pending", w * r, &bits("registers with a write pending", r, "register")).vector(),
            long_pending: Port::output(
                "long_pending",
                w * r,
                &bits("registers awaiting a long-latency result", r, "register"),
            )
            .vector(),
            pending_preds: Port::output(
                "pending_preds",
                w * p,
                &bits("predicates with a write pending", p, "predicate"),
            )
            .vector(),
        }
    }
}

impl<P> ScoreboardPorts<P> {
    /// The same ports, each turned into something else by `f` (in declaration order).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> ScoreboardPorts<Q> {
        let ScoreboardPorts {
            clk,
            rst,
            set_valid,
            set_warp,
            set_reg_valid,
            set_reg,
            set_long,
            set_pred_valid,
            set_pred,
            clr_valid,
            clr_warp,
            clr_reg,
            clr_preds,
            pending,
            long_pending,
            pending_preds,
        } = self;
        ScoreboardPorts {
            clk: f(clk),
            rst: f(rst),
            set_valid: f(set_valid),
            set_warp: f(set_warp),
            set_reg_valid: f(set_reg_valid),
            set_reg: f(set_reg),
            set_long: f(set_long),
            set_pred_valid: f(set_pred_valid),
            set_pred: f(set_pred),
            clr_valid: f(clr_valid),
            clr_warp: f(clr_warp),
            clr_reg: f(clr_reg),
            clr_preds: f(clr_preds),
            pending: f(pending),
            long_pending: f(long_pending),
            pending_preds: f(pending_preds),
        }
    }

    /// Every port in declaration order.
    pub fn list(&self) -> Vec<&P> {
        self.slots().into_iter().flatten().collect()
    }
}

impl<P> Ports<P> for ScoreboardPorts<P> {
    type Of<Q> = ScoreboardPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let ScoreboardPorts {
            clk,
            rst,
            set_valid,
            set_warp,
            set_reg_valid,
            set_reg,
            set_long,
            set_pred_valid,
            set_pred,
            clr_valid,
            clr_warp,
            clr_reg,
            clr_preds,
            pending,
            long_pending,
            pending_preds,
        } = self;
        [
            clk,
            rst,
            set_valid,
            set_warp,
            set_reg_valid,
            set_reg,
            set_long,
            set_pred_valid,
            set_pred,
            clr_valid,
            clr_warp,
            clr_reg,
            clr_preds,
            pending,
            long_pending,
            pending_preds,
        ]
        .map(Some)
        .into()
    }
}
