//! The seeded RTL bugs of every block's tests, declared once: each block's own test catches its
//! mutants in the block alone, and `tests/composed_mutants.rs` re-runs every one of them inside
//! the composed top (`<prefix>_sm_rf`) under kernel traffic.

use super::*;
use rfgen_gen::config::{SchedulerPolicy, WarPolicy};

/// One seeded bug: every occurrence of `from` in the generated file `file` becomes `to`.
pub struct Mutant {
    pub name: &'static str,
    pub file: &'static str,
    pub from: &'static str,
    pub to: &'static str,
}

const fn m(name: &'static str, file: &'static str, from: &'static str, to: &'static str) -> Mutant {
    Mutant { name, file, from, to }
}

impl Mutant {
    /// `design` with this bug in it.
    pub fn apply(&self, design: &Design) -> Design {
        mutated(design.clone(), self.file, self.from, self.to, self.name)
    }
}

/// Mutants of one block on one design point.
pub struct Family {
    /// The block the mutants are in, as `--block` names it.
    pub block: &'static str,
    /// The small design point they apply to (its name prefixes the mutated files).
    pub config: fn() -> Checked,
    pub mutants: &'static [Mutant],
}

fn warpboard(policy: WarPolicy) -> Checked {
    let mut c = rfgen_gen::config::parse(WARPBOARD_SMALL).unwrap();
    c.config.warpboard.policy = policy;
    c
}

fn scheduler(policy: SchedulerPolicy) -> Checked {
    let mut c = rfgen_gen::config::parse(SCHEDULER_SMALL).unwrap();
    c.config.scheduler.policy = policy;
    c
}

/// For the `small` config: 2 clusters of 4 lanes, 2 bank groups, 16 rows, 2 collectors.
pub const MRF: &[Mutant] = &[
    m(
        "inverted arbitration priority",
        "small_rr_arbiter_6.v",
        "assign grant = (|upper) ? upper_first : any_first;",
        "assign grant = (|upper) ? any_first : upper_first;",
    ),
    m("off-by-one read row", "small_mrf_bank_group.v", "(rd_row)", "(rd_row + 4'd1)"),
    m("wrong bank for operand slot 1", "small_mrf.v", "(slot_group[1] == 1'd0)", "(slot_group[1] == 1'd1)"),
    m("dropped lane 2 of the write mask", "small_sram_1r1w_16x128.v", "if (wr_mask[2])", "if (1'b0)"),
    m(
        "dispatch one cycle early",
        "small_operand_collector.v",
        "assign ready = busy & ~(|pending) & ~(|inflight);",
        "assign ready = busy & ~(|pending);",
    ),
    m(
        "write-first bank instead of read-first",
        "small_sram_1r1w_16x128.v",
        "if (rd_en) rd_data <= mem[rd_addr];",
        "if (rd_en) rd_data <= (wr_en && wr_addr == rd_addr && wr_mask == 4'hf) ? wr_data : mem[rd_addr];",
    ),
    m(
        "issue into the highest free collector",
        "small_mrf.v",
        "assign cu_alloc = {2{issue_valid}} & alloc_first;",
        "assign cu_alloc = {2{issue_valid}} & (cu_busy[0] ? 2'b01 : 2'b10) & free;",
    ),
    m(
        "dispatch offer not held while refused",
        "small_rr_arbiter_2.v",
        "ptr <= advance ? next_idx : grant_idx;",
        "ptr <= next_idx;",
    ),
];

