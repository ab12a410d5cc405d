//! The ports of the composed register-file top (`<prefix>_sm_rf`): the issue stage, the rename
//! stage when renaming, and the MRF, with the issue port between them inside. Every port of a
//! part the top does not drive inside is a port of the top with the part's name, width and
//! comment, so one glue binds them all; the MRF's and the rename stage's per-instruction fields
//! come in per warp (`next_` + the field), like the issue stage's descriptor, and the granted
//! warp's copy goes to the parts with `grant_tag`.

use crate::blocks::issue::interface::IssuePorts;
use crate::blocks::mrf::interface::{CompressedPorts, MrfPorts, OrfPorts, RfcPorts};
use crate::blocks::rename::interface::RenamePorts;
use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::verilog::{Port, Ports, packing};

const SLOTS: usize = SLOTS_PER_COLLECTOR as usize;

/// Every port of the composed top, in declaration order: clock and reset, the issue stage's
/// inputs with the per-warp operand fields beside its descriptor, the grant, then the MRF's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmRfPorts<P> {
    pub clk: P,
    pub rst: P,
    pub next_valid: P,
    pub next_src_valid: P,
    pub next_src_reg: P,
    pub next_dst_valid: P,
    pub next_dst: P,
    pub next_preds: P,
    pub next_pdst_valid: P,
    pub next_pdst: P,
    pub next_control: P,
    pub next_long: P,
    /// Two-level.
    pub next_long_consumer: Option<P>,
    pub barrier: P,
    /// Two-level.
    pub hold: Option<P>,
    /// Beside an ORF/LRF or a rename stage.
    pub stall: Option<P>,
    /// GTO, or a register file cache beside another scheduler (launched warps are activated).
    pub launch: Option<P>,
    /// With a register file cache or a compressed MRF: warps that finished.
    pub exit: Option<P>,
    pub grant_last: P,
    pub clr_preds: P,
    /// Release-on-commit: completions other than a register write-back (the top adds those).
    pub commit: Option<P>,
    pub grant_valid: P,
    pub grant_warp: P,
    /// New: the collector tag the granted instruction takes.
    pub grant_tag: P,
    /// Two-level.
    pub active: Option<P>,
    pub eligible: P,
    /// Register-limited occupancy.
    pub rows_per_warp: Option<P>,
    pub disp_valid: P,
    pub disp_ready: P,
    pub disp_warp: P,
    pub disp_tag: P,
    pub disp_src_valid: P,
    pub disp_src_data: [P; SLOTS],
    pub wb_valid: P,
    pub wb_ready: Option<P>,
    pub wb_warp: P,
    pub wb_reg: P,
    pub wb_mask: P,
    pub wb_data: P,
    pub wb_commit: Option<P>,
    /// The compressed MRF's ports, but the frees, which the top drives from `exit`.
    pub compressed: Option<SmRfCompressedPorts<P>>,
    /// The register file cache's ports, liveness per warp (its slot protocol is inside).
    pub rfc: Option<SmRfRfcPorts<P>>,
    /// The ORF/LRF's ports, operand encodings per warp.
    pub orf: Option<SmRfOrfPorts<P>>,
    /// The rename stage's ports, its per-instruction inputs per warp.
    pub rename: Option<SmRfRenamePorts<P>>,
}

/// The rename stage's ports: its per-instruction inputs per warp (the rest of its issue port is
/// driven inside from the grant), and the write-back's architectural register, which the
/// scoreboard releases (the MRF's `wb_reg` is then physical).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmRfRenamePorts<P> {
    pub next_dst_new: P,
    pub next_dst_load: P,
    pub ren_src_phys: [P; SLOTS],
    pub ren_dst_phys: P,
    pub ren_dst_tfet: P,
    pub ren_ready: P,
    pub rel_valid: P,
    pub rel_phys: P,
    pub mem_start_valid: P,
    pub mem_start_warp: P,
    pub mem_done_valid: P,
    pub mem_done_warp: P,
    pub sample_acc: P,
    pub tfet_hint: P,
    pub cmos_free: P,
    pub tfet_free: P,
    pub wb_arch_reg: P,
}

