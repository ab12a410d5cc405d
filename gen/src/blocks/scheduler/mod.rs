//! The warp scheduler (SPEC §1): each cycle, which eligible warp gets the issue slot. LRR
//! rotates from the last issuer, GTO keeps the last issuer and else takes the oldest (an age
//! matrix learns launches), two-level picks greedily within an active set that it refills
//! round-robin. The grant follows from the state and this cycle's eligibility within the cycle.
//! Cycle behaviour: `model::blocks::scheduler::Scheduler`.

pub mod interface;

use crate::config::{Config, SchedulerPolicy};
use crate::layout::geometry::{Geometry, index_bits};
use crate::verilog::{Module, lit, lowest_set, onehot_index, reg, vector_reg, vector_wire, wire};
use interface::SchedulerPorts;

/// What a scheduler holds, derived once for the generator, the model and the cosim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub warps: u32,
    pub warp_bits: u32,
    pub policy: SchedulerPolicy,
    /// Warps that may be scheduled at once: the two-level active set, else every warp.
    pub active: u32,
    /// TRWS (seed 003 §4.3, `rename.trws`): a `first` input; eligible warps in it are scheduled
    /// before the others, by the same policy.
    pub first: bool,
}

impl Shape {
    pub fn new(g: &Geometry, c: &Config) -> Shape {
        let s = &c.scheduler;
        let two_level = s.policy == SchedulerPolicy::TwoLevel;
        Shape {
            warps: g.warps,
            warp_bits: g.warp_bits(),
            policy: s.policy,
            active: if two_level { s.active_warps.min(g.warps) } else { g.warps },
            first: c.rename.enabled && c.rename.trws,
        }
    }
}

/// One of the scheduler's two picks: the eligible warps it picks from, its outputs, and the
/// suffix of its internal names.
struct Pick {
    eligible: &'static str,
    valid: &'static str,
    warp: &'static str,
    tag: &'static str,
}

/// The grant, from `eligible`; and the same choice from `eligible_if_free`, which the issue
/// stage uses for what enters an operand collector: when one is free both are the same, and
/// that pick does not wait on the collectors' state.
const PICKS: [Pick; 2] = [
    Pick { eligible: "eligible", valid: "grant_valid", warp: "grant_warp", tag: "" },
    Pick { eligible: "eligible_if_free", valid: "if_free_valid", warp: "if_free_warp", tag: "_if_free" },
];

pub fn scheduler(prefix: &str, s: &Shape) -> Module {
    let ports = SchedulerPorts::new(s);
    let (w, wb) = (s.warps, s.warp_bits);
    let mut b = String::new();
    b += &reg("last_valid", 1);
    b += &reg("last_warp", wb);
    // TRWS narrows each choice to the eligible warps it puts first, when there are any.
    let from: Vec<String> = if s.first {
        b += "
  // TRWS: eligible warps marked first are scheduled before the others.
";
        PICKS
            .iter()
            .map(|p| {
                let (first, pick) = (format!("{}_first", p.eligible), format!("pick{}", p.tag));
                b += &vector_wire(&first, w);
                b += &vector_wire(&pick, w);
                b += &format!("  assign {first} = {} & trws_first;\n", p.eligible);
                b += &format!("  assign {pick} = (|{first}) ? {first} : {};\n", p.eligible);
                pick
            })
            .collect()
    } else {
        PICKS.iter().map(|p| p.eligible.to_string()).collect()
    };
    let (doc, body) = match s.policy {
        SchedulerPolicy::Lrr => ("loose round-robin: the first eligible warp after the last issuer", lrr(w, wb, &from)),
        SchedulerPolicy::Gto => ("greedy-then-oldest: the last issuer while eligible, else the oldest", gto(w, &from)),
        SchedulerPolicy::TwoLevel => {
            ("two-level: greedy within the active set, refilled round-robin", two_level(w, wb, s.active))
        }
    };
    b += &body;
    b += "\n  // The last issuer: the greedy choice, and where round-robin starts. A warp that issued its\n";
    b += "  // last instruction leaves.\n";
    b += &format!(
        "  always @(posedge clk) begin\n    if (rst) begin\n      last_valid <= 1'b0;\n      last_warp <= {z};\n    end else if (grant_valid) begin\n      last_valid <= ~grant_last;\n      last_warp <= grant_warp;\n    end\n  end\n",
        z = lit(wb, 0)
    );
    let active = if s.policy == SchedulerPolicy::TwoLevel { format!(", {} active", s.active) } else { String::new() };
    Module {
        name: format!("{prefix}_scheduler"),
        doc: vec![
            format!("Warp scheduler over {w} warps{active}, {doc}."),
            "One grant per cycle among the eligible warps; the same choice among the warps eligible".into(),
            "if a collector is free (if_free_*) beside it. See docs/issue.md.".into(),
        ],
        ports: ports.list().into_iter().cloned().collect(),
        body: b,
        memory: None,
    }
}

