//! The ports of the register-to-bank map (`<prefix>_reg_map`, renamed `<prefix>_phys_reg_map`),
//! declared once for its generator and every instance of it.

use crate::layout::geometry::Geometry;
use crate::verilog::{Port, Ports};

/// Every port of the map, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegMapPorts<P> {
    /// Register-limited occupancy: rows per warp, set at kernel launch.
    pub rows_per_warp: Option<P>,
    pub warp: P,
    pub reg_id: P,
    pub group: P,
    pub row: P,
}

impl RegMapPorts<Port> {
    pub fn new(g: &Geometry) -> Self {
        let (warp, reg_id) = if g.renamed {
            ("warp id (unused: a physical register's place does not depend on it)", "physical register id")
        } else {
            ("warp id", "architectural register id")
        };
        RegMapPorts {
            rows_per_warp: g
                .register_limited
                .then(|| Port::input("rows_per_warp", g.stride_bits(), &super::rows_per_warp_doc(g))),
            warp: Port::input("warp", g.warp_bits(), warp),
            reg_id: Port::input("reg_id", g.mrf_reg_bits(), reg_id),
            group: Port::output("group", g.group_bits(), "bank group (bank within each cluster)"),
            row: Port::output("row", g.row_bits(), "bank row"),
        }
    }
}

impl<P> Ports<P> for RegMapPorts<P> {
    type Of<Q> = RegMapPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let RegMapPorts { rows_per_warp, warp, reg_id, group, row } = self;
        vec![rows_per_warp.as_ref(), Some(warp), Some(reg_id), Some(group), Some(row)]
    }
}
