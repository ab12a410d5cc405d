//! The issue stage of one SM scheduler (`<prefix>_issue`): each warp's next instruction comes
//! in as a descriptor; the stage checks each against the scoreboard (pending registers and
//! predicates, long-latency waits) and the warpboard of `warpboard.policy` (WAR hazards),
//! the warp scheduler grants one eligible warp, and the granted instruction reserves its
//! destinations and sources at the edge. Cycle behaviour: `model::blocks::issue::Issue`.

pub mod interface;

use super::mrf::{self, RegMapPorts};
use super::scheduler::{self, interface::SchedulerPorts};
use super::scoreboard::{self, interface::ScoreboardPorts};
use super::warpboard::{self, interface::BloomPorts, interface::WarpboardPorts};
use crate::config::{Config, SchedulerPolicy};
use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::verilog::{
    Module, Port, Sig, Submodule, lit, onehot_decode, reg, resize, vector_reg, vector_wire, warp_pick, wire,
};
use interface::IssuePorts;

/// What the issue stage holds, derived once for the generator, the model and the cosim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub warps: u32,
    pub warp_bits: u32,
    pub reg_bits: u32,
    pub registers: u32,
    pub scheduler: scheduler::Shape,
    /// None for `warpboard.policy = "none"`.
    pub warpboard: Option<warpboard::Shape>,
    /// Beside an ORF/LRF or a rename stage: a per-warp stall input (a fill of the warp is on its
    /// way; no physical register is free for its destination).
    pub stall: bool,
    /// `timing.issue_registered_eligibility`: the check's result is registered, and the
    /// scheduler picks from last cycle's, less the warp granted last cycle.
    pub registered: bool,
    /// `timing.issue_registered_reservation`: the granted instruction's reservations are
    /// registered and made at the next edge.
    pub registered_reservation: bool,
}

impl Shape {
    /// Cycles a granted warp sits out after its grant: its next instruction is not checked
    /// against the state its grant reserves until the check and the reservation have both
    /// happened (one cycle per registered stage between them).
    pub fn sit_out(&self) -> u32 {
        self.registered as u32 + self.registered_reservation as u32
    }

    pub fn new(g: &Geometry, c: &Config) -> Shape {
        Shape {
            warps: g.warps,
            warp_bits: g.warp_bits(),
            reg_bits: g.reg_bits(),
            registers: g.registers,
            scheduler: scheduler::Shape::new(g, c),
            warpboard: warpboard::Shape::new(g, c.warpboard.policy),
            stall: c.orf.enabled || c.rename.enabled,
            registered: c.timing.issue_registered_eligibility,
            registered_reservation: c.timing.issue_registered_reservation,
        }
    }
}

