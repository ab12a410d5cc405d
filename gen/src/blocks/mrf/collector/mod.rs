//! One operand collector unit: holds an issued instruction, requests each source operand from
//! its bank group, captures the data, and offers the instruction for dispatch when complete.
//! With `delivered`, read data takes several cycles (the compressed MRF's decompressor, or a
//! TFET row's slower read) and the bank group says when it is there (`slot_deliver`); otherwise
//! it comes one cycle after the grant.

pub mod interface;

use crate::layout::geometry::{Geometry, SLOTS_PER_COLLECTOR};
use crate::verilog::{Module, Port, Ports, Submodule, onehot_mux, reg, slice, wire};
use interface::CollectorPorts;

/// With `prefilled`, sources found in a register file cache or read from the ORF/LRF arrive
/// with the instruction (`alloc_hit`, `alloc_hit_data`) and are never requested from the banks.
/// With `fill_entry_bits` (an ORF/LRF), a slot's bank read may also fill an upper-level entry:
/// the unit holds the instruction until the write port has taken every such fill.
pub fn operand_collector(
    prefix: &str,
    g: &Geometry,
    delivered: bool,
    prefilled: bool,
    fill_entry_bits: Option<u32>,
) -> Submodule<CollectorPorts<Port>> {
    let (gb, wr) = (g.group_bits(), g.warp_reg_bits());
    let n = SLOTS_PER_COLLECTOR;
    let mut body = String::new();
    body += &reg("pending", n);
    body += &reg("inflight", n);
    body += "\n  // Control state. A slot is pending until its bank read is granted, then in flight for\n";
    body += if delivered && g.registered_read {
        "  // the cycles until its bank group delivers the data (registered after the banks).\n"
    } else if delivered && g.has_tfet() {
        "  // the one or two cycles (CMOS or TFET row) until its bank group delivers the data.\n"
    } else if delivered {
        "  // the cycles until its bank group delivers the decompressed data.\n"
    } else {
        "  // one cycle while the bank delivers the data.\n"
    };
    body += "  always @(posedge clk) begin\n";
    body += &format!("    if (rst) begin\n      busy <= 1'b0;\n      pending <= {n}'b0;\n      inflight <= {n}'b0;\n");
    let pending = if prefilled { "alloc_src_valid & ~alloc_hit" } else { "alloc_src_valid" };
    body += &format!(
        "    end else if (alloc) begin\n      busy <= 1'b1;\n      pending <= {pending};\n      inflight <= {n}'b0;\n"
    );
    body += "    end else begin\n      if (dispatch) busy <= 1'b0;\n";
    body += "      pending <= pending & ~slot_grant;\n";
    body += if delivered {
        "      inflight <= (inflight | (pending & slot_grant)) & ~slot_deliver;\n"
    } else {
        "      inflight <= pending & slot_grant;\n"
    };
    body += "    end\n  end\n\n";
    body += "  // Instruction fields, captured at allocation (not reset: only read while busy).\n";
    body += "  always @(posedge clk) begin\n    if (alloc) begin\n";
    body += "      warp <= alloc_warp;\n      tag <= alloc_tag;\n      src_valid <= alloc_src_valid;\n";
    body += "      slot_group <= alloc_group;\n      slot_row <= alloc_row;\n    end\n  end\n\n";
    // Over more than two bank groups, each slot also keeps its group one-hot, and each pair of
    // groups' read data is ORed into a net of its own (`keep`). Yosys 0.23 maps the select from
    // the binary group to 4 LUT4 and 3 wide multiplexers per operand bit on ECP5 (a LUT6), and
    // beside a prefilled operand folds the compares and both capture enables into every bit; from
    // the one-hot copy in kept pairs it is 3 LUT4 either way (`baseline`: a collector 12,304 →
    // 9,238 LUT4; `isca11-rfc`: 13,621 → 9,247).
    let onehot = g.groups > 2;
    if onehot {
        let ng = g.groups;
        body += "  // Each slot's bank group, one-hot (bit g of slot i at [i*GROUPS+g]): the capture's select.\n";
        body += &reg("slot_group_onehot", n * ng);
        body += "  always @(posedge clk) begin\n    if (alloc) begin\n";
        for s in 0..n {
            for grp in 0..ng {
                body += &format!(
                    "      slot_group_onehot[{}] <= ({} == {gb}'d{grp});\n",
                    s * ng + grp,
                    slice("alloc_group", s, gb)
                );
            }
        }
        body += "    end\n  end\n\n";
    }
    body += if delivered {
        "  // Operand capture: a slot takes its bank group's read data when the group delivers it.\n"
    } else {
        "  // Operand capture: an in-flight slot takes its bank group's read data.\n"
    };
    if onehot {
        body += "  // Each pair of bank groups' data is one net (`keep`): synthesis keeps it at one LUT per bit.\n";
    }
    let capture = if delivered { "slot_deliver" } else { "inflight" };
    for s in 0..n {
        // Group `grp`'s read data, selected by slot `s`'s group.
        let term = |grp: u32| {
            let select = if onehot {
                format!("slot_group_onehot[{}]", s * g.groups + grp)
            } else {
                format!("({} == {gb}'d{grp})", slice("slot_group", s, gb))
            };
            (select, slice("group_rd_data", grp, wr))
        };
        let data = if g.groups == 1 {
            "group_rd_data".to_string()
        } else if !onehot {
            onehot_mux(&(0..g.groups).map(term).collect::<Vec<_>>(), wr)
        } else {
            let pairs: Vec<String> = (0..g.groups)
                .step_by(2)
                .map(|first| {
                    let last = g.groups.min(first + 2) - 1;
                    let name = if last > first {
                        format!("src{s}_from_groups{first}_{last}")
                    } else {
                        format!("src{s}_from_group{first}")
                    };
                    body += &format!("  (* keep *) {}", wire(&name, wr).trim_start());
                    body += &format!(
                        "  assign {name} = {};\n",
                        onehot_mux(&(first..=last).map(term).collect::<Vec<_>>(), wr)
                    );
                    name
                })
                .collect();
            pairs.join(" | ")
        };
        if prefilled {
            body += &format!(
                "  always @(posedge clk) begin\n    if (alloc & alloc_hit[{s}]) src{s}_data <= {};\n    else if ({capture}[{s}]) src{s}_data <= {data};\n  end\n",
                slice("alloc_hit_data", s, wr)
            );
        } else {
            body += &format!("  always @(posedge clk) begin\n    if ({capture}[{s}]) src{s}_data <= {data};\n  end\n");
        }
    }
    if fill_entry_bits.is_some() {
        body += &reg("filling", n);
        body += "\n  // Fills: a slot's arrived bank read waits for the ORF/LRF write port.\n";
        body += &format!(
            "  always @(posedge clk) begin\n    if (rst) filling <= {n}'b0;\n    else if (alloc) filling <= alloc_fill;\n    else filling <= filling & ~fill_grant;\n  end\n"
        );
        body += "  always @(posedge clk) begin\n    if (alloc) begin\n      fill_level <= alloc_fill_level;\n      fill_entry <= alloc_fill_entry;\n    end\n  end\n";
        body += "  assign fill_req = filling & ~pending & ~inflight;\n";
        body += "  assign fill_pending = busy & (|filling);\n";
        body += "\n  assign ready = busy & ~(|pending) & ~(|inflight) & ~(|filling);\n  assign slot_req = pending;\n";
    } else {
        body += "\n  assign ready = busy & ~(|pending) & ~(|inflight);\n  assign slot_req = pending;\n";
    }
    if delivered {
        body += "  assign slot_inflight = inflight;\n";
    }
    let ports = CollectorPorts::new(g, delivered, prefilled, fill_entry_bits);
    let module = Module {
        name: format!("{prefix}_operand_collector"),
        doc: vec![format!("Operand collector unit with {n} source-operand slots.")],
        ports: ports.declared(),
        body,
        memory: None,
    };
    Submodule { module, ports }
}
