//! The MRF subsystem top: issue port → operand collectors → bank groups → dispatch port,
//! plus the write-back port. Cycle behaviour is specified by `model::blocks::mrf::Mrf`. With
//! compression, the write-back goes through the write port (compressor, wake-up, dummy MOV) and
//! the top also drives the banks' power-gating and access strobes out.

use crate::bdi::Layout;
use crate::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::verilog::{Module, Port, lit, onehot_mux, slice, vector_wire, wire};

pub struct Parts<'a> {
    pub reg_map: &'a Module,
    pub bank_group: &'a Module,
    pub collector: &'a Module,
    /// None with a single collector.
    pub dispatch_arbiter: Option<&'a Module>,
    /// The compressed MRF's write port, with its layout.
    pub compressed: Option<(&'a Layout, &'a Module)>,
}

pub fn mrf(prefix: &str, g: &Geometry, parts: Parts) -> Module {
    let (n, s, k) = (g.collectors, g.slots(), SLOTS_PER_COLLECTOR);
    let (wb, rb, tb, gb, ab, wr) =
        (g.warp_bits(), g.reg_bits(), g.tag_bits, g.group_bits(), g.row_bits(), g.warp_reg_bits());
    let mut b = String::new();
    let mut wires = vec![
        ("cu_busy", n),
        ("cu_ready", n),
        ("cu_alloc", n),
        ("cu_dispatch", n),
        ("free", n),
        ("alloc_first", n),
        ("disp_grant", n),
        ("slot_req", s),
        ("slot_grant", s),
        ("slot_group", s * gb),
        ("slot_row", s * ab),
        ("issue_group", k * gb),
        ("issue_row", k * ab),
        ("wb_group", gb),
        ("wb_row", ab),
        ("group_rd_data", g.groups * wr),
    ];
    if let Some((l, _)) = parts.compressed {
        wires.retain(|(name, _)| !name.starts_with("wb_"));
        let c = l.clusters;
        wires.extend([
            ("slot_deliver", s),
            ("head_group", gb),
            ("head_row", ab),
            ("group_compressed", g.groups),
            ("group_usable", g.groups * c),
            ("group_mov_done", g.groups),
            ("wake_req", c),
            ("wr_ri", l.ri_bits()),
            ("wr_mask", g.lanes),
            ("wr_data", wr),
        ]);
    }
    for (name, w) in wires {
        b += &vector_wire(name, w);
    }
    if parts.compressed.is_some() {
        b += &wire("mov_rd", 1);
        b += &wire("wr_en", 1);
    }
    for grp in 0..g.groups {
        b += &wire(&format!("group{grp}_req"), s);
        b += &wire(&format!("group{grp}_grant"), s);
        if parts.compressed.is_some() {
            b += &wire(&format!("group{grp}_deliver"), s);
        }
    }
    for c in 0..n {
        b += &wire(&format!("cu{c}_warp"), wb);
        b += &wire(&format!("cu{c}_tag"), tb);
        b += &wire(&format!("cu{c}_src_valid"), k);
        for o in 0..k {
            b += &wire(&format!("cu{c}_src{o}_data"), wr);
        }
    }

    b += match parts.compressed {
        None => "\n  // Register-to-bank mapping of the issued sources and of the write-back.\n",
        Some(_) => "\n  // Register-to-bank mapping of the issued sources (the write port maps its own).\n",
    };
    for o in 0..k {
        b += &parts.reg_map.instance(
            &format!("u_map_src{o}"),
            &[
                ("warp", "issue_warp".into()),
                ("reg_id", format!("issue_src{o}_reg")),
                ("group", slice("issue_group", o, gb)),
                ("row", slice("issue_row", o, ab)),
            ],
        );
    }
    if parts.compressed.is_none() {
        b += &parts.reg_map.instance(
            "u_map_wb",
            &[
                ("warp", "wb_warp".into()),
                ("reg_id", "wb_reg".into()),
                ("group", "wb_group".into()),
                ("row", "wb_row".into()),
            ],
        );
    }

    b += "\n  // Issue: the lowest-numbered free collector takes the instruction.\n";
    b += "  assign free = ~cu_busy;\n";
    b += &format!("  assign alloc_first = free & (~free + {});\n", lit(n, 1));
    b += "  assign issue_ready = |free;\n";
    b += &format!("  assign cu_alloc = {{{n}{{issue_valid}}}} & alloc_first;\n\n");

    b += "  // Crossbar, request side: each slot requests the bank group holding its register.\n";
    for grp in 0..g.groups {
        let sel: Vec<String> =
            (0..s).rev().map(|i| format!("({} == {})", slice("slot_group", i, gb), lit(gb, grp as u64))).collect();
        b += &format!("  assign group{grp}_req = slot_req & {{{}}};\n", sel.join(", "));
    }
    let grants: Vec<String> = (0..g.groups).map(|grp| format!("group{grp}_grant")).collect();
    b += &format!("  assign slot_grant = {};\n", grants.join(" | "));
    if let Some((l, write_port)) = parts.compressed {
        b += &compressed_groups(g, l, write_port, parts.bank_group);
    } else {
        b += "\n";
        b += &groups(g, parts.bank_group);
    }

    b += "\n";
    for c in 0..n {
        let mut conns = vec![
            ("clk", "clk".to_string()),
            ("rst", "rst".into()),
            ("alloc", format!("cu_alloc[{c}]")),
            ("alloc_warp", "issue_warp".into()),
            ("alloc_tag", "issue_tag".into()),
            ("alloc_src_valid", "issue_src_valid".into()),
            ("alloc_group", "issue_group".into()),
            ("alloc_row", "issue_row".into()),
            ("slot_grant", slice("slot_grant", c, k)),
        ];
        if parts.compressed.is_some() {
            conns.push(("slot_deliver", slice("slot_deliver", c, k)));
        }
        conns.extend([
            ("group_rd_data", "group_rd_data".into()),
            ("dispatch", format!("cu_dispatch[{c}]")),
            ("busy", format!("cu_busy[{c}]")),
            ("ready", format!("cu_ready[{c}]")),
            ("warp", format!("cu{c}_warp")),
            ("tag", format!("cu{c}_tag")),
            ("src_valid", format!("cu{c}_src_valid")),
            ("slot_req", slice("slot_req", c, k)),
            ("slot_group", slice("slot_group", c, k * gb)),
            ("slot_row", slice("slot_row", c, k * ab)),
        ]);
        let data_ports = ["src0_data", "src1_data", "src2_data"];
        for (o, port) in data_ports.iter().enumerate() {
            conns.push((port, format!("cu{c}_src{o}_data")));
        }
        b += &parts.collector.instance(&format!("u_collector{c}"), &conns);
    }

    b += "\n  // Dispatch: round-robin among complete collectors; an unaccepted offer is held.\n";
    match parts.dispatch_arbiter {
        Some(arbiter) => {
            b += &arbiter.instance(
                "u_dispatch_arbiter",
                &[
                    ("clk", "clk".into()),
                    ("rst", "rst".into()),
                    ("req", "cu_ready".into()),
                    ("advance", "disp_ready".into()),
                    ("grant", "disp_grant".into()),
                    ("grant_valid", "disp_valid".into()),
                ],
            );
        }
        None => b += "  assign disp_grant = cu_ready;\n  assign disp_valid = cu_ready[0];\n",
    }
    b += &format!("  assign cu_dispatch = disp_grant & {{{n}{{disp_ready}}}};\n");
    let mux = |field: &str, w: u32| {
        let terms: Vec<(String, String)> =
            (0..n).map(|c| (format!("disp_grant[{c}]"), format!("cu{c}_{field}"))).collect();
        format!("  assign disp_{field} = {};\n", onehot_mux(&terms, w))
    };
    b += &mux("warp", wb);
    b += &mux("tag", tb);
    b += &mux("src_valid", k);
    for o in 0..k {
        b += &mux(&format!("src{o}_data"), wr);
    }

    let mut ports = vec![
        Port::input("clk", 1, "clock"),
        Port::input("rst", 1, "synchronous reset, active high"),
        Port::input("issue_valid", 1, "an instruction is offered (hold it and its fields until accepted)"),
        Port::output("issue_ready", 1, "a collector is free: the offer is accepted this cycle"),
        Port::input("issue_warp", wb, "warp id"),
        Port::input("issue_src_valid", k, "which of the 3 source operands exist").vector(),
    ];
    for o in 0..k {
        ports.push(Port::input(&format!("issue_src{o}_reg"), rb, &format!("register id of source {o}")));
    }
    ports.extend([
        Port::input("issue_tag", tb, "opaque tag, returned with the instruction at dispatch"),
        Port::output("disp_valid", 1, "a collected instruction is offered (held until accepted)"),
        Port::input("disp_ready", 1, "execution takes the offered instruction this cycle"),
        Port::output("disp_warp", wb, "warp id (valid with disp_valid)"),
        Port::output("disp_tag", tb, "tag given at issue (valid with disp_valid)"),
        Port::output("disp_src_valid", k, "which sources exist (valid with disp_valid)").vector(),
    ]);
    for o in 0..k {
        ports.push(Port::output(
            &format!("disp_src{o}_data"),
            wr,
            &format!("source {o}, lane i at [32i+31:32i] (valid with disp_src_valid[{o}])"),
        ));
    }
    let mut doc = vec![
        format!(
            "Banked main register file: {} warps x {} registers x {} lanes in {} clusters x {} banks x {} rows,",
            g.warps, g.registers, g.lanes, g.clusters, g.groups, g.entries
        ),
        format!("{n} operand collector units x {k} slots, per-bank round-robin read arbitration, 1R1W banks."),
    ];
    match parts.compressed {
        None => {
            ports.extend([
                Port::input("wb_valid", 1, "write a warp register this cycle (never blocked)"),
                Port::input("wb_warp", wb, "warp id"),
                Port::input("wb_reg", rb, "register id"),
                Port::input("wb_mask", g.lanes, "per-lane write enable (active mask)").vector(),
                Port::input("wb_data", wr, "value, lane i at [32i+31:32i]"),
            ]);
            doc.extend([
                "Timing: issue accepted in cycle t, reads arbitrated from t+1, data captured one cycle".into(),
                "after its grant; a conflict-free instruction is offered for dispatch in cycle t+3.".into(),
                "See docs/mrf.md.".into(),
            ]);
        }
        Some((l, _)) => {
            let banks = g.groups * l.clusters;
            ports.extend([
                Port::input("wb_valid", 1, "a write-back is offered (hold it until wb_ready)"),
                Port::output("wb_ready", 1, "the write port takes the offer this cycle"),
                Port::input("wb_warp", wb, "warp id"),
                Port::input("wb_reg", rb, "register id"),
                Port::input("wb_mask", g.lanes, "per-lane write enable (active mask); partial: stored uncompressed")
                    .vector(),
                Port::input("wb_data", wr, "value, lane i at [32i+31:32i]"),
                Port::output("bank_gated", banks, "bank power-gated; group j cluster c at bit jC+c").vector(),
                Port::output("bank_rd_en", banks, "bank read this cycle; group j cluster c at bit jC+c").vector(),
                Port::output("bank_wr_en", banks, "bank written this cycle; group j cluster c at bit jC+c").vector(),
            ]);
            let (lc, ld) = (l.compress_latency, l.decompress_latency);
            doc.extend([
                format!(
                    "BDI compression: {lc}-cycle compressor on the write port, {ld}-cycle decompressor per bank group,"
                ),
                format!(
                    "bank power gating with {}-cycle wake-up. Timing: issue accepted in cycle t, offered for",
                    l.wakeup_cycles
                ),
                format!(
                    "dispatch in t+{} without conflicts; a write-back taken in cycle t commits in t+{lc} at the",
                    3 + ld
                ),
                "earliest. See docs/bdi.md and docs/mrf.md.".into(),
            ]);
        }
    }
    Module { name: format!("{prefix}_mrf"), doc, ports, body: b, memory: None }
}