/// The MRF's register-file-cache ports, its per-instruction liveness hint per warp; the slot
/// protocol (`act_*`, `flush_*`, `rel_mask`) is driven inside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmRfRfcPorts<P> {
    /// Only with liveness: per warp, the MRF's `issue_src_last`.
    pub next_src_last: Option<P>,
    pub wb_long: P,
}

/// The compressed MRF's ports: its bank activity, and the finished warps whose registers are
/// still to be invalidated (its `free_*` is driven inside).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmRfCompressedPorts<P> {
    pub freeing: P,
    pub bank_gated: P,
    pub bank_rd_en: P,
    pub bank_wr_en: P,
}

/// The MRF's ORF/LRF ports, its per-instruction encodings per warp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmRfOrfPorts<P> {
    pub next_src_level: P,
    pub next_src_entry: P,
    pub next_src_fill: P,
    pub next_strand: P,
    pub wb_mrf: P,
    pub wb_upper: P,
    pub wb_entry: P,
    pub fill_busy: P,
}

/// The per-warp copy of a part's per-instruction input `field` (`issue_X` or `ren_X` →
/// `next_X`): warp w's next instruction's value at [W*w+W-1:W*w].
fn per_warp(field: &Port, warps: u32) -> Port {
    let name = ["issue_", "ren_"].iter().find_map(|p| field.name.strip_prefix(p)).expect("an issue-port field");
    let w = field.width;
    let at = if w == 1 { "bit w".to_string() } else { format!("[{w}w+{}:{w}w]", w - 1) };
    let comment = format!("warp w's next instruction's {} at {at} ({})", field.name, field.comment);
    Port::input(&format!("next_{name}"), warps * w, &comment).vector()
}

/// `grant_tag`: the collector tag the granted instruction takes.
fn grant_tag(g: &Geometry) -> Port {
    let comment = format!(
        "collector tag of the granted instruction: the lowest free of tags 0 to {} (0 when none is free); returned on disp_tag at its dispatch",
        g.collectors - 1
    );
    Port::output("grant_tag", g.tag_bits, &comment)
}

/// The issue stage's `stall`, with what the top adds inside: the MRF's fill hold beside an
/// ORF/LRF, the rename stage's lack of registers.
fn held_stall(stall: Option<Port>, orf: bool, rename: bool) -> Option<Port> {
    let held = match (orf, rename) {
        (true, _) => "warps with an ORF/LRF fill on its way, fill_busy, are held inside too",
        (false, true) => {
            "while no physical register is free, ren_ready low, warps whose next instruction writes a register are held inside too"
        }
        (false, false) => return stall,
    };
    let comment = format!("the warp issues nothing this cycle ({held}), {}", packing("warp", 1));
    stall.map(|p| Port { comment, ..p })
}

/// The MRF's cache ports, its liveness hint per warp.
fn rfc_ports(r: RfcPorts<Port>, warps: u32) -> SmRfRfcPorts<Port> {
    SmRfRfcPorts { next_src_last: r.issue_src_last.map(|f| per_warp(&f, warps)), wb_long: r.wb_long }
}

/// The compressed MRF's ports, `freeing` for its frees.
fn compressed_ports(c: CompressedPorts<Port>, warps: u32) -> SmRfCompressedPorts<Port> {
    let comment = format!(
        "finished warps whose registers are still to be invalidated, lowest first, one per cycle: launch nothing into them, {}",
        packing("warp", 1)
    );
    SmRfCompressedPorts {
        freeing: Port::output("freeing", warps, &comment).vector(),
        bank_gated: c.bank_gated,
        bank_rd_en: c.bank_rd_en,
        bank_wr_en: c.bank_wr_en,
    }
}

