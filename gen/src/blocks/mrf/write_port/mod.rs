//! The write-back port of the compressed MRF: every write goes through the compressor (a
//! partial-mask write bypasses compression but keeps its place in the pipeline); the register
//! leaving it — the head — commits to its bank group once the banks it needs are awake. A
//! partial write whose register is compressed first has a dummy MOV decompress it (seed 004
//! §5.2). Cycle rules: `model::blocks::mrf::Mrf` and docs/bdi.md.

pub mod interface;

use super::reg_map::interface::RegMapPorts;
use crate::blocks::bdi::CompressorPorts;
use crate::layout::bdi::Layout;
use crate::layout::geometry::Geometry;
use crate::verilog::{Module, Port, Ports, Sig, Submodule, lit, onehot_mux, reg, slice, vector_reg, vector_wire, wire};
use interface::WritePortPorts;

/// With `report_pending`, the port also drives out where every register it holds goes (for a
/// register file cache in front of it: those registers are not read from the banks yet).
pub fn write_port(
    prefix: &str,
    g: &Geometry,
    l: &Layout,
    reg_map: &Submodule<RegMapPorts<Port>>,
    compressor: &Submodule<CompressorPorts<Port>>,
    report_pending: bool,
) -> Submodule<WritePortPorts<Port>> {
    let (gb, ab, rb, c, n) = (g.group_bits(), g.row_bits(), l.ri_bits(), l.clusters, l.compress_latency);
    let (lanes, w, groups) = (g.lanes, g.warp_reg_bits(), g.groups);
    let mut b = String::new();
    for (name, width) in [("in_group", gb), ("in_row", ab), ("head_ri", rb), ("unused_head_banks", l.banks_bits())] {
        b += &wire(name, width);
    }
    b += &wire("in_partial", 1);
    b += &wire("head_valid", 1);
    b += &vector_wire("head_bank_en", c);
    b += &wire("head_chunks", w);
    for (name, width) in [("head_compressed", 1), ("head_mov_done", 1), ("need_mov", 1), ("banks_awake", 1)] {
        b += &wire(name, width);
    }
    b += &wire("commit", 1);
    b += &wire("mov_commit", 1);
    b += &wire("advance", 1);
    b += &vector_wire("head_usable", c);
    b += &vector_wire("needs", c);
    b += &wire("head_rd_data", w);
    b += &reg("mov_wait", 1);

    b += "\n  // A write enters the compressor; a partial mask keeps it uncompressed.\n";
    let v = |name: &str, width: u32| Sig::new(name, width);
    b += &reg_map.instance(
        "u_map",
        &RegMapPorts {
            rows_per_warp: g.register_limited.then(|| v("rows_per_warp", g.stride_bits())),
            warp: v("wb_warp", g.warp_bits()),
            reg_id: v("wb_reg", g.reg_bits()),
            group: v("in_group", gb),
            row: v("in_row", ab),
        },
    );
    b += "  assign in_partial = ~(&wb_mask);\n";
    b += &compressor.instance(
        "u_compressor",
        &CompressorPorts {
            clk: v("clk", 1),
            rst: v("rst", 1),
            en: v("advance", 1),
            in_valid: v("wb_valid", 1),
            in_bypass: v("in_partial", 1),
            in_data: v("wb_data", w),
            out_valid: v("head_valid", 1),
            out_ri: v("head_ri", rb),
            // The MRF uses the equivalent bank-enable mask.
            out_banks: Sig::unused("head_banks", l.banks_bits()),
            out_bank_en: v("head_bank_en", c),
            out_chunks: v("head_chunks", w),
        },
    );
    b += &format!("\n  // Address and mask travel beside the compressor's {n} stages.\n");
    let side =
        [("group", gb, "in_group"), ("row", ab, "in_row"), ("mask", lanes, "wb_mask"), ("partial", 1, "in_partial")];
    for st in 1..=n {
        for (name, width, _) in side {
            b += &if name == "mask" {
                vector_reg(&format!("s{st}_{name}"), width)
            } else {
                reg(&format!("s{st}_{name}"), width)
            };
        }
    }
    b += "  always @(posedge clk) begin\n    if (advance) begin\n";
    for st in 1..=n {
        for (name, _, input) in side {
            let from = if st == 1 { input.to_string() } else { format!("s{}_{name}", st - 1) };
            b += &format!("      s{st}_{name} <= {from};\n");
        }
    }
    b += "    end\n  end\n";
    b += &format!("  assign head_group = s{n}_group;\n  assign head_row = s{n}_row;\n");
    if report_pending {
        b += "\n  // Which stages hold a register (as the compressor's valid bits), and where each goes.\n";
        b += &vector_reg("stage_valid", n);
        b += &format!(
            "  always @(posedge clk) begin\n    if (rst) stage_valid <= {};\n    else if (advance) stage_valid <= {};\n  end\n",
            lit(n, 0),
            if n == 1 { "wb_valid".to_string() } else { format!("{{stage_valid[{}:0], wb_valid}}", n - 2) }
        );
        b += "  assign pend_valid = stage_valid;\n";
        let cat = |f: &str| (1..=n).rev().map(|st| format!("s{st}_{f}")).collect::<Vec<_>>().join(", ");
        b += &format!("  assign pend_group = {{{}}};\n  assign pend_row = {{{}}};\n", cat("group"), cat("row"));
    }

    b += "\n  // What the head's bank group reports about it.\n";
    let pick = |bus: &str, width: u32| {
        if groups == 1 {
            bus.to_string()
        } else {
            let terms: Vec<(String, String)> = (0..groups)
                .map(|grp| (format!("(head_group == {})", lit(gb, grp as u64)), slice(bus, grp, width)))
                .collect();
            onehot_mux(&terms, width)
        }
    };
    b += &format!("  assign head_compressed = {};\n", pick("group_compressed", 1));
    b += &format!("  assign head_mov_done = {};\n", pick("group_mov_done", 1));
    b += &format!("  assign head_usable = {};\n", pick("group_usable", c));
    b += &format!("  assign head_rd_data = {};\n", pick("group_rd_data", w));

    b += "\n  // The head commits once every bank it needs is awake: all of them for a partial write\n";
    b += "  // (stored uncompressed), those of its chunks otherwise. A partial write to a compressed\n";
    b += "  // register first reads it (dummy MOV, priority on the group's read port) and writes it\n";
    b += "  // back decompressed when the read leaves the decompressor.\n";
    b += &format!("  assign needs = s{n}_partial ? {{{c}{{1'b1}}}} : head_bank_en;\n");
    b += "  assign wake_req = {";
    b += &format!("{c}{{head_valid}}}} & needs;\n");
    b += "  assign banks_awake = &(head_usable | ~needs);\n";
    b += &format!("  assign need_mov = head_valid & s{n}_partial & head_compressed;\n");
    b += "  assign mov_rd = need_mov & banks_awake & ~mov_wait;\n";
    b += "  assign mov_commit = mov_wait & head_mov_done;\n";
    b += "  assign commit = head_valid & ~need_mov & banks_awake;\n";
    b += "  assign advance = ~head_valid | commit;\n";
    b += "  assign wb_ready = advance;\n  assign head_commit = commit;\n";
    b += "  assign wr_en = commit | mov_commit;\n";
    b += &format!("  assign wr_ri = {{{rb}{{~mov_commit}}}} & head_ri;\n");
    b += &format!("  assign wr_mask = s{n}_mask | {{{lanes}{{mov_commit}}}};\n");
    b += "  assign wr_data = mov_commit ? head_rd_data : head_chunks;\n";
    b += "  always @(posedge clk) begin\n    if (rst) mov_wait <= 1'b0;\n";
    b += "    else if (mov_rd) mov_wait <= 1'b1;\n    else if (mov_commit) mov_wait <= 1'b0;\n  end\n";

    let ports = WritePortPorts::new(g, l, report_pending);
    let module = Module {
        name: format!("{prefix}_mrf_write_port"),
        doc: vec![
            format!("Write-back port of the compressed MRF: a {n}-stage compressor, commit to the bank group"),
            "once its banks are awake, and the dummy MOV that decompresses a register before a".into(),
            "partial-mask write. See docs/bdi.md.".into(),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}