/// The issue stage's modules, leaves first: the warpboard's (if any), the scoreboard, the
/// scheduler, the top.
pub fn modules(prefix: &str, g: &Geometry, s: &Shape) -> Vec<Module> {
    let ports = IssuePorts::new(s);
    let p = ports.map(Port::sig);
    let (w, rb, r, k) = (s.warps, s.reg_bits, s.registers, SLOTS_PER_COLLECTOR);
    let two_level = s.scheduler.policy == SchedulerPolicy::TwoLevel;
    // The blocks, each with its typed ports (the same declaration it was generated from).
    let mut modules = s.warpboard.map(|b| warpboard::modules(prefix, g, &b)).unwrap_or_default();
    let board = s
        .warpboard
        .zip(modules.last())
        .map(|(shape, module)| Submodule { module: module.clone(), ports: WarpboardPorts::new(&shape) });
    let sb = Submodule { module: scoreboard::scoreboard(prefix, g), ports: ScoreboardPorts::new(g) };
    let sched =
        Submodule { module: scheduler::scheduler(prefix, &s.scheduler), ports: SchedulerPorts::new(&s.scheduler) };

    let mut b = String::new();
    b += &vector_wire("pending", w * r);
    // Only two-level scheduling reads which registers await a long-latency result.
    let long_pending = if two_level { Sig::new("long_pending", w * r) } else { Sig::unused("long_pending", w * r) };
    b += &vector_wire(&long_pending.expr, w * r);
    b += &vector_wire("pending_preds", w * scoreboard::PREDICATES);
    if two_level {
        b += &vector_wire("desched", w);
        b += &vector_wire("ready", w);
    }
    let board_state = s.warpboard.map(|shape| match shape.bloom {
        Some(bins) => Sig::new("bin_count", w * shape.groups * bins.counter_bits),
        None => Sig::new("busy", w),
    });
    if let Some(state) = &board_state {
        b += &vector_wire(&state.expr, state.width);
    }
    b += &vector_wire("eligible_if_free", w);
    b += &wire("if_free_valid", 1);
    if s.sit_out() > 0 {
        b += &vector_wire("grant_onehot", w);
        b += &vector_reg("granted_q", w);
    }
    if s.sit_out() > 1 {
        b += &vector_reg("granted_qq", w);
    }
    if s.registered {
        b += &vector_wire("can_issue", w);
        b += &vector_reg("can_issue_q", w);
    }

    // The check, per warp.
    b += "\n  // Per warp: the registers its next instruction reads or writes, and the check. It may\n";
    b += "  // issue unless at a barrier, a register or predicate it touches is pending, or the\n";
    b += "  // warpboard holds it (WAR); and it needs a free collector unless it completes at issue.\n";
    b += "  genvar w;\n";
    if s.warpboard.is_some_and(|x| x.bloom.is_some()) {
        b += "  genvar b;\n";
    }
    b += &format!("  generate\n    for (w = 0; w < {w}; w = w + 1) begin : g_warp\n");
    b += &format!("      wire [{}:0] touched;\n      wire conflict;\n      wire war;\n", r - 1);
    let one = lit(r, 1);
    let mut touched: Vec<String> = (0..k)
        .map(|i| {
            format!(
                "({{{r}{{{}[{k}*w+{i}]}}}} & ({one} << {}[{rb}*({k}*w+{i}) +: {rb}]))",
                p.next_src_valid, p.next_src_reg
            )
        })
        .collect();
    touched.push(format!("({{{r}{{{}[w]}}}} & ({one} << {}[{rb}*w +: {rb}]))", p.next_dst_valid, p.next_dst));
    b += &format!("      assign touched = {};\n", touched.join("\n                     | "));
    let pr = scoreboard::PREDICATES;
    b += &format!(
        "      assign conflict = (|(touched & pending[{r}*w +: {r}])) | (|({}[{pr}*w +: {pr}] & pending_preds[{pr}*w +: {pr}]));\n",
        p.next_preds
    );
    b += &war_check(prefix, g, s, &p);
    let stalled = p.stall.as_ref().map_or(String::new(), |s| format!(" & ~{s}[w]"));
    // The warps granted in the last `sit_out` cycles.
    let sitting_out: String =
        ["granted_q", "granted_qq"][..s.sit_out() as usize].iter().map(|g| format!(" & ~{g}[w]")).collect();
    let (valid, barrier, ready, control) = (&p.next_valid, &p.barrier, &p.collector_ready, &p.next_control);
    b += &if s.registered {
        format!(
            "      assign can_issue[w] = {valid}[w] & ~{barrier}[w] & ~conflict & ~war;\n      assign eligible_if_free[w] = {valid}[w] & ~{barrier}[w] & can_issue_q[w]{sitting_out}{stalled};\n"
        )
    } else {
        format!(
            "      assign eligible_if_free[w] = {valid}[w] & ~{barrier}[w]{stalled}{sitting_out} & ~conflict & ~war;\n"
        )
    };
    b += &format!("      assign {}[w] = eligible_if_free[w] & ({ready} | {control}[w]);\n", p.eligible);
    if let (Some(lc), Some(hold)) = (&p.next_long_consumer, &p.hold) {
        b += "      // Two-level: a warp waiting at a barrier or for a long-latency result leaves the\n";
        b += "      // active set; one with neither, and no cache flush under way, may join it.\n";
        b += "      wire waits_long;\n";
        b += &format!("      assign waits_long = {lc}[w] & (|(touched & long_pending[{r}*w +: {r}]));\n");
        b += &format!("      assign desched[w] = {}[w] | ({}[w] & waits_long);\n", p.barrier, p.next_valid);
        b += &format!("      assign ready[w] = {}[w] & ~{}[w] & ~waits_long & ~{hold}[w];\n", p.next_valid, p.barrier);
    }
    b += "    end\n  endgenerate\n";

    if s.registered {
        b += "\n  // The check a cycle ahead (`timing.issue_registered_eligibility`): the scheduler picks from\n";
        b += "  // last cycle's result, so the pick and the reservations it makes are not one path. The\n";
        b += "  // warp granted last cycle has a next instruction not checked yet: it waits a cycle.\n";
        b += &onehot_decode("grant_onehot", &p.grant_warp.expr, w);
        b += &format!(
            "  always @(posedge clk) begin\n    if (rst) begin\n      can_issue_q <= {z};\n      granted_q <= {z};\n    end else begin\n      can_issue_q <= can_issue;\n      granted_q <= {{{w}{{{}}}}} & grant_onehot;\n    end\n  end\n",
            p.grant_valid,
            z = lit(w, 0)
        );
    } else if s.sit_out() > 0 {
        b += "\n  // The warp granted last cycle sits out a cycle: its next instruction is checked before\n";
        b += "  // its grant's reservations are made (`timing.issue_registered_reservation`).\n";
        b += &onehot_decode("grant_onehot", &p.grant_warp.expr, w);
        b += &format!(
            "  always @(posedge clk) begin\n    if (rst) granted_q <= {};\n    else granted_q <= {{{w}{{{}}}}} & grant_onehot;\n  end\n",
            lit(w, 0),
            p.grant_valid
        );
    }
    if s.sit_out() > 1 {
        b += "  // With both registered, a granted warp sits out two cycles: the check of its next\n";
        b += "  // instruction in the cycle after its grant does not see the grant's reservations yet.\n";
        b += &format!(
            "  always @(posedge clk) begin\n    if (rst) granted_qq <= {};\n    else granted_qq <= granted_q;\n  end\n",
            lit(w, 0)
        );
    }

    // The granted instruction reserves at the edge, unless it completes at issue.
    let gw = &p.to_collector_warp;
    b += "\n  // The granted instruction goes to a collector unless it completes at issue: its\n";
    b += "  // destinations become pending, its sources enter the warpboard. With a collector free the\n";
    b += "  // grant is the scheduler's choice among the warps eligible if one is, which does not wait\n";
    b += "  // on collector_ready; without one only a warp that completes at issue is granted.\n";
    b += &format!("  assign {} = {} & if_free_valid & ~{}[{gw}];\n", p.to_collector, p.collector_ready, p.next_control);
    b += "  // The granted warp's fields, each laid out at a power-of-two stride (see `warp_pick`).\n";
    let mut pick = |name: &str, next: &Sig, per_warp: u32, i: u32, width: u32| {
        let (decl, select) = warp_pick(name, &next.expr, &gw.expr, (w, s.warp_bits), (per_warp, i, width));
        b += &decl;
        Sig::new(select, width)
    };
    let set_reg = pick("dst_by_warp", &p.next_dst, 1, 0, rb);
    let set_pred = pick("pdst_by_warp", &p.next_pdst, 1, 0, 3);
    let bloom_sources = s.warpboard.is_some_and(|x| x.bloom.is_some()).then(|| {
        let valid = pick("src_valid_by_warp", &p.next_src_valid, 1, 0, k);
        let regs: [Sig; SLOTS_PER_COLLECTOR as usize] =
            std::array::from_fn(|i| pick(&format!("src{i}_reg_by_warp"), &p.next_src_reg, k, i as u32, rb));
        (valid, regs)
    });
    let sig = |e: String, width: u32| Sig::new(e, width);
    let mut reservation = Reservation {
        valid: p.to_collector.clone(),
        warp: gw.clone(),
        reg_valid: sig(format!("{}[{gw}]", p.next_dst_valid), 1),
        reg: set_reg,
        long: sig(format!("{}[{gw}]", p.next_long), 1),
        pred_valid: sig(format!("{}[{gw}]", p.next_pdst_valid), 1),
        pred: set_pred,
        sources: bloom_sources,
    };
    if s.registered_reservation {
        b += &reservation.register();
    }
    let Reservation { valid, warp, reg_valid, reg, long, pred_valid, pred, sources: bloom_sources } = reservation;
    b += &sb.instance(
        "u_scoreboard",
        &ScoreboardPorts {
            clk: p.clk.clone(),
            rst: p.rst.clone(),
            set_valid: valid.clone(),
            set_warp: warp.clone(),
            set_reg_valid: reg_valid,
            set_reg: reg,
            set_long: long,
            set_pred_valid: pred_valid,
            set_pred: pred,
            clr_valid: p.clr_valid.clone(),
            clr_warp: p.clr_warp.clone(),
            clr_reg: p.clr_reg.clone(),
            clr_preds: p.clr_preds.clone(),
            pending: sig("pending".into(), w * r),
            long_pending,
            pending_preds: sig("pending_preds".into(), w * pr),
        },
    );
    if let (Some(board), Some(state)) = (&board, board_state) {
        // Bloomboards also take the sources of the issued and the leaving instruction.
        let lv = p.lv_src_valid.as_ref().zip(p.lv_src_reg.as_ref());
        let bloom =
            lv.zip(bloom_sources).map(|((lv_src_valid, lv_src_reg), (iss_src_valid, iss_src_reg))| BloomPorts {
                iss_src_valid,
                iss_src_reg,
                lv_src_valid: lv_src_valid.clone(),
                lv_src_reg: lv_src_reg.clone(),
                bins: state.clone(),
            });
        let conns = WarpboardPorts {
            clk: p.clk.clone(),
            rst: p.rst.clone(),
            iss_valid: valid,
            iss_warp: warp,
            lv_valid: p.lv_valid.clone(),
            lv_warp: p.lv_warp.clone(),
            commit: p.commit.clone(),
            busy: bloom.is_none().then_some(state),
            bloom,
        };
        b += &board.instance("u_warpboard", &conns);
    }
    let conns = SchedulerPorts {
        clk: p.clk.clone(),
        rst: p.rst.clone(),
        eligible: p.eligible.clone(),
        eligible_if_free: sig("eligible_if_free".into(), w),
        desched: two_level.then(|| sig("desched".into(), w)),
        ready: two_level.then(|| sig("ready".into(), w)),
        launch: p.launch.clone(),
        first: p.first.clone(),
        grant_last: p.grant_last.clone(),
        grant_valid: p.grant_valid.clone(),
        grant_warp: p.grant_warp.clone(),
        if_free_valid: sig("if_free_valid".into(), 1),
        if_free_warp: gw.clone(),
        active: p.active.clone(),
    };
    b += &sched.instance("u_scheduler", &conns);

    let board_doc = match s.warpboard {
        None => "no warpboard (warpboard.policy = \"none\": WAR hazards are not prevented)".to_string(),
        Some(_) => format!("warpboard `{}`", board.as_ref().map(|m| m.module.name.as_str()).unwrap_or_default()),
    };
    let top = Module {
        name: format!("{prefix}_issue"),
        doc: vec![
            format!("Issue stage of one SM scheduler: {w} warps, scoreboard, {board_doc},"),
            format!("and the warp scheduler `{}`. See docs/issue.md.", sched.module.name),
        ],
        ports: ports.list().into_iter().cloned().collect(),
        body: b,
        memory: None,
    };
    modules.extend([sb.module, sched.module, top]);
    modules
}