/// The warps the top learns of that no part takes as they are: a launch activates its warp in
/// the register file cache (beside a scheduler other than GTO, which has `launch`, and the
/// two-level one, whose active set activates); a finished warp releases its cache slot and its
/// compressed registers.
fn warp_events(g: &Geometry, issue: &IssuePorts<Port>, mrf: &MrfPorts<Port>) -> (Option<Port>, Option<Port>) {
    let (rfc, two_level) = (mrf.rfc.is_some(), issue.active.is_some());
    let launch = issue.launch.clone().or_else(|| {
        let comment = format!(
            "warps launched at this edge: each is activated in the register file cache, {}",
            packing("warp", 1)
        );
        (rfc && !two_level).then(|| Port::input("launch", g.warps, &comment).vector())
    });
    let exit = (rfc || mrf.compressed.is_some()).then(|| {
        let comment = format!(
            "warps that finished at this edge (every instruction issued and completed): the cache slot is released, compressed registers invalidated, {}",
            packing("warp", 1)
        );
        Port::input("warp_exit", g.warps, &comment).vector()
    });
    (launch, exit)
}

/// The MRF's ORF/LRF ports, its operand encodings per warp.
fn orf_ports(o: OrfPorts<Port>, warps: u32) -> SmRfOrfPorts<Port> {
    SmRfOrfPorts {
        next_src_level: per_warp(&o.issue_src_level, warps),
        next_src_entry: per_warp(&o.issue_src_entry, warps),
        next_src_fill: per_warp(&o.issue_src_fill, warps),
        next_strand: per_warp(&o.issue_strand, warps),
        wb_mrf: o.wb_mrf,
        wb_upper: o.wb_upper,
        wb_entry: o.wb_entry,
        fill_busy: o.fill_busy,
    }
}

/// The rename stage's ports, its per-instruction inputs per warp.
fn rename_ports(r: RenamePorts<Port>, warps: u32, issue: &IssuePorts<Port>) -> SmRfRenamePorts<Port> {
    let arch = &issue.clr_reg;
    SmRfRenamePorts {
        next_dst_new: per_warp(&r.ren_dst_new, warps),
        next_dst_load: per_warp(&r.ren_dst_load, warps),
        ren_src_phys: r.ren_src_phys,
        ren_dst_phys: r.ren_dst_phys,
        ren_dst_tfet: r.ren_dst_tfet,
        ren_ready: r.ren_ready,
        rel_valid: r.rel_valid,
        rel_phys: r.rel_phys,
        mem_start_valid: r.mem_start_valid,
        mem_start_warp: r.mem_start_warp,
        mem_done_valid: r.mem_done_valid,
        mem_done_warp: r.mem_done_warp,
        sample_acc: r.sample_acc,
        tfet_hint: r.tfet_hint,
        cmos_free: r.cmos_free,
        tfet_free: r.tfet_free,
        wb_arch_reg: Port::input(
            "wb_arch_reg",
            arch.width,
            "the write-back's architectural register, released in the scoreboard (wb_reg is its physical register)",
        ),
    }
}