/// For the compressed `csmall` config: 8 lanes in 4 clusters, all seven modes, 2-cycle
/// compressor, 1-cycle decompressor, 3-cycle wake-up, 2 bank groups of 16 rows.
pub const COMPRESSED_MRF: &[Mutant] = &[
    m(
        "sign-extension check one bit short (<4,1> accepts deltas up to 255)",
        "csmall_compressor.v",
        "(&d4[31:7]) | ~(|d4[31:7])",
        "(&d4[31:8]) | ~(|d4[31:8])",
    ),
    m(
        "wrong mode priority: <8,0> no longer wins over <4,1>",
        "csmall_compressor.v",
        "assign sel[1] = ~s1_bypass & s1_fit[1] & ~s1_fit[0] & ~s1_fit[3];",
        "assign sel[1] = ~s1_bypass & s1_fit[1] & ~s1_fit[0];",
    ),
    m(
        "wrong chunk order: deltas 1 and 2 swapped in the <4,1> payload",
        "csmall_compressor.v",
        "s1_lo4[23:16], s1_lo4[7:0], s1_data[31:0]",
        "s1_lo4[7:0], s1_lo4[23:16], s1_data[31:0]",
    ),
    m(
        "decompressor does not sign-extend <4,1> deltas",
        "csmall_decompressor.v",
        "{{24{in_chunks[39]}}, in_chunks[39:32]}",
        "{{24{1'b0}}, in_chunks[39:32]}",
    ),
    m("wake-up counter off by one", "csmall_bank_power.v", "timer3 <= 2'd3;", "timer3 <= 2'd2;"),
    m(
        "no dummy MOV before a partial write to a compressed register",
        "csmall_mrf_write_port.v",
        "assign need_mov = head_valid & s2_partial & head_compressed;",
        "assign need_mov = 1'b0;",
    ),
    m(
        "reads enable every bank, not only those holding chunks",
        "csmall_mrf_bank_group.v",
        "assign bank_rd_en = {4{grant_valid | mov_rd}} & rd_occ;",
        "assign bank_rd_en = {4{grant_valid | mov_rd}};",
    ),
    m(
        "a finished warp's registers stay valid (its banks are never gated)",
        "csmall_range_table.v",
        "valid <= valid & ~free_rows;",
        "valid <= valid;",
    ),
    m(
        "bank 3's entries counted without their valid bits (invalid registers keep it on)",
        "csmall_range_table.v",
        "assign holds3[r] = valid[r] &",
        "assign holds3[r] =",
    ),
    m("a freed warp's rows run one row into the next warp's", "csmall_mrf.v", "(ROW < free_hi)", "(ROW <= free_hi)"),
    m(
        "range indicator not registered with the bank read",
        "csmall_mrf_bank_group.v",
        ".in_ri     (fetch_ri)",
        ".in_ri     (rd_ri)",
    ),
    m(
        "dummy MOV read does not hold off the operand slots",
        "csmall_mrf_bank_group.v",
        "assign req = slot_req & {6{~mov_rd}};",
        "assign req = slot_req;",
    ),
];

/// For `csmall` too: bugs that only the compressed random stimulus' corners reach — every mode
/// beside an empty bank, one bit off fitting, a bank group emptied and woken. Kept out of the
/// composed top's families: no kernel on that design point writes their values.
pub const COMPRESSED_MRF_CORNERS: &[Mutant] = &[
    m(
        "bank 3 counted busy for <8,0> registers (the range table reads code 5 for 4)",
        "csmall_range_table.v",
        "(ri[r] == 3'd3) | (ri[r] == 3'd4)",
        "(ri[r] == 3'd3) | (ri[r] == 3'd5)",
    ),
    m(
        "<4,0> fit check blind to bit 13 of value 2's difference",
        "csmall_compressor.v",
        "assign ok4_0[1] = ~(|d4[63:32]);",
        "assign ok4_0[1] = ~(|d4[63:46]) & ~(|d4[44:32]);",
    ),
    m("first bank wakes in one cycle, not three", "csmall_bank_power.v", "timer0 <= 2'd3;", "timer0 <= 2'd1;"),
];

/// The compressed MRF's power gating with a gating delay (`conegroup`).
pub const GATING_DELAY: &[Mutant] =
    &[m("gating delay one edge short", "conegroup_bank_power.v", "(idle2 == 2'd3)", "(idle2 == 2'd2)")];