/// What the granted instruction reserves: its destinations in the scoreboard, and (bloomboards)
/// its sources in the warpboard.
struct Reservation {
    valid: Sig,
    warp: Sig,
    reg_valid: Sig,
    reg: Sig,
    long: Sig,
    pred_valid: Sig,
    pred: Sig,
    sources: Option<(Sig, [Sig; SLOTS_PER_COLLECTOR as usize])>,
}

impl Reservation {
    /// With `timing.issue_registered_reservation`: every field into a register `rsv_<field>`
    /// (the declarations and the always block), and the fields renamed to them.
    fn register(&mut self) -> String {
        let (mut decls, mut loads) = (reg("rsv_valid", 1), String::new());
        let mut registered = |name: &str, field: &mut Sig| {
            let q = format!("rsv_{name}");
            decls += &reg(&q, field.width);
            loads += &format!("    {q} <= {};\n", field.expr);
            *field = Sig::new(q, field.width);
        };
        registered("warp", &mut self.warp);
        registered("reg_valid", &mut self.reg_valid);
        registered("reg", &mut self.reg);
        registered("long", &mut self.long);
        registered("pred_valid", &mut self.pred_valid);
        registered("pred", &mut self.pred);
        if let Some((valid, regs)) = &mut self.sources {
            registered("src_valid", valid);
            for (i, r) in regs.iter_mut().enumerate() {
                registered(&format!("src{i}_reg"), r);
            }
        }
        let valid = std::mem::replace(&mut self.valid, Sig::new("rsv_valid", 1));
        let mut b =
            "\n  // The granted instruction's reservations, registered (`timing.issue_registered_reservation`):\n"
                .to_string();
        b += "  // made at the next edge, so the pick and the scoreboard's set are not one path.\n";
        b += &decls;
        b += &format!(
            "  always @(posedge clk) begin\n    if (rst) rsv_valid <= 1'b0;\n    else rsv_valid <= {};\n",
            valid.expr
        );
        b += &loads;
        b += "  end\n";
        b
    }
}