impl SmRfPorts<Port> {
    /// The top's ports from its parts' (`issue`: `IssuePorts::new`, `mrf`: `MrfPorts::new`,
    /// `rename`: `RenamePorts::new` with renaming).
    pub fn new(
        g: &Geometry,
        issue: &IssuePorts<Port>,
        mrf: &MrfPorts<Port>,
        rename: Option<&RenamePorts<Port>>,
    ) -> Self {
        let i = issue.clone();
        let m = mrf.clone();
        let w = g.warps;
        let (launch, exit) = warp_events(g, issue, mrf);
        SmRfPorts {
            clk: Port::input("clk", 1, "clock"),
            rst: Port::input("rst", 1, "synchronous reset, active high: both parts, and every collector tag free"),
            next_valid: i.next_valid,
            next_src_valid: i.next_src_valid,
            next_src_reg: i.next_src_reg,
            next_dst_valid: i.next_dst_valid,
            next_dst: i.next_dst,
            next_preds: i.next_preds,
            next_pdst_valid: i.next_pdst_valid,
            next_pdst: i.next_pdst,
            next_control: i.next_control,
            next_long: i.next_long,
            next_long_consumer: i.next_long_consumer,
            barrier: i.barrier,
            hold: i.hold,
            stall: held_stall(i.stall, m.orf.is_some(), rename.is_some()),
            launch,
            exit,
            grant_last: i.grant_last,
            clr_preds: i.clr_preds,
            commit: i.commit.map(|p| Port {
                comment: format!(
                    "warps whose instruction commits without a register write-back (dispatch without a register result, or a predicate-only result); a released write-back's warp is added inside, {}",
                    packing("warp", 1)
                ),
                ..p
            }),
            grant_valid: i.grant_valid,
            grant_warp: i.grant_warp,
            grant_tag: grant_tag(g),
            active: i.active,
            eligible: i.eligible,
            rows_per_warp: m.rows_per_warp,
            disp_valid: m.disp_valid,
            disp_ready: m.disp_ready,
            disp_warp: m.disp_warp,
            disp_tag: m.disp_tag,
            disp_src_valid: m.disp_src_valid,
            disp_src_data: m.disp_src_data,
            wb_valid: m.wb_valid,
            wb_ready: m.wb_ready,
            wb_warp: m.wb_warp,
            wb_reg: m.wb_reg,
            wb_mask: m.wb_mask,
            wb_data: m.wb_data,
            wb_commit: m.wb_commit,
            compressed: m.compressed.map(|c| compressed_ports(c, w)),
            rfc: m.rfc.map(|r| rfc_ports(r, w)),
            orf: m.orf.map(|o| orf_ports(o, w)),
            rename: rename.map(|r| rename_ports(r.clone(), w, issue)),
        }
    }
}

impl<P> SmRfPorts<P> {
    /// The same ports, each turned into something else by `f` (in declaration order).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> SmRfPorts<Q> {
        let s = self;
        SmRfPorts {
            clk: f(&s.clk),
            rst: f(&s.rst),
            next_valid: f(&s.next_valid),
            next_src_valid: f(&s.next_src_valid),
            next_src_reg: f(&s.next_src_reg),
            next_dst_valid: f(&s.next_dst_valid),
            next_dst: f(&s.next_dst),
            next_preds: f(&s.next_preds),
            next_pdst_valid: f(&s.next_pdst_valid),
            next_pdst: f(&s.next_pdst),
            next_control: f(&s.next_control),
            next_long: f(&s.next_long),
            next_long_consumer: s.next_long_consumer.as_ref().map(&mut f),
            barrier: f(&s.barrier),
            hold: s.hold.as_ref().map(&mut f),
            stall: s.stall.as_ref().map(&mut f),
            launch: s.launch.as_ref().map(&mut f),
            exit: s.exit.as_ref().map(&mut f),
            grant_last: f(&s.grant_last),
            clr_preds: f(&s.clr_preds),
            commit: s.commit.as_ref().map(&mut f),
            grant_valid: f(&s.grant_valid),
            grant_warp: f(&s.grant_warp),
            grant_tag: f(&s.grant_tag),
            active: s.active.as_ref().map(&mut f),
            eligible: f(&s.eligible),
            rows_per_warp: s.rows_per_warp.as_ref().map(&mut f),
            disp_valid: f(&s.disp_valid),
            disp_ready: f(&s.disp_ready),
            disp_warp: f(&s.disp_warp),
            disp_tag: f(&s.disp_tag),
            disp_src_valid: f(&s.disp_src_valid),
            disp_src_data: s.disp_src_data.each_ref().map(&mut f),
            wb_valid: f(&s.wb_valid),
            wb_ready: s.wb_ready.as_ref().map(&mut f),
            wb_warp: f(&s.wb_warp),
            wb_reg: f(&s.wb_reg),
            wb_mask: f(&s.wb_mask),
            wb_data: f(&s.wb_data),
            wb_commit: s.wb_commit.as_ref().map(&mut f),
            compressed: s.compressed.as_ref().map(|c| SmRfCompressedPorts {
                freeing: f(&c.freeing),
                bank_gated: f(&c.bank_gated),
                bank_rd_en: f(&c.bank_rd_en),
                bank_wr_en: f(&c.bank_wr_en),
            }),
            rfc: s
                .rfc
                .as_ref()
                .map(|r| SmRfRfcPorts { next_src_last: r.next_src_last.as_ref().map(&mut f), wb_long: f(&r.wb_long) }),
            orf: s.orf.as_ref().map(|o| SmRfOrfPorts {
                next_src_level: f(&o.next_src_level),
                next_src_entry: f(&o.next_src_entry),
                next_src_fill: f(&o.next_src_fill),
                next_strand: f(&o.next_strand),
                wb_mrf: f(&o.wb_mrf),
                wb_upper: f(&o.wb_upper),
                wb_entry: f(&o.wb_entry),
                fill_busy: f(&o.fill_busy),
            }),
            rename: s.rename.as_ref().map(|r| SmRfRenamePorts {
                next_dst_new: f(&r.next_dst_new),
                next_dst_load: f(&r.next_dst_load),
                ren_src_phys: r.ren_src_phys.each_ref().map(&mut f),
                ren_dst_phys: f(&r.ren_dst_phys),
                ren_dst_tfet: f(&r.ren_dst_tfet),
                ren_ready: f(&r.ren_ready),
                rel_valid: f(&r.rel_valid),
                rel_phys: f(&r.rel_phys),
                mem_start_valid: f(&r.mem_start_valid),
                mem_start_warp: f(&r.mem_start_warp),
                mem_done_valid: f(&r.mem_done_valid),
                mem_done_warp: f(&r.mem_done_warp),
                sample_acc: f(&r.sample_acc),
                tfet_hint: f(&r.tfet_hint),
                cmos_free: f(&r.cmos_free),
                tfet_free: f(&r.tfet_free),
                wb_arch_reg: f(&r.wb_arch_reg),
            }),
        }
    }

    /// The per-warp copies of the MRF's and the rename stage's per-instruction fields this
    /// configuration has, in declaration order.
    pub fn per_warp_fields(&self) -> Vec<&P> {
        let mut v: Vec<&P> = self.rfc.iter().filter_map(|r| r.next_src_last.as_ref()).collect();
        if let Some(o) = &self.orf {
            v.extend([&o.next_src_level, &o.next_src_entry, &o.next_src_fill, &o.next_strand]);
        }
        if let Some(r) = &self.rename {
            v.extend([&r.next_dst_new, &r.next_dst_load]);
        }
        v
    }
}

