//! The composed register-file top of one SM scheduler (`<prefix>_sm_rf`): the issue stage
//! (`<prefix>_issue`) grants a warp each cycle, and the granted warp's next instruction enters
//! the MRF (`<prefix>_mrf`) through its issue port, inside the top, with the lowest free
//! collector tag. The glue: the tag pool, the granted warp's operand fields, the stall of warps
//! with an ORF/LRF fill on its way, the collector-leave event at dispatch (with a bloomboard,
//! the leaving instruction's sources, kept per tag since issue), and the release of a register
//! result in the scoreboard when its write-back is taken or, compressed, stored ([`Release`]).

pub mod interface;

use super::issue::{self, interface::IssuePorts};
use super::mrf::{
    self,
    interface::{MrfPorts, OrfPorts, RfcPorts},
};
use crate::blocks::sram::SramKind;
use crate::config::{Checked, ConfigError};
use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR, index_bits};
use crate::verilog::{
    Module, Port, Ports, Sig, Submodule, lit, onehot_index, onehot_mux, reg, resize, vector_reg, vector_wire, wire,
};
use interface::SmRfPorts;

/// The typed ports of the composed top and of its two parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interfaces {
    pub top: SmRfPorts<Port>,
    pub issue: IssuePorts<Port>,
    pub mrf: MrfPorts<Port>,
}

impl Interfaces {
    /// Fails for a config the composed top cannot hold yet (renaming).
    pub fn new(checked: &Checked) -> Result<Interfaces, ConfigError> {
        check(checked)?;
        let g = &checked.geometry;
        let issue = IssuePorts::new(&issue::Shape::new(g, &checked.config));
        let mrf = MrfPorts::new(g, checked.compression.as_ref(), checked.rfc.as_ref(), checked.orf.as_ref());
        Ok(Interfaces { top: SmRfPorts::new(g, &issue, &mrf), issue, mrf })
    }

    /// The parts' ports the top drives inside, by name: the issue stage's, then the MRF's.
    pub fn inner_names(&self) -> Vec<&str> {
        let issue = interface::inner_issue_ports(&self.issue).into_iter();
        issue.chain(interface::inner_mrf_ports(&self.mrf)).map(|p| p.name.as_str()).collect()
    }
}

/// The composed top holds no rename stage yet: a renamed config fails, naming `rename.enabled`.
pub fn check(checked: &Checked) -> Result<(), ConfigError> {
    if !checked.config.rename.enabled {
        return Ok(());
    }
    Err(ConfigError::Rule {
        path: "rename.enabled".into(),
        value: "true".into(),
        rule: "the composed top does not include the rename stage yet; generate its parts with --block".into(),
        allowed: "false".into(),
    })
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
}

