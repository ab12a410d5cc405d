//! One bank group: the bank at the same position in every cluster, sharing one row address,
//! with the round-robin arbiter that picks which operand slot reads it this cycle. With TFET
//! rows, a TFET read takes the read port for two cycles and the group says when each slot's data
//! is on its read data.

pub mod interface;

use super::arbiter::interface::ArbiterPorts;
use crate::blocks::sram::interface::SramPorts;
use crate::layout::geometry::Geometry;
use crate::verilog::{Module, Port, Ports, Sig, Submodule, onehot_mux, reg, slice, vector_reg, vector_wire, wire};
use interface::BankGroupPorts;

pub fn bank_group(
    prefix: &str,
    g: &Geometry,
    sram: &Submodule<SramPorts<Port>>,
    arbiter: &Submodule<ArbiterPorts<Port>>,
) -> Submodule<BankGroupPorts<Port>> {
    let (s, ab, wr, ew, lpc) = (g.slots(), g.row_bits(), g.warp_reg_bits(), g.entry_bits(), g.lanes_per_cluster);
    let (tfet, registered, address) = (g.has_tfet(), g.registered_grant, g.registered_address);
    // The read the banks issue this cycle: its slot, its valid, and whether its row is TFET.
    let read_slot = issued_read(g);
    let (read_valid, tfet_read) = if address { ("read_valid", "tfet_read") } else { ("grant_valid", "tfet_rd") };
    // With the address registered, only a TFET row's test looks at this cycle's grant.
    let grant_valid = !address || tfet;
    let mut body = String::new();
    if grant_valid {
        body += &wire("grant_valid", 1);
    }
    if address {
        body += &wire("granted_row", ab);
        body += &reg("rd_row", ab);
        body += &vector_reg("read_slot", s);
        body += &wire("read_valid", 1);
    } else {
        body += &wire("rd_row", ab);
    }
    if tfet || registered {
        body += &vector_wire("req", s);
    }
    if registered {
        body += &vector_wire("pick", s);
        body += &wire("unused_pick_valid", 1);
        body += &reg("slot_row_q", s * ab);
    }
    if tfet {
        body += &wire("tfet_rd", 1);
        if address {
            body += &reg("tfet_read", 1);
        }
        if !registered {
            body += &wire("read_busy", 1);
        }
        body += &vector_reg("tfet_slot", s);
    }
    body += "\n";
    let req = match (tfet, registered) {
        (false, false) => "slot_req",
        (true, false) => {
            body += "  // The read port finishing a TFET read grants nothing (and the banks hold rd_data).\n";
            body += &format!("  assign req = slot_req & {{{s}{{~read_busy}}}};\n");
            "req"
        }
        (false, true) => {
            body += "  // The slot whose read is issued this cycle was granted at the last edge: it no longer\n";
            body += "  // requests, although its collector learns of the grant only now.\n";
            body += "  assign req = slot_req & ~slot_grant;\n";
            "req"
        }
        (true, true) => {
            body += "  // The slot whose read is issued this cycle was granted at the last edge: it no longer\n";
            body += "  // requests, although its collector learns of the grant only now. While a TFET row is read,\n";
            body += "  // nothing is granted: the grant would be read while the port finishes.\n";
            body += &format!("  assign req = slot_req & ~slot_grant & {{{s}{{~tfet_rd}}}};\n");
            "req"
        }
    };
    if registered {
        let (instance, _) = slot_arbiter(arbiter, req, ("pick", "unused_pick_valid"), s, ab);
        body += &instance;
        body += "\n  // The grant is registered before the banks' read address (`timing.mrf_registered_grant`).\n";
        body += "  always @(posedge clk) begin\n";
        body += &format!("    if (rst) slot_grant <= {s}'b0;\n    else slot_grant <= pick;\n  end\n");
        if grant_valid {
            body += "  assign grant_valid = |slot_grant;\n";
        }
        body += "\n  // Each slot's row a cycle late, here beside the banks, so that the read address no longer\n";
        body += "  // starts in a collector: a slot keeps its row from its request until its data arrives, so\n";
        body += "  // the row of the granted slot's request is the row it wants read.\n";
        body += "  always @(posedge clk) slot_row_q <= slot_row;\n";
        let row = granted_row(s, ab, "slot_row_q");
        if address {
            body += &format!("\n  // Row of the granted slot.\n  assign granted_row = {row};\n\n");
            body +=
                "  // The granted row is registered as the banks' read address (`timing.mrf_registered_address`):\n";
            body += "  // the banks read it a cycle after the grant, and the address net starts at a flip-flop.\n";
            body += &format!(
                "  always @(posedge clk) begin\n    if (rst) read_slot <= {s}'b0;\n    else read_slot <= slot_grant;\n  end\n"
            );
            body += "  always @(posedge clk) rd_row <= granted_row;\n";
            body += "  assign read_valid = |read_slot;\n\n";
        } else {
            body += &format!("\n  // Row of the slot whose read is issued.\n  assign rd_row = {row};\n\n");
        }
    } else {
        let (instance, granted_row) = slot_arbiter(arbiter, req, ("slot_grant", "grant_valid"), s, ab);
        body += &instance;
        body += &format!("\n  // Row of the granted slot.\n  assign rd_row = {granted_row};\n\n");
    }
    // The delivery port: with registered read data `arrive`, the slot whose register is on the
    // banks' read data next cycle; otherwise `deliver`, following the read itself.
    let arrive = interface::delivery(g);
    if tfet {
        body += &format!(
            "  // TFET rows {} to {}: the grant's data is delivered two cycles after it, not one, and the\n",
            g.tfet_row,
            g.entries - 1
        );
        body += "  // port is busy in between.\n";
        let granted = if address { "granted_row" } else { "rd_row" };
        body += &format!("  assign tfet_rd = grant_valid & {};\n", super::top::tfet_row_test(granted, g));
        if !registered {
            body += "  assign read_busy = |tfet_slot;\n";
        }
        body += "  always @(posedge clk) begin\n";
        body += &format!("    if (rst) begin\n      tfet_slot <= {s}'b0;\n      {arrive} <= {s}'b0;\n");
        if address {
            body += "      tfet_read <= 1'b0;\n";
        }
        body += "    end else begin\n";
        if address {
            body += "      tfet_read <= tfet_rd;\n";
        }
        body += &format!("      tfet_slot <= {read_slot} & {{{s}{{{tfet_read}}}}};\n");
        body += &format!("      {arrive} <= ({read_slot} & {{{s}{{~{tfet_read}}}}}) | tfet_slot;\n");
        body += "    end\n  end\n\n";
    } else if g.delivers() {
        body += "  // The slot whose register the banks read this cycle.\n";
        body += &format!(
            "  always @(posedge clk) begin\n    if (rst) {arrive} <= {s}'b0;\n    else {arrive} <= {read_slot};\n  end\n\n"
        );
    }
    for c in 0..g.clusters {
        let mask = Sig::new("wr_mask", g.lanes).slice(c, lpc);
        let any = if lpc == 1 { format!("wr_en & {mask}") } else { format!("wr_en & (|{mask})") };
        body += &format!("  // Cluster {c}: lanes {}..{}.\n", c * lpc, (c + 1) * lpc - 1);
        body += &sram.instance(
            &format!("u_bank_c{c}"),
            &SramPorts {
                clk: Sig::new("clk", 1),
                rd_en: Sig::new(read_valid, 1),
                rd_addr: Sig::new("rd_row", ab),
                rd_data: Sig::new("rd_data", wr).slice(c, ew),
                wr_en: Sig::new(any, 1),
                wr_addr: Sig::new("wr_row", ab),
                wr_mask: mask,
                wr_data: Sig::new("wr_data", wr).slice(c, ew),
            },
        );
    }
    let mut doc = vec![
        format!(
            "One MRF bank group: {} banks (one per cluster) of {} x {} bit sharing a row address,",
            g.clusters, g.entries, ew
        ),
        format!("and a round-robin arbiter granting one of {s} operand slots per cycle."),
    ];
    if tfet {
        doc.push(format!(
            "Rows {} to {} are TFET: delivered two cycles after the grant, the next cycle granting nothing.",
            g.tfet_row,
            g.entries - 1
        ));
    }
    let ports = BankGroupPorts::new(g);
    let module = Module { name: format!("{prefix}_mrf_bank_group"), doc, ports: ports.declared(), body, memory: None };
    Submodule { module, ports }
}

