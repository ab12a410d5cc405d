//! Harness of the rename stage: every input free in every cycle, reset at step 0 and whenever
//! the free `rst_any` says, one watched physical register (any one: a free constant) and whether
//! it is handed out and not released since. The watched register must be, at every step, either
//! free — exactly once, in its kind's free list — or out; the induction reads the free lists'
//! state. Per kind, counts of the registers out stand in for the others.

use super::{Harness, PROBES_DEFINE, Probe, Proof, RENAME_UNIQUE, free_running, module_head};
use crate::blocks::rename::interface::RenamePorts;
use crate::blocks::rename::{
    FREE_BANK, FREE_BANKS, FREE_COUNT, FREE_FRESH, FREE_HEAD_AT, FREE_HEAD_WORD, FREE_TAIL_AT, FREE_TAIL_WORD,
    FreeListKind, bank_words, free_lists, modules,
};
use crate::layout::geometry::{SLOTS_PER_COLLECTOR, index_bits};
use crate::layout::rename::RenameLayout;
use crate::verilog::{Sig, Submodule, lit, resize, slice};

/// The invariant is closed under one edge; the bounded check from reset needs a few steps to
/// hand registers out and release them again, and more only costs time on the full-size stage.
const UNIQUE_DEPTH: u32 = 6;

pub fn harnesses(prefix: &str, l: &RenameLayout, depth: u32) -> Vec<Harness> {
    let ports = RenamePorts::new(l);
    let mut mods = modules(prefix, l);
    let sources: Vec<String> = mods.iter().map(|m| format!("{}.v", m.name)).collect();
    let dut = Submodule { module: mods.pop().expect("the stage's top"), ports: ports.clone() };
    let top = format!("{prefix}_prove_rename_unique");
    let (k, pb, phys) = (SLOTS_PER_COLLECTOR, l.phys_bits(), l.phys);
    let mut b = module_head(&top, RENAME_UNIQUE.statement);
    b += &free_running(&dut, &ports.map(|p| Sig::new(p.name.clone(), p.width)));

    // One watched register, any one, the same at every step: the property is proved for each
    // register at once, and the harness grows with the registers, not with their square.
    let hi = pb - 1;
    b += "\n  // The watched register, and whether it is handed out and not released since.\n";
    b += &format!("  (* anyconst *) reg [{hi}:0] watch;\n");
    b += &format!("  always @* assume({});\n", in_range(pb, "watch", phys));
    b += "  reg used = 1'b0;\n";
    b += "  wire hand = ren_valid && ren_dst_new && ren_ready;\n";
    b += "  wire taken = hand && ren_dst_phys == watch;\n";
    let rel = |s: u32| slice("rel_phys", s, pb);
    let returned: Vec<String> = (0..k).map(|s| format!("(rel_valid[{s}] && {} == watch)", rel(s))).collect();
    b += &format!("  wire returned = {};\n", returned.join(" || "));
    b += "  always @(posedge clk) used <= rst ? 1'b0 : (used && !returned) || taken;\n";

    // Per kind, how many of its registers are handed out and not released since; a reset
    // empties the count as it frees every register.
    let sb = index_bits(phys + 1) + 1;
    let of_kind = |e: &str, f: &FreeListKind| {
        let e = resize(e, pb, pb + 1);
        format!("{e} >= {} && {e} < {}", lit(pb + 1, f.base as u64), lit(pb + 1, (f.base + f.n) as u64))
    };
    for f in free_lists(l) {
        let kind = f.kind;
        let back: Vec<String> =
            (0..k).map(|s| resize(&format!("(rel_valid[{s}] && {})", of_kind(&rel(s), &f)), 1, sb)).collect();
        b += &format!("  reg [{}:0] {kind}_in_use = {};\n", sb - 1, lit(sb, 0));
        b += &format!(
            "  wire [{}:0] {kind}_out = {};\n",
            sb - 1,
            resize(&format!("(hand && {})", of_kind("ren_dst_phys", &f)), 1, sb)
        );
        b += &format!("  wire [{}:0] {kind}_back = {};\n", sb - 1, back.join(" + "));
        b += &format!(
            "  always @(posedge clk) {kind}_in_use <= rst ? {} : {kind}_in_use + {kind}_out - {kind}_back;\n",
            lit(sb, 0)
        );
    }
    b += "\n  // The interface's contract: a release names a register handed out at an earlier edge and\n";
    b += "  // not released since, and the slots of one edge name different registers. Of the watched\n";
    b += "  // register that is said as it is; of the others, as counts: no more of a kind come back\n";
    b += "  // than are out.\n";
    b += "  always @* assume(!returned || used);\n";
    for f in free_lists(l) {
        b += &format!("  always @* assume({0}_back <= {0}_in_use);\n", f.kind);
    }
    for s in 0..k {
        b += &format!("  always @* assume(!rel_valid[{s}] || {});\n", in_range(pb, &rel(s), phys));
        for t in s + 1..k {
            b += &format!("  always @* assume(!(rel_valid[{s}] && rel_valid[{t}] && {} == {}));\n", rel(s), rel(t));
        }
    }

    // At the ports: a register handed out exists and the watched one is not handed out while in
    // use; each kind's free count and its registers out add up to its registers; the stage takes
    // a rename whenever one is not in use.
    let cb = l.count_bits();
    let in_use: Vec<String> = free_lists(l).iter().map(|f| format!("{}_in_use", f.kind)).collect();
    b += "\n  always @* if (!init) begin\n";
    b += &format!("    if (hand) assert({});\n", in_range(pb, "ren_dst_phys", phys));
    b += "    assert(!(taken && used));\n";
    // Per kind: the induction needs each kind's sum, not only the global one.
    for f in free_lists(l) {
        b += &format!(
            "    assert({} + {}_in_use == {});\n",
            resize(&format!("{}_free", f.kind), cb, sb),
            f.kind,
            lit(sb, f.n as u64)
        );
    }
    b += &format!("    assert(ren_ready == ({} != {}));\n", in_use.join(" + "), lit(sb, phys as u64));
    b += "  end\n";

    // The induction's invariant, over each free list's state.
    let mut probes = Vec::new();
    b += &format!("\n`ifdef {PROBES_DEFINE}\n");
    for f in free_lists(l) {
        b += &list_invariant(&f, pb, &mut probes);
    }
    b += "`endif\nendmodule\n";
    vec![Harness {
        property: RENAME_UNIQUE,
        part: String::new(),
        top,
        text: b,
        sources,
        proof: Proof::Induction { depth: depth.min(UNIQUE_DEPTH) },
        probes,
    }]
}

