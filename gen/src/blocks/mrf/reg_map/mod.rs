//! RTL twin of [`Geometry::map`]: warp register → (bank group, row).
//!
//! With `G` a power of two and `R = k * G`, the map `(g, row) = ((r + w) mod G, (w*R + r) / G)`
//! becomes `g = r[low] + w[low]` and `row = w * k + (r >> log2 G)`: no bit is computed and dropped.

pub mod interface;

use crate::layout::geometry::Geometry;
use crate::verilog::{Module, Port, Ports, Sig, Submodule, lit, resize};
use interface::RegMapPorts;

pub fn reg_map(prefix: &str, g: &Geometry) -> Submodule<RegMapPorts<Port>> {
    let ports = RegMapPorts::new(g);
    let module = if g.renamed { renamed_map(prefix, g, &ports) } else { map(prefix, g, &ports) };
    Submodule { module, ports }
}

fn map(prefix: &str, g: &Geometry, ports: &RegMapPorts<Port>) -> Module {
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
    let stride = if g.register_limited { "rows_per_warp".to_string() } else { k.to_string() };
    body += &format!("  // warp * {stride} + reg / {}\n  assign row = {row};\n", g.groups);
    Module {
        name: format!("{prefix}_reg_map"),
        doc: vec![
            format!("Register-to-bank map: register r of warp w lives in bank group (r + w) mod {},", g.groups),
            format!("row w * {stride} + r / {}, in every cluster (SPEC section 0).", g.groups),
        ],
        ports: ports.declared(),
        body,
        memory: None,
    }
}

/// Renamed (SPEC section 0): physical register `p` lives in bank group `p mod G`, row `p / G`,
/// whichever warp holds it. The warp port stays, unused, so every instance is wired alike.
fn renamed_map(prefix: &str, g: &Geometry, ports: &RegMapPorts<Port>) -> Module {
    let (pb, ab) = (g.mrf_reg_bits(), g.row_bits());
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
        ports: ports.declared(),
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

/// What a block that only wants a register's bank group connects its maps' `rows_per_warp` to
/// (the row, unused, does not depend on it being right): the most rows per warp, when the
/// design is register-limited (else the maps have no such port).
pub fn group_only_stride(g: &Geometry) -> Option<Sig> {
    g.register_limited.then(|| Sig::lit(g.stride_bits(), (g.registers / g.groups) as u64))
}