/// The bank group's one-hot register of the slot whose read its banks issue this cycle (their
/// read enable is its OR): the grant's, or with the address registered the one granted a cycle
/// before.
pub fn issued_read(g: &Geometry) -> &'static str {
    if g.registered_address { "read_slot" } else { "slot_grant" }
}

/// The round-robin arbiter granting one of `slots` requests (`req`) to drive the grant and
/// grant-valid wires named in `outputs` (`slot_grant`, `grant_valid` when the grant is not
/// registered), and the expression of the granted slot's row (from `slot_row`).
pub(super) fn slot_arbiter(
    arbiter: &Submodule<ArbiterPorts<Port>>,
    req: &str,
    outputs: (&str, &str),
    slots: u32,
    row_bits: u32,
) -> (String, String) {
    let instance = arbiter.instance(
        "u_arbiter",
        &ArbiterPorts {
            clk: Sig::new("clk", 1),
            rst: Sig::new("rst", 1),
            req: Sig::new(req, slots),
            advance: Sig::new("1'b1", 1),
            grant: Sig::new(outputs.0, slots),
            grant_valid: Sig::new(outputs.1, 1),
        },
    );
    (instance, granted_row(slots, row_bits, "slot_row"))
}

/// The row of the slot `slot_grant` names, from `rows` (each slot's row, slot i at row_bits x i).
fn granted_row(slots: u32, row_bits: u32, rows: &str) -> String {
    let terms: Vec<(String, String)> =
        (0..slots).map(|i| (format!("slot_grant[{i}]"), slice(rows, i, row_bits))).collect();
    onehot_mux(&terms, row_bits)
}
