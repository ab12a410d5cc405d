//! The composed register-file top of one SM scheduler (`<prefix>_sm_rf`): the issue stage
//! (`<prefix>_issue`) grants a warp each cycle, and the granted warp's next instruction enters
//! the MRF (`<prefix>_mrf`) through its issue port, inside the top, with the lowest free
//! collector tag — renamed on the way by the rename stage (`<prefix>_rename`) when the config
//! renames. The glue: the tag pool, the granted warp's operand fields, the stall of warps with
//! an ORF/LRF fill on its way or without a free physical register, TRWS priority, the
//! collector-leave event at dispatch (with a bloomboard, the leaving instruction's sources, kept
//! per tag since issue), and the release of a register result in the scoreboard when its
//! write-back is taken or, compressed or to a TFET register, stored ([`Release`]); warps coming
//! and going in the register file cache and the compressed MRF ([`warp_control`]).

pub mod interface;
pub mod warp_control;

use super::issue::{self, interface::IssuePorts};
use super::mrf::{
    self,
    interface::{CompressedPorts, MrfPorts, OrfPorts, RfcPorts},
};
use super::rename::{self, interface::RenamePorts};
use crate::blocks::sram::SramKind;
use crate::config::Checked;
use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR, index_bits};
use crate::layout::rename::RenameLayout;
use crate::verilog::{
    Module, Port, Ports, Sig, Submodule, lit, lowest_set, onehot_index, onehot_mux, reg, resize, vector_reg,
    vector_wire, warp_pick, wire,
};
use interface::{SmRfPorts, SmRfRenamePorts};

/// The typed ports of the composed top and of its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interfaces {
    pub top: SmRfPorts<Port>,
    pub issue: IssuePorts<Port>,
    pub mrf: MrfPorts<Port>,
    /// With renaming.
    pub rename: Option<RenamePorts<Port>>,
}

impl Interfaces {
    pub fn new(checked: &Checked) -> Interfaces {
        let g = &checked.geometry;
        let issue = IssuePorts::new(&issue::Shape::new(g, &checked.config));
        let mrf = MrfPorts::new(g, checked.compression.as_ref(), checked.rfc.as_ref(), checked.orf.as_ref());
        let rename = rename_layout(checked).map(|l| RenamePorts::new(&l));
        Interfaces { top: SmRfPorts::new(g, &issue, &mrf, rename.as_ref()), issue, mrf, rename }
    }

    /// The parts' ports the top drives inside, by name: the issue stage's, the MRF's, the
    /// rename stage's.
    pub fn inner_names(&self) -> Vec<&str> {
        let mut v = interface::inner_issue_ports(&self.issue);
        v.extend(interface::inner_mrf_ports(&self.mrf));
        v.extend(self.rename.iter().flat_map(interface::inner_rename_ports));
        v.into_iter().map(|p| p.name.as_str()).collect()
    }
}

/// The rename stage's layout, with renaming.
fn rename_layout(checked: &Checked) -> Option<RenameLayout> {
    checked
        .config
        .rename
        .enabled
        .then(|| RenameLayout::new(&checked.geometry, &checked.config.rename, &checked.config.timing))
}

/// When the top releases a register result in the issue stage (`clr_*`, and with
/// release-on-commit its warp's `commit` bit): the one rule the model and the RTL follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// At the edge its write-back is taken (`wb_valid & wb_ready`): the MRF (or the register
    /// file cache in front of it) holds the value from then on.
    Taken,
    /// When the compressed MRF stores it (`wb_commit`), in the order write-backs were taken: at
    /// most `depth` wait, one per compressor stage.
    Stored { depth: u32 },
    /// With TFET registers (renaming): a write-back to a CMOS register at the edge it is taken;
    /// to a TFET one (physical registers `tfet_from` on) when the MRF has written it
    /// (`wb_commit`), the edge after, when no write-back is taken.
    Tfet { tfet_from: u32 },
}

/// With renaming, the scoreboard's register is the write-back's architectural one
/// (`wb_arch_reg`), the MRF's its physical one (`wb_reg`).
impl Release {
    pub fn of(checked: &Checked) -> Release {
        if let Some(l) = rename_layout(checked).filter(|l| l.tfet() > 0) {
            return Release::Tfet { tfet_from: l.cmos };
        }
        match (&checked.compression, &checked.rfc) {
            (Some(l), None) => Release::Stored { depth: l.compress_latency },
            _ => Release::Taken,
        }
    }
}

/// A part of the top: its modules, leaves first, and its top with its typed ports.
struct Part<T> {
    modules: Vec<Module>,
    top: Submodule<T>,
}

fn part<T: Ports<Port>>(modules: Vec<Module>, ports: T) -> Part<T> {
    let module = modules.last().expect("a part has a top module").clone();
    assert_eq!(module.ports, ports.declared(), "{} is declared from its typed ports", module.name);
    Part { modules, top: Submodule { module, ports } }
}

/// Every module of the MRF, then those of the issue stage the MRF does not already have, then
/// the rename stage's, then the top (`<prefix>_sm_rf`).
pub fn modules(checked: &Checked, sram: SramKind) -> Vec<Module> {
    let Interfaces { top: ports, issue: issue_ports, mrf: mrf_ports, rename: rename_ports } = Interfaces::new(checked);
    let (prefix, g) = (checked.prefix(), &checked.geometry);
    let (compression, cache, upper) = (checked.compression.as_ref(), checked.rfc.as_ref(), checked.orf.as_ref());
    let mrf = part(mrf::modules(&prefix, g, sram, compression, cache, upper), mrf_ports);
    let shape = issue::Shape::new(g, &checked.config);
    let issue = part(issue::modules(&prefix, g, &shape), issue_ports);
    let renamer = rename_layout(checked).zip(rename_ports).map(|(l, p)| part(rename::modules(&prefix, &l), p));
    let parts = Parts { issue: &issue.top, mrf: &mrf.top, rename: renamer.as_ref().map(|r| &r.top) };
    let top = top(&prefix, g, Release::of(checked), &ports, &parts);
    let mut modules = mrf.modules;
    for m in issue.modules.into_iter().chain(renamer.into_iter().flat_map(|r| r.modules)) {
        match modules.iter().find(|have| have.name == m.name) {
            Some(have) => assert_eq!(have, &m, "the MRF and the issue stage have different modules {}", m.name),
            None => modules.push(m),
        }
    }
    modules.push(top);
    modules
}