impl Release {
    pub fn of(checked: &Checked) -> Release {
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
/// the top (`<prefix>_sm_rf`).
pub fn modules(checked: &Checked, sram: SramKind) -> Result<Vec<Module>, ConfigError> {
    let Interfaces { top: ports, issue: issue_ports, mrf: mrf_ports } = Interfaces::new(checked)?;
    let (prefix, g) = (checked.prefix(), &checked.geometry);
    let (compression, cache, upper) = (checked.compression.as_ref(), checked.rfc.as_ref(), checked.orf.as_ref());
    let mrf = part(mrf::modules(&prefix, g, sram, compression, cache, upper), mrf_ports);
    let shape = issue::Shape::new(g, &checked.config);
    let issue = part(issue::modules(&prefix, g, &shape), issue_ports);
    let top = top(&prefix, g, Release::of(checked), &ports, &issue.top, &mrf.top);
    let mut modules = mrf.modules;
    for m in issue.modules {
        match modules.iter().find(|have| have.name == m.name) {
            Some(have) => assert_eq!(have, &m, "the MRF and the issue stage have different modules {}", m.name),
            None => modules.push(m),
        }
    }
    modules.push(top);
    Ok(modules)
}

/// The width of a register id on both sides of the issue port. Without a rename stage between
/// them, the issue stage's architectural ids are the MRF's.
fn reg_bits(issue: &IssuePorts<Port>, mrf: &MrfPorts<Port>) -> u32 {
    let (ours, theirs) = (issue.clr_reg.width, mrf.issue_src_reg[0].width);
    assert_eq!(
        ours, theirs,
        "the issue stage's register ids are {ours} bits, the MRF's {theirs}: the composed top has no rename stage to translate them"
    );
    ours
}

fn top(
    prefix: &str,
    g: &Geometry,
    rule: Release,
    ports: &SmRfPorts<Port>,
    issue: &Submodule<IssuePorts<Port>>,
    mrf: &Submodule<MrfPorts<Port>>,
) -> Module {
    let p = ports.map(Port::sig);
    let rb = reg_bits(&issue.ports, &mrf.ports);
    let bloom = issue.ports.lv_src_valid.is_some();
    let mut b = granted(g, &p, rb);
    b += &tag_pool(g, &p);
    b += &leave(g, rb, bloom);
    b += &release(g, rule, &p, &issue.ports, rb);
    let (stall_glue, stall) = stall(&p);
    b += &stall_glue;
    b += "\n  // The issue stage, and the MRF it issues to.\n";
    b += &issue.instance("issue", &issue_conns(&p, &issue.ports, rb, stall));
    b += &mrf.instance("mrf", &mrf_conns(g, &p, rb));
    let release = match (bloom, issue.ports.lv_valid.is_some()) {
        (true, _) => " and releases its sources in the warpboard",
        (false, true) => " and releases its warp in the warpboard",
        (false, false) => "",
    };
    Module {
        name: format!("{prefix}_sm_rf"),
        doc: vec![
            format!("Register files of one SM scheduler: the issue stage `{}` grants a", issue.module.name),
            format!("warp each cycle, and its next instruction enters the MRF `{}` with the", mrf.module.name),
            format!("lowest free of {} collector tags. An instruction leaving its collector", g.collectors),
            format!("(dispatch) frees its tag{release}. A register result is released in the"),
            match rule {
                Release::Taken => "scoreboard at the edge its write-back is taken.".into(),
                Release::Stored { .. } => "scoreboard when the compressed MRF stores it (wb_commit).".into(),
            },
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    }
}

/// The granted warp's next instruction as the MRF's issue port takes it (`granted_*`), offered
/// unless it completes at issue.
fn granted(g: &Geometry, p: &SmRfPorts<Sig>, rb: u32) -> String {
    let (k, gw) = (SLOTS_PER_COLLECTOR, &p.grant_warp);
    let mut b = String::from(
        "  // Issue port of the MRF: the granted warp's next instruction, unless it completes at issue.\n",
    );
    b += &wire("mrf_issue_valid", 1);
    b += &wire("mrf_issue_ready", 1);
    b += &vector_wire("granted_src_valid", k);
    for s in 0..k {
        b += &wire(&format!("granted_src{s}_reg"), rb);
    }
    let fields: Vec<(Sig, &Sig)> = p.per_warp_fields().into_iter().map(|f| (granted_field(g, f), f)).collect();
    for (field, _) in &fields {
        b += &wire(&field.expr, field.width);
    }
    b += &format!("  assign mrf_issue_valid = {} & ~{}[{gw}];\n", p.grant_valid, p.next_control);
    b += &format!("  assign granted_src_valid = {}[{k}*{gw} +: {k}];\n", p.next_src_valid);
    for s in 0..k {
        b += &format!("  assign granted_src{s}_reg = {}[{rb}*({k}*{gw}+{s}) +: {rb}];\n", p.next_src_reg);
    }
    for (field, next) in &fields {
        let w = field.width;
        let pick = if w == 1 { format!("{next}[{gw}]") } else { format!("{next}[{w}*{gw} +: {w}]") };
        b += &format!("  assign {field} = {pick};\n");
    }
    b
}

/// The granted warp's copy of a per-warp operand field `next_X`: the wire `granted_X`.
fn granted_field(g: &Geometry, next: &Sig) -> Sig {
    let name = next.expr.strip_prefix("next_").expect("a per-warp field is named next_*");
    Sig::new(format!("granted_{name}"), next.width / g.warps)
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
    b += &format!("  assign tag_first = tag_free & (~tag_free + {});  // lowest free tag, one-hot\n", lit(c, 1));
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
fn release(g: &Geometry, rule: Release, p: &SmRfPorts<Sig>, issue: &IssuePorts<Port>, rb: u32) -> String {
    let wb = issue.clr_warp.width;
    assert_eq!(wb, p.wb_warp.width, "the issue stage and the MRF number warps alike");
    let taken = match &p.wb_ready {
        Some(ready) => format!("{} & {ready}", p.wb_valid),
        None => p.wb_valid.expr.clone(),
    };
    let mut b = String::new();
    match rule {
        Release::Taken => {
            b += "\n  // A register result is released in the scoreboard at the edge its write-back is taken.\n";
            b += &wire("release_valid", 1);
            b += &wire("release_warp", wb);
            b += &wire("release_reg", rb);
            b += &format!("  assign release_valid = {taken};\n");
            b += &format!("  assign release_warp = {};\n", p.wb_warp);
            b += &format!("  assign release_reg = {};\n", p.wb_reg);
        }
        Release::Stored { depth } => b += &stored(depth, &taken, p, wb, rb),
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

/// The issue stage's per-warp stall: the top's, and warps with an ORF/LRF fill on its way.
/// Returns the glue and the signal the issue stage's `stall` is connected to.
fn stall(p: &SmRfPorts<Sig>) -> (String, Option<Sig>) {
    match (&p.stall, &p.orf) {
        (Some(stall), Some(o)) => {
            let mut b =
                String::from("\n  // A warp with an ORF/LRF fill on its way issues nothing (the MRF holds it).\n");
            b += &vector_wire("issue_stall", stall.width);
            b += &format!("  assign issue_stall = {stall} | {};\n", o.fill_busy);
            (b, Some(Sig::new("issue_stall", stall.width)))
        }
        (stall, _) => (String::new(), stall.clone()),
    }
}

/// The issue stage's connections: the top's ports, but its MRF issue readiness and its
/// collector-leave event (the dispatch taken, and with a bloomboard its sources).
fn issue_conns(p: &SmRfPorts<Sig>, ports: &IssuePorts<Port>, rb: u32, stall: Option<Sig>) -> IssuePorts<Sig> {
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
        hold: p.hold.clone(),
        stall,
        first: p.first.clone(),
        collector_ready: v("mrf_issue_ready", 1),
        launch: p.launch.clone(),
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
        active: p.active.clone(),
        eligible: p.eligible.clone(),
    }
}

/// The MRF's connections: its issue port from the grant, the top's ports otherwise.
fn mrf_conns(g: &Geometry, p: &SmRfPorts<Sig>, rb: u32) -> MrfPorts<Sig> {
    let v = |name: &str, width: u32| Sig::new(name, width);
    let k = SLOTS_PER_COLLECTOR;
    MrfPorts {
        clk: p.clk.clone(),
        rst: p.rst.clone(),
        rows_per_warp: p.rows_per_warp.clone(),
        issue_valid: v("mrf_issue_valid", 1),
        issue_ready: v("mrf_issue_ready", 1),
        issue_warp: p.grant_warp.clone(),
        issue_src_valid: v("granted_src_valid", k),
        issue_src_reg: std::array::from_fn(|s| v(&format!("granted_src{s}_reg"), rb)),
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
        compressed: p.compressed.clone(),
        rfc: p.rfc.as_ref().map(|r| RfcPorts {
            issue_src_last: r.next_src_last.as_ref().map(|f| granted_field(g, f)),
            wb_long: r.wb_long.clone(),
            act_valid: r.act_valid.clone(),
            act_warp: r.act_warp.clone(),
            act_ready: r.act_ready.clone(),
            flush_valid: r.flush_valid.clone(),
            flush_warp: r.flush_warp.clone(),
            flush_ready: r.flush_ready.clone(),
            rel_mask: r.rel_mask.clone(),
        }),
        orf: p.orf.as_ref().map(|o| OrfPorts {
            issue_src_level: granted_field(g, &o.next_src_level),
            issue_src_entry: granted_field(g, &o.next_src_entry),
            issue_src_fill: granted_field(g, &o.next_src_fill),
            issue_strand: granted_field(g, &o.next_strand),
            wb_mrf: o.wb_mrf.clone(),
            wb_upper: o.wb_upper.clone(),
            wb_entry: o.wb_entry.clone(),
            fill_busy: o.fill_busy.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::{self, generate_sm_rf};
    use crate::verilog::Dir;
    use std::collections::BTreeSet;

    /// Presets and variations the composed top takes (none renamed).
    fn configs() -> Vec<(String, Checked)> {
        let mut v: Vec<(String, Checked)> = crate::config::preset_names()
            .into_iter()
            .map(|n| (n.to_string(), crate::config::preset(n).unwrap()))
            .filter(|(_, c)| !c.config.rename.enabled)
            .collect();
        for extra in [
            "[mrf]\ncollectors = 1",
            "[mrf]\ncollectors = 3\n[warpboard]\npolicy = \"release_on_read\"",
            "[warpboard]\npolicy = \"release_on_commit\"\n[scheduler]\npolicy = \"lrr\"",
            "[warpboard]\npolicy = \"bloom1\"\n[scheduler]\npolicy = \"two_level\"",
            "[rfc]\nenabled = true\nliveness = false\n[compression]\nenabled = true",
            "[orf]\nenabled = true\nlrf = \"unified\"\n[warpboard]\npolicy = \"bloom_unbounded\"",
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
            let i = Interfaces::new(&checked).unwrap();
            let top = i.top.declared();
            let inner: BTreeSet<&str> = i.inner_names().into_iter().collect();
            let issue = i.issue.declared();
            let mrf = i.mrf.declared();
            // Every part port is either inner or a port of the top with its name, direction and width.
            for p in issue.iter().chain(&mrf) {
                let found = top.iter().find(|t| t.name == p.name);
                assert_eq!(found.is_none(), inner.contains(p.name.as_str()), "{name}: {}", p.name);
                if let Some(t) = found {
                    assert_eq!((t.dir, t.width), (p.dir, p.width), "{name}: {}", p.name);
                }
            }
            // The others: the grant's tag and the per-warp operand fields, one per MRF field.
            let parts = names(issue.iter().chain(&mrf));
            let mut new: Vec<&str> = names(&top).difference(&parts).copied().collect();
            new.sort();
            let mut expected = vec!["grant_tag".to_string()];
            for f in ["issue_src_last", "issue_src_level", "issue_src_entry", "issue_src_fill", "issue_strand"] {
                if let Some(p) = mrf.iter().find(|p| p.name == f) {
                    expected.push(f.replace("issue_", "next_"));
                    let t = top.iter().find(|t| t.name == expected[expected.len() - 1]).unwrap();
                    assert_eq!((t.dir, t.width), (Dir::Input, p.width * checked.geometry.warps), "{name}: {f}");
                }
            }
            expected.sort();
            assert_eq!(new, expected, "{name}");
            for gone in ["collector_ready", "lv_valid", "lv_src0_reg", "issue_valid", "issue_ready", "issue_tag"] {
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
            let design = generate_sm_rf(&checked, SramKind::Behavioural).unwrap();
            let prefix = checked.prefix();
            assert_eq!(design.manifest.top, format!("{prefix}_sm_rf"), "{name}");
            let modules: Vec<&str> = design.manifest.modules.iter().map(|m| m.name.as_str()).collect();
            assert_eq!(modules.last(), Some(&design.manifest.top.as_str()));
            assert_eq!(modules.iter().collect::<BTreeSet<_>>().len(), modules.len(), "{name}: no module twice");
            let mrf = emit::generate(&checked, SramKind::Behavioural);
            let issue = emit::generate_issue(&checked);
            for m in mrf.manifest.modules.iter().chain(&issue.manifest.modules) {
                assert!(modules.contains(&m.name.as_str()), "{name}: {}", m.name);
            }
            assert_eq!(modules.len(), names_of(&mrf).union(&names_of(&issue)).count() + 1, "{name}");
            let ports = Interfaces::new(&checked).unwrap().top.declared();
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
            let design = generate_sm_rf(&crate::config::preset(preset).unwrap(), SramKind::Behavioural).unwrap();
            let file = format!("{}.v", design.manifest.top);
            design.files.into_iter().find(|(f, _)| *f == file).unwrap().1
        };
        // A bloomboard keeps each tag's sources; no warpboard needs no leave event.
        let war = top("war-warpboard");
        assert!(
            war.contains(".lv_src_valid    (leave_src_valid)") && war.contains("tag7_src2_reg <= granted_src2_reg;")
        );
        assert!(war.contains("assign grant_tag = {{1{1'b0}}, "));
        let small = top("small");
        assert!(!small.contains("lv_") && !small.contains("leave_"));
        assert!(small.contains("assign mrf_issue_valid = grant_valid & ~next_control[grant_warp];"));
        // The ORF/LRF: fills hold their warp in the issue stage, its operand fields per warp.
        let orf = top("micro11-orf-lrf");
        assert!(orf.contains("assign issue_stall = stall | fill_busy;") && orf.contains("(issue_stall)"));
        assert!(orf.contains("assign granted_strand = next_strand[grant_warp];"));
        assert!(top("isca11-rfc").contains("assign granted_src_last = next_src_last[3*grant_warp +: 3];"));
        // Register release: at the write-back's take, or compressed, when stored, oldest first.
        assert!(small.contains("assign release_valid = wb_valid;") && small.contains(".clr_reg         (release_reg)"));
        let bdi = top("isca15-bdi");
        let depth = crate::config::preset("isca15-bdi").unwrap().compression.unwrap().compress_latency;
        assert!(bdi.contains("assign release_valid = wb_commit;") && bdi.contains("assign release_warp = held0_warp;"));
        assert!(
            bdi.contains(&format!("held{}_reg <= wb_reg;", depth - 1)) && !bdi.contains(&format!("held{depth}_reg"))
        );
    }

    #[test]
    fn sm_rf_refuses_renaming() {
        let renamed: Vec<&str> = crate::config::preset_names()
            .into_iter()
            .filter(|n| crate::config::preset(n).unwrap().config.rename.enabled)
            .collect();
        assert!(renamed.contains(&"tfet-hybrid"));
        for name in renamed {
            let err = generate_sm_rf(&crate::config::preset(name).unwrap(), SramKind::Behavioural).unwrap_err();
            match &err {
                ConfigError::Rule { path, .. } => assert_eq!(path, "rename.enabled"),
                other => panic!("{name}: {other:?}"),
            }
            let text = err.to_string();
            assert!(text.contains("does not include the rename stage yet") && text.contains("--block"), "{text}");
        }
    }

    /// `slots` has one entry per field whatever the configuration, in `list`'s order; the top's
    /// module is declared in it.
    #[test]
    fn sm_rf_slots_line_up() {
        for (name, checked) in configs() {
            let i = Interfaces::new(&checked).unwrap();
            let full = Interfaces::new(&configs()[0].1).unwrap();
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
