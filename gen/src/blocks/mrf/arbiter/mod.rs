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
    /// The last grant and whether it was taken, from which the pointer's thermometer follows a
    /// cycle later: the next state is the grant itself, so the request-to-state path encodes
    /// and increments no index (an FPGA's bank arbiter closes timing this way).
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
            doc.push("Priority is kept as the last grant and whether it was taken (the pointer of".into());
            doc.push(format!("`rr_arbiter_{n}` as the thermometer they leave): the grant itself is the next state."));
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

/// The last grant, whether it was taken, the thermometer it leaves, and the thermometer held
/// since the last cycle with a grant.
fn last_grant_state(n: u32) -> (String, String) {
    assert!(n >= 2, "an arbiter over one requester has no priority");
    let mut body = String::new();
    body += &vector_reg("last_grant", n);
    body += &reg("last_taken", 1);
    body += &reg("held_below", n);
    body += &wire("below_taken", n);
    body += &wire("below_held", n);
    body += &wire("below_last", n);
    // `|last_grant[hi:lo]`, false when the range is empty.
    let any = |hi: u32, lo: u32| match hi.cmp(&lo) {
        std::cmp::Ordering::Less => "1'b0".to_string(),
        std::cmp::Ordering::Equal => format!("last_grant[{lo}]"),
        std::cmp::Ordering::Greater => format!("(|last_grant[{hi}:{lo}])"),
    };
    let taken: Vec<String> = (0..n).rev().map(|i| if i == n - 1 { "1'b0".into() } else { any(n - 2, i) }).collect();
    let held: Vec<String> = (0..n).rev().map(|i| any(n - 1, i + 1)).collect();
    let mut thermometer = String::new();
    thermometer += "\n  // The pointer as a thermometer: after a taken grant it stands past the winner (at 0 after\n";
    thermometer += "  // the top requester), after an untaken one at the winner; with no grant last cycle it\n";
    thermometer += "  // stays where the last grant left it.\n";
    thermometer += &format!("  assign below_taken = {{{}}};\n", taken.join(", "));
    thermometer += &format!("  assign below_held = {{{}}};\n", held.join(", "));
    thermometer += "  assign below_last = last_taken ? below_taken : below_held;\n";
    thermometer += "  assign below_ptr = (|last_grant) ? below_last : held_below;\n";
    (body, thermometer)
}

fn last_grant_update(n: u32) -> String {
    let mut body = String::new();
    body += "\n  // The grant is the next state; the thermometer it leaves is held while nothing requests.\n";
    body += "  always @(posedge clk) begin\n";
    body += &format!(
        "    if (rst) begin\n      last_grant <= {z};\n      last_taken <= 1'b0;\n      held_below <= {z};\n",
        z = lit(n, 0)
    );
    body += "    end else begin\n      last_grant <= grant;\n      last_taken <= advance;\n";
    body += "      if (|last_grant) held_below <= below_last;\n    end\n  end\n";
    body
}