/// The parts' tops inside the composed top.
struct Parts<'a> {
    issue: &'a Submodule<IssuePorts<Port>>,
    mrf: &'a Submodule<MrfPorts<Port>>,
    rename: Option<&'a Submodule<RenamePorts<Port>>>,
}

/// The width of an architectural register id (the issue stage's) and of the MRF's register
/// id: the same without renaming; with it, the rename stage takes the first and gives the
/// second.
fn reg_bits(parts: &Parts) -> (u32, u32) {
    let (arch, theirs) = (parts.issue.ports.clr_reg.width, parts.mrf.ports.issue_src_reg[0].width);
    match parts.rename {
        None => assert_eq!(
            arch, theirs,
            "the issue stage's register ids are {arch} bits, the MRF's {theirs}: without a rename stage to translate them they must agree"
        ),
        Some(r) => {
            assert_eq!(arch, r.ports.ren_dst_reg.width, "the issue and rename stages number registers alike");
            assert_eq!(
                theirs, r.ports.ren_dst_phys.width,
                "the rename stage and the MRF number physical registers alike"
            );
        }
    }
    (arch, theirs)
}

fn top(prefix: &str, g: &Geometry, rule: Release, ports: &SmRfPorts<Port>, parts: &Parts) -> Module {
    let (issue, mrf) = (parts.issue, parts.mrf);
    let p = ports.map(Port::sig);
    let (rb, pb) = reg_bits(parts);
    let bloom = issue.ports.lv_src_valid.is_some();
    let mut b = granted(g, &p, rb, parts.rename.is_none() || bloom);
    b += &tag_pool(g, &p);
    b += &leave(g, rb, bloom);
    b += &release(g, rule, &p, &issue.ports, rb, pb);
    let (stall_glue, stall) = stall(&p);
    b += &stall_glue;
    let wb = issue.ports.clr_warp.width;
    if p.rfc.is_some() {
        b += &warp_control::rfc(&p, g.warps, wb);
    }
    if p.compressed.is_some() {
        b += &warp_control::free(&p, g.warps, wb);
    }
    let hold = match (&p.hold, &p.rfc) {
        (Some(h), Some(_)) => {
            b += &vector_wire("issue_hold", h.width);
            b += &format!("  assign issue_hold = {h} | rfc_flushing;\n");
            Some(Sig::new("issue_hold", h.width))
        }
        (h, _) => h.clone(),
    };
    b += "\n  // The issue stage, and the MRF it issues to.\n";
    b += &issue.instance("issue", &issue_conns(&p, &issue.ports, rb, stall, hold));
    b += &mrf.instance("mrf", &mrf_conns(g, &p, &mrf.ports, rb));
    if let (Some(r), Some(n)) = (parts.rename, &p.rename) {
        b += &renamed(g, &p, rb);
        b += &r.instance("rename", &rename_conns(&p, n, rb));
    }
    let release = match (bloom, issue.ports.lv_valid.is_some()) {
        (true, _) => " and releases its sources in the warpboard",
        (false, true) => " and releases its warp in the warpboard",
        (false, false) => "",
    };
    Module {
        name: format!("{prefix}_sm_rf"),
        doc: [
            format!("Register files of one SM scheduler: the issue stage `{}` grants a", issue.module.name),
            format!("warp each cycle, and its next instruction enters the MRF `{}` with the", mrf.module.name),
            format!("lowest free of {} collector tags. An instruction leaving its collector", g.collectors),
            format!("(dispatch) frees its tag{release}. A register result is released in the"),
        ]
        .into_iter()
        .chain(match rule {
            Release::Taken => vec!["scoreboard at the edge its write-back is taken.".into()],
            Release::Stored { .. } => vec!["scoreboard when the compressed MRF stores it (wb_commit).".into()],
            Release::Tfet { .. } => vec![
                "scoreboard at the edge its write-back is taken or, to a TFET register,".into(),
                "when the MRF has written it (wb_commit).".into(),
            ],
        })
        .chain(parts.rename.map(|r| format!("The rename stage `{}` renames the granted instruction.", r.module.name)))
        .collect(),
        ports: ports.declared(),
        body: b,
        memory: None,
    }
}

