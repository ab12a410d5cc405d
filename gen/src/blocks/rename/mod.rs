//! The rename stage (`<prefix>_rename`; seed 003 §4.1, SPEC §5): the rename table, the CMOS and
//! TFET free lists and MEM_RA's per-warp counters with Eq. (1). Cycle behaviour:
//! `model::blocks::rename::Rename`.

mod free_list;
pub mod interface;

pub use free_list::{
    BANK as FREE_BANK, BANKS as FREE_BANKS, COUNT as FREE_COUNT, FRESH as FREE_FRESH, HEAD_AT as FREE_HEAD_AT,
    HEAD_WORD as FREE_HEAD_WORD, TAIL_AT as FREE_TAIL_AT, TAIL_WORD as FREE_TAIL_WORD, bank_words,
};

use crate::layout::geometry::{SLOTS_PER_COLLECTOR, index_bits};
use crate::layout::rename::{COUNTER_BITS, RenameLayout};
use crate::verilog::{
    Module, Port, Ports, Sig, Submodule, lit, onehot_mux, reg, resize, slice, vector_reg, vector_wire, wire,
};
use free_list::{FreeListPorts, free_list};
use interface::RenamePorts;

/// A free list of the stage: its kind and registers `base .. base + n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreeListKind {
    pub kind: &'static str,
    pub base: u32,
    pub n: u32,
}

impl FreeListKind {
    /// Its instance in the stage's top.
    pub fn instance(&self) -> String {
        format!("u_free_{}", self.kind)
    }
}

/// The free lists the stage has: one per kind that has registers, CMOS first.
pub fn free_lists(l: &RenameLayout) -> Vec<FreeListKind> {
    [FreeListKind { kind: "cmos", base: 0, n: l.cmos }, FreeListKind { kind: "tfet", base: l.cmos, n: l.tfet() }]
        .into_iter()
        .filter(|f| f.n > 0)
        .collect()
}

/// The stage's modules, leaves first: a free list per kind that has registers, then the top.
pub fn modules(prefix: &str, l: &RenameLayout) -> Vec<Module> {
    let lists: Vec<(FreeListKind, Submodule<FreeListPorts<Port>>)> =
        free_lists(l).into_iter().map(|f| (f, free_list(prefix, l, f.kind, f.base, f.n))).collect();
    let top = top(prefix, l, &lists);
    lists.into_iter().map(|(_, m)| m.module).chain([top]).collect()
}

