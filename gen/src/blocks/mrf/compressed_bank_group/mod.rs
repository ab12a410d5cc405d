//! One bank group of the compressed MRF: the banks of one position in every cluster, their
//! arbiter, the range table read in parallel with arbitration, power gating, and a
//! decompressor on the read data. A read touches only the banks holding the register's chunks;
//! a dummy MOV read takes the read port ahead of the operand slots.

pub mod interface;

use super::arbiter::interface::ArbiterPorts;
use super::bank_power::interface::BankPowerPorts;
use super::range_table::interface::RangeTablePorts;
use crate::blocks::bdi::DecompressorPorts;
use crate::blocks::sram::interface::SramPorts;
use crate::layout::bdi::Layout;
use crate::layout::geometry::Geometry;
use crate::verilog::{Module, Port, Ports, Sig, Submodule, reg, vector_reg, vector_wire, wire};
use interface::CompressedBankGroupPorts;

pub struct Parts<'a> {
    pub sram: &'a Submodule<SramPorts<Port>>,
    pub arbiter: &'a Submodule<ArbiterPorts<Port>>,
    pub range_table: &'a Submodule<RangeTablePorts<Port>>,
    pub bank_power: &'a Submodule<BankPowerPorts<Port>>,
    pub decompressor: &'a Submodule<DecompressorPorts<Port>>,
}

pub fn compressed_bank_group(
    prefix: &str,
    g: &Geometry,
    l: &Layout,
    parts: Parts,
) -> Submodule<CompressedBankGroupPorts<Port>> {
    let (s, ab, w, ew, lpc, c) =
        (g.slots(), g.row_bits(), g.warp_reg_bits(), g.entry_bits(), g.lanes_per_cluster, l.clusters);
    let (rb, ld) = (l.ri_bits(), l.decompress_latency);
    let mut b = String::new();
    b += &vector_wire("req", s);
    b += &wire("grant_valid", 1);
    b += &wire("rd_row", ab);
    b += &wire("rd_ri", rb);
    for name in ["rd_occ", "wr_occ", "empty"] {
        b += &vector_wire(name, c);
    }
    b += &wire("chunks", w);
    b += &wire("dec_valid", 1);
    b += &reg("fetch_valid", 1);
    b += &reg("fetch_ri", rb);
    for k in 0..=ld {
        b += &vector_reg(&format!("tag{k}"), s + 1);
    }

    b += "\n  // Arbitration; a dummy MOV read takes the port this cycle and no slot is granted.\n";
    b += &format!("  assign req = slot_req & {{{s}{{~mov_rd}}}};\n");
    let (instance, granted_row) =
        super::bank_group::slot_arbiter(parts.arbiter, "req", ("slot_grant", "grant_valid"), s, ab);
    b += &instance;
    b += &format!("  assign rd_row = mov_rd ? wr_row : {granted_row};\n");

    b += "\n  // Range indicators, read in parallel with the banks; valid counts; power gating.\n";
    let v = |name: &str, width: u32| Sig::new(name, width);
    b += &parts.range_table.instance(
        "u_table",
        &RangeTablePorts {
            clk: v("clk", 1),
            rst: v("rst", 1),
            rd_row: v("rd_row", ab),
            rd_ri: v("rd_ri", rb),
            rd_occ: v("rd_occ", c),
            wr_row: v("wr_row", ab),
            wr_compressed: v("wr_compressed", 1),
            wr_en: v("wr_en", 1),
            wr_ri: v("wr_ri", rb),
            wr_occ: v("wr_occ", c),
            free_rows: v("free_rows", g.entries),
            empty: v("empty", c),
        },
    );
    b += &parts.bank_power.instance(
        "u_power",
        &BankPowerPorts {
            clk: v("clk", 1),
            rst: v("rst", 1),
            empty: v("empty", c),
            wake_req: v("wake_req", c),
            usable: v("usable", c),
            gated: v("gated", c),
        },
    );

    b += "\n  // A read enables only the banks holding chunks of the register; a write only the banks\n";
    b += "  // of its chunks that have an active lane.\n";
    b += &format!("  assign bank_rd_en = {{{c}{{grant_valid | mov_rd}}}} & rd_occ;\n");
    for k in 0..c {
        let mask = v("wr_mask", g.lanes).slice(k, lpc);
        let any = if lpc == 1 { mask.to_string() } else { format!("(|{mask})") };
        b += &format!("  assign bank_wr_en[{k}] = wr_en & wr_occ[{k}] & {any};\n");
    }
    for k in 0..c {
        b += &format!("  // Cluster {k}: chunk {k}.\n");
        b += &parts.sram.instance(
            &format!("u_bank_c{k}"),
            &SramPorts {
                clk: v("clk", 1),
                rd_en: v("bank_rd_en", c).bit(k),
                rd_addr: v("rd_row", ab),
                rd_data: v("chunks", w).slice(k, ew),
                wr_en: v("bank_wr_en", c).bit(k),
                wr_addr: v("wr_row", ab),
                wr_mask: v("wr_mask", g.lanes).slice(k, lpc),
                wr_data: v("wr_data", w).slice(k, ew),
            },
        );
    }

    b += "\n  // The read's range indicator and its reader (slot one-hot, MOV on top) go along with the\n";
    b += &format!("  // bank read and the {ld}-stage decompressor.\n");
    b += "  always @(posedge clk) begin\n    if (rst) fetch_valid <= 1'b0;\n    else fetch_valid <= grant_valid | mov_rd;\n  end\n";
    b += "  always @(posedge clk) begin\n    fetch_ri <= rd_ri;\n    tag0 <= {mov_rd, slot_grant};\n";
    for k in 1..=ld {
        b += &format!("    tag{k} <= tag{};\n", k - 1);
    }
    b += "  end\n";
    b += &parts.decompressor.instance(
        "u_decompressor",
        &DecompressorPorts {
            clk: v("clk", 1),
            rst: v("rst", 1),
            in_valid: v("fetch_valid", 1),
            in_ri: v("fetch_ri", rb),
            in_chunks: v("chunks", w),
            out_valid: v("dec_valid", 1),
            out_data: v("rd_data", w),
        },
    );
    b += &format!("  assign deliver = {{{s}{{dec_valid}}}} & tag{ld}[{}:0];\n", s - 1);
    b += &format!("  assign mov_done = dec_valid & tag{ld}[{s}];\n");

    let ports = CompressedBankGroupPorts::new(g, l);
    let module = Module {
        name: format!("{prefix}_mrf_bank_group"),
        doc: vec![
            format!(
                "One compressed MRF bank group: {c} banks (one per cluster) of {} x {ew} bit, a round-robin",
                g.entries
            ),
            format!("arbiter over {s} operand slots, range indicators, power gating, and a decompressor:"),
            format!("data granted in cycle t is delivered in cycle t+{}. See docs/bdi.md.", 1 + ld),
        ],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}