/// The granted warp's next instruction as the MRF's issue port takes it (`granted_*`), offered
/// unless it completes at issue.
/// The sources' registers, one wire each (`granted_src<s>_reg`), unless nothing reads them (a
/// renamed top without a bloomboard: the MRF reads physical registers).
fn granted(g: &Geometry, p: &SmRfPorts<Sig>, rb: u32, each_source: bool) -> String {
    let k = SLOTS_PER_COLLECTOR;
    let sources = if each_source { 0..k } else { 0..0 };
    let by = pick_by(p);
    let mut b =
        String::from("  // Issue port of the MRF: the granted warp's next instruction, unless it completes at issue\n");
    b += &match p.rename {
        None => "  // (the issue stage's to_collector). Its fields are picked by to_collector_warp, the grant\n  // then, which does not wait on the collectors' state.\n".to_string(),
        Some(_) => format!("  // (the issue stage's to_collector). Its fields are picked by {by}: the rename stage's\n  // outputs follow the grant in every cycle.\n"),
    };
    b += &wire("mrf_issue_valid", 1);
    b += &wire(to_collector_warp(p), g.warp_bits());
    b += &wire("mrf_issue_ready", 1);
    b += &vector_wire("granted_src_valid", k);
    for s in sources.clone() {
        b += &wire(&format!("granted_src{s}_reg"), rb);
    }
    let fields: Vec<(Sig, &Sig)> = p.per_warp_fields().into_iter().map(|f| (granted_field(g, f), f)).collect();
    for (field, _) in &fields {
        b += &wire(&field.expr, field.width);
    }
    b += "  // The granted warp's fields, each laid out at a power-of-two stride (see `warp_pick`).\n";
    b += &granted_pick(g, by, "granted_src_valid", &p.next_src_valid, (1, 0, k));
    for s in sources {
        b += &granted_pick(g, by, &format!("granted_src{s}_reg"), &p.next_src_reg, (k, s, rb));
    }
    for (field, next) in &fields {
        b += &granted_pick(g, by, &field.expr, next, (1, 0, field.width));
    }
    b
}

/// What picks the granted instruction's fields for the MRF: the issue stage's `to_collector_warp`
/// (the grant whenever the instruction enters a collector, and off the path through the
/// collectors' state), or in a renamed top the grant itself, which the rename stage's outputs
/// follow.
fn pick_by(p: &SmRfPorts<Sig>) -> &str {
    match p.rename {
        None => "to_collector_warp",
        Some(_) => &p.grant_warp.expr,
    }
}

/// The wire the issue stage's `to_collector_warp` drives (unused in a renamed top).
fn to_collector_warp(p: &SmRfPorts<Sig>) -> &'static str {
    if p.rename.is_some() { "unused_to_collector_warp" } else { "to_collector_warp" }
}

/// `target` (a `granted_` wire) = the granted warp's element of `next` (see `warp_pick`), by way
/// of the wire `<name>_by_warp`.
fn granted_pick(g: &Geometry, by: &str, target: &str, next: &Sig, element: (u32, u32, u32)) -> String {
    let name = format!("{}_by_warp", target.strip_prefix("granted_").unwrap_or(target));
    let (decl, select) = warp_pick(&name, &next.expr, by, (g.warps, g.warp_bits()), element);
    format!("{decl}  assign {target} = {select};\n")
}

/// The granted warp's copy of a per-warp operand field `next_X`: the wire `granted_X`.
fn granted_field(g: &Geometry, next: &Sig) -> Sig {
    let name = next.expr.strip_prefix("next_").expect("a per-warp field is named next_*");
    Sig::new(format!("granted_{name}"), next.width / g.warps)
}

/// The granted instruction's registers as the rename stage takes them: its sources (source s
/// at [rb·s+rb−1 : rb·s]) and its destination.
fn renamed(g: &Geometry, p: &SmRfPorts<Sig>, rb: u32) -> String {
    let k = SLOTS_PER_COLLECTOR;
    let mut b = String::from(
        "\n  // The rename stage renames the granted instruction: its physical source registers are the\n",
    );
    b += "  // MRF's (ren_src*_phys); its destination's goes out with the grant (ren_dst_phys).\n";
    b += &wire("granted_src_reg", k * rb);
    b += &wire("granted_dst", rb);
    b += &granted_pick(g, pick_by(p), "granted_src_reg", &p.next_src_reg, (1, 0, k * rb));
    b += &granted_pick(g, pick_by(p), "granted_dst", &p.next_dst, (1, 0, rb));
    b
}

/// The collector tags: one per operand collector, taken at issue, free again at dispatch.
fn tag_pool(g: &Geometry, p: &SmRfPorts<Sig>) -> String {
    let (c, tb) = (g.collectors, g.tag_bits);
    let mut b =
        String::from("\n  // Collector tags, one per operand collector: the granted instruction takes the lowest\n");
    b += "  // free one at issue; the MRF returns it at dispatch, which frees it.\n";
    b += &vector_reg("tag_free", c);
    for name in ["tag_first", "tag_take", "tag_give", "disp_sel"] {
        b += &vector_wire(name, c);
    }
    b += &wire("disp_take", 1);
    b += &format!("  assign tag_first = {};  // lowest free tag, one-hot\n", lowest_set("tag_free", c));
    let index = onehot_index("tag_first", c);
    b += &format!("  assign {} = {};\n", p.grant_tag, resize(&index, index_bits(c), tb));
    b += &format!("  assign disp_take = {} & {};\n", p.disp_valid, p.disp_ready);
    for t in 0..c {
        b += &format!("  assign disp_sel[{t}] = ({} == {});\n", p.disp_tag, lit(tb, t.into()));
    }
    b += &format!("  assign tag_take = {{{c}{{mrf_issue_valid}}}} & tag_first;\n");
    b += &format!("  assign tag_give = {{{c}{{disp_take}}}} & disp_sel;\n");
    b += "  always @(posedge clk) begin\n";
    b += &format!("    if (rst) tag_free <= {{{c}{{1'b1}}}};\n");
    b += "    else tag_free <= (tag_free & ~tag_take) | tag_give;\n";
    b += "  end\n";
    b
}

