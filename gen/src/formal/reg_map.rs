//! Harness of the register-to-bank map: two instances of the design's map with free inputs in
//! range. Without renaming a pair is (warp, register) and, when occupancy is register-limited,
//! both share a free `rows_per_warp` from 1 to `R / G` (a kernel of `rows_per_warp` rows uses
//! at most `rows_per_warp * G` registers and the warps whose rows exist); renamed, it is a
//! physical register below the MRF's `G * entries`.

use super::{Harness, Proof, REG_MAP_BIJECTION, module_head};
use crate::blocks::mrf::{RegMapPorts, reg_map};
use crate::emit::Design;
use crate::layout::geometry::Geometry;
use crate::verilog::{Sig, lit, wire};

pub fn harnesses(prefix: &str, g: &Geometry, design: &Design) -> Vec<Harness> {
    let dut = reg_map(prefix, g);
    let file = format!("{}.v", dut.module.name);
    if !design.files.iter().any(|(f, _)| *f == file) {
        return Vec::new();
    }
    let top = format!("{prefix}_prove_reg_map_bijection");
    let mut b = module_head(&top, REG_MAP_BIJECTION.statement);
    let (wb, rb, gb, ab, sb) = (g.warp_bits(), g.mrf_reg_bits(), g.group_bits(), g.row_bits(), g.stride_bits());
    if g.register_limited {
        b += &format!("  (* anyconst *) reg [{}:0] rows_per_warp;\n", sb - 1);
    }
    let mut in_range = Vec::new();
    for side in ["a", "b"] {
        b += &format!("  (* anyconst *) reg [{}:0] warp_{side};\n", wb - 1);
        b += &format!("  (* anyconst *) reg [{}:0] reg_{side};\n", rb - 1);
        b += &wire(&format!("group_{side}"), gb);
        b += &wire(&format!("row_{side}"), ab);
        b += &dut.instance(
            &format!("map_{side}"),
            &RegMapPorts {
                rows_per_warp: g.register_limited.then(|| Sig::new("rows_per_warp", sb)),
                warp: Sig::new(format!("warp_{side}"), wb),
                reg_id: Sig::new(format!("reg_{side}"), rb),
                group: Sig::new(format!("group_{side}"), gb),
                row: Sig::new(format!("row_{side}"), ab),
            },
        );
        // Widened by a bit so products and sums cannot wrap.
        let (w, r) = (format!("{{1'b0, warp_{side}}}"), format!("{{1'b0, reg_{side}}}"));
        in_range.push(if g.renamed {
            format!("({r} < {})", lit(rb + 1, g.physical_registers() as u64))
        } else if g.register_limited {
            let span = ab + sb + 1;
            format!(
                "({w} < {warps}) && ({r} < {regs}) && ({r} < rows_per_warp * {groups}) \
                 && ({{{pad}'d0, warp_{side}}} * rows_per_warp + rows_per_warp <= {entries})",
                warps = lit(wb + 1, g.warps as u64),
                regs = lit(rb + 1, g.registers as u64),
                groups = lit(rb + 1, g.groups as u64),
                pad = span - wb,
                entries = lit(span, g.entries as u64),
            )
        } else {
            format!("({w} < {}) && ({r} < {})", lit(wb + 1, g.warps as u64), lit(rb + 1, g.registers as u64))
        });
    }
    b += "\n  // Both pairs in range (the kernel's rows per warp from 1 up).\n";
    let mut assumes = in_range.iter().map(|c| format!("    assume({c});\n")).collect::<String>();
    if g.register_limited {
        assumes += &format!(
            "    assume(rows_per_warp >= {} && rows_per_warp <= {});\n",
            lit(sb, 1),
            lit(sb, (g.registers / g.groups) as u64)
        );
    }
    b += &format!("  always @* begin\n{assumes}");
    let same_in = if g.renamed { "reg_a == reg_b".to_string() } else { "warp_a == warp_b && reg_a == reg_b".into() };
    b += &format!("    assert({{1'b0, row_a}} < {});\n", lit(ab + 1, g.entries as u64));
    b += &format!("    if (!({same_in})) assert(group_a != group_b || row_a != row_b);\n");
    b += "  end\nendmodule\n";
    vec![Harness {
        property: REG_MAP_BIJECTION,
        part: String::new(),
        top,
        text: b,
        sources: vec![file],
        proof: Proof::AnyState { depth: 1 },
        probes: Vec::new(),
    }]
}
