//! A free list of the rename stage (`<prefix>_free_list_<kind>`): one kind's free physical
//! registers. Modelled by `model::blocks::rename::FreeList`.

pub mod interface;

pub use interface::FreeListPorts;

/// Released registers wait in a ring of `BANKS × words` places; place `q` is word `q / BANKS` of
/// bank `q mod BANKS`. The places one edge fills are consecutive, so each bank takes at most one
/// write an edge: a memory with one write port, which FPGA tools map to LUT RAM.
pub const BANKS: u32 = SLOTS_PER_COLLECTOR;

/// The internal state the rename stage's uniqueness proof reads (`rename.unique`): each bank's
/// storage (word `i` is `<BANK>[i]` once memories are mapped to flip-flops), the bank holding the
/// head (one-hot) and, per bank, the word of its first place at or after the head; the same for
/// the tail (the first free place); the number of released registers waiting and the registers
/// never handed out so far.
pub const BANK: [&str; BANKS as usize] = ["bank0", "bank1", "bank2"];
pub const HEAD_AT: &str = "head_at";
pub const HEAD_WORD: [&str; BANKS as usize] = ["head_word0", "head_word1", "head_word2"];
pub const TAIL_AT: &str = "tail_at";
pub const TAIL_WORD: [&str; BANKS as usize] = ["tail_word0", "tail_word1", "tail_word2"];
pub const COUNT: &str = "count";
pub const FRESH: &str = "fresh";

use crate::layout::geometry::{SLOTS_PER_COLLECTOR, index_bits};
use crate::layout::rename::RenameLayout;
use crate::verilog::{
    Module, Port, Ports, Submodule, lit, onehot_mux, reg, resize, slice, vector_reg, vector_wire, wire,
};

/// Words per bank for a list of `n` registers: the ring holds all `n` at once.
pub fn bank_words(n: u32) -> u32 {
    n.div_ceil(BANKS)
}

/// A one-hot bank vector rotated up by `r` banks: bit `b` is bit `b - r` (mod BANKS) of `v`.
fn rotate(v: &str, r: u32) -> String {
    if r.is_multiple_of(BANKS) {
        return v.to_string();
    }
    let bits: Vec<String> = (0..BANKS).rev().map(|b| format!("{v}[{}]", (b + BANKS - r % BANKS) % BANKS)).collect();
    format!("{{{}}}", bits.join(", "))
}

