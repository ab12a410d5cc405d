//! The MRF subsystem top: issue port → operand collectors → bank groups → dispatch port, plus
//! the write path. Cycle behaviour is specified by `model::blocks::mrf::Mrf`. The write path is
//! a variant: write-back straight into the bank groups, or (compressed MRF) through the write
//! port's compressor into compressed bank groups, with the banks' strobes driven out. A register
//! file cache may sit in front of either: the banks are then written what it sends them. With
//! TFET rows (renaming, direct path only), a write-back to a TFET row keeps the write port busy
//! for one more cycle, and the bank groups say when each slot's data is on their read data.

use super::arbiter::interface::ArbiterPorts;
use super::bank_group::interface::BankGroupPorts;
use super::collector::interface::CollectorPorts;
use super::compressed_bank_group::interface::CompressedBankGroupPorts;
use super::interface::{CompressedPorts, MrfPorts};
use super::orf::interface::OrfLrfPorts;
use super::reg_map::interface::RegMapPorts;
use super::rfc::interface::CachePorts;
use super::write_port::interface::{PendingPorts, WritePortPorts};
use crate::layout::bdi::Layout;
use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::layout::orf::OrfLayout;
use crate::verilog::{
    Module, Port, Sig, Submodule, lit, lowest_set, onehot_mux, resize, slice, vector_reg, vector_wire, wire,
};

/// How write-backs reach the banks.
pub enum WritePath<'a> {
    /// Straight into the bank group holding the register.
    Direct { bank_group: &'a Submodule<BankGroupPorts<Port>> },
    /// Through the write port (compressor, wake-up, dummy MOV) into compressed bank groups.
    Compressed {
        layout: &'a Layout,
        write_port: &'a Submodule<WritePortPorts<Port>>,
        bank_group: &'a Submodule<CompressedBankGroupPorts<Port>>,
    },
}

pub struct Parts<'a> {
    pub reg_map: &'a Submodule<RegMapPorts<Port>>,
    pub collector: &'a Submodule<CollectorPorts<Port>>,
    /// None with a single collector.
    pub dispatch_arbiter: Option<&'a Submodule<ArbiterPorts<Port>>>,
    pub write: WritePath<'a>,
    /// The register file cache in front of the write path.
    pub rfc: Option<&'a Submodule<CachePorts<Port>>>,
    /// The ORF/LRF beside the collectors.
    pub orf: Option<UpperLevels<'a>>,
}

/// The ORF/LRF, and the round-robin arbiter over the collector slots for its write port.
#[derive(Clone, Copy)]
pub struct UpperLevels<'a> {
    pub layout: &'a OrfLayout,
    pub orf: &'a Submodule<OrfLrfPorts<Port>>,
    pub fill_arbiter: &'a Submodule<ArbiterPorts<Port>>,
}

/// What the banks are offered: the write-back port, or the register file cache's bank write.
struct BankWrite {
    en: Sig,
    warp: Sig,
    reg: Sig,
    mask: Sig,
    data: Sig,
}

impl BankWrite {
    fn of(g: &Geometry, p: &MrfPorts<Sig>, cached: bool) -> Self {
        if !cached {
            // Beside an ORF/LRF, a write-back may skip the MRF; with TFET rows it is taken only
            // while the write port is not finishing a TFET write.
            let en = match (&p.orf, &p.wb_ready) {
                (Some(o), _) => Sig::new(format!("{} & {}", p.wb_valid, o.wb_mrf), 1),
                (None, Some(_)) if g.has_tfet() => Sig::new("wb_take", 1),
                (None, _) => p.wb_valid.clone(),
            };
            return BankWrite {
                en,
                warp: p.wb_warp.clone(),
                reg: p.wb_reg.clone(),
                mask: p.wb_mask.clone(),
                data: p.wb_data.clone(),
            };
        }
        BankWrite {
            en: Sig::new("rfc_wr_en", 1),
            warp: Sig::new("rfc_wr_warp", g.warp_bits()),
            reg: Sig::new("rfc_wr_reg", g.reg_bits()),
            mask: Sig::new("rfc_wr_mask", g.lanes),
            data: Sig::new("rfc_wr_data", g.warp_reg_bits()),
        }
    }
}