/// The issue stage (`ismall`): each family a scheduler and warpboard the mutant needs.
const ISSUE_GTO_BLOOM2: &[Mutant] = &[
    m(
        "greedy warp not kept",
        "ismall_scheduler.v",
        "assign keep = last_valid & eligible[last_warp];",
        "assign keep = 1'b0;",
    ),
    m(
        "bloom counter saturating early (bloom2 at 2)",
        "ismall_warpboard.v",
        "assign capped = (up > 3'd3) ? 2'd3 : up[1:0];",
        "assign capped = (up > 3'd2) ? 2'd2 : up[1:0];",
    ),
];
const ISSUE_TWO_LEVEL_ON_READ: &[Mutant] = &[
    m("refill order", "ismall_scheduler.v", "refill_from <= refill_next;", "refill_from <= 3'd0;"),
    m(
        "release-on-read released at the issue instead of the leave",
        "ismall_warpboard.v",
        "assign released = {6{lv_valid}} & (6'd1 << lv_warp);",
        "assign released = {6{iss_valid}} & (6'd1 << iss_warp);",
    ),
];
const ISSUE_LRR_NONE: &[Mutant] = &[
    m(
        "scoreboard bit cleared early (at the next edge, not at the write-back)",
        "ismall_scoreboard.v",
        "pending <= (pending & ~clr_regs) | set_regs;",
        "pending <= set_regs;",
    ),
    // Caught only because absent operands' fields carry noise in the random stimulus.
    m(
        "an absent third source counts when its register field is 4 or more",
        "ismall_issue.v",
        "({8{next_src_valid[3*w+2]}} &",
        "({8{next_src_valid[3*w+2] | next_src_reg[3*(3*w+2)+2]}} &",
    ),
    // Caught only because the random stimulus releases any pending register, not the lowest.
    m(
        "a release is lost while the warp's register below it is pending",
        "ismall_scoreboard.v",
        "pending <= (pending & ~clr_regs) | set_regs;",
        "pending <= (pending & ~(clr_regs & (~(pending << 1) | 48'h010101010101))) | set_regs;",
    ),
];
const ISSUE_LRR_BLOOM_N: &[Mutant] = &[m(
    "the bloomboard check ignores the destination",
    "ismall_issue.v",
    "assign writes = next_dst_valid[w] & (dst_group == BIN);",
    "assign writes = 1'b0;",
)];
const ISSUE_GTO_ON_COMMIT: &[Mutant] = &[
    m(
        "control instructions wait for a collector",
        "ismall_issue.v",
        "(collector_ready | next_control[w])",
        "(collector_ready)",
    ),
    // Escaped a 200-mutant campaign until the random stimulus read the predicates its warps
    // have pending: warp 0's predicate 1 released at the edge after its reservation.
    m(
        "one predicate's pending bit released at the next edge",
        "ismall_scoreboard.v",
        "pending_preds <= (pending_preds & ~clr_preds) | set_preds;",
        "pending_preds <= (pending_preds & ~(clr_preds | 48'd2)) | set_preds;",
    ),
];

/// The warp scheduler alone (`ssmall`), by policy.
const SCHEDULER_GTO: &[Mutant] = &[
    m(
        "greedy warp not kept (GTO always takes the oldest)",
        "ssmall_scheduler.v",
        "assign keep = last_valid & eligible[last_warp];",
        "assign keep = 1'b0;",
    ),
    m(
        "launch not learnt (GTO age stays slot order)",
        "ssmall_scheduler.v",
        "else first[b*(b-1)/2+a] <= launch[b] | (first[b*(b-1)/2+a] & ~launch[a]);",
        "else first[b*(b-1)/2+a] <= first[b*(b-1)/2+a];",
    ),
];
const SCHEDULER_TWO_LEVEL: &[Mutant] = &[
    m(
        "refill order (two-level refills from slot 0 every time)",
        "ssmall_scheduler.v",
        "refill_from <= refill_next;",
        "refill_from <= 3'd0;",
    ),
    m(
        "finished warp kept in the active set",
        "ssmall_scheduler.v",
        "!(grant_last && pick_valid",
        "!(1'b0 && pick_valid",
    ),
];
const SCHEDULER_LRR: &[Mutant] = &[m(
    "LRR starts at the last issuer instead of after it",
    "ssmall_scheduler.v",
    "(last_warp < 3'd",
    "(last_warp <= 3'd",
)];

