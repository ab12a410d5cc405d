//! A module's invariants in the equivalence check (`rfgen_gen::formal::invariants`, the same
//! expressions `rfgen prove`'s harnesses assert): an edit masked only in the states the module
//! reaches (a cache's rank update, right only while an invalid entry's rank is its index) is
//! proved equivalent with them, where induction over all states does not close.
//!
//! The unmutated side gets the wire [`INVARIANT`]: 1 in a cycle the module is reset, else the
//! AND of the invariants over its state; the copy gets the same wire tied to 1. Paired by name,
//! the two make one `$equiv` cell, which `equiv_induct` assumes, like every pair, in the steps
//! before the one it proves, and proves in that one: the invariants are proved with the edit,
//! never trusted. Every run holds reset in its first cycle, where the wire is 1 whatever the
//! power-up state; a proof that closes also shows it 1 in every cycle after a reset (the reset
//! state must satisfy the invariants) and after every cycle it was 1 in. An invariant the
//! design does not keep, or that its reset does not establish, leaves the proof open, and the
//! check goes on as without it.
//!
//! The module is checked with its memories cut out (a register file cache's 48 entries of 256
//! bits, which an invariant of its ranks does not read): what it drives into them compared as
//! outputs, what they give back free inputs, the same on both sides. Both sides read one file
//! written here, as the port names Yosys' `submod` gives follow no fixed order between runs.
//!
//! For an edit of a memory leaf, each leaf can get an observer as well, the same on both sides
//! (`rfgen_gen::blocks::sram::observed::observer`): its read registers' values only in the
//! cycle their reader takes them, on wires paired in the registers' stead (`Sides::unpaired`).
//! Those pairs, too, are assumed and proved like every other: a reader that takes the word in
//! another cycle leaves its own registers unproved.

use crate::prove::equiv::INVARIANT;
use crate::synth::yosys;
use anyhow::{Context, Result, bail};
use rfgen_gen::blocks::sram::observed::{SEEN, observer, observer_name, read_registers};
use rfgen_gen::formal::identifiers;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The instance of the module checking the invariants, inside the checked module; the module
/// is `<this>_<i>` for the i-th module with invariants.
const CHECK: &str = "rfgen_invariant_check";

/// The instance observing a leaf's read registers, inside the leaf.
const OBSERVER: &str = "rfgen_read_observer";

/// A memory leaf whose read registers are observed ([`observer`]) on both sides and left
/// unpaired: compared only in the cycle their reader takes them, after a read of its own
/// `rd_en` or of its reader's `reads`.
pub struct Leaf<'a> {
    pub name: &'a str,
    pub width: u32,
    pub read_cycles: u32,
    pub reads: Option<Reads<'a>>,
}

/// The register of one-hot reads that the module around each instance of a leaf issues to it
/// (`rfgen_gen::formal::issued_reads`): `register`, `width` bits, in that module; `instances`
/// are the leaf's instances, flattened names in the top. An edit of the leaf's read enable
/// (raised where no read is issued) leaves it as it was, the same on both sides.
pub struct Reads<'a> {
    pub register: &'a str,
    pub width: u32,
    pub instances: Vec<String>,
}

/// The wire in an observed leaf carrying its reader's reads ([`Reads`]), connected once the
/// design is flattened (the reader is in the module around it).
const READS: &str = "rfgen_reads";

/// The module checking the invariants as the copy has it: its output tied to 1.
const ASSUMED: &str = "assumed.v";

/// Seconds Yosys gets to write the module with its invariants: no solver runs.
const STEP_S: u64 = 60;

