//! Round-robin arbiter over `n` requesters (one-hot grant), as modelled by
//! `model::blocks::arbiter::RoundRobin`, in two forms that behave alike: its priority kept as a
//! pointer, or as the last grant (the form a registered grant takes, `timing.mrf_registered_grant`).

pub mod interface;

use crate::layout::geometry::index_bits;
use crate::verilog::{Module, Port, Ports, Submodule, lit, lowest_set, reg, vector_reg, vector_wire, wire};
use interface::ArbiterPorts;

/// The requesters below the priority pointer, a thermometer (bit i: requester i waits for those
/// at or above the pointer); its fairness proof reads it.
pub const BELOW_POINTER: &str = "below_ptr";

/// How an arbiter keeps its priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// A pointer to the requester that wins first, moved past a taken winner: the fewest
    /// flip-flops.
    Pointer,
    /// The requester just below the pointer, one-hot: the last grant itself when taken (the one
    /// under it when held), so the request-to-state path encodes and increments no index (an
    /// FPGA's bank arbiter closes timing this way).
    LastGrant,
}

/// The arbiter's module name: `<prefix>_rr_arbiter_<n>`, `_last_grant` appended for that form.
pub fn module_name(prefix: &str, n: u32, priority: Priority) -> String {
    match priority {
        Priority::Pointer => format!("{prefix}_rr_arbiter_{n}"),
        Priority::LastGrant => format!("{prefix}_rr_arbiter_{n}_last_grant"),
    }
}

pub fn rr_arbiter(prefix: &str, n: u32, priority: Priority) -> Submodule<ArbiterPorts<Port>> {
    let ib = index_bits(n);
    let mut body = String::new();
    let mut doc = vec![format!("Round-robin arbiter over {n} requesters with a one-hot grant.")];
    let (state, thermometer, update) = match priority {
        Priority::Pointer => {
            doc.push("Priority starts at `ptr`; a taken grant moves `ptr` past the winner.".into());
            (reg("ptr", ib), String::new(), pointer_update(n))
        }
        Priority::LastGrant => {
            let (state, thermometer) = last_grant_state(n);
            doc.push(format!("Priority is kept as the requester just below the pointer of `rr_arbiter_{n}`, one-hot,"));
            doc.push("which a grant gives at once: no index is encoded or incremented.".into());
            (state, thermometer, last_grant_update(n))
        }
    };
    body += &state;
    body += &wire(BELOW_POINTER, n);
    body += &wire("upper", n);
    body += &wire("upper_first", n);
    body += &wire("any_first", n);
    if priority == Priority::Pointer {
        body += &vector_wire("grant_idx", ib);
        body += &wire("next_idx", ib);
    }
    body += &thermometer;
    body += "\n  // Requests at or above the pointer win first; otherwise the lowest request wins.\n";
    if priority == Priority::Pointer {
        // `ptr` never exceeds n-1, so the top requester is never below it.
        let below: Vec<String> = (0..n)
            .rev()
            .map(|i| if i == n - 1 { "1'b0".to_string() } else { format!("(ptr > {})", lit(ib, i as u64)) })
            .collect();
        body += &format!("  assign below_ptr = {{{}}};\n", below.join(", "));
    }
    body += "  assign upper = req & ~below_ptr;\n";
    body += &format!("  assign upper_first = {};\n", lowest_set("upper", n));
    body += &format!("  assign any_first = {};\n", lowest_set("req", n));
    body += "  assign grant = (|upper) ? upper_first : any_first;\n";
    body += "  assign grant_valid = |req;\n";
    body += &update;
    let ports = ArbiterPorts::new(n);
    let module = Module { name: module_name(prefix, n, priority), doc, ports: ports.declared(), body, memory: None };
    Submodule { module, ports }
}

fn pointer_update(n: u32) -> String {
    let ib = index_bits(n);
    let mut body = String::new();
    body += "\n  // Binary index of the one-hot grant.\n";
    for b in 0..ib {
        let mask: String = (0..n).rev().map(|i| if (i >> b) & 1 == 1 { '1' } else { '0' }).collect();
        body += &format!("  assign grant_idx[{b}] = |(grant & {n}'b{mask});\n");
    }
    body += &format!(
        "  assign next_idx = (grant_idx == {}) ? {} : grant_idx + {};\n\n",
        lit(ib, (n - 1) as u64),
        lit(ib, 0),
        lit(ib, 1)
    );
    body += "  // After a taken grant the winner gets lowest priority; an untaken grant is held.\n";
    body += "  always @(posedge clk) begin\n";
    body += &format!("    if (rst) ptr <= {};\n", lit(ib, 0));
    body += "    else if (grant_valid) ptr <= advance ? next_idx : grant_idx;\n";
    body += "  end\n";
    body
}

/// The requester just below the pointer, one-hot (none when the pointer is 0), from which the
/// pointer's thermometer follows: a taken grant puts the pointer past its winner, so that is
/// the winner itself (none after the top requester); a held grant leaves the pointer on its
/// winner, so it is the one under the winner.
fn last_grant_state(n: u32) -> (String, String) {
    assert!(n >= 2, "an arbiter over one requester has no priority");
    let body = vector_reg("last_below", n - 1);
    let any =
        |lo: u32| if lo == n - 2 { format!("last_below[{lo}]") } else { format!("(|last_below[{}:{lo}])", n - 2) };
    let below: Vec<String> = (0..n).rev().map(|i| if i == n - 1 { "1'b0".to_string() } else { any(i) }).collect();
    let mut thermometer = String::new();
    thermometer += "\n  // The pointer as a thermometer: the requesters at and under the one just below it.\n";
    thermometer += &format!("  assign below_ptr = {{{}}};\n", below.join(", "));
    (body, thermometer)
}

fn last_grant_update(n: u32) -> String {
    let mut body = String::new();
    body += "\n  // After a taken grant the winner is just below the pointer; after a held one, the requester\n";
    body += "  // under it. With no request the pointer stays.\n";
    body += "  always @(posedge clk) begin\n";
    body += &format!("    if (rst) last_below <= {};\n", lit(n - 1, 0));
    body += &format!(
        "    else if (grant_valid) last_below <= advance ? grant[{m}:0] : grant[{top}:1];\n",
        m = n - 2,
        top = n - 1
    );
    body += "  end\n";
    body
}
