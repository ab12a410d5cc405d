//! Harness of the operand collector: every input free but for the MRF's contract (an
//! instruction only to a free collector, a dispatch only of a ready one), reset at step 0 and
//! whenever the free `rst` says. A free collector has no source pending or in flight: what
//! `rfgen mutate` proves a surviving edit of the collector with ([`invariants`]).

use super::{COLLECTOR_IDLE, Harness, PROBES_DEFINE, Probe, Proof, free_running, module_head};
use crate::blocks::mrf::{CollectorPorts, operand_collector};
use crate::config::Checked;
use crate::verilog::{Port, Sig, Submodule};

/// The invariant over the collector's own names.
pub fn invariants() -> Vec<String> {
    vec!["busy || (pending == 3'd0 && inflight == 3'd0)".into()]
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
    b += "  always @* if (!init) assert(busy || slot_req == 3'd0);\n";
    b += &format!(
        "\n`ifdef {PROBES_DEFINE}\n  (* keep *) wire [2:0] probe_pending;\n  (* keep *) wire [2:0] probe_inflight;\n"
    );
    b += "  // Nor has it a source pending or in flight.\n";
    b += "  always @* if (!init) assert(busy || (probe_pending == 3'd0 && probe_inflight == 3'd0));\n";
    b += "`endif\nendmodule\n";
    let probes = ["pending", "inflight"]
        .map(|name| Probe { wire: format!("probe_{name}"), path: format!("dut.{name}") })
        .to_vec();
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