pub fn mrf(prefix: &str, g: &Geometry, ports: &MrfPorts<Port>, parts: Parts) -> Module {
    let (n, s, k) = (g.collectors, g.slots(), SLOTS_PER_COLLECTOR);
    let (gb, ab) = (g.group_bits(), g.row_bits());
    let p = ports.map(Port::sig);
    let v = |name: &str, width: u32| Sig::new(name, width);
    let cached = parts.rfc.is_some();
    // A register file cache in front of the compressor: registers on their way to the banks
    // (eviction buffer, write port) are not read from them until stored.
    let pend = match parts.write {
        WritePath::Compressed { layout, .. } if cached => layout.compress_latency,
        _ => 0,
    };
    let mut b = nets(g, &parts, pend);

    b += match (&parts.write, cached) {
        (WritePath::Direct { .. }, false) => {
            "\n  // Register-to-bank mapping of the issued sources and of the write-back.\n"
        }
        (WritePath::Direct { .. }, true) => {
            "\n  // Register-to-bank mapping of the issued sources and of the register-file-cache's bank write.\n"
        }
        (WritePath::Compressed { .. }, false) => {
            "\n  // Register-to-bank mapping of the issued sources (the write port maps its own).\n"
        }
        (WritePath::Compressed { .. }, true) => {
            "\n  // Register-to-bank mapping of the issued sources and of the eviction buffer's register (the\n  // write port maps its own).\n"
        }
    };
    let stride = g.register_limited.then(|| stride_sig(g));
    for o in 0..k {
        b += &parts.reg_map.instance(
            &format!("u_map_src{o}"),
            &RegMapPorts {
                rows_per_warp: stride.clone(),
                warp: p.issue_warp.clone(),
                reg_id: p.issue_src_reg[o as usize].clone(),
                group: v("issue_group", k * gb).slice(o, gb),
                row: v("issue_row", k * ab).slice(o, ab),
            },
        );
    }

    let bank_write = BankWrite::of(g, &p, cached);
    b += &parts.write.map_write_back(parts.reg_map, &bank_write, g, pend > 0);
    b += "\n  // Issue: the lowest-numbered free collector takes the instruction.\n";
    b += "  assign free = ~cu_busy;\n";
    b += &format!("  assign alloc_first = {};\n", lowest_set("free", n));
    b += "  assign issue_ready = |free;\n";
    b += &format!("  assign cu_alloc = {{{n}{{issue_valid}}}} & alloc_first;\n\n");

    b += "  // Crossbar, request side: each slot requests the bank group holding its register.\n";
    let held = if pend > 0 {
        b += &slot_hold(g, pend);
        " & ~slot_hold"
    } else {
        ""
    };
    for grp in 0..g.groups {
        let sel: Vec<String> =
            (0..s).rev().map(|i| format!("({} == {})", slice("slot_group", i, gb), lit(gb, grp as u64))).collect();
        b += &format!("  assign group{grp}_req = slot_req{held} & {{{}}};\n", sel.join(", "));
    }
    let grants: Vec<String> = (0..g.groups).map(|grp| format!("group{grp}_grant")).collect();
    b += &format!("  assign slot_grant = {};\n", grants.join(" | "));
    if let Some(rfc) = parts.rfc {
        b += &format!("\n{}", cache(g, &p, rfc, &bank_write, pend > 0));
    }
    if let Some(upper) = parts.orf {
        b += &format!("\n{}", upper_levels(g, &p, upper));
    }
    b += &parts.write.groups(g, &p, &bank_write, pend);

    b += &collectors(g, &p, &parts);

    b += &dispatch(g, &p, &parts);

    Module {
        name: format!("{prefix}_mrf"),
        doc: doc(g, &parts, cached),
        ports: ports.list().into_iter().cloned().collect(),
        body: b,
        memory: None,
    }
}

