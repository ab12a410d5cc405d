//! Power gating of the banks of one bank group (seed 004 §5.3): a bank holding no valid entry is
//! gated; a write that needs it wakes it, which takes `wakeup_cycles` cycles.

use crate::bdi::Layout;
use crate::geometry::index_bits;
use crate::verilog::{Module, Port, lit, reg};

pub fn bank_power(prefix: &str, l: &Layout) -> Module {
    let (c, w) = (l.clusters, l.wakeup_cycles);
    let tb = index_bits(w + 1);
    let mut b = String::new();
    for k in 0..c {
        b += &reg(&format!("on{k}"), 1);
        if w > 0 {
            b += &reg(&format!("timer{k}"), tb);
        }
    }
    b += "\n  // At each edge, from the state before it: a bank with no valid entry that no write is\n";
    b += &format!("  // waiting for is gated; a gated bank a write needs starts waking, for {w} cycles.\n");
    b += "  always @(posedge clk) begin\n    if (rst) begin\n";
    for k in 0..c {
        b += &format!("      on{k} <= 1'b0;\n");
        if w > 0 {
            b += &format!("      timer{k} <= {};\n", lit(tb, 0));
        }
    }
    b += "    end else begin\n";
    for k in 0..c {
        if w > 0 {
            b += &format!(
                "      if (empty[{k}] & ~wake_req[{k}]) begin\n        on{k} <= 1'b0;\n        timer{k} <= {zero};\n      end else if (~on{k} & wake_req[{k}]) begin\n        on{k} <= 1'b1;\n        timer{k} <= {};\n      end else if (timer{k} != {zero}) timer{k} <= timer{k} - {};\n",
                lit(tb, w as u64),
                lit(tb, 1),
                zero = lit(tb, 0)
            );
        } else {
            b += &format!(
                "      if (empty[{k}] & ~wake_req[{k}]) on{k} <= 1'b0;\n      else if (~on{k} & wake_req[{k}]) on{k} <= 1'b1;\n"
            );
        }
    }
    b += "    end\n  end\n\n";
    for k in 0..c {
        let awake = if w > 0 { format!("on{k} & (timer{k} == {})", lit(tb, 0)) } else { format!("on{k}") };
        b += &format!("  assign usable[{k}] = {awake};\n  assign gated[{k}] = ~on{k};\n");
    }
    Module {
        name: format!("{prefix}_bank_power"),
        doc: vec![
            format!("Power gating of the {c} banks of one bank group; wake-up takes {w} cycles."),
            "A bank is gated at the first edge where it holds no valid entry and no write needs it.".into(),
        ],
        ports: vec![
            Port::input("clk", 1, "clock"),
            Port::input("rst", 1, "synchronous reset, active high: every bank gated"),
            Port::input("empty", c, "bank c holds no valid entry").vector(),
            Port::input("wake_req", c, "the write port's register needs bank c").vector(),
            Port::output("usable", c, "bank c is powered and awake").vector(),
            Port::output("gated", c, "bank c is power-gated (drives its sleep transistor)").vector(),
        ],
        body: b,
        memory: None,
    }
}
