//! The register file cache (seed 000 §3, SPEC §2): per slot — one per active warp — `E` entries
//! of tag, valid, dirty, dead and one warp register, in flip-flops. The issue stage's tag check
//! reads up to three sources (combinationally, in the issue cycle); write-backs of short-latency
//! full-mask results are allocated, evicting a dirty live entry through the eviction buffer;
//! whatever the RFC does not keep goes to the banks. Cycle rules: `model::blocks::mrf::Rfc` and
//! docs/rfc.md.

pub mod interface;
pub mod invariants;

use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR, index_bits};
use crate::layout::rfc::RfcLayout;
use crate::schema::Replacement;
use crate::verilog::{
    Module, Port, Ports, Submodule, lit, lowest_set, onehot_index, onehot_mux, reg, slice, vector_reg, vector_wire,
    wire,
};
use interface::CachePorts;

/// With `banks_may_refuse` (a compressed MRF's write port behind it), the banks take its write
/// only with `bank_wr_ready`; the eviction buffer and flush steps wait, and `evict_valid` tells
/// the top which register must not be read from the banks yet.
pub fn rfc(prefix: &str, g: &Geometry, r: &RfcLayout, banks_may_refuse: bool) -> Submodule<CachePorts<Port>> {
    let (a, e) = (r.slots, r.entries);
    let c = Shape {
        a,
        e,
        k: SLOTS_PER_COLLECTOR,
        n: a * e,
        wb: g.warp_bits(),
        rb: g.reg_bits(),
        sb: r.slot_bits(),
        lanes: g.lanes,
        w: g.warp_reg_bits(),
        rk: index_bits(e),
        ib: index_bits(a * e),
        lru: r.replacement == Replacement::Lru,
        liveness: r.liveness,
        banks_may_refuse,
    };
    let b = [declarations(&c), tag_check(&c), write_back(&c), flush(&c), clock_edge(&c)].concat();
    let (repl, w) = (if c.lru { "LRU" } else { "FIFO" }, c.w);
    let live = if r.liveness { ", liveness" } else { "" };
    let ports = CachePorts::new(g, r, banks_may_refuse);
    let module = Module {
        name: format!("{prefix}_rfc"),
        doc: vec![
            format!(
                "Register file cache: {a} slots x {e} entries of one {w}-bit warp register, {repl} replacement{live},"
            ),
            "3 read ports (the issue stage's tag check), 1 write port, an eviction buffer and a flush engine".into(),
            "writing dirty live entries back through the MRF write port. See docs/rfc.md.".into(),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}

/// The cache's dimensions, as every part of the generator uses them.
#[derive(Clone, Copy)]
struct Shape {
    /// Slots (active warps), entries per slot, sources per instruction, entries in all.
    a: u32,
    e: u32,
    k: u32,
    n: u32,
    /// Bits of a warp id, a register id, a slot, an entry's rank and an entry index.
    wb: u32,
    rb: u32,
    sb: u32,
    rk: u32,
    ib: u32,
    lanes: u32,
    /// Bits of a warp register.
    w: u32,
    lru: bool,
    liveness: bool,
    banks_may_refuse: bool,
}

/// Names of the cache's state, as the formal harness of `rfc.writeback` reads it (through
/// probes: see `formal::Probe`). Per warp: its slot (`SLOT_OF`, an array indexed by warp id) and
/// whether it has one. Per slot `s`: `OWNER` followed by `s`, and bit `s` of `OWNER_VALID`. Per
/// entry `i = s * E + e`: bit `i` of `VALID`, `DIRTY`, `DEAD`; `TAG` and `RANK` followed by `i`;
/// word `i` of `DATA`. The eviction buffer and the flush engine: the `EVICT_*` and `FLUSH_*`.
pub const SLOT_OF: &str = "slot_of";
pub const SLOT_OF_VALID: &str = "slot_of_valid";
pub const OWNER: &str = "owner";
pub const OWNER_VALID: &str = "owner_valid";
pub const VALID: &str = "valid";
pub const DIRTY: &str = "dirty";
pub const DEAD: &str = "dead";
pub const TAG: &str = "tag";
pub const RANK: &str = "rank";
pub const DATA: &str = "data";
pub const EVICT_VALID: &str = "evict_valid";
pub const EVICT_WARP: &str = "evict_warp";
pub const EVICT_REG: &str = "evict_reg";
pub const EVICT_DATA: &str = "evict_data";
pub const FLUSH_BUSY: &str = "flush_busy";
pub const FLUSH_SLOT: &str = "flush_slot";

/// The state (slots, entries, eviction buffer, flush engine) and the combinational nets.
fn declarations(c: &Shape) -> String {
    let Shape { a, k, n, wb, rb, sb, lanes, w, rk, ib, .. } = *c;
    let mut b = String::new();
    // State.
    b += &format!("  reg  [{}:0] {SLOT_OF} [0:{}];\n", sb - 1, (1u32 << wb) - 1);
    b += &vector_reg(SLOT_OF_VALID, 1 << wb);
    for s in 0..a {
        b += &reg(&format!("{OWNER}{s}"), wb);
    }
    b += &vector_reg(OWNER_VALID, a);
    for name in [VALID, DIRTY, DEAD] {
        b += &vector_reg(name, n);
    }
    for i in 0..n {
        b += &reg(&format!("{TAG}{i}"), rb);
        b += &reg(&format!("{RANK}{i}"), rk);
    }
    // The values: one array with one write port (a write hit or an allocation, never both).
    b += &format!("  reg  [{}:0] {DATA} [0:{}];\n", w - 1, n - 1);
    b += &reg(EVICT_VALID, 1);
    b += &reg(EVICT_WARP, wb);
    b += &reg(EVICT_REG, rb);
    b += &reg(EVICT_DATA, w);
    b += &reg(FLUSH_BUSY, 1);
    b += &reg(FLUSH_SLOT, sb);

    // Combinational signals.
    for name in ["rd_sel", "wb_sel", "fl_sel", "free", "free_first"] {
        b += &vector_wire(name, a);
    }
    for s in 0..k {
        b += &vector_wire(&format!("rd_match{s}"), n);
    }
    for name in ["wb_match", "dead_r", "victim", "fl_cand", "fl_first", "touch_w"] {
        b += &vector_wire(name, n);
    }
    for name in ["wb_hit", "keeps", "alloc", "evict_new", "fl_any", "fl_more", "fl_step", "fl_done"] {
        b += &wire(name, 1);
    }
    b += &wire("bypass", 1);
    b += &wire("free_slot", sb);
    for name in ["victim_idx", "w_idx", "spill_idx"] {
        b += &wire(name, ib);
    }
    b += &wire("spill_data", w);
    b += &wire("data_we", 1);
    b += &vector_wire("data_wmask", lanes);
    b
}

/// Which slot each event concerns, the issue stage's tag check of the sources, and liveness.
fn tag_check(c: &Shape) -> String {
    let Shape { a, e, k, n, rb, sb, w, ib, .. } = *c;
    let idx = |s: u32, x: u32| s * e + x;
    let mut b = String::new();
    b += "\n  // The issuing warp's slot, the write-back's, the one being flushed (one-hot).\n";
    for s in 0..a {
        let sl = lit(sb, s as u64);
        b += &format!("  assign rd_sel[{s}] = slot_of_valid[rd_warp] & (slot_of[rd_warp] == {sl});\n");
        b += &format!("  assign wb_sel[{s}] = slot_of_valid[wb_warp] & (slot_of[wb_warp] == {sl});\n");
        b += &format!("  assign fl_sel[{s}] = flush_busy & (flush_slot == {sl});\n");
    }

    b += "\n  // Tag check of the issued sources (this cycle, from the state): a hit hands the value over.\n";
    for src in 0..k {
        let reg_s = slice("rd_src_reg", src, rb);
        for s in 0..a {
            for x in 0..e {
                let i = idx(s, x);
                b += &format!(
                    "  assign rd_match{src}[{i}] = rd_src_valid[{src}] & rd_sel[{s}] & valid[{i}] & (tag{i} == {reg_s});\n"
                );
            }
        }
        b += &format!("  assign rd_hit[{src}] = |rd_match{src};\n");
        b += &wire(&format!("rd_idx{src}"), ib);
        b += &format!("  assign rd_idx{src} = {};\n", onehot_index(&format!("rd_match{src}"), n));
        b += &format!("  assign {} = data[rd_idx{src}];\n", slice("rd_data", src, w));
    }

    b += "\n  // A source read for the last time marks its entry dead (liveness).\n";
    for i in 0..n {
        if c.liveness {
            let lasts: Vec<String> = (0..k).map(|src| format!("(rd_match{src}[{i}] & rd_src_last[{src}])")).collect();
            b += &format!("  assign dead_r[{i}] = dead[{i}] | (rd_fire & ({}));\n", lasts.join(" | "));
        } else {
            b += &format!("  assign dead_r[{i}] = dead[{i}];\n");
        }
    }
    b
}

/// Write-backs: hits, allocations with their victim, bypasses, and the replacement order.
fn write_back(c: &Shape) -> String {
    let Shape { a, e, k, n, lanes, rk, .. } = *c;
    let idx = |s: u32, x: u32| s * e + x;
    let mut b = String::new();
    let lru = c.lru;
    b += "\n  // Write-back: a hit updates its entry; a short-latency full-mask result of a warp with a\n";
    b += "  // slot gets a new one; anything else bypasses the RFC to the banks.\n";
    for s in 0..a {
        for x in 0..e {
            let i = idx(s, x);
            b += &format!("  assign wb_match[{i}] = wb_sel[{s}] & valid[{i}] & (tag{i} == wb_reg);\n");
        }
    }
    b += "  assign wb_hit = |wb_match;\n";
    b += "  assign keeps = wb_hit | ((|wb_sel) & ~wb_long & (&wb_mask));\n";
    b += "  assign alloc = wb_fire & ~wb_hit & keeps;\n";
    b += "  assign bypass = wb_fire & ~keeps;\n";

    // Replacement order: LRU moves every read hit up (in source order) and then the written
    // entry; FIFO only the allocated one. Ranks of each stage are wires `rank_<stage>_<i>`.
    b += "\n  // Replacement order (rank 0 = most recent): a touched entry becomes rank 0 and the entries\n";
    b += "  // more recent than it move down one.\n";
    let mut stages: Vec<(String, String)> = Vec::new(); // (stage name, touched vector)
    if lru {
        for src in 0..k {
            stages.push((format!("r{src}"), format!("({{{n}{{rd_fire}}}} & rd_match{src})")));
        }
    }
    let rank_of = |stage: Option<&str>, i: u32| match stage {
        None => format!("rank{i}"),
        Some(name) => format!("rank_{name}_{i}"),
    };
    let mut last: Option<String> = None;
    for (name, touched) in &stages {
        b += &touch_stage(name, touched, last.as_deref(), a, e, rk, &rank_of);
        last = Some(name.clone());
    }
    let read_ranks = last.clone();
    // Entries fill in order and leave only during a flush, which takes no write-back, or all at
    // once: outside a flush a slot's valid entries come first (an invariant `rfgen prove`
    // checks), so it has an invalid entry when its last is, and the first is the one after the
    // last valid.
    b += "\n  // The victim of an allocation: the first invalid entry of the slot, else the oldest. A\n";
    b += "  // slot's valid entries come first, so it has an invalid one when its last entry is.\n";
    for s in 0..a {
        b += &format!("  // slot {s}\n");
        let any_free = format!("~valid[{}]", idx(s, e - 1));
        for x in 0..e {
            let i = idx(s, x);
            let first_free = if x == 0 { format!("~valid[{i}]") } else { format!("~valid[{i}] & valid[{}]", i - 1) };
            let oldest = format!("({} == {})", rank_of(read_ranks.as_deref(), i), lit(rk, (e - 1) as u64));
            b += &format!("  assign victim[{i}] = wb_sel[{s}] & ({any_free} ? ({first_free}) : {oldest});\n");
        }
    }
    b += "  assign evict_new = alloc & (|(victim & valid & dirty & ~dead_r));\n";
    b += &format!("  assign victim_idx = {};\n", onehot_index("victim", n));
    b += &format!("  assign w_idx = wb_hit ? {} : victim_idx;\n", onehot_index("wb_match", n));
    b += "  assign data_we = (wb_fire & wb_hit) | alloc;\n";
    b += &format!("  assign data_wmask = wb_hit ? wb_mask : {{{lanes}{{1'b1}}}};\n");
    let touch_w = if lru {
        format!("({{{n}{{wb_fire}}}} & wb_match) | ({{{n}{{alloc}}}} & victim)")
    } else {
        format!("{{{n}{{alloc}}}} & victim")
    };
    b += &format!("  assign touch_w = {touch_w};\n");
    b += &touch_stage("w", "touch_w", read_ranks.as_deref(), a, e, rk, &rank_of);
    b
}

/// The flush engine, what goes to the banks, and the handshakes.
fn flush(c: &Shape) -> String {
    let Shape { a, e, n, wb, rb, lanes, .. } = *c;
    let idx = |s: u32, x: u32| s * e + x;
    let mut b = String::new();
    let banks_may_refuse = c.banks_may_refuse;
    b += "\n  // Flush: one dirty live entry of the slot per cycle, lowest first, when the eviction buffer\n";
    b += "  // does not hold the port; the slot is freed with the last (or at once when there is none).\n";
    for s in 0..a {
        for x in 0..e {
            let i = idx(s, x);
            b += &format!("  assign fl_cand[{i}] = fl_sel[{s}] & valid[{i}] & dirty[{i}] & ~dead[{i}];\n");
        }
    }
    b += &format!("  assign fl_first = {};\n", lowest_set("fl_cand", n));
    b += "  assign fl_any = |fl_cand;\n";
    b += "  assign fl_more = |(fl_cand & ~fl_first);\n";
    let taken = if banks_may_refuse { " & bank_wr_ready" } else { "" };
    b += &format!("  assign fl_step = flush_busy & fl_any & ~evict_valid{taken};\n");
    let port_free = if banks_may_refuse { "(~evict_valid & bank_wr_ready)" } else { "~evict_valid" };
    b += &format!("  assign fl_done = flush_busy & ~fl_more & (~fl_any | {port_free});\n");

    b += "\n  // What goes to the banks this cycle: the eviction buffer, a flush step, or a bypass.\n";
    let fl_terms = |field: &dyn Fn(u32) -> String, width: u32| {
        let t: Vec<(String, String)> = (0..n).map(|i| (format!("fl_first[{i}]"), field(i))).collect();
        onehot_mux(&t, width)
    };
    let owner_terms: Vec<(String, String)> = (0..a).map(|s| (format!("fl_sel[{s}]"), format!("owner{s}"))).collect();
    b += "  assign bank_wr_en = evict_valid | (flush_busy & fl_any) | bypass;\n";
    b += &format!(
        "  assign bank_wr_warp = evict_valid ? evict_warp : flush_busy ? ({}) : wb_warp;\n",
        onehot_mux(&owner_terms, wb)
    );
    b += &format!(
        "  assign bank_wr_reg = evict_valid ? evict_reg : flush_busy ? ({}) : wb_reg;\n",
        fl_terms(&|i| format!("tag{i}"), rb)
    );
    b += &format!("  assign bank_wr_mask = (evict_valid | flush_busy) ? {{{lanes}{{1'b1}}}} : wb_mask;\n");
    b += "  // One read port for what leaves the RFC: a flush step's entry, else the victim of an\n";
    b += "  // allocation (never both: no write-back is taken during a flush).\n";
    b += &format!("  assign spill_idx = flush_busy ? {} : victim_idx;\n", onehot_index("fl_first", n));
    b += "  assign spill_data = data[spill_idx];\n";
    b += "  assign bank_wr_data = evict_valid ? evict_data : flush_busy ? spill_data : wb_data;\n";

    b += "\n  // Handshakes, from the state.\n";
    b += "  assign wb_ready = ~evict_valid & ~flush_busy;\n";
    if banks_may_refuse {
        b += "  assign evicting = evict_valid;\n";
    }
    if banks_may_refuse {
        // The eviction buffer may hold a register of the warp flushed last, and may wait for
        // the banks any number of cycles; the flush is over once the banks have it.
        b += "  assign flush_ready = ~flush_busy & ~evict_valid;\n";
    } else {
        b += "  assign flush_ready = ~flush_busy;\n";
    }
    b += "  assign free = ~owner_valid;\n";
    b += &format!("  assign free_first = {};\n", lowest_set("free", a));
    b += "  assign act_ready = |free;\n";
    b += &format!("  assign free_slot = {};\n", onehot_index("free_first", a));
    b
}

/// The clock edge, in the model's order.
fn clock_edge(c: &Shape) -> String {
    let Shape { a, e, n, wb, rb, lanes, rk, .. } = *c;
    let idx = |s: u32, x: u32| s * e + x;
    let mut b = String::new();
    let taken = if c.banks_may_refuse { " & bank_wr_ready" } else { "" };
    b += "\n  // Clock edge, in the model's order: reads, the write-back, the flush step, releases, a\n";
    b += "  // new flush, an activation (a later event wins where two touch one register).\n";
    b += "  always @(posedge clk) begin\n    if (rst) begin\n";
    b += &format!("      slot_of_valid <= {};\n", lit(1 << wb, 0));
    b += &format!("      owner_valid <= {};\n      valid <= {};\n", lit(a, 0), lit(n, 0));
    b += "      evict_valid <= 1'b0;\n      flush_busy <= 1'b0;\n";
    for s in 0..a {
        for x in 0..e {
            b += &format!("      rank{} <= {};\n", idx(s, x), lit(rk, x as u64));
        }
    }
    b += "    end else begin\n";
    b += "      dead <= dead_r;\n";
    for i in 0..n {
        b += &format!("      rank{i} <= rank_w_{i};\n");
    }
    b += "      // Write hit: dirty and live again; allocation into the victim.\n";
    for i in 0..n {
        b += &format!(
            "      if (wb_fire & wb_match[{i}]) begin\n        dirty[{i}] <= 1'b1;\n        dead[{i}] <= 1'b0;\n      end\n"
        );
        b += &format!(
            "      if (alloc & victim[{i}]) begin\n        valid[{i}] <= 1'b1;\n        tag{i} <= wb_reg;\n        dirty[{i}] <= 1'b1;\n        dead[{i}] <= 1'b0;\n      end\n"
        );
    }
    let victim_tag: Vec<(String, String)> = (0..n).map(|i| (format!("victim[{i}]"), format!("tag{i}"))).collect();
    b += "      if (evict_new) begin\n        evict_valid <= 1'b1;\n        evict_warp <= wb_warp;\n";
    b += &format!("        evict_reg <= {};\n", onehot_mux(&victim_tag, rb));
    b += "        evict_data <= spill_data;\n";
    b += &format!("      end else if (evict_valid{taken}) evict_valid <= 1'b0;\n");
    b += "      // Flush step: the written entry leaves; with the last one (or none) the slot is freed.\n";
    b += "      if (fl_step) begin\n";
    for i in 0..n {
        b += &format!("        if (fl_first[{i}]) valid[{i}] <= 1'b0;\n");
    }
    b += "      end\n      if (fl_done) begin\n        flush_busy <= 1'b0;\n";
    for s in 0..a {
        b += &format!("        if (fl_sel[{s}]) begin\n{}        end\n", free(s, e, rk, "          "));
    }
    b += "      end\n";
    b += "      // Releases of finished warps: their slots are freed without write-backs.\n";
    for s in 0..a {
        b += &format!(
            "      if (owner_valid[{s}] & rel_mask[owner{s}]) begin\n{}      end\n",
            free(s, e, rk, "        ")
        );
    }
    b += "      if (flush_valid & flush_ready & slot_of_valid[flush_warp]) begin\n";
    b += "        flush_busy <= 1'b1;\n        flush_slot <= slot_of[flush_warp];\n      end\n";
    b += "      if (act_valid & act_ready) begin\n";
    for s in 0..a {
        b += &format!(
            "        if (free_first[{s}]) begin\n          owner_valid[{s}] <= 1'b1;\n          owner{s} <= act_warp;\n        end\n"
        );
    }
    b += "        slot_of_valid[act_warp] <= 1'b1;\n        slot_of[act_warp] <= free_slot;\n      end\n";
    b += "    end\n  end\n";
    b += "\n  // The values: the written lanes of a hit, every lane of an allocation.\n";
    b += "  always @(posedge clk) begin\n    if (data_we) begin\n";
    for lane in 0..lanes {
        let (hi, lo) = (32 * lane + 31, 32 * lane);
        b += &format!("      if (data_wmask[{lane}]) data[w_idx][{hi}:{lo}] <= wb_data[{hi}:{lo}];\n");
    }
    b += "    end\n  end\n";
    b
}

/// Frees slot `s`: no owner, no valid entry, replacement order reset.
fn free(s: u32, e: u32, rk: u32, indent: &str) -> String {
    let mut t = format!("{indent}owner_valid[{s}] <= 1'b0;\n{indent}slot_of_valid[owner{s}] <= 1'b0;\n");
    for x in 0..e {
        let i = s * e + x;
        t += &format!("{indent}valid[{i}] <= 1'b0;\n{indent}rank{i} <= {};\n", lit(rk, x as u64));
    }
    t
}

/// One replacement-order stage `name`: the entries set in `touched` (at most one per slot)
/// become most recent. Declares and assigns `rank_<name>_<i>` from the previous stage's ranks.
fn touch_stage(
    name: &str,
    touched: &str,
    prev: Option<&str>,
    a: u32,
    e: u32,
    rk: u32,
    rank_of: &dyn Fn(Option<&str>, u32) -> String,
) -> String {
    let mut b = String::new();
    let t = format!("t_{name}");
    b += &vector_wire(&t, a * e);
    b += &format!("  assign {t} = {touched};\n");
    for s in 0..a {
        // The touched entry's rank, and whether the slot has one.
        let any: Vec<String> = (0..e).map(|x| format!("{t}[{}]", s * e + x)).collect();
        let terms: Vec<(String, String)> =
            (0..e).map(|x| (format!("{t}[{}]", s * e + x), rank_of(prev, s * e + x))).collect();
        let at = format!("at_{name}_{s}");
        b += &wire(&at, rk);
        b += &format!("  assign {at} = {};\n", onehot_mux(&terms, rk));
        for x in 0..e {
            let i = s * e + x;
            let r = rank_of(prev, i);
            let out = rank_of(Some(name), i);
            b += &wire(&out, rk);
            b += &format!(
                "  assign {out} = {t}[{i}] ? {} : (({}) & ({r} < {at})) ? {r} + {} : {r};\n",
                lit(rk, 0),
                any.join(" | "),
                lit(rk, 1)
            );
        }
    }
    b
}
