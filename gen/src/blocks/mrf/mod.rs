//! The banked main register file with operand collectors (SPEC §0).

mod arbiter;
mod bank_group;
mod collector;
mod reg_map;
mod top;

use crate::blocks::sram::sram;
use crate::emit::SramKind;
use crate::geometry::Geometry;
use crate::verilog::Module;

/// The MRF subsystem's modules, leaves first; the last one is the top (`<prefix>_mrf`).
pub fn modules(prefix: &str, g: &Geometry, sram_kind: SramKind) -> Vec<Module> {
    let sram = sram(prefix, g.entries, g.entry_bits(), sram_kind);
    let reg_map = reg_map::reg_map(prefix, g);
    let bank_arbiter = arbiter::rr_arbiter(prefix, g.slots());
    // One collector needs no dispatch arbiter.
    let dispatch_arbiter = (g.collectors > 1).then(|| arbiter::rr_arbiter(prefix, g.collectors));
    let bank_group = bank_group::bank_group(prefix, g, &sram, &bank_arbiter);
    let collector = collector::operand_collector(prefix, g);
    let top = top::mrf(
        prefix,
        g,
        top::Parts {
            reg_map: &reg_map,
            bank_group: &bank_group,
            collector: &collector,
            dispatch_arbiter: dispatch_arbiter.as_ref(),
        },
    );
    let mut modules = vec![sram, reg_map, bank_arbiter];
    modules.extend(dispatch_arbiter);
    modules.extend([bank_group, collector, top]);
    modules
}