/// With a bloomboard, the sources of each tag's instruction, kept from issue until it leaves its
/// collector, when the bloomboard releases them (`leave_*`, the entry of `disp_tag`).
fn leave(g: &Geometry, rb: u32, bloom: bool) -> String {
    if !bloom {
        return String::new();
    }
    let (c, k) = (g.collectors, SLOTS_PER_COLLECTOR);
    let mut b = String::from(
        "\n  // Sources of each tag's instruction, kept from issue: the warpboard releases them when it\n",
    );
    b += "  // leaves its collector.\n";
    let regs: Vec<String> = (0..k).map(|s| format!("src{s}_reg")).collect();
    for t in 0..c {
        b += &vector_reg(&format!("tag{t}_src_valid"), k);
        for r in &regs {
            b += &reg(&format!("tag{t}_{r}"), rb);
        }
    }
    b += &vector_wire("leave_src_valid", k);
    for r in &regs {
        b += &wire(&format!("leave_{r}"), rb);
    }
    let fields: Vec<(&str, u32)> =
        std::iter::once(("src_valid", k)).chain(regs.iter().map(|r| (r.as_str(), rb))).collect();
    b += "  always @(posedge clk) begin\n";
    for t in 0..c {
        b += &format!("    if (tag_take[{t}]) begin\n");
        for (f, _) in &fields {
            b += &format!("      tag{t}_{f} <= granted_{f};\n");
        }
        b += "    end\n";
    }
    b += "  end\n";
    for (f, w) in &fields {
        let terms: Vec<(String, String)> = (0..c).map(|t| (format!("disp_sel[{t}]"), format!("tag{t}_{f}"))).collect();
        b += &format!("  assign leave_{f} = {};\n", onehot_mux(&terms, *w));
    }
    b
}

/// The register result released in the issue stage this cycle (`release_*`), by `rule`; with
/// release-on-commit its warp joins the top's `commit` (`issue_commit`).
fn release(g: &Geometry, rule: Release, p: &SmRfPorts<Sig>, issue: &IssuePorts<Port>, rb: u32, pb: u32) -> String {
    let wb = issue.clr_warp.width;
    assert_eq!(wb, p.wb_warp.width, "the issue stage and the MRF number warps alike");
    let taken = match &p.wb_ready {
        Some(ready) => format!("{} & {ready}", p.wb_valid),
        None => p.wb_valid.expr.clone(),
    };
    let arch = p.rename.as_ref().map_or(&p.wb_reg, |r| &r.wb_arch_reg);
    let mut b = String::new();
    match rule {
        Release::Taken => {
            b += "\n  // A register result is released in the scoreboard at the edge its write-back is taken.\n";
            b += &wire("release_valid", 1);
            b += &wire("release_warp", wb);
            b += &wire("release_reg", rb);
            b += &format!("  assign release_valid = {taken};\n");
            b += &format!("  assign release_warp = {};\n", p.wb_warp);
            b += &format!("  assign release_reg = {arch};\n");
        }
        Release::Stored { depth } => b += &stored(depth, &taken, p, wb, rb),
        Release::Tfet { tfet_from } => b += &tfet(tfet_from, &taken, p, arch, wb, rb, pb),
    }
    if let Some(commit) = &p.commit {
        b += "\n  // The released register's warp commits.\n";
        b += &vector_wire("issue_commit", commit.width);
        let (one, none) = (lit(g.warps, 1), lit(g.warps, 0));
        b += &format!("  assign issue_commit = {commit} | (release_valid ? {one} << release_warp : {none});\n");
    }
    b
}

/// The compressed MRF's release: write-backs taken and not stored yet, oldest first (`held0`),
/// in a shift register of `depth` entries; `wb_commit` stores the oldest, which is released.
fn stored(depth: u32, taken: &str, p: &SmRfPorts<Sig>, wb: u32, rb: u32) -> String {
    let commit = p.wb_commit.as_ref().expect("the compressed MRF has wb_commit");
    let mut b =
        String::from("\n  // Write-backs taken, waiting for the compressed MRF to store them, oldest first: each\n");
    b += "  // releases its register in the scoreboard when stored (wb_commit). At most one per\n";
    b += "  // compressor stage waits.\n";
    b += &wire("release_valid", 1);
    b += &wire("release_warp", wb);
    b += &wire("release_reg", rb);
    b += &vector_reg("held_valid", depth);
    for e in 0..depth {
        b += &reg(&format!("held{e}_warp"), wb);
        b += &reg(&format!("held{e}_reg"), rb);
    }
    b += &wire("wb_taken", 1);
    b += &vector_wire("kept_valid", depth);
    b += &format!("  assign wb_taken = {taken};\n");
    b += &format!("  assign release_valid = {commit};\n");
    b += "  assign release_warp = held0_warp;\n";
    b += "  assign release_reg = held0_reg;\n";
    b += "  // After a release every entry moves one place towards the oldest; a write-back taken\n";
    b += "  // joins at the first free place.\n";
    let shifted = if depth == 1 { "1'b0".to_string() } else { format!("{{1'b0, held_valid[{}:1]}}", depth - 1) };
    b += &format!("  assign kept_valid = {commit} ? {shifted} : held_valid;\n");
    b += "  always @(posedge clk) begin\n";
    for e in 0..depth {
        let joins = match e {
            0 => "wb_taken & ~kept_valid[0]".to_string(),
            _ => format!("wb_taken & ~kept_valid[{e}] & kept_valid[{}]", e - 1),
        };
        b += &format!("    held_valid[{e}] <= ~rst & (kept_valid[{e}] | ({joins}));\n");
        b += &format!("    if ({joins}) begin\n");
        b += &format!("      held{e}_warp <= {};\n      held{e}_reg <= {};\n", p.wb_warp, p.wb_reg);
        if e + 1 < depth {
            b += &format!("    end else if ({commit}) begin\n");
            b += &format!("      held{e}_warp <= held{}_warp;\n      held{e}_reg <= held{}_reg;\n", e + 1, e + 1);
        }
        b += "    end\n";
    }
    b += "  end\n";
    b
}

