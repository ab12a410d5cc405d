//! What the memory leaf's behaviour depends on, for equivalence checks that cut it out.
//!
//! A check that cuts a module at its instances compares what the module drives into them. For
//! the memory leaf that is too strict: its read address matters only in a cycle that reads, its
//! write address only when some lane writes, and a lane's write data only when that lane
//! writes (`sram_1r1w.v`: read-first, per-lane write mask). An edit that changes the address
//! of a cycle with no read, or the enable of a write whose mask is empty, is invisible in the
//! leaf's read data yet differs at its ports. So the check replaces each leaf by these observed
//! inputs feeding a black box ([`core_name`]): equal observed inputs into identical leaves give
//! equal read data, whatever the raw ports carry.

use crate::layout::geometry::{LANE_BITS, index_bits};

/// The black box holding a leaf's state in a check: the leaf's name with `_observed`.
pub fn core_name(leaf: &str) -> String {
    format!("{leaf}_observed")
}

/// Verilog for a leaf `leaf` of `words` x `width` bits: the black box's declaration (read as a
/// library), and a techmap rule replacing the leaf by its observed inputs into that black box.
pub fn shim(leaf: &str, words: u32, width: u32) -> (String, String) {
    let a = index_bits(words);
    let lanes = width / LANE_BITS;
    let core = core_name(leaf);
    let declaration = format!(
        "(* blackbox *)\nmodule {core} (\n  input wire rd_en,\n  input wire [{am}:0] rd_addr,\n  \
         output wire [{wm}:0] rd_data,\n  input wire [{lm}:0] lane_write,\n  input wire [{am}:0] wr_addr,\n  \
         input wire [{wm}:0] wr_data\n);\nendmodule\n",
        am = a - 1,
        wm = width - 1,
        lm = lanes - 1,
    );
    let lane_data: Vec<String> = (0..lanes).rev().map(|l| format!("{{{LANE_BITS}{{lane_write[{l}]}}}}")).collect();
    let rule = format!(
        "module {leaf} (\n  input wire clk,\n  input wire rd_en,\n  input wire [{am}:0] rd_addr,\n  \
         output wire [{wm}:0] rd_data,\n  input wire wr_en,\n  input wire [{am}:0] wr_addr,\n  \
         input wire [{lm}:0] wr_mask,\n  input wire [{wm}:0] wr_data\n);\n  \
         wire [{lm}:0] lane_write = wr_mask & {{{lanes}{{wr_en}}}};\n  \
         {core} observed (\n    .rd_en      (rd_en),\n    .rd_addr    (rd_en ? rd_addr : {a}'d0),\n    \
         .rd_data    (rd_data),\n    .lane_write (lane_write),\n    .wr_addr    ((|lane_write) ? wr_addr : {a}'d0),\n    \
         .wr_data    (wr_data & {{{}}})\n  );\nendmodule\n",
        lane_data.join(", "),
        am = a - 1,
        wm = width - 1,
        lm = lanes - 1,
    );
    (declaration, rule)
}

/// The behavioural leaf's read registers (`sram_1r1w.v`), each with the cycle after a read
/// (`rd_en` high) in which it holds that read's word: `rd_word` one cycle after and `rd_data`
/// two with the read data registered, `rd_data` one cycle after without. A reader that takes
/// the word in exactly that cycle (a bank group's slot, the cycle after its `arrive`) never sees
/// what the register holds in the others, which the leaf's own ports show (it holds the word
/// until the next read).
pub fn read_registers(read_cycles: u32) -> &'static [(&'static str, u32)] {
    if read_cycles == 2 { &[("rd_word", 1), ("rd_data", 2)] } else { &[("rd_data", 1)] }
}

/// Prefix of an observer's outputs ([`observer`]): `rfgen_seen_<register>`.
pub const SEEN: &str = "rfgen_seen_";

/// The module observing a leaf's read registers ([`observer`]).
pub fn observer_name(leaf: &str) -> String {
    format!("{leaf}_read_observer")
}