/// Each pick: the eligible warp (of `from`) after the last issuer, else the lowest.
fn lrr(w: u32, wb: u32, from: &[String]) -> String {
    let mut b = String::new();
    b += &vector_wire("after_last", w);
    for p in &PICKS {
        for name in ["upper", "upper_first", "any_first", "grant"] {
            b += &vector_wire(&format!("{name}{}", p.tag), w);
        }
    }
    let after: Vec<String> = (0..w)
        .rev()
        .map(|i| if i == 0 { "1'b0".into() } else { format!("(last_warp < {})", lit(wb, i.into())) })
        .collect();
    b += "\n  // Warps after the last issuer first; past the highest slot, from the lowest.\n";
    b += &format!("  assign after_last = {{{w}{{~last_valid}}}} | {{{}}};\n", after.join(", "));
    for (p, eligible) in PICKS.iter().zip(from) {
        let t = p.tag;
        b += &format!("  assign upper{t} = {eligible} & after_last;\n");
        b += &format!("  assign upper_first{t} = {};\n", lowest_set(&format!("upper{t}"), w));
        b += &format!("  assign any_first{t} = {eligible} & (~{eligible} + {});\n", lit(w, 1));
        b += &format!("  assign grant{t} = (|upper{t}) ? upper_first{t} : any_first{t};\n");
        b += &format!("  assign {} = |{eligible};\n", p.valid);
        b += &format!("  assign {} = {};\n", p.warp, onehot_index(&format!("grant{t}"), w));
    }
    b
}

/// Each pick: the last issuer while eligible (in `from`), else the oldest eligible warp by
/// launch order.
fn gto(w: u32, from: &[String]) -> String {
    let pairs = w * (w - 1) / 2;
    let mut b = String::new();
    b += &vector_reg("first", pairs);
    b += &vector_wire("elder", w * w);
    for p in &PICKS {
        b += &vector_wire(&format!("oldest{}", p.tag), w);
        b += &wire(&format!("keep{}", p.tag), 1);
    }
    b += "\n  // Launch order, one bit per pair of warps a < b at bit b(b-1)/2+a: warp a was launched\n";
    b += "  // before warp b. Reset: slot order, the order of the first launch. A launched warp becomes\n";
    b += "  // younger than every warp not launched with it; warps launched together keep slot order.\n";
    b += "  // elder[W*b +: W]: the warps launched before warp b.\n";
    b += "  genvar a, b;\n  generate\n";
    b += &format!("    for (b = 0; b < {w}; b = b + 1) begin : g_warp\n");
    b += &format!("      for (a = 0; a < {w}; a = a + 1) begin : g_other\n");
    b += "        if (a < b) begin : g_pair\n";
    b += "          always @(posedge clk) begin\n";
    b += "            if (rst) first[b*(b-1)/2+a] <= 1'b1;\n";
    b += "            else first[b*(b-1)/2+a] <= launch[b] | (first[b*(b-1)/2+a] & ~launch[a]);\n";
    b += "          end\n";
    b += &format!("          assign elder[{w}*b+a] = first[b*(b-1)/2+a];\n");
    b += "        end else if (a > b) begin : g_mirror\n";
    b += &format!("          assign elder[{w}*b+a] = ~first[a*(a-1)/2+b];\n");
    b += "        end else begin : g_self\n";
    b += &format!("          assign elder[{w}*b+a] = 1'b0;\n");
    b += "        end\n      end\n";
    for (p, eligible) in PICKS.iter().zip(from) {
        b += &format!("      assign oldest{}[b] = {eligible}[b] & ~|({eligible} & elder[{w}*b +: {w}]);\n", p.tag);
    }
    b += "    end\n  endgenerate\n\n";
    b += "  // Greedy: the last issuer keeps the slot while it may issue.\n";
    for (p, eligible) in PICKS.iter().zip(from) {
        let t = p.tag;
        b += &format!("  assign keep{t} = last_valid & {eligible}[last_warp];\n");
        b += &format!("  assign {} = |{eligible};\n", p.valid);
        b += &format!("  assign {} = keep{t} ? last_warp : {};\n", p.warp, onehot_index(&format!("oldest{t}"), w));
    }
    b
}