/// Writes `dir/invariants.il`: `top` of the design `read` loads (its RTLIL text `rtlil`) after
/// `steps` (a flattening, memory leaves cut out), with the wire [`INVARIANT`] in each module of
/// `invariants` over its `holds` (Verilog expressions over the module's own names), driven by an
/// instance of a module of its own, an observer in each leaf of `observed`, and every memory
/// left cut out.
pub fn write(
    read: &str,
    rtlil: &str,
    top: &str,
    invariants: &[&(String, Vec<String>)],
    observed: &[Leaf],
    steps: &str,
    dir: &Path,
) -> Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let (mut design, mut checks, mut assumed, mut kinds) =
        (rtlil.to_string(), String::new(), String::new(), Vec::new());
    for (i, (module, holds)) in invariants.iter().enumerate() {
        let wires = wires(rtlil, module);
        let width = |name: &str| wires.iter().find(|(n, _)| n == name).map(|(_, w)| *w);
        if width("rst") != Some(1) {
            bail!("{module} has no reset `rst`: its invariants cannot start from one");
        }
        // The module's signals the invariants read, as the checking module's inputs.
        let mut inputs: Vec<&str> = vec!["rst"];
        for name in holds.iter().flat_map(|h| identifiers(h)) {
            if width(name).is_some() && !inputs.contains(&name) {
                inputs.push(name);
            }
        }
        let ports: Vec<String> = inputs
            .iter()
            .map(|n| match width(n) {
                Some(w) if w > 1 => format!("input wire [{}:0] {n}", w - 1),
                _ => format!("input wire {n}"),
            })
            .collect();
        let kind = format!("{CHECK}_{i}");
        let check = |ok: &str| {
            format!("module {kind} ({}, output wire ok);\n  assign ok = {ok};\nendmodule\n", ports.join(", "))
        };
        // Each in parentheses: `busy || …` beside another would bind to it.
        let all: Vec<String> = holds.iter().map(|h| format!("({h})")).collect();
        checks += &check(&format!("rst | ({})", all.join("\n    && ")));
        assumed += &check("1'b1");
        // The instance, in the module's RTLIL, before its `end`.
        let connects: String = inputs.iter().map(|n| format!("    connect \\{n} \\{n}\n")).collect();
        let instance = format!(
            "  attribute \\keep 1\n  wire \\{INVARIANT}\n  cell \\{kind} \\{CHECK}\n{connects}    connect \\ok \\{INVARIANT}\n  end\n"
        );
        design = inserted(&design, module, &instance)?;
        kinds.push(kind);
    }
    std::fs::write(dir.join("check.v"), checks)?;
    std::fs::write(dir.join(ASSUMED), assumed)?;
    let kinds = kinds.join(" ");
    // Each observed leaf's observer, inside it.
    let (mut observers, mut reads) = (String::new(), String::new());
    for leaf in observed {
        let kind = observer_name(leaf.name);
        let mut wires = String::new();
        let (source, width) = match &leaf.reads {
            Some(r) => {
                let _ = write!(wires, "  attribute \\keep 1\n  wire width {} \\{READS}\n", r.width);
                for instance in &r.instances {
                    let around = instance.rsplit_once('.').map_or(String::new(), |(a, _)| format!("{a}."));
                    let _ = writeln!(reads, "connect -set {instance}.{READS} {around}{}", r.register);
                }
                (READS, r.width)
            }
            None => ("rd_en", 1),
        };
        let mut connects = format!("    connect \\clk \\clk\n    connect \\reads \\{source}\n");
        for (register, _) in read_registers(leaf.read_cycles) {
            let _ = write!(wires, "  attribute \\keep 1\n  wire width {} \\{SEEN}{register}\n", leaf.width);
            let _ = write!(
                connects,
                "    connect \\{register} \\{register}\n    connect \\{SEEN}{register} \\{SEEN}{register}\n"
            );
        }
        design = inserted(&design, leaf.name, &format!("{wires}  cell \\{kind} \\{OBSERVER}\n{connects}  end\n"))?;
        observers += &observer(leaf.name, leaf.width, leaf.read_cycles, width);
    }
    if !reads.is_empty() {
        reads = format!("cd {top}\n{reads}cd ..\n");
    }
    std::fs::write(dir.join("design.il"), design)?;
    std::fs::write(dir.join("observers.v"), observers)?;
    // `read` loads the design from its RTLIL file; the modified copy replaces it.
    let load = read.lines().filter(|l| !l.starts_with("read_rtlil")).map(|l| format!("{l}\n")).collect::<String>();
    // The checking module stays an instance, which the copy replaces.
    let script = format!(
        "read_rtlil design.il\n{load}read_verilog -sv check.v observers.v\nsetattr -mod -set keep_hierarchy 1 {kinds}\n{steps}{reads}\
         setattr -mod -unset keep_hierarchy {kinds}\nmemory_collect\nsubmod -name rfgen_memories {top}/t:$mem_v2\n\
         expose -evert {top}/t:rfgen_memories\nhierarchy -top {top}\nwrite_rtlil invariants.il\n"
    );
    std::fs::write(dir.join("invariants.ys"), script)?;
    match yosys::run_for(dir, "invariants.ys", "invariants.log", Some(Duration::from_secs(STEP_S)))? {
        Some(Ok(())) => Ok(std::path::absolute(dir.join("invariants.il"))?),
        Some(Err(e)) => Err(e),
        None => bail!("Yosys did not write the invariants in {STEP_S} s"),
    }
}