impl<P> Ports<P> for SmRfPorts<P> {
    type Of<Q> = SmRfPorts<Q>;

    fn slots(&self) -> Vec<Option<&P>> {
        let s = self;
        let (c, r, o, n) = (s.compressed.as_ref(), s.rfc.as_ref(), s.orf.as_ref(), s.rename.as_ref());
        let mut v: Vec<Option<&P>> = [
            &s.clk,
            &s.rst,
            &s.next_valid,
            &s.next_src_valid,
            &s.next_src_reg,
            &s.next_dst_valid,
            &s.next_dst,
            &s.next_preds,
            &s.next_pdst_valid,
            &s.next_pdst,
            &s.next_control,
            &s.next_long,
        ]
        .map(Some)
        .into();
        v.push(s.next_long_consumer.as_ref());
        v.push(r.and_then(|r| r.next_src_last.as_ref()));
        v.extend([o.map(|o| &o.next_src_level), o.map(|o| &o.next_src_entry)]);
        v.extend([o.map(|o| &o.next_src_fill), o.map(|o| &o.next_strand)]);
        v.extend([n.map(|n| &n.next_dst_new), n.map(|n| &n.next_dst_load)]);
        v.push(Some(&s.barrier));
        v.extend([&s.hold, &s.stall, &s.launch, &s.exit].map(Option::as_ref));
        v.extend([&s.grant_last, &s.clr_preds].map(Some));
        v.push(s.commit.as_ref());
        v.extend([&s.grant_valid, &s.grant_warp, &s.grant_tag].map(Some));
        for k in 0..SLOTS {
            v.push(n.map(|n| &n.ren_src_phys[k]));
        }
        v.extend([n.map(|n| &n.ren_dst_phys), n.map(|n| &n.ren_dst_tfet), n.map(|n| &n.ren_ready)]);
        v.extend([s.active.as_ref(), Some(&s.eligible), s.rows_per_warp.as_ref()]);
        v.extend([&s.disp_valid, &s.disp_ready, &s.disp_warp, &s.disp_tag, &s.disp_src_valid].map(Some));
        v.extend(s.disp_src_data.each_ref().map(Some));
        v.extend([Some(&s.wb_valid), s.wb_ready.as_ref()]);
        v.extend([&s.wb_warp, &s.wb_reg].map(Some));
        v.push(n.map(|n| &n.wb_arch_reg));
        v.extend([&s.wb_mask, &s.wb_data].map(Some));
        v.extend([o.map(|o| &o.wb_mrf), o.map(|o| &o.wb_upper), o.map(|o| &o.wb_entry)]);
        v.push(s.wb_commit.as_ref());
        v.extend([c.map(|c| &c.freeing), c.map(|c| &c.bank_gated)]);
        v.extend([c.map(|c| &c.bank_rd_en), c.map(|c| &c.bank_wr_en)]);
        v.push(r.map(|r| &r.wb_long));
        v.push(o.map(|o| &o.fill_busy));
        v.extend([n.map(|n| &n.rel_valid), n.map(|n| &n.rel_phys)]);
        v.extend([n.map(|n| &n.mem_start_valid), n.map(|n| &n.mem_start_warp)]);
        v.extend([n.map(|n| &n.mem_done_valid), n.map(|n| &n.mem_done_warp), n.map(|n| &n.sample_acc)]);
        v.extend([n.map(|n| &n.tfet_hint), n.map(|n| &n.cmos_free), n.map(|n| &n.tfet_free)]);
        v
    }
}

