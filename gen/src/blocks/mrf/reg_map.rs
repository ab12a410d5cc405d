//! RTL twin of [`Geometry::map`]: warp register → (bank group, row).
//!
//! With `G` a power of two and `R = k * G`, the map `(g, row) = ((r + w) mod G, (w*R + r) / G)`
//! becomes `g = r[low] + w[low]` and `row = w * k + (r >> log2 G)`: no bit is computed and dropped.

use crate::geometry::Geometry;
use crate::verilog::{Module, Port, Sig, lit, resize};

pub fn reg_map(prefix: &str, g: &Geometry) -> Module {
    if g.renamed {
        return renamed_map(prefix, g);
    }
    let (wb, rb, gb, ab) = (g.warp_bits(), g.reg_bits(), g.group_bits(), g.row_bits());
    let shift = g.groups.trailing_zeros();
    let k = g.registers / g.groups;
    let mut body = String::new();
    if g.groups == 1 {
        body.push_str("  assign group = 1'b0;  // one bank per cluster\n");
    } else {
        body += &format!(
            "  // (reg + warp) mod {}\n  assign group = {} + {};\n",
            g.groups,
            resize("reg_id", rb, gb),
            resize("warp", wb, gb)
        );
    }
    let reg_high = if k == 1 {
        None // reg_id < G: its low bits select the group, none remain for the row
    } else if shift == 0 {
        Some(resize("reg_id", rb, ab))
    } else {
        let high_bits = rb - shift;
        Some(resize(&format!("reg_id[{}:{}]", rb - 1, shift), high_bits, ab))
    };
    let warp_times_k = if g.register_limited {
        format!("{} * {}", resize("warp", wb, ab), resize("rows_per_warp", g.stride_bits(), ab))
    } else if k == 1 {
        resize("warp", wb, ab)
    } else {
        format!("{} * {}", resize("warp", wb, ab), lit(ab, k as u64))
    };
    let row = match reg_high {
        Some(r) => format!("{warp_times_k} + {r}"),
        None => warp_times_k,
    };
    let (stride, mut ports) = if g.register_limited {
        ("rows_per_warp".to_string(), vec![Port::input("rows_per_warp", g.stride_bits(), &rows_per_warp_doc(g))])
    } else {
        (k.to_string(), vec![])
    };
    body += &format!("  // warp * {stride} + reg / {}\n  assign row = {row};\n", g.groups);
    ports.extend([
        Port::input("warp", wb, "warp id"),
        Port::input("reg_id", rb, "architectural register id"),
        Port::output("group", gb, "bank group (bank within each cluster)"),
        Port::output("row", ab, "bank row"),
    ]);
    Module {
        name: format!("{prefix}_reg_map"),
        doc: vec![
            format!("Register-to-bank map: register r of warp w lives in bank group (r + w) mod {},", g.groups),
            format!("row w * {stride} + r / {}, in every cluster (SPEC section 0).", g.groups),
        ],
        ports,
        body,
        memory: None,
    }
}

/// Renamed (SPEC section 0): physical register `p` lives in bank group `p mod G`, row `p / G`,
/// whichever warp holds it. The warp port stays, unused, so every instance is wired alike.
fn renamed_map(prefix: &str, g: &Geometry) -> Module {
    let (wb, pb, gb, ab) = (g.warp_bits(), g.mrf_reg_bits(), g.group_bits(), g.row_bits());
    let shift = g.groups.trailing_zeros();
    let mut body = String::from("  // The warp plays no part in a physical register's place.\n");
    body += "  wire unused_warp = ^warp;\n";
    if g.groups == 1 {
        body += "  assign group = 1'b0;  // one bank per cluster\n";
        body += &format!("  // p / 1\n  assign row = {};\n", resize("reg_id", pb, ab));
    } else {
        body += &format!("  // p mod {}\n  assign group = reg_id[{}:0];\n", g.groups, shift - 1);
        body += &format!(
            "  // p / {}\n  assign row = {};\n",
            g.groups,
            resize(&format!("reg_id[{}:{shift}]", pb - 1), pb - shift, ab)
        );
    }
    Module {
        // Its own name: a renamed SM's warpboard bins architectural registers by `reg_map`.
        name: format!("{prefix}_phys_reg_map"),
        doc: vec![
            format!("Register-to-bank map, renamed: physical register p lives in bank group p mod {},", g.groups),
            format!("row p / {}, in every cluster (SPEC section 0); rows from {} on are TFET.", g.groups, g.tfet_row),
        ],
        ports: vec![
            Port::input("warp", wb, "warp id (unused: a physical register's place does not depend on it)"),
            Port::input("reg_id", pb, "physical register id"),
            Port::output("group", gb, "bank group (bank within each cluster)"),
            Port::output("row", ab, "bank row"),
        ],
        body,
        memory: None,
    }
}

/// The `rows_per_warp` port's comment (the MRF top and the write port carry it too).
pub fn rows_per_warp_doc(g: &Geometry) -> String {
    format!(
        "rows each warp's registers take, ceil(registers per thread / {}), 1 to {}; set at kernel launch and held (warps beyond rows / it are not used)",
        g.groups,
        g.registers / g.groups
    )
}

/// An instance of `map` (a [`reg_map`]): `warp`/`reg_id` in, `group`/`row` out, and `stride` on
/// its `rows_per_warp` port when the design is register-limited.
pub fn map_instance(map: &Module, g: &Geometry, inst: &str, stride: &Sig, ends: [Sig; 4]) -> String {
    let [warp, reg_id, group, row] = ends;
    let mut conns = vec![("warp", warp), ("reg_id", reg_id), ("group", group), ("row", row)];
    if g.register_limited {
        conns.insert(0, ("rows_per_warp", stride.clone()));
    }
    map.instance(inst, &conns)
}

/// The stride a block that only wants a register's bank group gives its maps (the row, unused,
/// does not depend on it being right): the most rows per warp.
pub fn group_only_stride(g: &Geometry) -> Sig {
    Sig::lit(g.stride_bits(), (g.registers / g.groups) as u64)
}
