//! The banked main register file with operand collectors (SPEC §0), optionally with BDI
//! register compression (SPEC §4).

mod arbiter;
pub(crate) mod bank_group;
mod bank_power;
mod collector;
mod compressed_bank_group;
pub mod interface;
mod orf;
mod range_table;
mod reg_map;
pub mod rfc;
mod top;
mod write_port;

pub use arbiter::{
    BELOW_POINTER as ARBITER_BELOW_POINTER, Priority, interface::ArbiterPorts, module_name as arbiter_name, rr_arbiter,
};
pub use reg_map::interface::RegMapPorts;
pub use reg_map::{group_only_stride, reg_map};

use crate::blocks::bdi::{compressor, decompressor};
use crate::blocks::sram::SramKind;
use crate::blocks::sram::sram;
use crate::layout::bdi::Layout;
use crate::layout::geometry::Geometry;
use crate::layout::orf::OrfLayout;
use crate::layout::rfc::RfcLayout;
use crate::verilog::{Module, Port, Submodule};
pub use collector::interface::CollectorPorts;
use interface::MrfPorts;
use top::WritePath;

/// The operand collector of the MRF with these parts (also what its formal harness checks).
pub fn operand_collector(
    prefix: &str,
    g: &Geometry,
    compression: Option<&Layout>,
    cache: Option<&RfcLayout>,
    upper: Option<&OrfLayout>,
) -> Submodule<CollectorPorts<Port>> {
    let fill_entry_bits = upper.map(OrfLayout::entry_bits);
    let prefilled = cache.is_some() || upper.is_some();
    // The compressed MRF's decompressor and TFET rows delay a read: the group says when it is there.
    let delivered = compression.is_some() || g.delivers();
    collector::operand_collector(prefix, g, delivered, prefilled, fill_entry_bits)
}

/// The MRF subsystem's modules, leaves first; the last one is the top (`<prefix>_mrf`). With a
/// compression layout, the compressed MRF; with a register file cache, behind it; with an ORF
/// layout, the ORF/LRF beside its collectors.
pub fn modules(
    prefix: &str,
    g: &Geometry,
    sram_kind: SramKind,
    compression: Option<&Layout>,
    cache: Option<&RfcLayout>,
    upper: Option<&OrfLayout>,
) -> Vec<Module> {
    // With the read data registered, the register is the leaf's (an FPGA block RAM's own).
    let sram = sram(prefix, g.entries, g.entry_bits(), sram_kind, if g.registered_read { 2 } else { 1 });
    let reg_map = reg_map::reg_map(prefix, g);
    // A registered grant leaves the arbiter's own state update as the bank group's path: its
    // priority is then kept as the last grant.
    let priority = if g.registered_grant { Priority::LastGrant } else { Priority::Pointer };
    let bank_arbiter = arbiter::rr_arbiter(prefix, g.slots(), priority);
    // One collector needs no dispatch arbiter.
    let dispatch_arbiter = (g.collectors > 1).then(|| arbiter::rr_arbiter(prefix, g.collectors, Priority::Pointer));
    let collector = operand_collector(prefix, g, compression, cache, upper);
    let orf = upper.map(|o| orf::orf(prefix, g, o));
    let mut modules = vec![sram.module.clone(), reg_map.module.clone(), bank_arbiter.module.clone()];
    modules.extend(dispatch_arbiter.as_ref().map(|a| a.module.clone()));
    let ports = MrfPorts::new(g, compression, cache, upper);
    // A cache in front of the compressor waits while the write port refuses its writes.
    let rfc = cache.map(|r| rfc::rfc(prefix, g, r, compression.is_some()));
    let parts = |write| top::Parts {
        reg_map: &reg_map,
        collector: &collector,
        dispatch_arbiter: dispatch_arbiter.as_ref(),
        write,
        rfc: rfc.as_ref(),
        orf: upper.zip(orf.as_ref()).map(|(layout, orf)| top::UpperLevels { layout, orf, fill_arbiter: &bank_arbiter }),
    };
    let top = match compression {
        None => {
            let bank_group = bank_group::bank_group(prefix, g, &sram, &bank_arbiter);
            let top = top::mrf(prefix, g, &ports, parts(WritePath::Direct { bank_group: &bank_group }));
            modules.push(bank_group.module);
            top
        }
        Some(l) => {
            let compressor = compressor(prefix, l);
            let decompressor = decompressor(prefix, l);
            let range_table = range_table::range_table(prefix, g, l);
            let bank_power = bank_power::bank_power(prefix, l);
            let group_parts = compressed_bank_group::Parts {
                sram: &sram,
                arbiter: &bank_arbiter,
                range_table: &range_table,
                bank_power: &bank_power,
                decompressor: &decompressor,
            };
            let bank_group = compressed_bank_group::compressed_bank_group(prefix, g, l, group_parts);
            let write_port = write_port::write_port(prefix, g, l, &reg_map, &compressor, cache.is_some());
            let write = WritePath::Compressed { layout: l, write_port: &write_port, bank_group: &bank_group };
            let top = top::mrf(prefix, g, &ports, parts(write));
            modules.extend([compressor.module, decompressor.module, range_table.module, bank_power.module]);
            modules.extend([bank_group.module, write_port.module]);
            top
        }
    };
    modules.extend(rfc.map(|r| r.module));
    modules.extend(orf.map(|o| o.module));
    modules.extend([collector.module, top]);
    modules
}
