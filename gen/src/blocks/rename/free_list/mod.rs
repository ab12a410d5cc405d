//! A free list of the rename stage (`<prefix>_free_list_<kind>`): one kind's free physical
//! registers. Modelled by `model::blocks::rename::FreeList`.

pub mod interface;

pub use interface::FreeListPorts;

/// The internal state the rename stage's uniqueness proof reads (`rename.unique`): the FIFO's
/// storage (word `i` is `<FIFO>[i]` once memories are mapped to flip-flops), its head, the
/// number of released registers in it, the registers never handed out so far and the tail (the
/// first free place and the two after it).
pub const FIFO: &str = "fifo";
pub const HEAD: &str = "head";
pub const COUNT: &str = "count";
pub const FRESH: &str = "fresh";
pub const TAILS: [&str; SLOTS_PER_COLLECTOR as usize] = ["tail0", "tail1", "tail2"];

use crate::layout::geometry::{SLOTS_PER_COLLECTOR, index_bits};
use crate::layout::rename::RenameLayout;
use crate::verilog::{Module, Port, Ports, Submodule, lit, reg, resize, slice, wire};

/// One kind's free registers `base .. base + n`: a FIFO of released ones, handed out first, and
/// a counter of those never handed out. Up to three pushes an edge, at the tail in slot order.
pub fn free_list(prefix: &str, l: &RenameLayout, kind: &str, base: u32, n: u32) -> Submodule<FreeListPorts<Port>> {
    let (k, pb) = (SLOTS_PER_COLLECTOR, l.phys_bits());
    let (ib, cb) = (index_bits(n), index_bits(n + 1));
    // Positions are computed one bit wider than an index (they reach 2n - 1 before wrapping).
    let xb = index_bits(2 * n + k);
    let mut b = String::new();
    b += &format!("  reg  [{}:0] {FIFO} [0:{}];\n", pb - 1, n - 1);
    b += &reg(HEAD, ib);
    b += &reg(COUNT, cb);
    b += &reg(FRESH, cb);
    for name in ["from_fifo", "pop_fifo", "pop_fresh"] {
        b += &wire(name, 1);
    }
    // `tail<k>`: the place `k` after the tail (the first free one), wrapped, kept in registers
    // so a push's place is a choice among them and not a sum of the head and the count.
    for t in TAILS {
        b += &reg(t, ib);
    }
    b += &wire("next_tail", ib);
    // Sums one bit wider than an index, wrapped back below `n`: the place after three pushes,
    // and the places after the next tail.
    for t in ["past", "next1", "next2"] {
        b += &wire(&format!("sum_{t}"), xb);
        b += &wire(&format!("unused_{t}"), xb - ib);
        b += &wire(t, ib);
    }
    for s in 0..k {
        b += &wire(&format!("at{s}"), ib);
    }
    b += &wire("pushes", 2);
    let wide = |e: &str, from: u32| resize(e, from, xb);
    b += "\n  // The FIFO's head first, then the next register never handed out.\n";
    b += &format!("  assign from_fifo = count != {};\n", lit(cb, 0));
    b += &format!("  assign head_valid = from_fifo | (fresh != {});\n", lit(cb, n as u64));
    let fresh_id = if base == 0 {
        resize("fresh", cb, pb)
    } else {
        format!("{} + {}", lit(pb, base as u64), resize("fresh", cb, pb))
    };
    b += &format!("  assign head_id = from_fifo ? fifo[head] : {fresh_id};\n");
    b += &format!("  assign free = count + ({} - fresh);\n", lit(cb, n as u64));
    b += "  assign pop_fifo = pop & from_fifo;\n";
    b += &format!("  assign pop_fresh = pop & ~from_fifo & (fresh != {});\n", lit(cb, n as u64));
    b += "\n  // Pushes land at the tail in slot order: slot s at the first free place plus the valid\n  // slots below s.\n";
    for s in 0..k {
        // The place `r` after the tail when `r` valid slots are below `s`, for every `r`.
        let below = (0..s).map(|j| resize(&format!("push_valid[{j}]"), 1, 2)).collect::<Vec<_>>().join(" + ");
        let choice =
            (1..=s).rev().fold("tail0".to_string(), |rest, r| format!("({below} == 2'd{r}) ? tail{r} : {rest}"));
        b += &format!("  assign at{s} = {choice};\n");
    }
    b += &format!(
        "  assign pushes = {};\n",
        (0..k).map(|j| resize(&format!("push_valid[{j}]"), 1, 2)).collect::<Vec<_>>().join(" + ")
    );
    b += "  always @(posedge clk) begin\n";
    for s in 0..k {
        b += &format!("    if (push_valid[{s}]) fifo[at{s}] <= {};\n", slice("push_id", s, pb));
    }
    b += "  end\n";
    // The tail after this edge's pushes, and the places after it (offsets are taken modulo `n`
    // first, so one wrap suffices however small the list).
    let wrap = |e: &str| format!("({e} >= {nx}) ? {e} - {nx} : {e}", nx = lit(xb, n as u64));
    let sum = |name: &str, from: &str, offset: u32| {
        let e = format!("{} + {}", wide(from, ib), lit(xb, (offset % n) as u64));
        format!("  assign sum_{name} = {};\n  assign {{unused_{name}, {name}}} = sum_{name};\n", wrap(&e))
    };
    b += &sum("past", "tail0", k);
    let mut after = "past".to_string();
    for r in (0..k).rev() {
        after = format!("(pushes == 2'd{r}) ? tail{r} : {after}");
    }
    b += &format!("  assign next_tail = {after};\n");
    b += &sum("next1", "next_tail", 1);
    b += &sum("next2", "next_tail", 2);
    b += "  always @(posedge clk) begin\n    if (rst) begin\n";
    b += &format!("      head <= {};\n      count <= {};\n      fresh <= {};\n", lit(ib, 0), lit(cb, 0), lit(cb, 0));
    for t in 0..k {
        b += &format!("      tail{t} <= {};\n", lit(ib, (t % n) as u64));
    }
    b += "    end else begin\n";
    b += &format!(
        "      if (pop_fifo) head <= (head == {}) ? {} : head + {};\n",
        lit(ib, (n - 1) as u64),
        lit(ib, 0),
        lit(ib, 1)
    );
    b += &format!("      count <= count + {} - {};\n", resize("pushes", 2, cb), resize("pop_fifo", 1, cb));
    b += &format!("      fresh <= fresh + {};\n", resize("pop_fresh", 1, cb));
    b += "      tail0 <= next_tail;\n      tail1 <= next1;\n      tail2 <= next2;\n";
    b += "    end\n  end\n";
    let ports = FreeListPorts::new(l, n);
    let module = Module {
        name: format!("{prefix}_free_list_{kind}"),
        doc: vec![
            format!(
                "Free {} physical registers {base}..{}: released ones (FIFO) first, then",
                kind.to_uppercase(),
                base + n - 1
            ),
            "those never handed out. See docs/rename.md.".into(),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}