/// The scoreboard alone (`ssmall`).
pub const SCOREBOARD: &[Mutant] = &[
    m(
        "scoreboard bit lost: a reservation made while a release commits is dropped",
        "ssmall_scoreboard.v",
        "pending <= (pending & ~clr_regs) | set_regs;",
        "pending <= clr_valid ? (pending & ~clr_regs) : (pending | set_regs);",
    ),
    m("a register released by another warp's write-back", "ssmall_scoreboard.v", "clr_warp} * ", "set_warp} * "),
    m(
        "long-latency bit never released",
        "ssmall_scoreboard.v",
        "long_pending <= (long_pending & ~clr_regs) | set_longs;",
        "long_pending <= long_pending | set_longs;",
    ),
    m(
        "predicate results never released",
        "ssmall_scoreboard.v",
        "pending_preds <= (pending_preds & ~clr_preds) | set_preds;",
        "pending_preds <= pending_preds | set_preds;",
    ),
];

/// The warpboard alone (`wsmall`), by policy.
const WARPBOARD_BLOOM2: &[Mutant] = &[
    m(
        "bloom2 counter saturating early (at 2)",
        "wsmall_warpboard.v",
        "assign capped = (up > 3'd3) ? 2'd3 : up[1:0];",
        "assign capped = (up > 3'd2) ? 2'd2 : up[1:0];",
    ),
    // These two are caught only because the random stimulus now and then issues past the check.
    m(
        "bloom2 counter wrapping past 3 instead of saturating",
        "wsmall_warpboard.v",
        "assign capped = (up > 3'd3) ? 2'd3 : up[1:0];",
        "assign capped = up[1:0];",
    ),
    m(
        "bloom2 counter wrapping below 0 instead of stopping there",
        "wsmall_warpboard.v",
        "<= (capped > down) ? capped - down : 2'd0;",
        "<= capped - down;",
    ),
];
const WARPBOARD_ON_READ: &[Mutant] = &[m(
    "release-on-read released at the issue instead of the leave",
    "wsmall_warpboard.v",
    "assign released = {6{lv_valid}} & (6'd1 << lv_warp);",
    "assign released = {6{iss_valid}} & (6'd1 << iss_warp);",
)];
const WARPBOARD_ON_COMMIT: &[Mutant] = &[m(
    "release-on-commit keeps the bit on commit",
    "wsmall_warpboard.v",
    "assign released = commit;",
    "assign released = 6'd0;",
)];
const WARPBOARD_BLOOM1: &[Mutant] = &[m(
    "bloom1 mark not cleared when the reader leaves",
    "wsmall_warpboard.v",
    " & ~(lv_here[w] & (|lv_count[2*b +: 2]))",
    "",
)];
const WARPBOARD_BLOOM_N: &[Mutant] = &[m(
    "bloomN drops the third source of an instruction",
    "wsmall_warpboard.v",
    "(iss_valid & iss_src_valid[2]",
    "(1'b0 & iss_src_valid[2]",
)];

/// The register file cache (`rsmall`: 3-entry LRU cache, liveness, two slots).
pub const RFC: &[Mutant] = &[
    m(
        "wrong victim: the most recent entry instead of the oldest",
        "rsmall_rfc.v",
        "(rank_r2_0 == 2'd2)",
        "(rank_r2_0 == 2'd0)",
    ),
    m(
        "dirty bit lost on allocation",
        "rsmall_rfc.v",
        "        tag0 <= wb_reg;\n        dirty[0] <= 1'b1;",
        "        tag0 <= wb_reg;\n        dirty[0] <= 1'b0;",
    ),
    m(
        "dead entry written back on eviction",
        "rsmall_rfc.v",
        "assign evict_new = alloc & (|(victim & valid & dirty & ~dead_r));",
        "assign evict_new = alloc & (|(victim & valid & dirty));",
    ),
    m(
        "bypass rule inverted: long-latency results allocated, short ones bypassed",
        "rsmall_rfc.v",
        "& ~wb_long & (&wb_mask)",
        "& wb_long & (&wb_mask)",
    ),
    m(
        "flush skips entries: the slot is freed after the first write-back",
        "rsmall_rfc.v",
        "assign fl_done = flush_busy & ~fl_more & (~fl_any | ~evict_valid);",
        "assign fl_done = flush_busy & (~fl_any | ~evict_valid);",
    ),
    m(
        "read hits do not refresh the LRU order",
        "rsmall_rfc.v",
        "assign t_r0 = ({6{rd_fire}} & rd_match0);",
        "assign t_r0 = 6'd0;",
    ),
];