/// With renaming: a write-back to a TFET register releases its register when the MRF has
/// written it (`wb_commit`, the edge after it is taken); the last write-back taken is kept for
/// that (no write-back is taken in the cycle a TFET write finishes).
fn tfet(tfet_from: u32, taken: &str, p: &SmRfPorts<Sig>, arch: &Sig, wb: u32, rb: u32, pb: u32) -> String {
    let commit = p.wb_commit.as_ref().expect("an MRF with TFET rows has wb_commit");
    let mut b = String::from(
        "\n  // A register result is released in the scoreboard at the edge its write-back is taken or,\n",
    );
    b += &format!("  // to a TFET register (physical {tfet_from} on), when the MRF has written it (wb_commit),\n");
    b += "  // the edge after: the write-back taken last is kept for that.\n";
    b += &wire("release_valid", 1);
    b += &wire("release_warp", wb);
    b += &wire("release_reg", rb);
    b += &wire("wb_taken", 1);
    b += &reg("held_warp", wb);
    b += &reg("held_reg", rb);
    b += &format!("  assign wb_taken = {taken};\n");
    b += &format!("  assign release_valid = {commit} | (wb_taken & ({} < {}));\n", p.wb_reg, lit(pb, tfet_from.into()));
    b += &format!("  assign release_warp = {commit} ? held_warp : {};\n", p.wb_warp);
    b += &format!("  assign release_reg = {commit} ? held_reg : {arch};\n");
    b += "  always @(posedge clk) begin\n";
    b += &format!("    if (wb_taken) begin\n      held_warp <= {};\n      held_reg <= {arch};\n    end\n", p.wb_warp);
    b += "  end\n";
    b
}

/// The issue stage's per-warp stall: the top's, and warps with an ORF/LRF fill on its way, or
/// while no physical register is free, warps whose next instruction writes one. Returns the
/// glue and the signal the issue stage's `stall` is connected to.
fn stall(p: &SmRfPorts<Sig>) -> (String, Option<Sig>) {
    let (held, why) = match (&p.orf, &p.rename) {
        (Some(o), _) => {
            (o.fill_busy.expr.clone(), "A warp with an ORF/LRF fill on its way issues nothing (the MRF holds it).")
        }
        (None, Some(r)) => (
            format!("({{{}{{~{}}}}} & {})", p.next_dst_valid.width, r.ren_ready, p.next_dst_valid),
            "While no physical register is free, a warp whose next instruction writes one does not issue.",
        ),
        (None, None) => return (String::new(), p.stall.clone()),
    };
    let stall = p.stall.as_ref().expect("the issue stage has a stall input beside an ORF/LRF or a rename stage");
    let mut b = format!("\n  // {why}\n");
    b += &vector_wire("issue_stall", stall.width);
    b += &format!("  assign issue_stall = {stall} | {held};\n");
    (b, Some(Sig::new("issue_stall", stall.width)))
}

/// The issue stage's connections: the top's ports, but its MRF issue readiness and its
/// collector-leave event (the dispatch taken, and with a bloomboard its sources).
fn issue_conns(
    p: &SmRfPorts<Sig>,
    ports: &IssuePorts<Port>,
    rb: u32,
    stall: Option<Sig>,
    hold: Option<Sig>,
) -> IssuePorts<Sig> {
    let v = |name: &str, width: u32| Sig::new(name, width);
    let k = SLOTS_PER_COLLECTOR;
    IssuePorts {
        clk: p.clk.clone(),
        rst: p.rst.clone(),
        next_valid: p.next_valid.clone(),
        next_src_valid: p.next_src_valid.clone(),
        next_src_reg: p.next_src_reg.clone(),
        next_dst_valid: p.next_dst_valid.clone(),
        next_dst: p.next_dst.clone(),
        next_preds: p.next_preds.clone(),
        next_pdst_valid: p.next_pdst_valid.clone(),
        next_pdst: p.next_pdst.clone(),
        next_control: p.next_control.clone(),
        next_long: p.next_long.clone(),
        next_long_consumer: p.next_long_consumer.clone(),
        barrier: p.barrier.clone(),
        hold,
        stall,
        first: ports.first.as_ref().map(|_| p.rename.as_ref().expect("TRWS only with renaming").tfet_hint.clone()),
        collector_ready: v("mrf_issue_ready", 1),
        launch: ports.launch.as_ref().and(p.launch.clone()),
        grant_last: p.grant_last.clone(),
        clr_valid: v("release_valid", 1),
        clr_warp: v("release_warp", ports.clr_warp.width),
        clr_reg: v("release_reg", rb),
        clr_preds: p.clr_preds.clone(),
        lv_valid: ports.lv_valid.as_ref().map(|_| v("disp_take", 1)),
        lv_warp: ports.lv_warp.as_ref().map(|_| p.disp_warp.clone()),
        lv_src_valid: ports.lv_src_valid.as_ref().map(|_| v("leave_src_valid", k)),
        lv_src_reg: ports.lv_src_reg.as_ref().map(|_| std::array::from_fn(|s| v(&format!("leave_src{s}_reg"), rb))),
        commit: p.commit.as_ref().map(|c| v("issue_commit", c.width)),
        grant_valid: p.grant_valid.clone(),
        grant_warp: p.grant_warp.clone(),
        to_collector: v("mrf_issue_valid", 1),
        to_collector_warp: v(to_collector_warp(p), p.grant_warp.width),
        active: p.active.clone(),
        eligible: p.eligible.clone(),
    }
}

