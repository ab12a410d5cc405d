//! Harnesses of the MRF's round-robin arbiters (one per bank group, and the collectors'
//! dispatch arbiter): every arbiter size the design instantiates, each with free requests and
//! `advance`, reset at step 0 and whenever the free `rst` says.

use super::{ARBITER_FAIR, ARBITER_GRANT, Harness, PROBES_DEFINE, Probe, Proof, module_head};
use crate::blocks::mrf::{ARBITER_POINTER, ArbiterPorts, rr_arbiter};
use crate::emit::Design;
use crate::layout::geometry::index_bits;
use crate::verilog::{Sig, lit};

pub fn harnesses(prefix: &str, design: &Design, depth: u32) -> Vec<Harness> {
    let mut sizes: Vec<u32> = design
        .manifest
        .modules
        .iter()
        .filter_map(|m| m.name.strip_prefix(&format!("{prefix}_rr_arbiter_"))?.parse().ok())
        .collect();
    sizes.sort_unstable();
    sizes.into_iter().flat_map(|n| [grant(prefix, n, depth), fair(prefix, n, depth)]).collect()
}

/// Free requests and `advance`, reset at step 0 and whenever the free `rst_any` is high, and the
/// arbiter under test.
fn head(prefix: &str, n: u32, name: &str, about: &str) -> String {
    let mut b = module_head(name, about);
    b += "  reg init = 1'b1;\n  always @(posedge clk) init <= 1'b0;\n";
    b += &format!(
        "  (* anyseq *) wire rst_any;\n  (* anyseq *) wire [{}:0] req;\n  (* anyseq *) wire advance;\n",
        n - 1
    );
    b += "  wire rst = init | rst_any;\n";
    b += &format!("  wire [{}:0] grant;\n  wire grant_valid;\n", n - 1);
    let dut = rr_arbiter(prefix, n);
    b += &dut.instance(
        "dut",
        &ArbiterPorts {
            clk: Sig::new("clk", 1),
            rst: Sig::new("rst", 1),
            req: Sig::new("req", n),
            advance: Sig::new("advance", 1),
            grant: Sig::new("grant", n),
            grant_valid: Sig::new("grant_valid", 1),
        },
    );
    b
}

fn harness(prefix: &str, n: u32, property: super::Property, text: String, proof: Proof) -> Harness {
    Harness {
        property,
        part: format!("rr_arbiter_{n}"),
        top: format!("{prefix}_prove_{}", property.name.replace('.', "_")),
        text,
        sources: vec![format!("{prefix}_rr_arbiter_{n}.v")],
        proof,
        probes: Vec::new(),
    }
}

fn grant(prefix: &str, n: u32, depth: u32) -> Harness {
    let top = format!("{prefix}_prove_arbiter_grant");
    let mut b = head(prefix, n, &top, ARBITER_GRANT.statement);
    b += "\n  always @* begin\n";
    b += &format!("    assert((grant & ~req) == {});\n", lit(n, 0));
    b += &format!("    assert((grant & (grant - {})) == {});  // at most one bit\n", lit(n, 1), lit(n, 0));
    b += &format!("    assert(grant_valid == (req != {0}) && (grant != {0}) == (req != {0}));\n", lit(n, 0));
    b += "  end\nendmodule\n";
    harness(prefix, n, ARBITER_GRANT, b, Proof::Induction { depth })
}

fn fair(prefix: &str, n: u32, depth: u32) -> Harness {
    let top = format!("{prefix}_prove_arbiter_fair");
    let mut b = head(prefix, n, &top, ARBITER_FAIR.statement);
    let cb = index_bits(n + 1);
    b += "\n  // Per requester: taken grants that went to others since it began to wait.\n";
    for i in 0..n {
        let w = format!("waited_{i}");
        b += &format!("  reg [{}:0] {w};\n", cb - 1);
        b += &format!(
            "  always @(posedge clk)\n    if (rst || !req[{i}] || (grant[{i}] && advance)) {w} <= {z};\n    \
             else if (grant_valid && advance && {w} != {max}) {w} <= {w} + {one};\n",
            z = lit(cb, 0),
            max = lit(cb, n as u64),
            one = lit(cb, 1)
        );
        b += &format!("  always @* if (!init) assert({w} <= {});\n", lit(cb, (n - 1) as u64));
    }
    // The induction's invariant, over the arbiter's pointer: a waiting requester has waited at
    // most as many taken grants as the pointer still has places to pass before it reaches it
    // (each taken grant to another moves the pointer past that winner, which sits before it).
    let ib = index_bits(n);
    let sb = index_bits(2 * n) + 1;
    b += &format!("\n`ifdef {PROBES_DEFINE}\n  (* keep *) wire [{}:0] probe_ptr;\n", ib - 1);
    b += &format!("  wire [{}:0] at = {{{}'d0, probe_ptr}};\n", sb - 1, sb - ib);
    b += &format!("  always @* if (!init) assert(probe_ptr < {});\n", lit(ib + 1, n as u64));
    for i in 0..n {
        b += &format!(
            "  always @* if (!init) assert({{{pad}'d0, waited_{i}}} + (({i_} >= at) ? {i_} - at : {i_n} - at) <= {max});\n",
            pad = sb - cb,
            i_ = lit(sb, i as u64),
            i_n = lit(sb, (i + n) as u64),
            max = lit(sb, (n - 1) as u64)
        );
    }
    b += "`endif\nendmodule\n";
    let mut h = harness(prefix, n, ARBITER_FAIR, b, Proof::Induction { depth: depth.min(FAIR_DEPTH) });
    h.probes = vec![Probe { wire: "probe_ptr".into(), path: format!("dut.{ARBITER_POINTER}") }];
    h
}

/// The fairness invariant closes in one step; a few steps from reset cover the base case.
const FAIR_DEPTH: u32 = 3;