/// The parts' ports the top connects inside (none of them is a port of the top): the issue
/// stage's `collector_ready`, TRWS priority, register release and collector-leave inputs, and
/// its MRF issue outputs, in its declaration order.
pub fn inner_issue_ports<P>(issue: &IssuePorts<P>) -> Vec<&P> {
    let mut v: Vec<&P> = issue.first.iter().collect();
    v.extend([&issue.collector_ready, &issue.clr_valid, &issue.clr_warp, &issue.clr_reg]);
    v.extend([&issue.lv_valid, &issue.lv_warp, &issue.lv_src_valid].into_iter().flatten());
    v.extend(issue.lv_src_reg.iter().flatten());
    v.extend([&issue.to_collector, &issue.to_collector_warp]);
    v
}

/// The MRF's issue port, which the top drives inside from the grant, the cache's slot protocol
/// and the compressed MRF's frees (none of them is a port of the top), in its declaration order.
pub fn inner_mrf_ports<P>(mrf: &MrfPorts<P>) -> Vec<&P> {
    let mut v = vec![&mrf.issue_valid, &mrf.issue_ready, &mrf.issue_warp, &mrf.issue_src_valid];
    v.extend(&mrf.issue_src_reg);
    v.push(&mrf.issue_tag);
    v.extend(mrf.rfc.iter().filter_map(|r| r.issue_src_last.as_ref()));
    if let Some(o) = &mrf.orf {
        v.extend([&o.issue_src_level, &o.issue_src_entry, &o.issue_src_fill, &o.issue_strand]);
        // Slots per active warp: released from the scheduler's active set.
        v.extend(&o.rel_mask);
    }
    if let Some(c) = &mrf.compressed {
        v.extend([&c.free_valid, &c.free_warp]);
    }
    if let Some(r) = &mrf.rfc {
        v.extend([&r.act_valid, &r.act_warp, &r.act_ready, &r.flush_valid, &r.flush_warp, &r.flush_ready, &r.rel_mask]);
    }
    v
}

/// The rename stage's issue port, which the top drives inside from the grant (none of them is a
/// port of the top), in its declaration order.
pub fn inner_rename_ports<P>(rename: &RenamePorts<P>) -> Vec<&P> {
    vec![
        &rename.ren_valid,
        &rename.ren_warp,
        &rename.ren_src_reg,
        &rename.ren_dst_new,
        &rename.ren_dst_reg,
        &rename.ren_dst_load,
    ]
}
