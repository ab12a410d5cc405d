//! Harnesses of the MRF's round-robin arbiters (one per bank group, and the collectors'
//! dispatch arbiter): every arbiter size the design instantiates, each with free requests and
//! `advance`, reset at step 0 and whenever the free `rst` says.

use super::{ARBITER_FAIR, ARBITER_GRANT, Harness, PROBES_DEFINE, Probe, Proof, module_head};
use crate::blocks::mrf::{ARBITER_BELOW_POINTER, ArbiterPorts, Priority, arbiter_name, rr_arbiter};
use crate::emit::Design;
use crate::layout::geometry::index_bits;
use crate::verilog::{Sig, lit};

pub fn harnesses(prefix: &str, design: &Design, depth: u32) -> Vec<Harness> {
    let mut arbiters: Vec<(u32, Priority)> = design
        .manifest
        .modules
        .iter()
        .filter_map(|m| {
            let rest = m.name.strip_prefix(&format!("{prefix}_rr_arbiter_"))?;
            let (n, priority) = match rest.strip_suffix("_last_grant") {
                Some(n) => (n, Priority::LastGrant),
                None => (rest, Priority::Pointer),
            };
            Some((n.parse().ok()?, priority))
        })
        .collect();
    arbiters.sort_unstable_by_key(|&(n, p)| (n, p == Priority::LastGrant));
    arbiters.into_iter().flat_map(|a| [grant(prefix, a, depth), fair(prefix, a, depth)]).collect()
}

/// Free requests and `advance`, reset at step 0 and whenever the free `rst_any` is high, and the
/// arbiter under test.
fn head(prefix: &str, (n, priority): (u32, Priority), name: &str, about: &str) -> String {
    let mut b = module_head(name, about);
    b += "  reg init = 1'b1;\n  always @(posedge clk) init <= 1'b0;\n";
    b += &format!(
        "  (* anyseq *) wire rst_any;\n  (* anyseq *) wire [{}:0] req;\n  (* anyseq *) wire advance;\n",
        n - 1
    );
    b += "  wire rst = init | rst_any;\n";
    b += &format!("  wire [{}:0] grant;\n  wire grant_valid;\n", n - 1);
    let dut = rr_arbiter(prefix, n, priority);
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

fn harness(
    prefix: &str,
    (n, priority): (u32, Priority),
    property: super::Property,
    text: String,
    proof: Proof,
) -> Harness {
    let module = arbiter_name(prefix, n, priority);
    Harness {
        property,
        part: module.strip_prefix(&format!("{prefix}_")).unwrap_or(&module).to_string(),
        top: format!("{prefix}_prove_{}", property.name.replace('.', "_")),
        text,
        sources: vec![format!("{module}.v")],
        proof,
        probes: Vec::new(),
    }
}

fn grant(prefix: &str, arbiter: (u32, Priority), depth: u32) -> Harness {
    let n = arbiter.0;
    let top = format!("{prefix}_prove_arbiter_grant");
    let mut b = head(prefix, arbiter, &top, ARBITER_GRANT.statement);
    b += "\n  always @* begin\n";
    b += &format!("    assert((grant & ~req) == {});\n", lit(n, 0));
    b += &format!("    assert((grant & (grant - {})) == {});  // at most one bit\n", lit(n, 1), lit(n, 0));
    b += &format!("    assert(grant_valid == (req != {0}) && (grant != {0}) == (req != {0}));\n", lit(n, 0));
    b += "  end\nendmodule\n";
    harness(prefix, arbiter, ARBITER_GRANT, b, Proof::Induction { depth })
}

fn fair(prefix: &str, arbiter: (u32, Priority), depth: u32) -> Harness {
    let n = arbiter.0;
    let top = format!("{prefix}_prove_arbiter_fair");
    let mut b = head(prefix, arbiter, &top, ARBITER_FAIR.statement);
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
    // The induction's invariant, over the arbiter's pointer (read as the thermometer of the
    // requesters below it, which both forms of the arbiter keep): a waiting requester has waited
    // at most as many taken grants as the pointer still has places to pass before it reaches it
    // (each taken grant to another moves the pointer past that winner, which sits before it).
    let sb = index_bits(2 * n) + 1;
    b += &format!("\n`ifdef {PROBES_DEFINE}\n  (* keep *) wire [{}:0] probe_below;\n", n - 1);
    // A thermometer below the top requester: its ones count is the pointer.
    b += &format!("  always @* if (!init) assert(!probe_below[{}]);\n", n - 1);
    b += &format!("  always @* if (!init) assert((probe_below & (probe_below + {})) == {});\n", lit(n, 1), lit(n, 0));
    let ones: Vec<String> = (0..n).map(|i| format!("{{{}'d0, probe_below[{i}]}}", sb - 1)).collect();
    b += &format!("  wire [{}:0] at = {};\n", sb - 1, ones.join(" + "));
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
    let mut h = harness(prefix, arbiter, ARBITER_FAIR, b, Proof::Induction { depth: depth.min(FAIR_DEPTH) });
    h.probes = vec![Probe { wire: "probe_below".into(), path: format!("dut.{ARBITER_BELOW_POINTER}"), bits: None }];
    h
}

/// The fairness invariant closes in one step; a few steps from reset cover the base case.
const FAIR_DEPTH: u32 = 3;