/// The cache in front of a compressed MRF (`rcsmall`): the write port may refuse what the cache
/// sends, and registers on their way to the banks must not be read from them.
pub const RFC_COMPRESSED: &[Mutant] = &[
    m(
        "reads of a register in the write port or eviction buffer are not held",
        "rcsmall_mrf.v",
        "slot_req & ~slot_hold &",
        "slot_req &",
    ),
    m(
        "the eviction buffer empties although the write port refused it",
        "rcsmall_rfc.v",
        "end else if (evict_valid & bank_wr_ready) evict_valid <= 1'b0;",
        "end else if (evict_valid) evict_valid <= 1'b0;",
    ),
    m(
        "a flush step leaves the cache although the write port refused it",
        "rcsmall_rfc.v",
        "assign fl_step = flush_busy & fl_any & ~evict_valid & bank_wr_ready;",
        "assign fl_step = flush_busy & fl_any & ~evict_valid;",
    ),
    m(
        "a flush is reported over while the eviction buffer waits for the write port",
        "rcsmall_rfc.v",
        "assign flush_ready = ~flush_busy & ~evict_valid;",
        "assign flush_ready = ~flush_busy;",
    ),
];

/// The rename stage (`nsmall`).
pub const RENAME: &[Mutant] = &[
    m(
        "free-list fallback inverted",
        "nsmall_rename.v",
        "take_tfet = req_tfet ? tfet_valid : ~cmos_valid;",
        "take_tfet = req_tfet ? ~cmos_valid : tfet_valid;",
    ),
    m(
        "counter reset on the wrong event",
        "nsmall_rename.v",
        "counters[10:0] = started[0] ? 11'd0\n      : completed[0] ? stall_cycles",
        "counters[10:0] = completed[0] ? 11'd0\n      : started[0] ? stall_cycles",
    ),
    m("Eq. (1) shift off by one", "nsmall_rename.v", "wire [6:0] unused_scaled_lo;", "wire [5:0] unused_scaled_lo;"),
    m("load given a TFET destination", "nsmall_rename.v", " & ~ren_dst_load;", ";"),
    m(
        "release to the wrong list",
        "nsmall_rename.v",
        "cmos_push[0] = rel_valid[0] & ~(",
        "cmos_push[0] = rel_valid[0] & (",
    ),
    m("a TFET allocation takes 1", "nsmall_rename.v", "counter_q[10:0] - 11'd2", "counter_q[10:0] - 11'd1"),
    m("released registers never reused", "nsmall_free_list_cmos.v", "from_fifo = count != 6'd0;", "from_fifo = 1'b0;"),
    m(
        "TFET request registered from the counting bit before the edge",
        "nsmall_rename.v",
        "wants_tfet_next[0] = ~counting_next[0] & (",
        "wants_tfet_next[0] = ~counting[0] & (",
    ),
    m(
        "a kept destination's kind lost",
        "nsmall_rename.v",
        "kind_q[{ren_warp, ren_dst_reg}] <= take_tfet;",
        "kind_q[{ren_warp, ren_dst_reg}] <= 1'b0;",
    ),
    // Caught only because the random stimulus holds an access past the counter's top.
    m(
        "the counter wraps at its top",
        "nsmall_rename.v",
        "counting[0] ? ((counter_q[10:0] == 11'd2047) ? counter_q[10:0] : counter_q[10:0] + 11'd1)",
        "counting[0] ? (counter_q[10:0] + 11'd1)",
    ),
    // The same in the last warp: caught only since a drained warp's turn ends when it stops
    // requesting TFET registers (a counter left at 1 held each turn to its 8,192-cycle limit)
    // and each seed starts its round at a warp of its own; before, the last warp's turn came
    // after 40,000 cycles.
    m(
        "the last warp's counter wraps at its top",
        "nsmall_rename.v",
        "counting[5] ? ((counter_q[65:55] == 11'd2047) ? counter_q[65:55] : counter_q[65:55] + 11'd1)",
        "counting[5] ? (counter_q[65:55] + 11'd1)",
    ),
    // Caught only because the random stimulus times accesses to each bit's edge and renames
    // right after: a prediction of 128 or 129 cycles no longer requests TFET registers at the
    // edge it lands (the next edge reads the counter, which is right).
    m(
        "a prediction of bit 7 alone requests no TFET register",
        "nsmall_rename.v",
        "wants_tfet_next[3] = ~counting_next[3] & (completed[3] ? (|stall_cycles[10:1])",
        "wants_tfet_next[3] = ~counting_next[3] & (completed[3] ? (|{stall_cycles[10:8], stall_cycles[6:1]})",
    ),
];