fn top(prefix: &str, l: &RenameLayout, lists: &[(FreeListKind, Submodule<FreeListPorts<Port>>)]) -> Module {
    let ports = RenamePorts::new(l);
    let p = ports.map(Port::sig);
    let (k, pb, w) = (SLOTS_PER_COLLECTOR, l.phys_bits(), l.warps);
    let (wb, rb, cb, nb) = (index_bits(l.warps), index_bits(l.registers), l.count_bits(), COUNTER_BITS);
    let depth = l.warps << rb;
    let v = |name: &str, width: u32| Sig::new(name, width);
    let mut b = String::new();
    b += &format!("  reg  [{}:0] table_q [0:{}];\n", pb - 1, depth - 1);
    if l.keeps_kind() {
        b += &format!("  reg         kind_q [0:{}];\n", depth - 1);
    }
    b += &vector_wire("counters", w * nb);
    b += &reg("counter_q", w * nb);
    b += &reg("counting", w);
    b += &vector_wire("counting_next", w);
    for name in ["started", "completed", "spent"] {
        b += &vector_wire(name, w);
    }
    for name in ["req_tfet", "take_tfet", "fire", "took_tfet_on_request", "over_thr"] {
        b += &wire(name, 1);
    }
    for kind in ["cmos", "tfet"] {
        b += &wire(&format!("{kind}_valid"), 1);
        b += &wire(&format!("{kind}_head"), pb);
        if lists.iter().any(|(f, _)| f.kind == kind) {
            b += &vector_wire(&format!("{kind}_push"), k);
        }
    }
    // Per warp: its next non-load destination requests TFET. Kept in a register, written from
    // the counters after each edge, so a rename's choice of list is a one-bit select by
    // `ren_warp` and not that warp's counter multiplexed and compared.
    b += &vector_reg("wants_tfet", w);
    b += &vector_wire("wants_tfet_next", w);
    b += &wire("done_counter", nb);
    b += &wire("over", nb);
    // sample_acc < ref_acc: the product fits ref_shift + 11 bits; its low ref_shift bits are
    // shifted out.
    let pw = l.ref_shift + nb;
    b += &wire("scaled", nb);
    if l.ref_shift > 0 {
        b += &wire("unused_scaled_lo", l.ref_shift);
    }
    b += &wire("stall_cycles", nb);
    b += &wire("dst_current", pb);

    b += "\n  // Rename table, read within the cycle; entry (warp, register) at {warp, register}.\n";
    let at = |reg: String| format!("table_q[{{{}, {reg}}}]", p.ren_warp);
    for s in 0..k {
        b += &format!("  assign {} = {};\n", p.ren_src_phys[s as usize], at(slice("ren_src_reg", s, rb)));
    }
    b += &format!("  assign dst_current = {};\n", at(p.ren_dst_reg.expr.clone()));

    b += "\n  // A new destination requests TFET when its warp's counter is above 1, not counting, and\n";
    b += "  // it is no load; it gets the requested kind if free, else the other.\n";
    b += &format!("  assign req_tfet = wants_tfet[{}] & ~{};\n", p.ren_warp, p.ren_dst_load);
    b += "  assign take_tfet = req_tfet ? tfet_valid : ~cmos_valid;\n";
    b += &format!("  assign {} = cmos_valid | tfet_valid;\n", p.ren_ready);
    b += &format!("  assign fire = {} & {} & {};\n", p.ren_valid, p.ren_dst_new, p.ren_ready);
    b += &format!(
        "  assign {} = {} ? (take_tfet ? tfet_head : cmos_head) : dst_current;\n",
        p.ren_dst_phys, p.ren_dst_new
    );
    let is_tfet = |e: &str| match (l.cmos, l.tfet()) {
        (0, _) => "1'b1".to_string(),
        (_, 0) => "1'b0".to_string(),
        (c, _) => format!("({e} >= {})", lit(pb, c as u64)),
    };
    let current_kind =
        if l.keeps_kind() { format!("kind_q[{{{}, {}}}]", p.ren_warp, p.ren_dst_reg) } else { is_tfet("dst_current") };
    b += &format!("  assign {} = {} ? take_tfet : {current_kind};\n", p.ren_dst_tfet, p.ren_dst_new);
    b += "  assign took_tfet_on_request = fire & req_tfet & take_tfet;\n";
    b += "  always @(posedge clk) begin\n";
    b += &format!("    if (fire) {} <= {};\n", at(p.ren_dst_reg.expr.clone()), p.ren_dst_phys);
    if l.keeps_kind() {
        b += &format!("    if (fire) kind_q[{{{}, {}}}] <= take_tfet;\n", p.ren_warp, p.ren_dst_reg);
    }
    b += "  end\n";

    b += "\n  // Free lists: the renamed destination pops its kind; releases go to theirs.\n";
    for (f, _) in lists {
        let kind = f.kind;
        for s in 0..k {
            let tfet = is_tfet(&slice(&p.rel_phys.expr, s, pb));
            let mine = if kind == "tfet" { tfet } else { format!("~{tfet}") };
            b += &format!("  assign {kind}_push[{s}] = {}[{s}] & {mine};\n", p.rel_valid);
        }
    }
    for kind in ["cmos", "tfet"] {
        let pop = if kind == "tfet" { "fire & take_tfet" } else { "fire & ~take_tfet" };
        let free = if kind == "tfet" { &p.tfet_free } else { &p.cmos_free };
        match lists.iter().find(|(f, _)| f.kind == kind) {
            Some((f, m)) => {
                let fb = index_bits(f.n + 1);
                let free_wire = format!("{kind}_count");
                b += &wire(&free_wire, fb);
                b += &m.instance(
                    &f.instance(),
                    &FreeListPorts {
                        clk: p.clk.clone(),
                        rst: p.rst.clone(),
                        pop: v(pop, 1),
                        push_valid: v(&format!("{kind}_push"), k),
                        push_id: p.rel_phys.clone(),
                        head_valid: v(&format!("{kind}_valid"), 1),
                        head_id: v(&format!("{kind}_head"), pb),
                        free: v(&free_wire, fb),
                    },
                );
                b += &format!("  assign {free} = {};\n", resize(&free_wire, fb, cb));
            }
            None => {
                b += &format!("  // No {} registers.\n", kind.to_uppercase());
                b += &format!("  assign {kind}_valid = 1'b0;\n  assign {kind}_head = {};\n", lit(pb, 0));
                b += &format!("  assign {free} = {};\n", lit(cb, 0));
            }
        }
    }

    b += "\n  // MEM_RA: Eq. (1) on the completing warp's counter and the sampled latency.\n";
    let done_terms: Vec<(String, String)> = (0..w)
        .map(|x| (format!("({} == {})", p.mem_done_warp, lit(wb, x as u64)), slice("counter_q", x, nb)))
        .collect();
    b += &format!("  assign done_counter = {};\n", onehot_mux(&done_terms, nb));
    b += &format!("  assign over_thr = done_counter > {};\n", lit(nb, l.thr_acc as u64));
    b += &format!("  assign over = done_counter - {};\n", lit(nb, l.thr_acc as u64));
    // With the registered prediction, the multiply and the choice read last edge's completion.
    let (sample, over, over_thr) = if l.registered_prediction {
        b += "  // Eq. (1) in two registered steps (`timing.rename_registered_prediction`): the\n";
        b += "  // completion's latency beyond the threshold, then the prediction, written at the edge\n";
        b += "  // after; a start of the warp on the way drops it.\n";
        b += &reg("pred_valid", 1);
        b += &reg("pred_warp", wb);
        b += &reg("pred_over_thr", 1);
        b += &reg("pred_over", nb);
        b += &reg("pred_sample", nb);
        b += &reg("land_valid", 1);
        b += &reg("land_warp", wb);
        b += &reg("land_stall", nb);
        let restarts = |warp: &str| format!("({} & ({} == {warp}))", p.mem_start_valid, p.mem_start_warp);
        b += "  always @(posedge clk) begin\n";
        b += &format!("    pred_valid <= ~rst & {} & ~{};\n", p.mem_done_valid, restarts(&p.mem_done_warp.expr));
        b += &format!("    pred_warp <= {};\n", p.mem_done_warp);
        b += "    pred_over_thr <= over_thr;\n    pred_over <= over;\n";
        b += &format!("    pred_sample <= {};\n", p.sample_acc);
        b += &format!("    land_valid <= ~rst & pred_valid & ~{};\n", restarts("pred_warp"));
        b += "    land_warp <= pred_warp;\n    land_stall <= stall_cycles;\n";
        b += "  end\n";
        ("pred_sample".to_string(), "pred_over", "pred_over_thr")
    } else {
        (p.sample_acc.expr.clone(), "over", "over_thr")
    };
    let product = format!("{} * {}", resize(&sample, nb, pw), resize(over, nb, pw));
    match l.ref_shift {
        0 => b += &format!("  assign scaled = {product};\n"),
        _ => b += &format!("  assign {{scaled, unused_scaled_lo}} = {product};\n"),
    }
    b += &format!(
        "  assign stall_cycles = ~{over_thr} ? {} : ({sample} < {}) ? scaled : {over};\n",
        lit(nb, 0),
        lit(nb, 1 << l.ref_shift)
    );
    b += "  // Per warp: restart on a start, the prediction on a completion, +1 while counting\n";
    b += "  // (saturating), -2 for a TFET register given on request (at least 0).\n";
    let is = |port: &Sig, x: u32| format!("({port} == {})", lit(wb, x as u64));
    for x in 0..w {
        b += &format!("  assign started[{x}] = {} & {};\n", p.mem_start_valid, is(&p.mem_start_warp, x));
        b += &format!("  assign completed[{x}] = {} & {};\n", p.mem_done_valid, is(&p.mem_done_warp, x));
        b += &format!("  assign spent[{x}] = took_tfet_on_request & {};\n", is(&p.ren_warp, x));
    }
    let (zero, one, two, max) = (lit(nb, 0), lit(nb, 1), lit(nb, 2), lit(nb, (1 << nb) - 1));
    for x in 0..w {
        let c = slice("counter_q", x, nb);
        b += &format!("  assign {} = started[{x}] ? {zero}\n", slice("counters", x, nb));
        if l.registered_prediction {
            b += &format!("      : (land_valid & (land_warp == {})) ? land_stall\n", lit(wb, x as u64));
            b += &format!("      : completed[{x}] ? {c}\n");
        } else {
            b += &format!("      : completed[{x}] ? stall_cycles\n");
        }
        b += &format!("      : counting[{x}] ? (({c} == {max}) ? {c} : {c} + {one})\n");
        b += &format!("      : spent[{x}] ? (({c} > {one}) ? {c} - {two} : {zero})\n");
        b += &format!("      : {c};\n");
        b += &format!("  assign counting_next[{x}] = started[{x}] | (~completed[{x}] & counting[{x}]);\n");
        // The next counter above 1 and not counting, case by case from the state, so this
        // cycle's rename (which may spend 2) only selects: above 1 after spending 2 is above 3.
        // "Above" as an OR of upper bits, which FPGA tools do not turn into a carry chain.
        let above = |v: &str, k: u32| format!("(|{v}[{}:{k}])", nb - 1);
        let c_above = |k: u32| format!("(|counter_q[{}:{}])", x * nb + nb - 1, x * nb + k);
        let on_completion = if l.registered_prediction { c_above(1) } else { above("stall_cycles", 1) };
        let landing = match l.registered_prediction {
            true => {
                format!("(land_valid & (land_warp == {})) ? {}\n      : ", lit(wb, x as u64), above("land_stall", 1))
            }
            false => String::new(),
        };
        b += &format!(
            "  assign wants_tfet_next[{x}] = ~counting_next[{x}] & ({landing}completed[{x}] ? {on_completion}\n      : spent[{x}] ? {} : {});\n",
            c_above(2),
            c_above(1)
        );
        b += &format!("  assign {} = ({c} != {zero}) & ~counting[{x}];\n", p.tfet_hint.bit(x));
    }
    b += "  always @(posedge clk) begin\n";
    b += &format!(
        "    if (rst) begin\n      counter_q <= {};\n      counting <= {};\n      wants_tfet <= {};\n",
        lit(w * nb, 0),
        lit(w, 0),
        lit(w, 0)
    );
    b += "    end else begin\n      counter_q <= counters;\n      counting <= counting_next;\n";
    b += "      wants_tfet <= wants_tfet_next;\n    end\n  end\n";
    Module {
        name: format!("{prefix}_rename"),
        doc: vec![
            format!(
                "Rename stage: table of {} warps x {} registers -> {} physical warp registers ({} CMOS, {} TFET),",
                l.warps,
                l.registers,
                l.phys,
                l.cmos,
                l.tfet()
            ),
            format!(
                "a free list per kind, MEM_RA counters ({nb} bits per warp, thr_acc {}, ref_acc {}). See docs/rename.md.",
                l.thr_acc,
                1u32 << l.ref_shift
            ),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    }
}