/// Verilog for a module that observes the read registers of leaf `leaf` ([`read_registers`]):
/// each register's value in the cycle its reader takes it, else 0, as `rfgen_seen_<register>`.
/// The reads are those of its input `reads`, `reads` bits wide, any bit set a read: the leaf's
/// own `rd_en`, or the reader's register of the reads it issues, whose OR the leaf's enable is
/// (a read the enable makes beyond those is one nobody takes). An equivalence check
/// instantiates it in the leaf on both sides and leaves the registers themselves unpaired:
/// equal outputs mean equal words for every reader that takes them in that cycle, whatever the
/// registers hold in between.
pub fn observer(leaf: &str, width: u32, read_cycles: u32, reads: u32) -> String {
    let registers = read_registers(read_cycles);
    let w = width - 1;
    let reads_port =
        if reads == 1 { "  input wire reads".to_string() } else { format!("  input wire [{}:0] reads", reads - 1) };
    let mut ports = vec!["  input wire clk".to_string(), reads_port];
    let mut seen = String::new();
    for (name, after) in registers {
        ports.push(format!("  input wire [{w}:0] {name}"));
        ports.push(format!("  output wire [{w}:0] {SEEN}{name}"));
        seen += &format!("  assign {SEEN}{name} = read_ago[{after}] ? {name} : {width}'d0;\n");
    }
    // Bit i of `read_ago`: a read i cycles ago.
    let shift =
        if read_cycles == 1 { "|reads".to_string() } else { format!("{{read_ago[{}:1], |reads}}", read_cycles - 1) };
    format!(
        "module {} (\n{}\n);\n  reg [{read_cycles}:1] read_ago;\n  always @(posedge clk) read_ago <= {shift};\n{seen}endmodule\n",
        observer_name(leaf),
        ports.join(",\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run in Icarus over one read (in the cycle before the third edge, one bit of three reads
    /// set), each output shows its register's word exactly in the cycle `read_registers` gives,
    /// and 0 in every other once the observer has seen as many cycles as a read takes (before,
    /// it holds its power-up).
    #[test]
    fn an_observer_passes_each_read_register_only_in_its_cycle() {
        for read_cycles in [1, 2] {
            let dir = tempfile::tempdir().unwrap();
            let registers = read_registers(read_cycles);
            let (mut wires, mut ports, mut shown) = (String::new(), String::new(), String::new());
            for (n, _) in registers {
                wires += &format!("  wire [7:0] {n}_seen;\n");
                ports += &format!(", .{n}(8'h5a), .{SEEN}{n}({n}_seen)");
                shown += &format!(", {n}_seen");
            }
            let bench = format!(
                "module bench;\n  reg clk = 0;\n  reg [2:0] reads = 0;\n  integer t;\n{wires}  leaf_read_observer o (.clk(clk), .reads(reads){ports});\n  \
                 initial for (t = 0; t < 6; t = t + 1) begin\n    reads = (t == 2) ? 3'b100 : 3'b000;\n    #1 clk = 1;\n    #1 clk = 0;\n    \
                 $display(\"%0d{}\", t{shown});\n  end\nendmodule\n",
                " %h".repeat(registers.len())
            );
            std::fs::write(dir.path().join("o.v"), observer("leaf", 8, read_cycles, 3) + &bench).unwrap();
            let run = |cmd: &str, args: &[&str]| {
                let out = std::process::Command::new(cmd).current_dir(dir.path()).args(args).output().unwrap();
                assert!(out.status.success(), "{cmd}: {}", String::from_utf8_lossy(&out.stderr));
                String::from_utf8(out.stdout).unwrap()
            };
            run("iverilog", &["-o", "sim", "o.v"]);
            let text = run("vvp", &["sim"]);
            assert_eq!(text.lines().count(), 6, "{text}");
            for line in text.lines() {
                let words: Vec<&str> = line.split_whitespace().collect();
                let t: u32 = words[0].parse().unwrap();
                if t + 1 < read_cycles {
                    continue;
                }
                for (i, (name, after)) in registers.iter().enumerate() {
                    let want = if t == 1 + after { "5a" } else { "00" };
                    assert_eq!(words[1 + i], want, "{name} after edge {t}, {read_cycles}-cycle read:\n{text}");
                }
            }
        }
    }
}