/// One kind's free registers `base .. base + n`: the ring of released ones, handed out first,
/// and a counter of those never handed out. Up to three pushes an edge, at the tail in slot order.
pub fn free_list(prefix: &str, l: &RenameLayout, kind: &str, base: u32, n: u32) -> Submodule<FreeListPorts<Port>> {
    let (k, pb) = (SLOTS_PER_COLLECTOR, l.phys_bits());
    let words = bank_words(n);
    let (wb, cb) = (index_bits(words), index_bits(n + 1));
    let mut b = String::new();
    // LUT RAM on an FPGA: its read is combinational from the registered head word, where a
    // block RAM's would take the head's next word through the pop and its clock-to-output.
    for bank in BANK {
        b += &format!("  (* ram_style = \"distributed\" *) reg [{}:0] {bank} [0:{}];\n", pb - 1, words - 1);
    }
    b += &vector_reg(HEAD_AT, BANKS);
    b += &vector_reg(TAIL_AT, BANKS);
    for w in HEAD_WORD.iter().chain(&TAIL_WORD) {
        b += &reg(w, wb);
    }
    b += &reg(COUNT, cb);
    b += &reg(FRESH, cb);
    for name in ["from_fifo", "pop_fifo", "pop_fresh"] {
        b += &wire(name, 1);
    }
    b += &wire("fifo_head", pb);
    b += &wire("pushes", 2);
    b += &vector_wire("bank_we", BANKS);
    for s in 0..k {
        b += &vector_wire(&format!("slot{s}_bank"), BANKS);
    }
    for bank in 0..BANKS {
        b += &wire(&format!("bank{bank}_data"), pb);
    }
    let next_word =
        |w: &str| format!("({w} == {}) ? {} : {w} + {}", lit(wb, (words - 1) as u64), lit(wb, 0), lit(wb, 1));

    b += "\n  // The ring's head first, then the next register never handed out.\n";
    b += &format!("  assign from_fifo = count != {};\n", lit(cb, 0));
    let heads: Vec<(String, String)> = (0..BANKS)
        .map(|x| (format!("{HEAD_AT}[{x}]"), format!("{}[{}]", BANK[x as usize], HEAD_WORD[x as usize])))
        .collect();
    b += &format!("  assign fifo_head = {};\n", onehot_mux(&heads, pb));
    b += &format!("  assign head_valid = from_fifo | (fresh != {});\n", lit(cb, n as u64));
    let fresh_id = if base == 0 {
        resize("fresh", cb, pb)
    } else {
        format!("{} + {}", lit(pb, base as u64), resize("fresh", cb, pb))
    };
    b += &format!("  assign head_id = from_fifo ? fifo_head : {fresh_id};\n");
    b += &format!("  assign free = count + ({} - fresh);\n", lit(cb, n as u64));
    b += "  assign pop_fifo = pop & from_fifo;\n";
    b += &format!("  assign pop_fresh = pop & ~from_fifo & (fresh != {});\n", lit(cb, n as u64));

    b += "\n  // Pushes fill the places from the tail in slot order: slot s goes to the bank the tail's\n";
    b += "  // is rotated by the valid slots below s.\n";
    for s in 0..k {
        let below = (0..s).map(|j| resize(&format!("push_valid[{j}]"), 1, 2)).collect::<Vec<_>>().join(" + ");
        let choice = (1..=s)
            .rev()
            .fold(TAIL_AT.to_string(), |rest, r| format!("({below} == 2'd{r}) ? {} : {rest}", rotate(TAIL_AT, r)));
        b += &format!("  assign slot{s}_bank = {choice};\n");
    }
    b += &format!(
        "  assign pushes = {};\n",
        (0..k).map(|j| resize(&format!("push_valid[{j}]"), 1, 2)).collect::<Vec<_>>().join(" + ")
    );
    for bank in 0..BANKS {
        let to_me = |s: u32| format!("push_valid[{s}] & slot{s}_bank[{bank}]");
        b += &format!("  assign bank_we[{bank}] = {};\n", (0..k).map(to_me).collect::<Vec<_>>().join(" | "));
        let terms: Vec<(String, String)> =
            (0..k).map(|s| (format!("({})", to_me(s)), slice("push_id", s, pb))).collect();
        b += &format!("  assign bank{bank}_data = {};\n", onehot_mux(&terms, pb));
    }
    b += "  always @(posedge clk) begin\n";
    for bank in 0..BANKS as usize {
        b += &format!("    if (bank_we[{bank}]) {}[{}] <= bank{bank}_data;\n", BANK[bank], TAIL_WORD[bank]);
    }
    b += "  end\n";

    b += "  always @(posedge clk) begin\n    if (rst) begin\n";
    b += &format!("      {HEAD_AT} <= {};\n      {TAIL_AT} <= {};\n", lit(BANKS, 1), lit(BANKS, 1));
    for w in HEAD_WORD.iter().chain(&TAIL_WORD) {
        b += &format!("      {w} <= {};\n", lit(wb, 0));
    }
    b += &format!("      count <= {};\n      fresh <= {};\n", lit(cb, 0), lit(cb, 0));
    b += "    end else begin\n";
    b += &format!("      if (pop_fifo) {HEAD_AT} <= {};\n", rotate(HEAD_AT, 1));
    for bank in 0..BANKS as usize {
        let (h, t) = (HEAD_WORD[bank], TAIL_WORD[bank]);
        b += &format!("      if (pop_fifo & {HEAD_AT}[{bank}]) {h} <= {};\n", next_word(h));
        b += &format!("      if (bank_we[{bank}]) {t} <= {};\n", next_word(t));
    }
    b += &format!(
        "      {TAIL_AT} <= (pushes == 2'd1) ? {} : (pushes == 2'd2) ? {} : {TAIL_AT};\n",
        rotate(TAIL_AT, 1),
        rotate(TAIL_AT, 2)
    );
    b += &format!("      count <= count + {} - {};\n", resize("pushes", 2, cb), resize("pop_fifo", 1, cb));
    b += &format!("      fresh <= fresh + {};\n", resize("pop_fresh", 1, cb));
    b += "    end\n  end\n";
    let ports = FreeListPorts::new(l, n);
    let module = Module {
        name: format!("{prefix}_free_list_{kind}"),
        doc: vec![
            format!(
                "Free {} physical registers {base}..{}: released ones (a ring in {BANKS} banks of {words} words)",
                kind.to_uppercase(),
                base + n - 1
            ),
            "first, then those never handed out. See docs/rename.md.".into(),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}