/// Two-level: the active set in activation order; deschedules leave it, free places are
/// refilled with ready warps round-robin over slots; the grant goes to the last issuer when
/// eligible, else to the next eligible member after it in activation order.
fn two_level(w: u32, wb: u32, a: u32) -> String {
    let nb = index_bits(a + 1);
    let mut b = String::new();
    b += "\n  // The active set: warps in activation order, entry k at [";
    b += &format!("{wb}k+{}:{wb}k], `count` of them.\n", wb - 1);
    b += &vector_reg("order", a * wb);
    b += &reg("count", nb);
    b += &reg("refill_from", wb);
    b += "  // This cycle: the set after deschedules (`stay`), the refill candidates in round-robin\n";
    b += "  // order, the set after the refill (`kept`, `member`), the grant, and the set after the edge\n";
    b += "  // (`after`: without a warp that issued its last instruction).\n";
    b += &vector_reg("stay", a * wb);
    b += &reg("stay_n", nb);
    b += &vector_reg("stay_member", w);
    b += &vector_wire("cand_rot", w);
    b += &vector_wire("unused_cand_rot_high", w);
    for f in 0..a {
        if f > 0 {
            b += &vector_wire(&format!("rest{f}"), w);
        }
        b += &vector_wire(&format!("first{f}"), w);
        b += &wire(&format!("slot_sum{f}"), wb + 1);
    }
    b += &vector_wire("fill_valid", a);
    b += &vector_wire("fill_slot", a * wb);
    b += &vector_reg("kept", a * wb);
    b += &reg("kept_n", nb);
    b += &vector_reg("member", w);
    b += &reg("refill_next", wb);
    b += &reg("start", nb);
    for p in &PICKS {
        b += &reg(&format!("pos{}", p.tag), nb + 1);
        b += &reg(&format!("pick_valid{}", p.tag), 1);
        b += &reg(&format!("pick{}", p.tag), wb);
    }
    b += &vector_reg("after", a * wb);
    b += &reg("after_n", nb);
    b += "  integer k, i, j;\n\n";
    let one = lit(nb, 1);
    let full = lit(nb, a.into());
    b += "  // Descheduled warps leave; the others keep their order.\n";
    b += "  always @* begin\n";
    b += &format!("    stay = {};\n    stay_n = {};\n    stay_member = {};\n", lit(a * wb, 0), lit(nb, 0), lit(w, 0));
    b += &format!("    for (k = 0; k < {a}; k = k + 1) begin\n");
    b += &format!("      if (count > k[{}:0] && !desched[order[{wb}*k +: {wb}]]) begin\n", nb - 1);
    b += &format!("        stay[{wb}*stay_n +: {wb}] = order[{wb}*k +: {wb}];\n");
    b += &format!("        stay_member[order[{wb}*k +: {wb}]] = 1'b1;\n");
    b += &format!("        stay_n = stay_n + {one};\n      end\n    end\n  end\n\n");
    b += "  // Refill candidates: ready warps outside the set, rotated so that bit j is slot\n";
    b += "  // (refill_from + j) mod W; fill k takes the k-th of them in that order.\n";
    b += "  assign {unused_cand_rot_high, cand_rot} = {2{ready & ~stay_member}} >> refill_from;\n";
    let rest = |f: u32| if f == 0 { "cand_rot".to_string() } else { format!("rest{f}") };
    for f in 0..a {
        if f > 0 {
            b += &format!("  assign {} = {} & ~first{};\n", rest(f), rest(f - 1), f - 1);
        }
        let rest = rest(f);
        b += &format!("  assign first{f} = {rest} & (~{rest} + {});\n", lit(w, 1));
        b += &format!(
            "  assign slot_sum{f} = {{1'b0, refill_from}} + {{1'b0, {}}};\n",
            onehot_index(&format!("first{f}"), w)
        );
        b += &format!("  assign fill_valid[{f}] = |{rest};\n");
        b += &format!(
            "  assign fill_slot[{}:{}] = (slot_sum{f} >= {}) ? slot_sum{f}[{m}:0] - {} : slot_sum{f}[{m}:0];\n",
            wb * (f + 1) - 1,
            wb * f,
            lit(wb + 1, w.into()),
            lit(wb, u64::from(w) % (1u64 << wb)),
            m = wb - 1
        );
    }
    b += "\n";
    b += "  always @* begin\n";
    b += "    // Refill the free places, in round-robin order.\n";
    b += "    kept = stay;\n    kept_n = stay_n;\n    member = stay_member;\n    refill_next = refill_from;\n";
    b += &format!("    for (k = 0; k < {a}; k = k + 1) begin\n");
    b += &format!("      if (fill_valid[k] && kept_n < {full}) begin\n");
    b += &format!("        kept[{wb}*kept_n +: {wb}] = fill_slot[{wb}*k +: {wb}];\n");
    b += &format!("        member[fill_slot[{wb}*k +: {wb}]] = 1'b1;\n");
    b += &format!("        kept_n = kept_n + {one};\n");
    b += &format!(
        "        refill_next = (fill_slot[{wb}*k +: {wb}] == {}) ? {} : fill_slot[{wb}*k +: {wb}] + {};\n      end\n    end\n",
        lit(wb, (w - 1).into()),
        lit(wb, 0),
        lit(wb, 1)
    );
    b += "    // The grant: from the last issuer's place in the set (the first place if it is not in\n";
    b += "    // it), the first eligible member in activation order, wrapping around.\n";
    b += &format!("    start = {};\n", lit(nb, 0));
    b += &format!("    for (k = 0; k < {a}; k = k + 1) begin\n");
    b += &format!(
        "      if (last_valid && kept_n > k[{n}:0] && kept[{wb}*k +: {wb}] == last_warp) start = k[{n}:0];\n    end\n",
        n = nb - 1
    );
    // The first member eligible in `p.eligible` from `start` (loop variable `i`).
    let pick = |p: &Pick, i: &str| {
        let (valid, warp, pos) = (format!("pick_valid{}", p.tag), format!("pick{}", p.tag), format!("pos{}", p.tag));
        let mut b = format!("    {valid} = 1'b0;\n    {warp} = {};\n", lit(wb, 0));
        b += &format!("    for ({i} = 0; {i} < {a}; {i} = {i} + 1) begin\n");
        b += &format!("      {pos} = {{1'b0, start}} + {i}[{nb}:0];\n");
        b += &format!("      if ({pos} >= {{1'b0, kept_n}}) {pos} = {pos} - {{1'b0, kept_n}};\n");
        b += &format!(
            "      if (!{valid} && kept_n > {i}[{}:0] && {}[kept[{wb}*{pos} +: {wb}]]) begin\n",
            nb - 1,
            p.eligible
        );
        b += &format!("        {valid} = 1'b1;\n        {warp} = kept[{wb}*{pos} +: {wb}];\n      end\n    end\n");
        b
    };
    b += &pick(&PICKS[0], "i");
    b += "    // A warp that issued its last instruction leaves the set at the edge.\n";
    b += &format!("    after = {};\n    after_n = {};\n", lit(a * wb, 0), lit(nb, 0));
    b += &format!("    for (k = 0; k < {a}; k = k + 1) begin\n");
    b += &format!(
        "      if (kept_n > k[{}:0] && !(grant_last && pick_valid && kept[{wb}*k +: {wb}] == pick)) begin\n",
        nb - 1
    );
    b += &format!("        after[{wb}*after_n +: {wb}] = kept[{wb}*k +: {wb}];\n");
    b += &format!("        after_n = after_n + {one};\n      end\n    end\n  end\n\n");
    b += "  // The same choice among the warps eligible if a collector is free.\n";
    b += &format!("  always @* begin\n{}  end\n\n", pick(&PICKS[1], "j"));
    b += "  assign grant_valid = pick_valid;\n  assign grant_warp = pick;\n";
    b += "  assign if_free_valid = pick_valid_if_free;\n  assign if_free_warp = pick_if_free;\n";
    b += "  assign active = member;\n\n";
    b += &format!(
        "  always @(posedge clk) begin\n    if (rst) begin\n      order <= {};\n      count <= {};\n      refill_from <= {};\n    end else begin\n      order <= after;\n      count <= after_n;\n      refill_from <= refill_next;\n    end\n  end\n",
        lit(a * wb, 0),
        lit(nb, 0),
        lit(wb, 0)
    );
    b
}