/// The bank groups, written by the write-back port directly.
fn groups(g: &Geometry, bank_group: &Module) -> String {
    let (gb, wr) = (g.group_bits(), g.warp_reg_bits());
    let mut b = String::new();
    for grp in 0..g.groups {
        b += &bank_group.instance(
            &format!("u_group{grp}"),
            &[
                ("clk", "clk".into()),
                ("rst", "rst".into()),
                ("slot_req", format!("group{grp}_req")),
                ("slot_row", "slot_row".into()),
                ("slot_grant", format!("group{grp}_grant")),
                ("rd_data", slice("group_rd_data", grp, wr)),
                ("wr_en", format!("wb_valid & (wb_group == {})", lit(gb, grp as u64))),
                ("wr_row", "wb_row".into()),
                ("wr_mask", "wb_mask".into()),
                ("wr_data", "wb_data".into()),
            ],
        );
    }
    b
}

/// The compressed MRF's write port and bank groups, wired to the collectors' request and
/// delivery vectors and to the bank strobes.
fn compressed_groups(g: &Geometry, l: &Layout, write_port: &Module, bank_group: &Module) -> String {
    let (gb, w, c) = (g.group_bits(), g.warp_reg_bits(), l.clusters);
    let mut b = String::new();
    let delivers: Vec<String> = (0..g.groups).map(|grp| format!("group{grp}_deliver")).collect();
    b += &format!("  assign slot_deliver = {};\n\n", delivers.join(" | "));
    b += "  // Write-back through the compressor; the head commits to its bank group.\n";
    b += &write_port.instance(
        "u_write",
        &[
            ("clk", "clk".into()),
            ("rst", "rst".into()),
            ("wb_valid", "wb_valid".into()),
            ("wb_ready", "wb_ready".into()),
            ("wb_warp", "wb_warp".into()),
            ("wb_reg", "wb_reg".into()),
            ("wb_mask", "wb_mask".into()),
            ("wb_data", "wb_data".into()),
            ("head_group", "head_group".into()),
            ("head_row", "head_row".into()),
            ("group_compressed", "group_compressed".into()),
            ("group_usable", "group_usable".into()),
            ("group_mov_done", "group_mov_done".into()),
            ("group_rd_data", "group_rd_data".into()),
            ("wake_req", "wake_req".into()),
            ("mov_rd", "mov_rd".into()),
            ("wr_en", "wr_en".into()),
            ("wr_ri", "wr_ri".into()),
            ("wr_mask", "wr_mask".into()),
            ("wr_data", "wr_data".into()),
        ],
    );
    b += "\n";
    for grp in 0..g.groups {
        let here = format!("(head_group == {})", lit(gb, grp as u64));
        b += &bank_group.instance(
            &format!("u_group{grp}"),
            &[
                ("clk", "clk".into()),
                ("rst", "rst".into()),
                ("slot_req", format!("group{grp}_req")),
                ("slot_row", "slot_row".into()),
                ("slot_grant", format!("group{grp}_grant")),
                ("deliver", format!("group{grp}_deliver")),
                ("rd_data", slice("group_rd_data", grp, w)),
                ("mov_rd", format!("mov_rd & {here}")),
                ("mov_done", format!("group_mov_done[{grp}]")),
                ("wr_row", "head_row".into()),
                ("wr_compressed", format!("group_compressed[{grp}]")),
                ("wr_en", format!("wr_en & {here}")),
                ("wr_ri", "wr_ri".into()),
                ("wr_mask", "wr_mask".into()),
                ("wr_data", "wr_data".into()),
                ("wake_req", format!("{{{c}{{{here}}}}} & wake_req")),
                ("usable", slice("group_usable", grp, c)),
                ("gated", slice("bank_gated", grp, c)),
                ("bank_rd_en", slice("bank_rd_en", grp, c)),
                ("bank_wr_en", slice("bank_wr_en", grp, c)),
            ],
        );
    }
    b
}