/// The MRF's connections: its issue port from the grant, the cache's slot protocol and the
/// compressed frees from the top's glue, the top's ports otherwise.
fn mrf_conns(g: &Geometry, p: &SmRfPorts<Sig>, ports: &MrfPorts<Port>, rb: u32) -> MrfPorts<Sig> {
    let v = |name: &str, width: u32| Sig::new(name, width);
    let k = SLOTS_PER_COLLECTOR;
    MrfPorts {
        clk: p.clk.clone(),
        rst: p.rst.clone(),
        rows_per_warp: p.rows_per_warp.clone(),
        issue_valid: v("mrf_issue_valid", 1),
        issue_ready: v("mrf_issue_ready", 1),
        issue_warp: v(pick_by(p), g.warp_bits()),
        issue_src_valid: v("granted_src_valid", k),
        issue_src_reg: std::array::from_fn(|s| match &p.rename {
            Some(r) => r.ren_src_phys[s].clone(),
            None => v(&format!("granted_src{s}_reg"), rb),
        }),
        issue_tag: p.grant_tag.clone(),
        disp_valid: p.disp_valid.clone(),
        disp_ready: p.disp_ready.clone(),
        disp_warp: p.disp_warp.clone(),
        disp_tag: p.disp_tag.clone(),
        disp_src_valid: p.disp_src_valid.clone(),
        disp_src_data: p.disp_src_data.clone(),
        wb_valid: p.wb_valid.clone(),
        wb_ready: p.wb_ready.clone(),
        wb_warp: p.wb_warp.clone(),
        wb_reg: p.wb_reg.clone(),
        wb_mask: p.wb_mask.clone(),
        wb_data: p.wb_data.clone(),
        wb_commit: p.wb_commit.clone(),
        compressed: p.compressed.as_ref().zip(ports.compressed.as_ref()).map(|(c, m)| CompressedPorts {
            free_valid: v("free_valid", 1),
            free_warp: v("free_warp", m.free_warp.width),
            bank_gated: c.bank_gated.clone(),
            bank_rd_en: c.bank_rd_en.clone(),
            bank_wr_en: c.bank_wr_en.clone(),
        }),
        rfc: p.rfc.as_ref().zip(ports.rfc.as_ref()).map(|(r, m)| RfcPorts {
            issue_src_last: r.next_src_last.as_ref().map(|f| granted_field(g, f)),
            wb_long: r.wb_long.clone(),
            act_valid: v("rfc_act_valid", 1),
            act_warp: v("rfc_act_warp", m.act_warp.width),
            act_ready: v("rfc_act_ready", 1),
            flush_valid: v("rfc_flush_valid", 1),
            flush_warp: v("rfc_flush_warp", m.flush_warp.width),
            flush_ready: v("rfc_flush_ready", 1),
            rel_mask: v("rfc_rel_mask", m.rel_mask.width),
        }),
        orf: p.orf.as_ref().zip(ports.orf.as_ref()).map(|(o, m)| OrfPorts {
            issue_src_level: granted_field(g, &o.next_src_level),
            issue_src_entry: granted_field(g, &o.next_src_entry),
            issue_src_fill: granted_field(g, &o.next_src_fill),
            issue_strand: granted_field(g, &o.next_strand),
            wb_mrf: o.wb_mrf.clone(),
            wb_upper: o.wb_upper.clone(),
            wb_entry: o.wb_entry.clone(),
            fill_busy: o.fill_busy.clone(),
            // Slots per active warp: a warp outside the scheduler's active set loses its slot.
            rel_mask: m.rel_mask.as_ref().map(|r| {
                let active = p.active.as_ref().expect("slots per active warp come with the two-level scheduler");
                Sig::new(format!("~{active}"), r.width)
            }),
        }),
    }
}

