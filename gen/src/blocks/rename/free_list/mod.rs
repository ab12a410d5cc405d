//! A free list of the rename stage (`<prefix>_free_list_<kind>`): one kind's free physical
//! registers. Modelled by `model::blocks::rename::FreeList`.

pub mod interface;

pub use interface::FreeListPorts;

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
    b += &format!("  reg  [{}:0] fifo [0:{}];\n", pb - 1, n - 1);
    b += &reg("head", ib);
    b += &reg("count", cb);
    b += &reg("fresh", cb);
    for name in ["from_fifo", "pop_fifo", "pop_fresh"] {
        b += &wire(name, 1);
    }
    b += &wire("tail", xb);
    b += &wire("first", xb);
    for s in 0..k {
        b += &wire(&format!("pos{s}"), xb);
        b += &wire(&format!("unused_wrap{s}"), xb - ib);
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
    b += "\n  // Pushes land at the tail in slot order: slot s at the first free place plus the valid\n  // slots below s, wrapped.\n";
    b += &format!("  assign tail = {} + {};\n", wide("head", ib), wide("count", cb));
    let wrap = |e: &str| format!("({e} >= {nx}) ? {e} - {nx} : {e}", nx = lit(xb, n as u64));
    b += &format!("  assign first = {};\n", wrap("tail"));
    for s in 0..k {
        let below: Vec<String> = (0..s).map(|j| wide(&format!("push_valid[{j}]"), 1)).collect();
        let rank = if below.is_empty() { String::new() } else { format!(" + {}", below.join(" + ")) };
        b += &format!("  assign pos{s} = first{rank};\n");
        // A wrapped position is below n: its bits above an index are always zero.
        b += &format!("  assign {{unused_wrap{s}, at{s}}} = {};\n", wrap(&format!("pos{s}")));
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
    b += "  always @(posedge clk) begin\n    if (rst) begin\n";
    b += &format!("      head <= {};\n      count <= {};\n      fresh <= {};\n", lit(ib, 0), lit(cb, 0), lit(cb, 0));
    b += "    end else begin\n";
    b += &format!(
        "      if (pop_fifo) head <= (head == {}) ? {} : head + {};\n",
        lit(ib, (n - 1) as u64),
        lit(ib, 0),
        lit(ib, 1)
    );
    b += &format!("      count <= count + {} - {};\n", resize("pushes", 2, cb), resize("pop_fifo", 1, cb));
    b += &format!("      fresh <= fresh + {};\n", resize("pop_fresh", 1, cb));
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