/// The warpboard's check for warp `w` inside the per-warp generate block: `war`.
fn war_check(prefix: &str, g: &Geometry, s: &Shape, p: &IssuePorts<Sig>) -> String {
    let Some(shape) = s.warpboard else { return "      assign war = 1'b0;  // no warpboard\n".into() };
    let Some(bins) = shape.bloom else {
        return "      assign war = busy[w];  // the warp has an instruction outstanding\n".into();
    };
    let (wb, rb, gb, k, gs, cw) =
        (s.warp_bits, s.reg_bits, g.group_bits(), SLOTS_PER_COLLECTOR, shape.groups, bins.counter_bits);
    let g = &g.architectural();
    let map = mrf::reg_map(prefix, g);
    let mut b = String::new();
    b += "      // Bloomboard: the bins (bank groups) of its sources and destination.\n";
    b += &format!("      localparam [{}:0] WARP = w;\n", wb - 1);
    b += &format!("      wire [{}:0] src_group;\n      wire [{}:0] dst_group;\n", k * gb - 1, gb - 1);
    b += &format!("      wire [{}:0] hit;\n", gs - 1);
    for i in 0..=k {
        b += &format!("      wire [{}:0] unused_row{i};\n", g.row_bits() - 1);
    }
    for i in 0..=k {
        let (reg, group) = if i < k {
            (
                format!("{}[{rb}*({k}*w+{i}) +: {rb}]", p.next_src_reg),
                format!("src_group[{}:{}]", gb * (i + 1) - 1, gb * i),
            )
        } else {
            (format!("{}[{rb}*w +: {rb}]", p.next_dst), "dst_group".to_string())
        };
        let name = if i < k { format!("u_map_src{i}") } else { "u_map_dst".into() };
        let inst = map.instance(
            &name,
            &RegMapPorts {
                rows_per_warp: mrf::group_only_stride(g),
                warp: Sig::new("WARP", wb),
                reg_id: Sig::new(reg, rb),
                group: Sig::new(group, gb),
                // Bins are bank groups: the row is not needed.
                row: Sig::unused(&format!("row{i}"), g.row_bits()),
            },
        );
        b += &inst.lines().map(|l| format!("    {l}\n")).collect::<String>();
    }
    b += &format!("      for (b = 0; b < {gs}; b = b + 1) begin : g_bin\n");
    b += &format!("        localparam [{}:0] BIN = b;\n", gb - 1);
    b += &format!("        wire [{}:0] bin;\n        wire [1:0] reads;\n        wire writes;\n", cw - 1);
    b += &format!("        assign bin = bin_count[{cw}*({gs}*w+b) +: {cw}];\n");
    let reads: Vec<String> = (0..k)
        .map(|i| {
            format!("{{1'b0, {}[{k}*w+{i}] & (src_group[{}:{}] == BIN)}}", p.next_src_valid, gb * (i + 1) - 1, gb * i)
        })
        .collect();
    b += &format!("        assign reads = {};\n", reads.join(" + "));
    b += &format!("        assign writes = {}[w] & (dst_group == BIN);\n", p.next_dst_valid);
    b += &if bins.max == 1 {
        format!("        assign hit[b] = (bin != {}) & ((reads != 2'd0) | writes);  // a marked bin\n", lit(cw, 0))
    } else {
        format!(
            "        assign hit[b] = (writes & (bin != {})) | (({} + {}) > {});  // a write to a counted bin, or too many reads\n",
            lit(cw, 0),
            resize("bin", cw, cw + 2),
            resize("reads", 2, cw + 2),
            lit(cw + 2, bins.max.into())
        )
    };
    b += "      end\n";
    b += "      assign war = |hit;\n";
    b
}