/// `e`, `pb` bits wide, names one of the `phys` registers.
fn in_range(pb: u32, e: &str, phys: u32) -> String {
    format!("{} < {}", resize(e, pb, pb + 1), lit(pb + 1, phys as u64))
}

/// A free list's ring, over its registers alone: `fresh` and the head's and tail's banks and
/// words in range (the banks one-hot), each bank's head and tail words those of its first place
/// at or after the head's and the tail's places; with releases only of registers handed out,
/// also `count` at most `fresh` and the two places `count` apart. `state` names the list's
/// registers (probes in the harness, its own names in the module).
struct Ring {
    /// Width of the place arithmetic, wide enough for two places' sum.
    w: u32,
    /// The head place, the count and the registers never handed out, `w` bits each.
    h: String,
    c: String,
    fr: String,
    /// What holds whatever is released: each register in its range, and the places the
    /// registers name consistent.
    ranges: Vec<String>,
    places: Vec<String>,
    /// What holds while every release is of a register handed out (the stage's contract).
    counted: Vec<String>,
}

fn ring(f: &FreeListKind, state: &dyn Fn(&str) -> String) -> Ring {
    let (words, banks) = (bank_words(f.n), FREE_BANKS);
    let places = words * banks;
    let (wb, cb) = (index_bits(words), index_bits(f.n + 1));
    let w = index_bits(2 * places + banks) + 1;
    let (c, fr) = (resize(&state(FREE_COUNT), cb, w), resize(&state(FREE_FRESH), cb, w));
    let nn = lit(w, places as u64);
    let wrap = |e: &str| format!("(({e}) >= {nn} ? ({e}) - {nn} : ({e}))");
    // The place of bank `bank`'s word `word`.
    let place =
        |word: &str, bank: u32| format!("{} * {} + {}", lit(w, banks as u64), resize(word, wb, w), lit(w, bank as u64));
    let (mut ranges, mut places) = (vec![format!("{fr} <= {}", lit(w, f.n as u64))], Vec::new());
    let mut ends = Vec::new();
    for (at, ws) in [(state(FREE_HEAD_AT), &FREE_HEAD_WORD), (state(FREE_TAIL_AT), &FREE_TAIL_WORD)] {
        let ws: Vec<String> = ws.iter().map(|x| state(x)).collect();
        let onehot: Vec<String> = (0..banks).map(|k| format!("{at} == {}", lit(banks, 1 << k))).collect();
        ranges.push(onehot.join(" || "));
        let end =
            (0..banks).rev().fold(lit(w, 0), |rest, k| format!("({at}[{k}] ? {} : {rest})", place(&ws[k as usize], k)));
        for (k, word) in ws.iter().enumerate() {
            let k = k as u32;
            ranges.push(format!("{} < {}", resize(word, wb, w), lit(w, words as u64)));
            // Bank k's first place at or after `end`: `end` plus the banks from `end`'s to k.
            let ahead = (1..banks).rev().fold(lit(w, 0), |rest, d| {
                format!("{at}[{}] ? {} : ({rest})", (k + banks - d) % banks, lit(w, d as u64))
            });
            places.push(format!("{} == {}", place(word, k), wrap(&format!("{end} + ({ahead})"))));
        }
        ends.push(end);
    }
    let (h, t0) = (ends[0].clone(), &ends[1]);
    let counted = vec![format!("{c} <= {fr}"), format!("{t0} == {}", wrap(&format!("{h} + {c}")))];
    Ring { w, h, c, fr, ranges, places, counted }
}

