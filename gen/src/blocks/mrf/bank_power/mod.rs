//! Power gating of the banks of one bank group (seed 004 §5.3): a bank holding no valid entry is
//! gated (at once, or after `gate_delay` idle cycles); a write that needs it wakes it, which
//! takes `wakeup_cycles` cycles.

pub mod interface;

use crate::layout::bdi::Layout;
use crate::layout::geometry::index_bits;
use crate::verilog::{Module, Port, Ports, Submodule, lit, reg, vector_wire};
use interface::BankPowerPorts;

pub fn bank_power(prefix: &str, l: &Layout) -> Submodule<BankPowerPorts<Port>> {
    let (c, w, d) = (l.clusters, l.wakeup_cycles, l.gate_delay);
    let (tb, ib) = (index_bits(w + 1), index_bits(d + 1));
    let mut b = String::new();
    for k in 0..c {
        b += &reg(&format!("on{k}"), 1);
        if w > 0 {
            b += &reg(&format!("timer{k}"), tb);
        }
        if d > 0 {
            b += &reg(&format!("idle{k}"), ib);
        }
    }
    b += &vector_wire("unused", c);
    b += &vector_wire("off", c);
    b += "\n  // A bank with no valid entry that no write is waiting for is unused; ";
    b += &if d == 0 {
        "it is gated at once.\n  assign off = unused;\n".to_string()
    } else {
        let mut t = format!("after {d} such\n  // edges in a row it is gated at the next.\n");
        for k in 0..c {
            t += &format!("  assign off[{k}] = unused[{k}] & (idle{k} == {});\n", lit(ib, d as u64));
        }
        t
    };
    b += "  assign unused = empty & ~wake_req;\n";
    b += &format!(
        "\n  // At each edge, from the state before it: a gated bank a write needs starts waking, for {w} cycles.\n"
    );
    b += "  always @(posedge clk) begin\n    if (rst) begin\n";
    for k in 0..c {
        b += &format!("      on{k} <= 1'b0;\n");
        if w > 0 {
            b += &format!("      timer{k} <= {};\n", lit(tb, 0));
        }
        if d > 0 {
            b += &format!("      idle{k} <= {};\n", lit(ib, 0));
        }
    }
    b += "    end else begin\n";
    for k in 0..c {
        if d > 0 {
            b += &format!(
                "      if (~unused[{k}]) idle{k} <= {zero};\n      else if (idle{k} != {max}) idle{k} <= idle{k} + {one};\n",
                zero = lit(ib, 0),
                max = lit(ib, d as u64),
                one = lit(ib, 1)
            );
        }
        if w > 0 {
            b += &format!(
                "      if (off[{k}]) begin\n        on{k} <= 1'b0;\n        timer{k} <= {zero};\n      end else if (~on{k} & wake_req[{k}]) begin\n        on{k} <= 1'b1;\n        timer{k} <= {};\n      end else if (timer{k} != {zero}) timer{k} <= timer{k} - {};\n",
                lit(tb, w as u64),
                lit(tb, 1),
                zero = lit(tb, 0)
            );
        } else {
            b +=
                &format!("      if (off[{k}]) on{k} <= 1'b0;\n      else if (~on{k} & wake_req[{k}]) on{k} <= 1'b1;\n");
        }
    }
    b += "    end\n  end\n\n";
    for k in 0..c {
        let awake = if w > 0 { format!("on{k} & (timer{k} == {})", lit(tb, 0)) } else { format!("on{k}") };
        b += &format!("  assign usable[{k}] = {awake};\n  assign gated[{k}] = ~on{k};\n");
    }
    let when = if d == 0 {
        "A bank is gated at the first edge where it holds no valid entry and no write needs it.".to_string()
    } else {
        format!("A bank is gated after {d} edges in a row where it holds no valid entry and no write needs it.")
    };
    let ports = BankPowerPorts::new(l);
    let module = Module {
        name: format!("{prefix}_bank_power"),
        doc: vec![format!("Power gating of the {c} banks of one bank group; wake-up takes {w} cycles."), when],
        ports: ports.declared(),
        body: b,
        memory: None,
    };
    Submodule { module, ports }
}
