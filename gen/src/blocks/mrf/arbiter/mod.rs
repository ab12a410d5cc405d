//! Round-robin arbiter over `n` requesters (one-hot grant), as modelled by
//! `model::blocks::arbiter::RoundRobin`.

pub mod interface;

use crate::layout::geometry::index_bits;
use crate::verilog::{Module, Port, Ports, Submodule, lit, lowest_set, reg, vector_wire, wire};
use interface::ArbiterPorts;

/// The priority pointer: the requester that wins first next cycle (its fairness proof reads it).
pub const POINTER: &str = "ptr";

pub fn rr_arbiter(prefix: &str, n: u32) -> Submodule<ArbiterPorts<Port>> {
    let ib = index_bits(n);
    let mut body = String::new();
    body += &reg(POINTER, ib);
    body += &wire("below_ptr", n);
    body += &wire("upper", n);
    body += &wire("upper_first", n);
    body += &wire("any_first", n);
    body += &vector_wire("grant_idx", ib);
    body += &wire("next_idx", ib);
    // `ptr` never exceeds n-1, so the top requester is never below it.
    let below: Vec<String> = (0..n)
        .rev()
        .map(|i| if i == n - 1 { "1'b0".to_string() } else { format!("(ptr > {})", lit(ib, i as u64)) })
        .collect();
    body += "\n  // Requests at or above the pointer win first; otherwise the lowest request wins.\n";
    body += &format!("  assign below_ptr = {{{}}};\n", below.join(", "));
    body += "  assign upper = req & ~below_ptr;\n";
    body += &format!("  assign upper_first = {};\n", lowest_set("upper", n));
    body += &format!("  assign any_first = {};\n", lowest_set("req", n));
    body += "  assign grant = (|upper) ? upper_first : any_first;\n";
    body += "  assign grant_valid = |req;\n\n";
    body += "  // Binary index of the one-hot grant.\n";
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
    let ports = ArbiterPorts::new(n);
    let module = Module {
        name: format!("{prefix}_rr_arbiter_{n}"),
        doc: vec![
            format!("Round-robin arbiter over {n} requesters with a one-hot grant."),
            "Priority starts at `ptr`; a taken grant moves `ptr` past the winner.".into(),
        ],
        ports: ports.declared(),
        body,
        memory: None,
    };
    Submodule { module, ports }
}