/// The TFET rows of a renamed MRF (`tmixed`: rows 10..15 of 16 TFET).
pub const TFET: &[Mutant] = &[
    m(
        "TFET data delivered one cycle early",
        "tmixed_mrf_bank_group.v",
        "deliver <= (slot_grant & {6{~tfet_rd}}) | tfet_slot;",
        "deliver <= slot_grant;",
    ),
    m(
        "group not blocked after a TFET grant",
        "tmixed_mrf_bank_group.v",
        "assign req = slot_req & {6{~read_busy}};",
        "assign req = slot_req;",
    ),
    m(
        "banks read in the busy cycle",
        "tmixed_mrf_bank_group.v",
        ".rd_en   (grant_valid)",
        ".rd_en   (grant_valid | read_busy)",
    ),
    m("TFET read threshold one row too high", "tmixed_mrf_bank_group.v", "(rd_row >= 4'd10)", "(rd_row >= 4'd11)"),
    m("TFET read threshold one row too low", "tmixed_mrf_bank_group.v", "(rd_row >= 4'd10)", "(rd_row >= 4'd9)"),
    m(
        "write port not busy after a TFET write",
        "tmixed_mrf.v",
        "assign wb_ready = ~wb_tfet_busy;",
        "assign wb_ready = 1'b1;",
    ),
    m("TFET write threshold one row too high", "tmixed_mrf.v", "(wb_row >= 4'd10)", "(wb_row >= 4'd11)"),
    m(
        "commit at the write, not after it",
        "tmixed_mrf.v",
        "assign wb_commit = wb_tfet_busy;",
        "assign wb_commit = wb_take;",
    ),
];

/// The ORF/LRF beside the MRF (`osmall`: 3 entries, a split LRF, two-level scheduler).
pub const ORF: &[Mutant] = &[
    m("wrong entry index", "osmall_orf.v", "(wr_entry == 2'd1);\n  always", "(wr_entry == 2'd2);\n  always"),
    m(
        "LRF slot swapped",
        "osmall_orf.v",
        "(rd_entry[3:2] == 2'd1) & |(lrf1_valid & rd_sel)) pick1 = 3'd4;",
        "(rd_entry[3:2] == 2'd1) & |(lrf1_valid & rd_sel)) pick1 = 3'd5;",
    ),
    m(
        "stale entry across a strand",
        "osmall_orf.v",
        "orf0_valid <= ((orf0_valid & ~inv_sel)",
        "orf0_valid <= ((orf0_valid)",
    ),
    m(
        "released slot never freed",
        "osmall_orf.v",
        "owner_valid <= (owner_valid & ~rel_slot) | take_sel;",
        "owner_valid <= owner_valid | take_sel;",
    ),
    m(
        "a released slot keeps its entry",
        "osmall_orf.v",
        "({3{orf0_we}} & wr_sel)) & ~rel_slot;",
        "({3{orf0_we}} & wr_sel));",
    ),
    m(
        "destination level dropped",
        "osmall_mrf.v",
        "upper_wr_en = fill_valid | wb_upper_used;",
        "upper_wr_en = fill_valid;",
    ),
    m(
        "write enable on the wrong lane",
        "osmall_orf.v",
        "if (orf0_we & (|wr_sel) & wr_mask[lane])",
        "if (orf0_we & (|wr_sel) & wr_mask[lane ^ 1])",
    ),
    m("dispatched before its fill is written", "osmall_operand_collector.v", " & ~(|filling);", ";"),
    m("fill hold of the wrong warp", "osmall_mrf.v", "(cu0_warp == 3'd0))", "(cu0_warp == 3'd1))"),
];