/// What holds of each free list's registers in every state it reaches from reset, whatever is
/// released, over the list module's own names: its registers in their ranges (`rfgen mutate`
/// proves them with an edit of the list, its inputs free: a word counter's wrap compared where
/// only words in range reach it; the places' arithmetic would only slow its induction).
pub fn invariants(prefix: &str, l: &RenameLayout) -> Vec<(String, Vec<String>)> {
    free_lists(l)
        .iter()
        .map(|f| (format!("{prefix}_free_list_{}", f.kind), ring(f, &|s: &str| s.to_string()).ranges))
        .collect()
}

/// One free list's invariant: its ring ([`ring`]), its released registers (`count` places from
/// the head) all of its kind, and the watched register, if of its kind, in exactly one place:
/// the ring's live places, the registers never handed out (`fresh` and above), or out.
fn list_invariant(f: &FreeListKind, pb: u32, probes: &mut Vec<Probe>) -> String {
    let (kind, base, n) = (f.kind, f.base, f.n);
    let (words, banks) = (bank_words(n), FREE_BANKS);
    let places = words * banks;
    let (wb, cb) = (index_bits(words), index_bits(n + 1));
    let mut b = format!("  // The {} free list: registers {base}..{}.\n", kind.to_uppercase(), base + n - 1);
    let mut probe = |name: &str, signal: &str, width: u32, b: &mut String| {
        let wire = format!("probe_{kind}_{name}");
        *b += &format!("  (* keep *) wire [{}:0] {wire};\n", width - 1);
        probes.push(Probe { wire: wire.clone(), path: format!("dut.{}.{signal}", f.instance()), bits: None });
        wire
    };
    let mut state: Vec<(&str, String)> = vec![
        (FREE_COUNT, probe("count", FREE_COUNT, cb, &mut b)),
        (FREE_FRESH, probe("fresh", FREE_FRESH, cb, &mut b)),
        (FREE_HEAD_AT, probe("head_at", FREE_HEAD_AT, banks, &mut b)),
        (FREE_TAIL_AT, probe("tail_at", FREE_TAIL_AT, banks, &mut b)),
    ];
    for x in FREE_HEAD_WORD.iter().chain(&FREE_TAIL_WORD) {
        state.push((x, probe(x, x, wb, &mut b)));
    }
    // Place `i` is word `i / banks` of bank `i mod banks`.
    let fifo: Vec<String> = (0..places)
        .map(|i| {
            let bank = FREE_BANK[(i % banks) as usize];
            probe(&format!("{bank}_{}", i / banks), &format!("{bank}[{}]", i / banks), pb, &mut b)
        })
        .collect();
    let named = |s: &str| state.iter().find(|(n, _)| *n == s).map(|(_, p)| p.clone()).expect("a probed register");
    let Ring { w, h, c, fr, ranges, places: consistent, counted } = ring(f, &named);
    let mut holds: Vec<String> = ranges.into_iter().chain(consistent).chain(counted).collect();
    let x = |name: &str| format!("{kind}_{name}");
    for (name, e) in [(x("h"), &h), (x("c"), &c), (x("f"), &fr)] {
        b += &format!("  wire [{}:0] {name} = {e};\n", w - 1);
    }
    let (h, c, fr) = (x("h"), x("c"), x("f"));
    // A place is live when it is fewer than `count` places after the head: at or after the head
    // and before its end `head + count`, or, past the ring's wrap, before `end - places`. Each
    // place compares its constant index with the two sums, where its own subtraction would give
    // the solver a thousand adders at full size.
    let end = x("end");
    b += &format!("  wire [{}:0] {end} = {h} + {c};\n", w - 1);
    let live: Vec<String> = (0..places).map(|i| format!("{kind}_live_{i}")).collect();
    for (i, name) in live.iter().enumerate() {
        let (iw, wrapped) = (lit(w, i as u64), lit(w, i as u64 + places as u64));
        b += &format!("  wire {name} = ({h} <= {iw} && {iw} < {end}) || {wrapped} < {end};\n");
        let id = resize(&fifo[i], pb, pb + 1);
        holds.push(format!(
            "!{name} || ({id} >= {} && {id} < {})",
            lit(pb + 1, base as u64),
            lit(pb + 1, (base + n) as u64)
        ));
    }
    // The watched register, when of this kind: in one live place, or never handed out (`fresh`
    // at or below it), or out. "Exactly one" as a ladder (seen somewhere, and nowhere after a
    // place it was seen at), not a sum: one OR and one AND per place, no chain of adders.
    let wi = w.max(pb + 1);
    let watched = resize("watch", pb, wi);
    let mine = format!("{watched} >= {} && {watched} < {}", lit(wi, base as u64), lit(wi, (base + n) as u64));
    let mut places_of_watch: Vec<String> =
        (0..places as usize).map(|i| format!("({} && {} == watch)", live[i], fifo[i])).collect();
    places_of_watch.push(format!("({} <= {watched} - {})", resize(&fr, w, wi), lit(wi, base as u64)));
    places_of_watch.push("used".into());
    let (seen, twice) = (format!("{kind}_seen"), format!("{kind}_twice"));
    let m = places_of_watch.len();
    b += &format!("  wire [{}:0] {seen};\n  wire [{}:0] {twice};\n", m - 1, m - 1);
    for (i, at) in places_of_watch.iter().enumerate() {
        let before = if i == 0 { "1'b0".to_string() } else { format!("{seen}[{}]", i - 1) };
        b += &format!("  assign {seen}[{i}] = {before} || {at};\n");
        b += &format!("  assign {twice}[{i}] = {before} && {at};\n");
    }
    holds.push(format!("!({mine}) || ({seen}[{}] && {twice} == {})", m - 1, lit(m as u32, 0)));
    b += "  always @* if (!init) begin\n";
    for a in holds {
        b += &format!("    assert({a});\n");
    }
    b += "  end\n";
    b
}
