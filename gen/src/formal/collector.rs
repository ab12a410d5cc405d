//! Harness of the operand collector: every input free but for the MRF's contract (an
//! instruction only to a free collector, a dispatch only of a ready one), reset at step 0 and
//! whenever the free `rst` says. A free collector has no source pending or in flight: what
//! `rfgen mutate` proves a surviving edit of the collector with ([`invariants`]).

use super::{COLLECTOR_IDLE, Harness, PROBES_DEFINE, Probe, Proof, free_running, module_head};
use crate::blocks::mrf::{CollectorPorts, operand_collector};
use crate::config::Checked;
use crate::layout::geometry::SLOTS_PER_COLLECTOR;
use crate::verilog::{Port, Sig, Submodule, lit};

/// The collector's state the invariant reads (a probe each in the harness).
const STATE: [&str; 2] = ["pending", "inflight"];

/// The invariant, with each state register named by `name` (its own name in the module, a
/// probe's in the harness): a free collector has no slot pending or in flight.
pub fn invariants(name: impl Fn(&str) -> String) -> Vec<String> {
    let zero = lit(SLOTS_PER_COLLECTOR, 0);
    let none: Vec<String> = STATE.iter().map(|s| format!("{} == {zero}", name(s))).collect();
    vec![format!("busy || ({})", none.join(" && "))]
}

/// The invariants of a busy collector's one-hot copy of each slot's bank group, kept over more
/// than two groups: it is that group, as both are loaded at allocation. The operand a slot
/// captures is its group's read data only with them (`rfgen mutate`'s check with the reads
/// observed); none for a collector without the copy.
pub fn group_copies(checked: &Checked) -> Vec<String> {
    let g = &checked.geometry;
    if g.groups <= 2 {
        return Vec::new();
    }
    let gb = g.group_bits();
    let mut holds = Vec::new();
    for slot in 0..SLOTS_PER_COLLECTOR {
        for grp in 0..g.groups {
            let group = format!("slot_group[{}:{}]", slot * gb + gb - 1, slot * gb);
            holds.push(format!("(!busy || slot_group_onehot[{}] == ({group} == {gb}'d{grp}))", slot * g.groups + grp));
        }
    }
    holds
}

pub fn harnesses(prefix: &str, checked: &Checked, depth: u32) -> Vec<Harness> {
    let dut: Submodule<CollectorPorts<Port>> = operand_collector(
        prefix,
        &checked.geometry,
        checked.compression.as_ref(),
        checked.rfc.as_ref(),
        checked.orf.as_ref(),
    );
    let top = format!("{prefix}_prove_collector_idle");
    let mut b = module_head(&top, COLLECTOR_IDLE.statement);
    b += &free_running(&dut, &dut.ports.map(|p| Sig::new(p.name.clone(), p.width)));
    b += "\n  // The MRF's contract: an instruction only to a free collector, a dispatch only of a ready one.\n";
    b += "  always @* if (!rst) begin\n    assume(!alloc || !busy);\n    assume(!dispatch || ready);\n  end\n";
    b += "\n  // A free collector requests no read (its pending slots are its requests).\n";
    b += &format!("  always @* if (!init) assert(busy || slot_req == {});\n", lit(SLOTS_PER_COLLECTOR, 0));
    let probe = |state: &str| format!("probe_{state}");
    b += &format!("\n`ifdef {PROBES_DEFINE}\n");
    for state in STATE {
        b += &format!("  (* keep *) wire [{}:0] {};\n", SLOTS_PER_COLLECTOR - 1, probe(state));
    }
    b += "  // Nor has it a source pending or in flight.\n";
    for invariant in invariants(probe) {
        b += &format!("  always @* if (!init) assert({invariant});\n");
    }
    b += "`endif\nendmodule\n";
    let probes = STATE.map(|state| Probe { wire: probe(state), path: format!("dut.{state}"), bits: None }).to_vec();
    vec![Harness {
        property: COLLECTOR_IDLE,
        part: String::new(),
        top,
        text: b,
        sources: vec![format!("{}.v", dut.module.name)],
        proof: Proof::Induction { depth: depth.min(IDLE_DEPTH) },
        probes,
    }]
}

/// The invariant closes in one step; a few steps from reset cover the base case.
const IDLE_DEPTH: u32 = 3;