/// The top's nets: collectors, crossbar, write path and the optional parts' wires.
fn nets(g: &Geometry, parts: &Parts, pend: u32) -> String {
    let (n, s, k) = (g.collectors, g.slots(), SLOTS_PER_COLLECTOR);
    let (wb, tb, gb, ab, wr) = (g.warp_bits(), g.tag_bits, g.group_bits(), g.row_bits(), g.warp_reg_bits());
    let (compressed, cached) = (matches!(parts.write, WritePath::Compressed { .. }), parts.rfc.is_some());
    // TFET rows or registered read data: the bank groups say when a slot's data is on their
    // read data.
    let delivered = compressed || g.delivers();
    let mut b = String::new();
    let mut wires = vec![
        ("cu_busy", n),
        ("cu_ready", n),
        ("cu_alloc", n),
        ("cu_dispatch", n),
        ("free", n),
        ("alloc_first", n),
        ("slot_req", s),
        ("slot_grant", s),
        ("slot_group", s * gb),
        ("slot_row", s * ab),
        ("issue_group", k * gb),
        ("issue_row", k * ab),
    ];
    // With a registered dispatch, the offer is a register of `dispatch`.
    if !g.registered_dispatch {
        wires.insert(6, ("disp_grant", n));
    }
    wires.extend(parts.write.wires(g));
    if cached {
        wires.extend([
            ("rd_hit", k),
            ("rd_data", k * wr),
            ("rfc_wr_warp", wb),
            ("rfc_wr_reg", g.reg_bits()),
            ("rfc_wr_mask", g.lanes),
            ("rfc_wr_data", wr),
        ]);
    }
    if let Some(upper) = parts.orf {
        let eb = upper.layout.entry_bits();
        wires.extend([
            ("orf_hit", k),
            ("orf_fill", k),
            ("orf_rd_data", k * wr),
            ("slot_fill_req", s),
            ("fill_grant", s),
            ("slot_fill_level", 2 * s),
            ("slot_fill_entry", s * eb),
            ("cu_fill_pending", n),
            ("upper_wr_level", 2),
            ("upper_wr_warp", wb),
            ("upper_wr_entry", eb),
            ("upper_wr_mask", g.lanes),
            ("upper_wr_data", wr),
        ]);
    }
    if pend > 0 {
        wires.extend([("pend_valid", pend), ("pend_group", pend * gb), ("pend_row", pend * ab), ("slot_hold", s)]);
    }
    for (name, w) in wires {
        b += &vector_wire(name, w);
    }
    if !compressed && g.registered_read {
        b += &vector_reg("slot_deliver", s);
    }
    if delivered {
        b += &vector_wire("slot_inflight", s);
    }
    if compressed {
        b += &wire("mov_rd", 1);
        b += &wire("wr_en", 1);
    }
    if g.has_tfet() {
        b += &wire("wb_take", 1);
        b += &crate::verilog::reg("wb_tfet_busy", 1);
    }
    if parts.orf.is_some() {
        for name in ["fill_valid", "wb_upper_used", "upper_wr_en"] {
            b += &wire(name, 1);
        }
    }
    if let Some(rfc) = parts.rfc {
        if rfc.ports.rd_fire.is_some() {
            b += &wire("rd_fire", 1);
        }
        b += &wire("wb_fire", 1);
        b += &wire("rfc_wr_en", 1);
    }
    if pend > 0 {
        for (name, width) in
            [("evicting", 1), ("evict_group", gb), ("evict_row", ab), ("banks_ready", 1), ("rfc_wb_ready", 1)]
        {
            b += &wire(name, width);
        }
    }
    for grp in 0..g.groups {
        b += &wire(&format!("group{grp}_req"), s);
        b += &wire(&format!("group{grp}_grant"), s);
        if delivered {
            b += &wire(&format!("group{grp}_{}", delivery(g, compressed)), s);
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
    b
}

/// One operand collector per unit: a cache hands over the sources it holds, an ORF/LRF those
/// read from it, and fills.
fn collectors(g: &Geometry, p: &MrfPorts<Sig>, parts: &Parts) -> String {
    let (n, s, k) = (g.collectors, g.slots(), SLOTS_PER_COLLECTOR);
    let (wb, tb, gb, ab, wr) = (g.warp_bits(), g.tag_bits, g.group_bits(), g.row_bits(), g.warp_reg_bits());
    let v = |name: &str, width: u32| Sig::new(name, width);
    let cached = parts.rfc.is_some();
    let delivered = matches!(parts.write, WritePath::Compressed { .. }) || g.delivers();
    let mut b = String::new();
    b += "\n";
    for c in 0..n {
        let (hit, hit_data) = if cached { ("rd_hit", "rd_data") } else { ("orf_hit", "orf_rd_data") };
        let prefilled = cached || p.orf.is_some();
        let fills = parts.orf.map(|upper| upper.layout.entry_bits());
        let conns = CollectorPorts {
            clk: p.clk.clone(),
            rst: p.rst.clone(),
            alloc: v("cu_alloc", n).bit(c),
            alloc_warp: p.issue_warp.clone(),
            alloc_tag: p.issue_tag.clone(),
            alloc_src_valid: p.issue_src_valid.clone(),
            alloc_group: v("issue_group", k * gb),
            alloc_row: v("issue_row", k * ab),
            slot_grant: v("slot_grant", s).slice(c, k),
            alloc_hit: prefilled.then(|| v(hit, k)),
            alloc_hit_data: prefilled.then(|| v(hit_data, k * wr)),
            alloc_fill: fills.map(|_| v("orf_fill", k)),
            alloc_fill_level: p.orf.as_ref().map(|o| o.issue_src_fill.clone()),
            alloc_fill_entry: p.orf.as_ref().map(|o| o.issue_src_entry.clone()),
            fill_grant: fills.map(|_| v("fill_grant", s).slice(c, k)),
            slot_deliver: delivered.then(|| v("slot_deliver", s).slice(c, k)),
            group_rd_data: v("group_rd_data", g.groups * wr),
            dispatch: v("cu_dispatch", n).bit(c),
            busy: v("cu_busy", n).bit(c),
            ready: v("cu_ready", n).bit(c),
            warp: v(&format!("cu{c}_warp"), wb),
            tag: v(&format!("cu{c}_tag"), tb),
            src_valid: v(&format!("cu{c}_src_valid"), k),
            slot_req: v("slot_req", s).slice(c, k),
            slot_inflight: delivered.then(|| v("slot_inflight", s).slice(c, k)),
            slot_group: v("slot_group", s * gb).slice(c, k * gb),
            slot_row: v("slot_row", s * ab).slice(c, k * ab),
            fill_req: fills.map(|_| v("slot_fill_req", s).slice(c, k)),
            fill_pending: fills.map(|_| v("cu_fill_pending", n).bit(c)),
            fill_level: fills.map(|_| v("slot_fill_level", 2 * s).slice(c, 2 * k)),
            fill_entry: fills.map(|eb| v("slot_fill_entry", s * eb).slice(c, k * eb)),
            src_data: std::array::from_fn(|o| v(&format!("cu{c}_src{o}_data"), wr)),
        };
        b += &parts.collector.instance(&format!("u_collector{c}"), &conns);
    }

    b
}

/// Dispatch: round-robin among complete collectors; an unaccepted offer is held. With a
/// registered dispatch the choice is made into a register, from the collectors complete before
/// the edge (but the one taken at it).
fn dispatch(g: &Geometry, p: &MrfPorts<Sig>, parts: &Parts) -> String {
    let (n, k) = (g.collectors, SLOTS_PER_COLLECTOR);
    let (wb, tb, wr) = (g.warp_bits(), g.tag_bits, g.warp_reg_bits());
    let v = |name: &str, width: u32| Sig::new(name, width);
    let mut b = String::new();
    b += "\n  // Dispatch: round-robin among complete collectors; an unaccepted offer is held.\n";
    let registered = g.registered_dispatch;
    if registered {
        b += &crate::verilog::vector_reg("disp_grant", n);
        b += &vector_wire("disp_pick", n);
        b += &wire("disp_load", 1);
        b += "  // The offer is chosen a cycle ahead (`timing.mrf_registered_dispatch`): when the offer\n";
        b += "  // register is empty or its collector is taken, it loads the arbiter's choice among the\n";
        b += "  // others that are complete; the arbiter chooses only then.\n";
        b += "  assign disp_load = ~disp_valid | disp_ready;\n";
    }
    // Registered, the arbiter's choice goes to the offer register; otherwise it is the offer.
    let (req, advance, grant, grant_valid) = if registered {
        let req = format!("(cu_ready & ~cu_dispatch) & {{{n}{{disp_load}}}}");
        (v(&req, n), v("1'b1", 1), v("disp_pick", n), v("unused_disp_pick_valid", 1))
    } else {
        (v("cu_ready", n), p.disp_ready.clone(), v("disp_grant", n), p.disp_valid.clone())
    };
    match parts.dispatch_arbiter {
        Some(arbiter) => {
            if registered {
                b += &wire("unused_disp_pick_valid", 1);
            }
            let (clk, rst) = (p.clk.clone(), p.rst.clone());
            let conns = ArbiterPorts { clk, rst, req, advance, grant, grant_valid };
            b += &arbiter.instance("u_dispatch_arbiter", &conns);
        }
        None if registered => b += &format!("  assign disp_pick = {req};\n"),
        None => b += "  assign disp_grant = cu_ready;\n  assign disp_valid = cu_ready[0];\n",
    }
    if registered {
        b += "  always @(posedge clk) begin\n";
        b += &format!("    if (rst) disp_grant <= {n}'b0;\n    else if (disp_load) disp_grant <= disp_pick;\n  end\n");
        b += "  assign disp_valid = |disp_grant;\n";
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

    b
}

/// The module's header comment.
fn doc(g: &Geometry, parts: &Parts, cached: bool) -> Vec<String> {
    let (n, k) = (g.collectors, SLOTS_PER_COLLECTOR);
    let mut doc = vec![
        format!(
            "Banked main register file: {} warps x {} registers x {} lanes in {} clusters x {} banks x {} rows,",
            g.warps, g.registers, g.lanes, g.clusters, g.groups, g.entries
        ),
        format!("{n} operand collector units x {k} slots, per-bank round-robin read arbitration, 1R1W banks."),
    ];
    if g.has_tfet() {
        doc.extend([
            format!(
                "Renamed: physical registers (group p mod {}, row p / {}); rows {} to {} of every bank are TFET:",
                g.groups,
                g.groups,
                g.tfet_row,
                g.entries - 1
            ),
            "a TFET read is captured two cycles after its grant and blocks its group's next grant; a".into(),
            "write-back to a TFET row blocks the next one (wb_ready low, wb_commit high). See docs/mrf.md.".into(),
        ]);
    }
    doc.extend(parts.write.doc(cached));
    doc
}

impl WritePath<'_> {
    /// Wires of the write path, declared with the top's.
    fn wires(&self, g: &Geometry) -> Vec<(&'static str, u32)> {
        let (gb, ab, wr) = (g.group_bits(), g.row_bits(), g.warp_reg_bits());
        match self {
            // With registered read data `slot_deliver` is a register (declared with the nets).
            WritePath::Direct { .. } if g.delivers() && !g.registered_read => {
                vec![("wb_group", gb), ("wb_row", ab), ("group_rd_data", g.groups * wr), ("slot_deliver", g.slots())]
            }
            WritePath::Direct { .. } => vec![("wb_group", gb), ("wb_row", ab), ("group_rd_data", g.groups * wr)],
            WritePath::Compressed { layout: l, .. } => vec![
                ("group_rd_data", g.groups * wr),
                ("slot_deliver", g.slots()),
                ("head_group", gb),
                ("head_row", ab),
                ("group_compressed", g.groups),
                ("group_usable", g.groups * l.clusters),
                ("group_mov_done", g.groups),
                ("wake_req", l.clusters),
                ("wr_ri", l.ri_bits()),
                ("wr_mask", g.lanes),
                ("wr_data", wr),
            ],
        }
    }

    /// The direct path maps the banks' write to its bank here. The write port maps its own, but
    /// behind a cache (`pending`) the eviction buffer's register is mapped here to hold its reads.
    fn map_write_back(
        &self,
        reg_map: &Submodule<RegMapPorts<Port>>,
        w: &BankWrite,
        g: &Geometry,
        pending: bool,
    ) -> String {
        let map = |name: &str, group: &str, row: &str| {
            reg_map.instance(
                name,
                &RegMapPorts {
                    rows_per_warp: g.register_limited.then(|| stride_sig(g)),
                    warp: w.warp.clone(),
                    reg_id: w.reg.clone(),
                    group: Sig::new(group, g.group_bits()),
                    row: Sig::new(row, g.row_bits()),
                },
            )
        };
        match self {
            WritePath::Direct { .. } => map("u_map_wb", "wb_group", "wb_row"),
            WritePath::Compressed { .. } if pending => map("u_map_evict", "evict_group", "evict_row"),
            WritePath::Compressed { .. } => String::new(),
        }
    }

    fn groups(&self, g: &Geometry, p: &MrfPorts<Sig>, w: &BankWrite, pend: u32) -> String {
        match self {
            WritePath::Direct { bank_group } if g.has_tfet() => {
                format!("\n{}\n{}", tfet_write(g, p), direct_groups(g, p, bank_group, w))
            }
            WritePath::Direct { bank_group } => format!("\n{}", direct_groups(g, p, bank_group, w)),
            WritePath::Compressed { layout, write_port, bank_group } => {
                let c = p.compressed.as_ref().expect("the compressed MRF has the compressed ports");
                compressed_groups(g, layout, p, c, (write_port, bank_group), w, pend)
            }
        }
    }

    fn doc(&self, cached: bool) -> Vec<String> {
        let cache = [
            "Register file cache: the issue stage's tag check hands cached sources to the collector;".to_string(),
            "write-backs go to the RFC, which writes the banks what it does not keep (bypasses,".into(),
            "evictions, flushes). See docs/rfc.md and docs/mrf.md.".into(),
        ];
        match self {
            WritePath::Direct { .. } if cached => cache.into(),
            WritePath::Direct { .. } => vec![
                "Timing: issue accepted in cycle t, reads arbitrated from t+1, data captured one cycle".into(),
                "after its grant; a conflict-free instruction is offered for dispatch in cycle t+3.".into(),
                "See docs/mrf.md.".into(),
            ],
            WritePath::Compressed { layout: l, .. } => {
                let (lc, ld) = (l.compress_latency, l.decompress_latency);
                let mut doc = vec![
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
                ];
                if cached {
                    doc.extend(cache);
                    doc.push(
                        "A register on its way to the banks (eviction buffer, write port) is not read from them."
                            .into(),
                    );
                }
                doc
            }
        }
    }
}

/// Per slot: its register is on its way to the banks (in the cache's eviction buffer or one of
/// the write port's `pend` stages), so it is not requested until stored.
fn slot_hold(g: &Geometry, pend: u32) -> String {
    let (gb, ab) = (g.group_bits(), g.row_bits());
    let mut b = String::from("  // Reads wait for a register on its way to the banks (eviction buffer, write port).\n");
    for i in 0..g.slots() {
        let at = |valid: String, group: String, row: String| {
            format!("({valid} & ({} == {group}) & ({} == {row}))", slice("slot_group", i, gb), slice("slot_row", i, ab))
        };
        let mut terms = vec![at("evicting".into(), "evict_group".into(), "evict_row".into())];
        for st in 0..pend {
            terms.push(at(format!("pend_valid[{st}]"), slice("pend_group", st, gb), slice("pend_row", st, ab)));
        }
        b += &format!("  assign slot_hold[{i}] = {};\n", terms.join("\n      | "));
    }
    b
}

/// The register file cache in front of the write path. When the banks may refuse its write
/// (`banks_may_refuse`: a compressed MRF's write port), a write-back is taken only when both
/// take it, and the cache learns whether its write was taken.
fn cache(
    g: &Geometry,
    p: &MrfPorts<Sig>,
    rfc: &Submodule<CachePorts<Port>>,
    w: &BankWrite,
    banks_may_refuse: bool,
) -> String {
    let r = p.rfc.as_ref().expect("an MRF with a cache has its ports");
    let (k, wr) = (SLOTS_PER_COLLECTOR, g.warp_reg_bits());
    let v = |name: &str, width: u32| Sig::new(name, width);
    let wb_ready = p.wb_ready.as_ref().expect("a cached write-back can be refused");
    let rd_fire = rfc.ports.rd_fire.as_ref().map(|_| v("rd_fire", 1));
    let mut b = String::from("  // Register file cache: tag check at issue, write-backs, evictions and flushes.\n");
    if let Some(rd_fire) = &rd_fire {
        b += &format!("  assign {rd_fire} = issue_valid & issue_ready;\n");
    }
    if banks_may_refuse {
        b += &format!("  assign {wb_ready} = rfc_wb_ready & banks_ready;\n");
    }
    b += &format!("  assign wb_fire = wb_valid & {wb_ready};\n");
    let regs: Vec<String> = (0..k).rev().map(|s| format!("issue_src{s}_reg")).collect();
    let conns = CachePorts {
        clk: p.clk.clone(),
        rst: p.rst.clone(),
        rd_fire,
        rd_warp: p.issue_warp.clone(),
        rd_src_valid: p.issue_src_valid.clone(),
        rd_src_reg: v(&format!("{{{}}}", regs.join(", ")), k * g.reg_bits()),
        rd_src_last: r.issue_src_last.clone(),
        rd_hit: v("rd_hit", k),
        rd_data: v("rd_data", k * wr),
        wb_fire: v("wb_fire", 1),
        wb_warp: p.wb_warp.clone(),
        wb_reg: p.wb_reg.clone(),
        wb_mask: p.wb_mask.clone(),
        wb_data: p.wb_data.clone(),
        wb_long: r.wb_long.clone(),
        wb_ready: if banks_may_refuse { v("rfc_wb_ready", 1) } else { wb_ready.clone() },
        bank_wr_en: w.en.clone(),
        bank_wr_warp: w.warp.clone(),
        bank_wr_reg: w.reg.clone(),
        bank_wr_mask: w.mask.clone(),
        bank_wr_data: w.data.clone(),
        bank_wr_ready: banks_may_refuse.then(|| v("banks_ready", 1)),
        evicting: banks_may_refuse.then(|| v("evicting", 1)),
        act_valid: r.act_valid.clone(),
        act_warp: r.act_warp.clone(),
        act_ready: r.act_ready.clone(),
        flush_valid: r.flush_valid.clone(),
        flush_warp: r.flush_warp.clone(),
        flush_ready: r.flush_ready.clone(),
        rel_mask: r.rel_mask.clone(),
    };
    b += &rfc.instance("u_rfc", &conns);
    b
}

/// The ORF/LRF beside the collectors: reads of the issued sources, fills and upper-level
/// write-backs through its one write port, strand invalidation, and the per-warp fill hold.
fn upper_levels(g: &Geometry, p: &MrfPorts<Sig>, upper: UpperLevels) -> String {
    let UpperLevels { layout: o, orf, fill_arbiter: arbiter } = upper;
    let op = p.orf.as_ref().expect("an MRF with an ORF has its ports");
    let (n, s, k, wb, wr, eb) =
        (g.collectors, g.slots(), SLOTS_PER_COLLECTOR, g.warp_bits(), g.warp_reg_bits(), o.entry_bits());
    let v = |name: &str, width: u32| Sig::new(name, width);
    let mut b = String::from(
        "  // ORF/LRF: sources read at issue; an MRF source may fill an entry once read.
",
    );
    for i in 0..k {
        let level = slice(&op.issue_src_level.expr, i, 2);
        let fill = slice(&op.issue_src_fill.expr, i, 2);
        b += &format!(
            "  assign orf_hit[{i}] = issue_src_valid[{i}] & (|{level});
"
        );
        b += &format!(
            "  assign orf_fill[{i}] = issue_src_valid[{i}] & ~(|{level}) & (|{fill});
"
        );
    }
    b += "
  // One write port: a write-back to an upper level first, else one fill (round-robin over
";
    b += "  // the collector slots whose read has arrived).
";
    b += &format!(
        "  assign wb_upper_used = {} & (|{});
",
        p.wb_valid, op.wb_upper
    );
    b += &arbiter.instance(
        "u_fill_arbiter",
        &ArbiterPorts {
            clk: p.clk.clone(),
            rst: p.rst.clone(),
            req: v(&format!("slot_fill_req & {{{s}{{~wb_upper_used}}}}"), s),
            advance: Sig::lit(1, 1),
            grant: v("fill_grant", s),
            grant_valid: v("fill_valid", 1),
        },
    );
    let by_slot = |field: &dyn Fn(u32) -> String, width: u32| {
        let terms: Vec<(String, String)> = (0..s).map(|i| (format!("fill_grant[{i}]"), field(i))).collect();
        onehot_mux(&terms, width)
    };
    let fill_warp = by_slot(&|i| format!("cu{}_warp", i / k), wb);
    let fill_level = by_slot(&|i| slice("slot_fill_level", i, 2), 2);
    let fill_entry = by_slot(&|i| slice("slot_fill_entry", i, eb), eb);
    let fill_data = by_slot(&|i| format!("cu{}_src{}_data", i / k, i % k), wr);
    b += "  assign upper_wr_en = fill_valid | wb_upper_used;
";
    b += &format!(
        "  assign upper_wr_level = fill_valid ? ({fill_level}) : {};
",
        op.wb_upper
    );
    b += &format!(
        "  assign upper_wr_warp = fill_valid ? ({fill_warp}) : {};
",
        p.wb_warp
    );
    b += &format!(
        "  assign upper_wr_entry = fill_valid ? ({fill_entry}) : {};
",
        op.wb_entry
    );
    b += &format!(
        "  assign upper_wr_mask = fill_valid ? {{{}{{1'b1}}}} : {};
",
        g.lanes, p.wb_mask
    );
    b += &format!(
        "  assign upper_wr_data = fill_valid ? ({fill_data}) : {};
",
        p.wb_data
    );
    b += &orf.instance(
        "u_orf",
        &OrfLrfPorts {
            clk: p.clk.clone(),
            rst: p.rst.clone(),
            rd_warp: p.issue_warp.clone(),
            rd_level: op.issue_src_level.clone(),
            rd_entry: op.issue_src_entry.clone(),
            rd_data: v("orf_rd_data", k * wr),
            take_en: op.rel_mask.as_ref().map(|_| v(&format!("{} & issue_ready", p.issue_valid), 1)),
            inv_en: v(&format!("{} & issue_ready & {}", p.issue_valid, op.issue_strand), 1),
            inv_warp: p.issue_warp.clone(),
            wr_en: v("upper_wr_en", 1),
            wr_level: v("upper_wr_level", 2),
            wr_warp: v("upper_wr_warp", wb),
            wr_entry: v("upper_wr_entry", eb),
            wr_mask: v("upper_wr_mask", g.lanes),
            wr_data: v("upper_wr_data", wr),
            rel_mask: op.rel_mask.clone(),
        },
    );
    b += "
  // A warp with a fill not written yet issues nothing more (the SM holds it).
";
    for w in 0..g.warps {
        let terms: Vec<String> =
            (0..n).map(|c| format!("(cu_fill_pending[{c}] & (cu{c}_warp == {}))", lit(wb, w as u64))).collect();
        b += &format!(
            "  assign {} = {};
",
            op.fill_busy.bit(w),
            terms.join(" | ")
        );
    }
    b
}

/// TFET rows: the write port is busy for the cycle after it takes a write-back to a TFET row.
fn tfet_write(g: &Geometry, p: &MrfPorts<Sig>) -> String {
    let ready = p.wb_ready.as_ref().expect("TFET rows have wb_ready");
    let commit = p.wb_commit.as_ref().expect("TFET rows have wb_commit");
    let mut b = String::from(
        "  // TFET write: a write-back taken to a TFET row finishes in the next cycle, which takes
",
    );
    b += "  // no write-back and tells the SM to release the register.
";
    b += &format!(
        "  assign wb_take = {} & {ready};
",
        p.wb_valid
    );
    b += "  always @(posedge clk) begin
";
    b += "    if (rst) wb_tfet_busy <= 1'b0;
";
    b += &format!(
        "    else wb_tfet_busy <= wb_take & {};
",
        tfet_row_test("wb_row", g)
    );
    b += "  end
";
    b += &format!(
        "  assign {ready} = ~wb_tfet_busy;
"
    );
    b += &format!(
        "  assign {commit} = wb_tfet_busy;
"
    );
    b
}

/// Verilog test that `row` (a `row_bits` wide signal) is a TFET row.
pub(super) fn tfet_row_test(row: &str, g: &Geometry) -> String {
    if g.tfet_row == 0 { "1'b1".into() } else { format!("({row} >= {})", lit(g.row_bits(), g.tfet_row as u64)) }
}

/// What a bank group's delivery port is called (the compressed bank group's is `deliver`).
fn delivery(g: &Geometry, compressed: bool) -> &'static str {
    if compressed { "deliver" } else { super::bank_group::interface::delivery(g) }
}

/// The slots the bank groups `delivers` (one vector over the slots each) deliver to, kept to
/// those in flight: a delivery no slot waits for (none is, but a register's power-up value could
/// send one) reaches no operand.
fn gated(delivers: &[String]) -> String {
    format!("({}) & slot_inflight", delivers.join(" | "))
}

/// The bank groups, written through `w`; with TFET rows or registered read data each says when
/// a slot's data is on its read data.
fn direct_groups(
    g: &Geometry,
    p: &MrfPorts<Sig>,
    bank_group: &Submodule<BankGroupPorts<Port>>,
    w: &BankWrite,
) -> String {
    let (gb, ab, s, wr) = (g.group_bits(), g.row_bits(), g.slots(), g.warp_reg_bits());
    let mut b = String::new();
    let delivery = delivery(g, false);
    let delivers = gated(&(0..g.groups).map(|grp| format!("group{grp}_{delivery}")).collect::<Vec<_>>());
    if g.registered_read {
        b += "  // The banks' read data is registered before the collectors (`timing.mrf_registered_read`,\n";
        b += "  // inside the banks: on an FPGA the block RAM's output register), so a slot's register is\n";
        b += "  // there the cycle after its group's `arrive`. The capture enable that reaches every bit of\n";
        b += "  // an operand starts at this register.\n";
        b += &format!(
            "  always @(posedge clk) begin\n    if (rst) slot_deliver <= {};\n    else slot_deliver <= {};\n  end\n\n",
            lit(s, 0),
            delivers
        );
    } else if g.delivers() {
        b += &format!("  assign slot_deliver = {delivers};\n\n");
    }
    for grp in 0..g.groups {
        let conns = BankGroupPorts {
            clk: p.clk.clone(),
            rst: p.rst.clone(),
            slot_req: Sig::new(format!("group{grp}_req"), s),
            slot_row: Sig::new("slot_row", s * ab),
            slot_grant: Sig::new(format!("group{grp}_grant"), s),
            deliver: g.delivers().then(|| Sig::new(format!("group{grp}_{delivery}"), s)),
            rd_data: Sig::new("group_rd_data", g.groups * wr).slice(grp, wr),
            wr_en: Sig::new(format!("{} & (wb_group == {})", w.en.expr, lit(gb, grp as u64)), 1),
            wr_row: Sig::new("wb_row", ab),
            wr_mask: w.mask.clone(),
            wr_data: w.data.clone(),
        };
        b += &bank_group.instance(&format!("u_group{grp}"), &conns);
    }
    b
}

/// The compressed MRF's write port and bank groups, wired to the collectors' request and
/// delivery vectors and to the bank strobes.
fn compressed_groups(
    g: &Geometry,
    l: &Layout,
    p: &MrfPorts<Sig>,
    cp: &CompressedPorts<Sig>,
    (write_port, bank_group): (&Submodule<WritePortPorts<Port>>, &Submodule<CompressedBankGroupPorts<Port>>),
    w: &BankWrite,
    pend: u32,
) -> String {
    let (gb, ab, s, wr, c) = (g.group_bits(), g.row_bits(), g.slots(), g.warp_reg_bits(), l.clusters);
    let v = |name: &str, width: u32| Sig::new(name, width);
    let mut b = String::new();
    let delivers = gated(&(0..g.groups).map(|grp| format!("group{grp}_deliver")).collect::<Vec<_>>());
    b += &format!("  assign slot_deliver = {delivers};\n\n");
    b += &free_rows(g, cp);
    b += "  // Write-back through the compressor; the head commits to its bank group.\n";
    // Behind a register file cache (`pend` stages reported), the port takes the cache's writes.
    let ready = match pend {
        0 => p.wb_ready.clone().expect("a compressed write-back can be refused"),
        _ => v("banks_ready", 1),
    };
    let conns = WritePortPorts {
        clk: p.clk.clone(),
        rst: p.rst.clone(),
        wb_valid: w.en.clone(),
        wb_ready: ready,
        wb_warp: w.warp.clone(),
        wb_reg: w.reg.clone(),
        wb_mask: w.mask.clone(),
        wb_data: w.data.clone(),
        head_group: v("head_group", gb),
        head_row: v("head_row", ab),
        head_commit: p.wb_commit.clone().expect("the compressed MRF has wb_commit"),
        group_compressed: v("group_compressed", g.groups),
        group_usable: v("group_usable", g.groups * c),
        group_mov_done: v("group_mov_done", g.groups),
        group_rd_data: v("group_rd_data", g.groups * wr),
        wake_req: v("wake_req", c),
        mov_rd: v("mov_rd", 1),
        wr_en: v("wr_en", 1),
        wr_ri: v("wr_ri", l.ri_bits()),
        wr_mask: v("wr_mask", g.lanes),
        wr_data: v("wr_data", wr),
        rows_per_warp: g.register_limited.then(|| stride_sig(g)),
        pending: (pend > 0).then(|| PendingPorts {
            pend_valid: v("pend_valid", pend),
            pend_group: v("pend_group", pend * gb),
            pend_row: v("pend_row", pend * ab),
        }),
    };
    b += &write_port.instance("u_write", &conns);
    b += "\n";
    for grp in 0..g.groups {
        let here = format!("(head_group == {})", lit(gb, grp as u64));
        b += &bank_group.instance(
            &format!("u_group{grp}"),
            &CompressedBankGroupPorts {
                clk: p.clk.clone(),
                rst: p.rst.clone(),
                slot_req: v(&format!("group{grp}_req"), s),
                slot_row: v("slot_row", s * ab),
                slot_grant: v(&format!("group{grp}_grant"), s),
                deliver: v(&format!("group{grp}_deliver"), s),
                rd_data: v("group_rd_data", g.groups * wr).slice(grp, wr),
                mov_rd: v(&format!("mov_rd & {here}"), 1),
                mov_done: v("group_mov_done", g.groups).bit(grp),
                wr_row: v("head_row", ab),
                wr_compressed: v("group_compressed", g.groups).bit(grp),
                wr_en: v(&format!("wr_en & {here}"), 1),
                wr_ri: v("wr_ri", l.ri_bits()),
                wr_mask: v("wr_mask", g.lanes),
                wr_data: v("wr_data", wr),
                free_rows: v("free_rows", g.entries),
                wake_req: v(&format!("{{{c}{{{here}}}}} & wake_req"), c),
                usable: v("group_usable", g.groups * c).slice(grp, c),
                gated: cp.bank_gated.slice(grp, c),
                bank_rd_en: cp.bank_rd_en.slice(grp, c),
                bank_wr_en: cp.bank_wr_en.slice(grp, c),
            },
        );
    }
    b
}

/// The top's `rows_per_warp` input, as every map inside it reads it.
pub(super) fn stride_sig(g: &Geometry) -> Sig {
    Sig::new("rows_per_warp", g.stride_bits())
}

/// The rows of the finished warp `free_warp`, `[free_warp * S, free_warp * S + S)` with `S` rows
/// per warp: the same rows in every bank group.
fn free_rows(g: &Geometry, cp: &CompressedPorts<Sig>) -> String {
    let (wb, sb) = (g.warp_bits(), g.stride_bits());
    let fw = (wb + sb).max(g.row_bits()) + 1;
    let stride = if g.register_limited { stride_sig(g) } else { Sig::lit(sb, (g.registers / g.groups) as u64) };
    let mut b = String::from("  // A finished warp's registers become invalid: its rows in every bank group.\n");
    b += &wire("free_lo", fw);
    b += &wire("free_hi", fw);
    b += &vector_wire("free_rows", g.entries);
    b += &format!("  assign free_lo = {} * {};\n", resize(&cp.free_warp.expr, wb, fw), resize(&stride.expr, sb, fw));
    b += &format!("  assign free_hi = free_lo + {};\n", resize(&stride.expr, sb, fw));
    b += "  genvar fr;\n  generate\n";
    b += &format!("    for (fr = 0; fr < {}; fr = fr + 1) begin : g_free\n", g.entries);
    b += &format!("      localparam [{}:0] ROW = fr;\n", fw - 1);
    b += &format!("      assign free_rows[fr] = {} & (ROW >= free_lo) & (ROW < free_hi);\n", cp.free_valid.expr);
    b += "    end\n  endgenerate\n\n";
    b
}