/// The register map's per-occupancy stride (`lsmall`).
pub const STRIDE: &[Mutant] = &[
    m("constant stride (the most rows per warp)", "lsmall_reg_map.v", "{{1{1'b0}}, rows_per_warp}", "4'd4"),
    m(
        "stride one row too long",
        "lsmall_reg_map.v",
        "{{1{1'b0}}, rows_per_warp}",
        "({{1{1'b0}}, rows_per_warp} + 4'd1)",
    ),
    m(
        "write-back mapped at the wrong stride",
        "lsmall_mrf.v",
        "u_map_wb (\n    .rows_per_warp (rows_per_warp),",
        "u_map_wb (\n    .rows_per_warp (3'd4),",
    ),
];

/// Every family, in the order the blocks' tests declare them.
pub fn families() -> Vec<Family> {
    use SchedulerPolicy::*;
    let f = |block, config, mutants| Family { block, config, mutants };
    vec![
        f("mrf", || small("small"), MRF),
        f("mrf", || compressed("csmall"), COMPRESSED_MRF),
        f("mrf", || compressed("conegroup"), GATING_DELAY),
        f("issue", || issue_small(Gto, WarPolicy::Bloom2), ISSUE_GTO_BLOOM2),
        f("issue", || issue_small(TwoLevel, WarPolicy::ReleaseOnRead), ISSUE_TWO_LEVEL_ON_READ),
        f("issue", || issue_small(Lrr, WarPolicy::None), ISSUE_LRR_NONE),
        f("issue", || issue_small(Lrr, WarPolicy::BloomUnbounded), ISSUE_LRR_BLOOM_N),
        f("issue", || issue_small(Gto, WarPolicy::ReleaseOnCommit), ISSUE_GTO_ON_COMMIT),
        f("scheduler", || scheduler(Gto), SCHEDULER_GTO),
        f("scheduler", || scheduler(TwoLevel), SCHEDULER_TWO_LEVEL),
        f("scheduler", || scheduler(Lrr), SCHEDULER_LRR),
        f("scoreboard", || rfgen_gen::config::parse(SCOREBOARD_SMALL).unwrap(), SCOREBOARD),
        f("warpboard", || warpboard(WarPolicy::Bloom2), WARPBOARD_BLOOM2),
        f("warpboard", || warpboard(WarPolicy::ReleaseOnRead), WARPBOARD_ON_READ),
        f("warpboard", || warpboard(WarPolicy::ReleaseOnCommit), WARPBOARD_ON_COMMIT),
        f("warpboard", || warpboard(WarPolicy::Bloom1), WARPBOARD_BLOOM1),
        f("warpboard", || warpboard(WarPolicy::BloomUnbounded), WARPBOARD_BLOOM_N),
        f("mrf", || cached("rsmall"), RFC),
        f("mrf", || cached("rcsmall"), RFC_COMPRESSED),
        f("rename", || rename_small("nsmall"), RENAME),
        f("mrf", || renamed("tmixed"), TFET),
        f("mrf", || upper("osmall"), ORF),
        f("mrf", || rfgen_gen::config::parse(OCCUPANCY_PLAIN).unwrap(), STRIDE),
    ]
}

/// The families of one block.
pub fn of_block(block: &str) -> impl Iterator<Item = Family> {
    let block = block.to_string();
    families().into_iter().filter(move |f| f.block == block)
}