/// The commands that tie the copy's [`INVARIANT`]s to 1, in the design `file` ([`write`]) holds:
/// each module checking invariants replaced by one whose output is 1.
pub fn assumed(file: &Path) -> String {
    format!("delete {CHECK}_*\nread_verilog -sv \"{}\"\n", file.with_file_name(ASSUMED).display())
}

/// The RTLIL design `rtlil` with `text` (wires and cells) added at the end of `module`.
fn inserted(rtlil: &str, module: &str, text: &str) -> Result<String> {
    let header = format!("module \\{module}\n");
    let start = rtlil.find(&header).with_context(|| format!("no module {module}"))?;
    let end = start + rtlil[start..].find("\nend\n").context("a module without its end")? + 1;
    Ok(format!("{}{text}{}", &rtlil[..end], &rtlil[end..]))
}

/// Every wire of `module` in an RTLIL design, with its width.
pub(super) fn wires(rtlil: &str, module: &str) -> Vec<(String, u32)> {
    let header = format!("module \\{module}");
    rtlil
        .lines()
        .skip_while(|l| *l != header)
        .take_while(|l| *l != "end")
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            if words.first() != Some(&"wire") {
                return None;
            }
            let name = words.last()?.strip_prefix('\\')?;
            let width = words.windows(2).find(|p| p[0] == "width").map_or(Some(1), |p| p[1].parse().ok())?;
            Some((name.to_string(), width))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::equiv::{self as prove_equiv, Equivalence, Sides, Source};

    /// A counter through 0, 1, 2 (3, which would go on to 2, is never reached) and a bit set by
    /// the first enabled cycle after reset.
    const COUNTER: &str = "module m (input wire clk, input wire rst, input wire en, output wire y, output wire z);\n\
                           \x20 reg [1:0] c;\n  reg d;\n  always @(posedge clk)\n    if (rst) begin\n      \
                           c <= 2'd0;\n      d <= 1'b0;\n    end else if (en) begin\n      \
                           c <= (c[1] & c[0]) ? 2'd2 : (c == 2'd2) ? 2'd0 : c + 2'd1;\n      d <= 1'b1;\n    \
                           end\n  assign y = en ^ c[1];\n  assign z = d & en;\nendmodule\n";

    /// The verdict on `COUNTER` with the `$and` of line `line` edited (`edit`), checked with the
    /// invariants `holds`.
    fn verdict(holds: &[&str], line: u32, edit: &str) -> Equivalence {
        let edited = Edited { module: "m", kind: "$and", at: &format!("m.v:{line}."), edit };
        verdict_of(COUNTER, "m", holds, &edited, &[], "")
    }

    /// An edit of the cell of `kind` at `at` (a source location) in `module`.
    struct Edited<'a> {
        module: &'a str,
        kind: &'a str,
        at: &'a str,
        edit: &'a str,
    }

    /// The verdict on the design `verilog` (file `m.v`, top `top`, its invariants `holds`) with
    /// `edited`, the leaves `observed` and the registers `unpaired`.
    fn verdict_of(
        verilog: &str,
        top: &str,
        holds: &[&str],
        edited: &Edited,
        observed: &[Leaf],
        unpaired: &str,
    ) -> Equivalence {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.v"), verilog).unwrap();
        let out = std::process::Command::new("yosys")
            .current_dir(dir.path())
            .args(["-q", "-p", &format!("read_verilog m.v; hierarchy -top {top}; proc; write_rtlil m.il")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let rtlil = std::fs::read_to_string(dir.path().join("m.il")).unwrap();
        let body = rtlil.split("\nmodule ").find(|m| m.starts_with(&format!("\\{}\n", edited.module))).unwrap();
        let mut located = "";
        let mut cell = None;
        for l in body.lines().map(str::trim) {
            if let Some(at) = l.strip_prefix("attribute \\src ") {
                located = at;
            } else if let Some(name) = l.strip_prefix(&format!("cell {} ", edited.kind))
                && located.contains(edited.at)
            {
                cell = Some(name.to_string());
            }
        }
        let mut cell = cell.unwrap();
        // Below the top, the cell's name in the flattened design.
        if edited.module != top {
            let instance = rtlil
                .split("\nmodule ")
                .find(|m| m.starts_with(&format!("\\{top}\n")))
                .and_then(|m| m.lines().find_map(|l| l.trim().strip_prefix(&format!("cell \\{} ", edited.module))))
                .unwrap();
            cell = format!("$flatten{instance}.{cell}");
        }
        let read = format!("read_rtlil \"{}\"\n", dir.path().join("m.il").display());
        let invariants = (top.to_string(), holds.iter().map(|h| h.to_string()).collect());
        let steps = format!("hierarchy -top {top}\nproc\nflatten\n");
        let file = write(&read, &rtlil, top, &[&invariants], observed, &steps, &dir.path().join("invariants")).unwrap();
        let generated = format!("read_rtlil \"{}\"\n", file.display());
        let copy = format!("{generated}mutate -module {top} -cell {cell} {}\n{}", edited.edit, assumed(&file));
        let sides = Sides {
            top,
            reset: true,
            after_reset: false,
            invariant: true,
            unpaired,
            generated: Source::Commands(generated),
            copy: Source::Commands(copy),
        };
        prove_equiv::check(&sides, 6, Duration::from_secs(60), &dir.path().join("check")).unwrap()
    }

    /// `c[1] & c[0]` stuck at 0: the counter goes from 3 to 0 instead of 2, and it is never 3.
    /// Induction over every state cannot prove it (3 is one); with the invariant it closes.
    #[test]
    fn an_invariant_proves_an_edit_masked_in_the_states_reached() {
        let stuck = "-mode const0 -port Y -portbit 0";
        let without = verdict(&["1'b1"], 9, stuck);
        assert!(matches!(without, Equivalence::Bounded { .. }), "{without:?}");
        assert_eq!(verdict(&["c != 2'd3"], 9, stuck), Equivalence::Proved);
    }

    /// Each invariant holds on its own: `d || c != 3` beside `c != 3` must not read as
    /// `d || (c != 3 && c != 3)`, which allows 3 once `d` is set, and the proof above fails.
    #[test]
    fn each_invariant_is_one_term_of_the_and() {
        let stuck = "-mode const0 -port Y -portbit 0";
        assert_eq!(verdict(&["d || c != 2'd3", "c != 2'd3"], 9, stuck), Equivalence::Proved);
    }

    /// `c[1] & c[0]` with `c[0]` stuck at 1: the counter stays at 2. Claimed never 2, it still
    /// reaches it: the claim is not proved, and the difference is found.
    #[test]
    fn a_false_invariant_is_refuted_not_trusted() {
        let v = verdict(&["c != 2'd2"], 9, "-mode const1 -port B -portbit 0");
        assert!(matches!(v, Equivalence::Differs { ref output, .. } if output == "y"), "{v:?}");
    }

    /// `d & en` with `d` stuck at 1: `z` differs in the first enabled cycle after reset. `d`
    /// stays 1 once set, an invariant of every state after it, but not of the reset state: the
    /// proof does not close.
    #[test]
    fn an_invariant_reset_does_not_establish_is_refuted() {
        let v = verdict(&["d"], 13, "-mode const1 -port A -portbit 0");
        assert!(matches!(v, Equivalence::Differs { ref output, .. } if output == "z"), "{v:?}");
    }

    /// A reader of a 2-cycle memory leaf (`rfgen_gen`'s own, 4 x 32 bits) that issues reads
    /// from its register `issued` (the leaf's read enable its OR, as a bank group's `read_slot`)
    /// and takes the read data `take` cycles after each.
    fn reader(take: u32) -> (String, String) {
        let leaf = rfgen_gen::blocks::sram::sram("t", 4, 32, rfgen_gen::SramKind::Behavioural, 2).module;
        let top = format!(
            "module top (input wire clk, input wire rst, input wire [1:0] rd, input wire [1:0] addr, input wire wr,\n  \
             input wire [1:0] wr_addr, input wire [31:0] wr_data, output reg [31:0] taken);\n  \
             reg [1:0] issued;\n  reg [1:0] issued_addr;\n  reg [2:1] read_ago;\n  wire read_enable;\n  wire [31:0] data;\n  \
             assign read_enable = |issued;\n  \
             {} u_leaf (.clk(clk), .rd_en(read_enable), .rd_addr(issued_addr), .rd_data(data), .wr_en(wr),\n    \
             .wr_addr(wr_addr), .wr_mask(1'b1), .wr_data(wr_data));\n  \
             always @(posedge clk) begin\n    if (rst) begin\n      issued <= 2'd0;\n      read_ago <= 2'd0;\n    \
             end else begin\n      issued <= rd;\n      read_ago <= {{read_ago[1], |issued}};\n    end\n    \
             issued_addr <= addr;\n    if (read_ago[{take}]) taken <= data;\n  end\nendmodule\n",
            leaf.name
        );
        (format!("{}{}endmodule\n{top}", leaf.declaration(), leaf.body), leaf.name)
    }

    /// The verdict on `reader(take)` with `edit`, its leaf's read registers `observe`d.
    fn observed_verdict(take: u32, edit: ReaderEdit, observe: Observe) -> Equivalence {
        let (verilog, leaf) = reader(take);
        let edited = match edit {
            ReaderEdit::Hold => Edited {
                module: &leaf,
                kind: "$mux",
                at: &format!("m.v:{}.9", line_of(&verilog, "if (rd_en) rd_word <=")),
                edit: "-mode inv -port A -portbit 5",
            },
            ReaderEdit::EnableRaised => Edited {
                module: "top",
                kind: "$reduce_or",
                at: &format!("m.v:{}.", line_of(&verilog, "assign read_enable = |issued;")),
                edit: "-mode const1 -port Y -portbit 0",
            },
        };
        let reads = match observe {
            Observe::Paired => return verdict_of(&verilog, "top", &["1'b1"], &edited, &[], ""),
            Observe::AfterEnable => None,
            Observe::AfterIssued => Some(Reads { register: "issued", width: 2, instances: vec!["u_leaf".to_string()] }),
        };
        let observed = [Leaf { name: &leaf, width: 32, read_cycles: 2, reads }];
        verdict_of(&verilog, "top", &["1'b1"], &edited, &observed, "w:u_leaf.rd_word w:u_leaf.rd_data")
    }

    /// The edits of [`reader`] checked: the leaf's `rd_word` keeping its word with bit 5
    /// inverted between reads, or the leaf's read enable stuck at 1.
    enum ReaderEdit {
        Hold,
        EnableRaised,
    }

    /// How the leaf's read registers are compared: paired, or observed after the reads of the
    /// leaf's own enable or of the reader's `issued` register.
    enum Observe {
        Paired,
        AfterEnable,
        AfterIssued,
    }

    /// The leaf's `rd_word` keeps its word with bit 5 inverted between reads: its `rd_data`
    /// differs, but never in the cycle the reader takes it (two after the read). Pairing the
    /// read registers, the induction cannot prove it; observed, it closes. A reader that takes
    /// the data a cycle early sees the difference: the observed window is proved, not trusted.
    #[test]
    fn a_read_register_observed_where_its_reader_takes_it_proves_an_edit_between_reads() {
        use {Observe::*, ReaderEdit::Hold};
        assert_eq!(observed_verdict(2, Hold, AfterEnable), Equivalence::Proved);
        assert_eq!(observed_verdict(2, Hold, AfterIssued), Equivalence::Proved);
        let paired = observed_verdict(2, Hold, Paired);
        assert!(matches!(paired, Equivalence::Bounded { .. }), "{paired:?}");
        let early = observed_verdict(1, Hold, AfterIssued);
        assert!(matches!(early, Equivalence::Differs { ref output, .. } if output == "taken"), "{early:?}");
    }

    /// The leaf's read enable stuck at 1: it reads in cycles the reader issued no read, which
    /// nobody takes. Observed after the leaf's own reads, the extra reads differ; observed after
    /// the reads the reader issues, the induction closes.
    #[test]
    fn a_read_enable_raised_where_nothing_is_issued_is_proved_observed_after_the_issued_reads() {
        use {Observe::*, ReaderEdit::EnableRaised};
        assert_eq!(observed_verdict(2, EnableRaised, AfterIssued), Equivalence::Proved);
        let own = observed_verdict(2, EnableRaised, AfterEnable);
        assert!(matches!(own, Equivalence::Bounded { .. }), "{own:?}");
    }

    /// The 1-based line of `text` holding `what`.
    fn line_of(text: &str, what: &str) -> usize {
        1 + text.lines().position(|l| l.contains(what)).unwrap()
    }

    #[test]
    fn wires_have_their_widths() {
        let rtlil = "module \\m\n  wire width 3 \\rank0\n  wire input 2 \\rst\n  wire $auto$1\nend\nmodule \\n\n  wire \\x\nend\n";
        assert_eq!(wires(rtlil, "m"), vec![("rank0".to_string(), 3), ("rst".to_string(), 1)]);
    }
}