/// The rename stage's connections: its issue port from the grant, the top's ports otherwise.
fn rename_conns(p: &SmRfPorts<Sig>, r: &SmRfRenamePorts<Sig>, rb: u32) -> RenamePorts<Sig> {
    let v = |name: &str, width: u32| Sig::new(name, width);
    RenamePorts {
        clk: p.clk.clone(),
        rst: p.rst.clone(),
        ren_valid: v("mrf_issue_valid", 1),
        ren_warp: p.grant_warp.clone(),
        ren_src_reg: v("granted_src_reg", SLOTS_PER_COLLECTOR * rb),
        ren_dst_new: v("granted_dst_new", 1),
        ren_dst_reg: v("granted_dst", rb),
        ren_dst_load: v("granted_dst_load", 1),
        ren_src_phys: r.ren_src_phys.clone(),
        ren_dst_phys: r.ren_dst_phys.clone(),
        ren_dst_tfet: r.ren_dst_tfet.clone(),
        ren_ready: r.ren_ready.clone(),
        rel_valid: r.rel_valid.clone(),
        rel_phys: r.rel_phys.clone(),
        mem_start_valid: r.mem_start_valid.clone(),
        mem_start_warp: r.mem_start_warp.clone(),
        mem_done_valid: r.mem_done_valid.clone(),
        mem_done_warp: r.mem_done_warp.clone(),
        sample_acc: r.sample_acc.clone(),
        tfet_hint: r.tfet_hint.clone(),
        cmos_free: r.cmos_free.clone(),
        tfet_free: r.tfet_free.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::{self, generate_sm_rf};
    use crate::verilog::Dir;
    use std::collections::BTreeSet;

    /// Every preset and variations.
    fn configs() -> Vec<(String, Checked)> {
        let mut v: Vec<(String, Checked)> = crate::config::preset_names()
            .into_iter()
            .map(|n| (n.to_string(), crate::config::preset(n).unwrap()))
            .collect();
        for extra in [
            "[mrf]\ncollectors = 1",
            "[mrf]\ncollectors = 3\n[warpboard]\npolicy = \"release_on_read\"",
            "[warpboard]\npolicy = \"release_on_commit\"\n[scheduler]\npolicy = \"lrr\"",
            "[warpboard]\npolicy = \"bloom1\"\n[scheduler]\npolicy = \"two_level\"",
            "[rfc]\nenabled = true\nliveness = false\n[compression]\nenabled = true",
            "[orf]\nenabled = true\nlrf = \"unified\"\n[warpboard]\npolicy = \"bloom_unbounded\"",
            "[rename]\nenabled = true\ntrws = true\n[warpboard]\npolicy = \"bloom2\"",
            "[rename]\nenabled = true\ncmos_rows = 256\n[warpboard]\npolicy = \"release_on_commit\"",
        ] {
            v.push((extra.replace('\n', " "), crate::config::parse(&format!("name = \"x\"\n{extra}")).unwrap()));
        }
        v
    }

    fn names<'a>(ports: impl IntoIterator<Item = &'a Port>) -> BTreeSet<&'a str> {
        ports.into_iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn sm_rf_top_has_the_parts_ports_but_the_inner_ones() {
        for (name, checked) in configs() {
            let i = Interfaces::new(&checked);
            let top = i.top.declared();
            let inner: BTreeSet<&str> = i.inner_names().into_iter().collect();
            let issue = i.issue.declared();
            let mrf = i.mrf.declared();
            let rename = i.rename.as_ref().map(Ports::declared).unwrap_or_default();
            assert_eq!(rename.is_empty(), !checked.config.rename.enabled, "{name}");
            // Every part port is either inner or a port of the top with its name, direction and width.
            for p in issue.iter().chain(&mrf).chain(&rename) {
                let found = top.iter().find(|t| t.name == p.name);
                assert_eq!(found.is_none(), inner.contains(p.name.as_str()), "{name}: {}", p.name);
                if let Some(t) = found {
                    assert_eq!((t.dir, t.width), (p.dir, p.width), "{name}: {}", p.name);
                }
            }
            // The others: the grant's tag, the per-warp operand fields, one per MRF or rename
            // stage field, and with renaming the write-back's architectural register.
            let parts = names(issue.iter().chain(&mrf).chain(&rename));
            let mut new: Vec<&str> = names(&top).difference(&parts).copied().collect();
            new.sort();
            let mut expected = vec!["grant_tag".to_string()];
            if !rename.is_empty() {
                expected.push("wb_arch_reg".into());
            }
            // The warp events the cache and the compressed MRF need, and the compressed frees.
            let (rfc, compressed) = (checked.rfc.is_some(), checked.compression.is_some());
            if rfc && !issue.iter().any(|p| p.name == "launch" || p.name == "active") {
                expected.push("launch".into());
            }
            if rfc || compressed {
                expected.push("warp_exit".into());
            }
            if compressed {
                expected.push("freeing".into());
            }
            let fields = ["issue_src_last", "issue_src_level", "issue_src_entry", "issue_src_fill", "issue_strand"];
            for f in fields.into_iter().chain(["ren_dst_new", "ren_dst_load"]) {
                if let Some(p) = mrf.iter().chain(&rename).find(|p| p.name == f) {
                    expected.push(f.replace("issue_", "next_").replace("ren_", "next_"));
                    let t = top.iter().find(|t| t.name == expected[expected.len() - 1]).unwrap();
                    assert_eq!((t.dir, t.width), (Dir::Input, p.width * checked.geometry.warps), "{name}: {f}");
                }
            }
            expected.sort();
            assert_eq!(new, expected, "{name}");
            let inner_ports =
                ["collector_ready", "trws_first", "lv_valid", "lv_src0_reg", "issue_valid", "issue_ready"];
            for gone in inner_ports.into_iter().chain(["issue_tag", "ren_valid", "ren_src_reg", "ren_dst_reg"]) {
                assert!(!top.iter().any(|t| t.name == gone), "{name}: {gone}");
            }
            let tag = top.iter().find(|t| t.name == "grant_tag").unwrap();
            assert_eq!((tag.dir, tag.width), (Dir::Output, checked.geometry.tag_bits));
            assert_eq!(names(&top).len(), top.len(), "{name}: no port twice");
        }
    }

    #[test]
    fn sm_rf_design_holds_both_parts_and_the_top_last() {
        for (name, checked) in configs() {
            let design = generate_sm_rf(&checked, SramKind::Behavioural);
            let prefix = checked.prefix();
            assert_eq!(design.manifest.top, format!("{prefix}_sm_rf"), "{name}");
            let modules: Vec<&str> = design.manifest.modules.iter().map(|m| m.name.as_str()).collect();
            assert_eq!(modules.last(), Some(&design.manifest.top.as_str()));
            assert_eq!(modules.iter().collect::<BTreeSet<_>>().len(), modules.len(), "{name}: no module twice");
            let mrf = emit::generate(&checked, SramKind::Behavioural);
            let issue = emit::generate_issue(&checked);
            let mut parts: BTreeSet<String> = names_of(&mrf).union(&names_of(&issue)).cloned().collect();
            if checked.config.rename.enabled {
                let rename = emit::generate_rename(&checked);
                parts.extend(names_of(&rename));
                assert!(modules.contains(&rename.manifest.top.as_str()), "{name}");
            }
            for m in &parts {
                assert!(modules.contains(&m.as_str()), "{name}: {m}");
            }
            assert_eq!(modules.len(), parts.len() + 1, "{name}");
            let ports = Interfaces::new(&checked).top.declared();
            assert_eq!(design.manifest.top_module().ports, ports, "{name}");
            let text = &design.files.iter().find(|(f, _)| *f == format!("{prefix}_sm_rf.v")).unwrap().1;
            assert!(text.contains(&format!("  {prefix}_issue issue (\n")), "{name}");
            assert!(text.contains(&format!("  {prefix}_mrf mrf (\n")), "{name}");
        }
    }

    fn names_of(d: &crate::emit::Design) -> BTreeSet<String> {
        d.manifest.modules.iter().map(|m| m.name.clone()).collect()
    }

    #[test]
    fn sm_rf_glue_follows_the_parts() {
        let top = |preset: &str| {
            let design = generate_sm_rf(&crate::config::preset(preset).unwrap(), SramKind::Behavioural);
            let file = format!("{}.v", design.manifest.top);
            design.files.into_iter().find(|(f, _)| *f == file).unwrap().1
        };
        // A bloomboard keeps each tag's sources; no warpboard needs no leave event.
        let war = top("war-warpboard");
        assert!(
            war.contains(".lv_src_valid      (leave_src_valid)") && war.contains("tag7_src2_reg <= granted_src2_reg;")
        );
        assert!(war.contains("assign grant_tag = {{1{1'b0}}, "));
        let small = top("small");
        assert!(!small.contains("lv_") && !small.contains("leave_"));
        assert!(
            small.contains(".to_collector      (mrf_issue_valid)")
                && small.contains(".issue_warp      (to_collector_warp)")
        );
        // The ORF/LRF: fills hold their warp in the issue stage, its operand fields per warp.
        let orf = top("micro11-orf-lrf");
        assert!(orf.contains("assign issue_stall = stall | fill_busy;") && orf.contains("(issue_stall)"));
        assert!(orf.contains("assign granted_strand = next_strand[to_collector_warp];"));
        assert!(
            top("isca11-rfc").contains("assign granted_src_last = src_last_by_warp[{to_collector_warp, 2'd0} +: 3];")
        );
        // Register release: at the write-back's take, or compressed, when stored, oldest first.
        assert!(
            small.contains("assign release_valid = wb_valid;") && small.contains(".clr_reg           (release_reg)")
        );
        let bdi = top("isca15-bdi");
        let depth = crate::config::preset("isca15-bdi").unwrap().compression.unwrap().compress_latency;
        assert!(bdi.contains("assign release_valid = wb_commit;") && bdi.contains("assign release_warp = held0_warp;"));
        assert!(
            bdi.contains(&format!("held{}_reg <= wb_reg;", depth - 1)) && !bdi.contains(&format!("held{depth}_reg"))
        );
    }

    /// With renaming, the MRF reads the rename stage's physical registers, the scoreboard is
    /// released by architectural register (a TFET write when written), and a full stage stalls
    /// the warps whose next instruction writes a register.
    #[test]
    fn sm_rf_glue_renames_between_the_grant_and_the_mrf() {
        let checked = crate::config::preset("tfet-hybrid").unwrap();
        let design = generate_sm_rf(&checked, SramKind::Behavioural);
        let top = &design.files.iter().find(|(f, _)| *f == "tfet_hybrid_sm_rf.v").unwrap().1;
        assert!(top.contains("  tfet_hybrid_rename rename (\n"));
        for s in 0..SLOTS_PER_COLLECTOR {
            assert!(top.contains(&format!(".issue_src{s}_reg  (ren_src{s}_phys)")), "source {s}");
            assert!(
                !top.contains(&format!("wire [4:0] granted_src{s}_reg")),
                "nothing reads the architectural sources"
            );
        }
        assert!(top.contains(".ren_valid       (mrf_issue_valid)") && top.contains(".ren_dst_reg     (granted_dst)"));
        let cmos = RenameLayout::new(&checked.geometry, &checked.config.rename, &checked.config.timing).cmos;
        assert!(top.contains(&format!("assign release_valid = wb_commit | (wb_taken & (wb_reg < 10'd{cmos}));")));
        assert!(top.contains("assign release_reg = wb_commit ? held_reg : wb_arch_reg;"));
        assert!(top.contains("assign issue_stall = stall | ({32{~ren_ready}} & next_dst_valid);"));
        // TRWS: the stage's hint is the scheduler's priority, inside the top.
        let trws = crate::config::parse("name = \"t\"\n[rename]\nenabled = true\ntrws = true\n").unwrap();
        let design = generate_sm_rf(&trws, SramKind::Behavioural);
        let top = &design.files.iter().find(|(f, _)| *f == "t_sm_rf.v").unwrap().1;
        assert!(top.contains(".trws_first        (tfet_hint)"), "{top}");
        // Without TFET rows a write-back releases at its take, by architectural register.
        let cmos = crate::config::parse("name = \"c\"\n[rename]\nenabled = true\ncmos_rows = 256\n").unwrap();
        assert_eq!(Release::of(&cmos), Release::Taken);
        let design = generate_sm_rf(&cmos, SramKind::Behavioural);
        let top = &design.files.iter().find(|(f, _)| *f == "c_sm_rf.v").unwrap().1;
        assert!(top.contains("assign release_reg = wb_arch_reg;"));
    }

    /// `slots` has one entry per field whatever the configuration, in `list`'s order; the top's
    /// module is declared in it.
    #[test]
    fn sm_rf_slots_line_up() {
        for (name, checked) in configs() {
            let i = Interfaces::new(&checked);
            let full = Interfaces::new(&configs()[0].1);
            assert_eq!(i.issue.slots().len(), full.issue.slots().len(), "{name}");
            assert_eq!(i.mrf.slots().len(), full.mrf.slots().len(), "{name}");
            assert_eq!(i.top.slots().len(), full.top.slots().len(), "{name}");
            assert_eq!(i.issue.slots().len(), i.issue.map(Port::sig).slots().len());
            assert_eq!(i.mrf.slots().len(), i.mrf.map(Port::sig).slots().len());
            let mut mapped = Vec::new();
            i.top.map(|p| mapped.push(p.name.clone()));
            let declared: Vec<String> = i.top.declared().into_iter().map(|p| p.name).collect();
            assert_eq!(mapped.iter().collect::<BTreeSet<_>>(), declared.iter().collect::<BTreeSet<_>>(), "{name}");
            assert_eq!(mapped.len(), declared.len(), "{name}");
        }
    }
}
