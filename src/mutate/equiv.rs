//! Tells a surviving mutant's kind with the check `rfgen prove --rtl` runs on a user's copy
//! (`prove::equiv`), on a netlist holding that one mutant:
//!
//! 1. **The cell alone**: the edited cell lifted into a module of its own, its inputs free. An
//!    edit that keeps the cell's function changes nothing anywhere, however wide the logic
//!    around it. Then with the cells driving it, then with its combinational cone: the logic
//!    from flip-flops to flip-flops that the edited cell is part of. Equal there, every
//!    flip-flop's next value and every output are the same functions of the state and inputs.
//! 2. **In its module**: the module the edited cell sits in, alone, with and without the edit,
//!    proved equal by induction, else searched for a difference within the bound. Equal at that
//!    module's ports, the block is equal at its own — and the check stays small where the block
//!    is large (an MRF's banks are tens of thousands of flip-flops to the solver; one bank or one
//!    arbiter is not). An induction that needs an invariant of the states the module reaches (a
//!    scheduler's age order being transitive) does not close, but the search does. An edit of a
//!    module that declares its invariants (a register file cache's entry order) is first proved
//!    with them, in the block with every memory cut out ([`super::invariants`]).
//!    First with the module's own instances cut out (`expose -evert`): what it drives into them
//!    becomes outputs, compared like its own, and what they drive back becomes inputs, the same
//!    free values on both sides. Equal inputs into identical instances give equal values back,
//!    so equal there is equal with them in place — and a top module of a few hundred cells is
//!    checked without the banks below it. Then, if that fails, with them in place.
//! 3. **In the modules around it**: failing that (an edit the module's ports show may still be
//!    masked around it), each module enclosing the edited one, inner first, flattened with its
//!    memory leaves cut out: a scoreboard's edit in the issue stage, without the composed top's
//!    MRF. An edit of a memory leaf below a module with invariants (a bank leaf's read
//!    register, different only between the cycles a slot takes it), or of the module issuing
//!    its reads (a bank group's read enable raised where no read is issued), is first tried in
//!    the block with those invariants and every leaf's reads observed
//!    ([`super::invariants::Leaf`]).
//! 4. **In the block**: failing that, the flattened block with and without the edit, proved by
//!    induction; else Yosys' SAT solver looks for an input sequence from reset on which an
//!    output differs within a bounded number of cycles.
//!
//! Proved or not found: the mutant is equivalent (for every input sequence, or within the
//! bound). Found: it is an escape of the stimulus (docs/mutate.md).

use super::invariants::{Leaf, Reads};
use super::{Mutant, Mutants};
use crate::prove::equiv::{self as prove_equiv, Sides, Source};
use crate::synth::yosys;
use anyhow::Result;
use rfgen_gen::blocks::sram::observed::{self, read_registers};
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// What of the checked module was cut out: its instances become ports
/// ([`cut_instances`]), memory leaves as what they observe (`observed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cut {
    Nothing,
    /// Everything but the edited cell: the cell alone, its inputs free.
    AllButTheCell,
    /// Everything but the edited cell and the cells driving its inputs, their inputs free.
    AllButTheCellAndItsDrivers,
    /// Everything but the logic between flip-flops around the edited cell: the cells its output
    /// reaches before a flip-flop or memory, and every cell driving those, back to flip-flops,
    /// memories and ports, which become free inputs and outputs.
    AllButTheCombinationalCone,
    /// Every instance of another module in the edited module.
    Instances,
    /// Every memory leaf of the flattened module: the block, or a module enclosing the edit.
    MemoryLeaves,
    /// Every memory of the edited module, whose invariants are proved with the edit
    /// ([`super::invariants`]).
    MemoriesWithInvariants,
    /// Every memory of the block, the invariants of the module around the edited memory leaf
    /// (or the edited module issuing its reads) proved with the edit, and every leaf's read
    /// registers compared only in the cycle their reader takes them
    /// (`rfgen_gen::blocks::sram::observed::read_registers`).
    MemoriesWithInvariantsReadsObserved,
}

impl Cut {
    /// The edited cell lifted out with some logic around it, into a module without the reset.
    fn lifted(self) -> bool {
        matches!(self, Cut::AllButTheCell | Cut::AllButTheCellAndItsDrivers | Cut::AllButTheCombinationalCone)
    }
}

/// What the check found for one mutant.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "equivalence", rename_all = "snake_case")]
pub enum Equivalence {
    /// Proved by induction, in `module` (the edited cell's or the whole block, with what was
    /// `cut` out): no input sequence shows it at the ports.
    Proved { module: String, cut: Cut },
    /// It changes only what reset loads, in `module` (with what was `cut` out): proved for
    /// every input sequence that holds reset in its first cycle only, every register equal on
    /// both sides `cycles` cycles after reset.
    ProvedAfterReset { cycles: u32, module: String, cut: Cut },
    /// No input sequence of `cycles` cycles from reset shows it at the ports of `module` (the
    /// edited cell's or the whole block, with what was `cut` out); the induction did not close.
    Equivalent { cycles: u32, module: String, cut: Cut },
    /// An input sequence shows it: `first_output` differs in `first_cycle` (reset held in cycle 1).
    Differs { first_output: String, first_cycle: u32 },
    /// The solver did not finish in time.
    Unknown { why: String },
    /// The edited bit is a constant the RTL leaves undefined (`x`, as `proc` fills the data of
    /// a write made only under a condition), in `module`: whatever value the edit gives it is
    /// one the RTL allows.
    Undefined { module: String },
    /// The edited bit is a data bit of a memory write port whose enable bit is the constant 0
    /// (a lane's write of a wide entry), in `module`: the port never writes it.
    Unwritten { module: String },
    /// The edit forces a data bit of a memory write port to the value every write of the port
    /// gives it (a free list of TFET registers, whose ids all have bit 7 set), in `module`:
    /// proved in the block, from any state, that the bit's enable implies that value.
    WrittenAsForced { module: String },
}

impl Equivalence {
    /// Proved or bounded: the mutant leaves the score.
    pub fn is_equivalent(&self) -> bool {
        matches!(
            self,
            Equivalence::Proved { .. }
                | Equivalence::ProvedAfterReset { .. }
                | Equivalence::Equivalent { .. }
                | Equivalence::Undefined { .. }
                | Equivalence::Unwritten { .. }
                | Equivalence::WrittenAsForced { .. }
        )
    }
}

/// Seconds the solver gets by default per mutant, for each proof and for the search
/// (`rfgen mutate --equiv-time`). The induction over the `small` MRF with its banks cut out
/// needs more than 60 s for some arbiter edits on two cores (docs/mutate.md); a survivor left
/// unknown counts as an escape, so the default errs on the side of an exact score.
pub const TIMEOUT_S: u64 = 240;

/// Times the solver's limit that the check with the reads observed gets: one induction over
/// every pair of the `small` MRF, 3,834 of them left to it, took 642 s with a second job beside
/// it (docs/mutate.md).
const OBSERVED_LIMIT: u32 = 4;

/// Times the solver's limit that the check with a module's invariants gets: its induction over
/// the invariant's fan-in is the block's control (the rename stage's, with its Eq. (1)
/// multiplier: a free list's wrap edit proved in about 250 s, docs/mutate.md), before the one
/// over every pair.
const INVARIANT_LIMIT: u32 = 2;

/// Seconds Yosys gets to lift a cell out or simplify a module: steps without a solver.
const STEP_S: u64 = 60;

/// Checks `mutant` of `drawn` for `cycles` cycles from reset, giving the solver `limit` for each
/// proof and for the search, in the folder `dir/equiv_<index>` (scripts and logs kept there).
pub fn check(drawn: &Mutants, mutant: &Mutant, cycles: u32, limit: Duration, dir: &Path) -> Result<Equivalence> {
    let dir = dir.join(format!("equiv_{}", mutant.index));
    let read = format!("read_rtlil \"{}\"\n", drawn.design.display());
    let edit = mutant.edit();
    let top = &drawn.top;
    let mut path = enclosing(top, &mutant.cell, &drawn.instances);
    let (module, cell) = path.pop().unwrap_or_else(|| (top.clone(), mutant.cell.clone()));
    let rtlil = std::fs::read_to_string(&drawn.design)?;
    if undefined(&rtlil, &module, &cell, &mutant.port, mutant.bit) {
        return Ok(Equivalence::Undefined { module });
    }
    if unwritten(&read, &rtlil, &module, &cell, &mutant.port, mutant.bit, &dir.join("port"))? {
        return Ok(Equivalence::Unwritten { module });
    }
    if cell_kind(&rtlil, &module, &cell).is_some_and(|k| k.starts_with("$memwr"))
        && written_as_forced(&read, top, mutant, &dir.join("forced"))?
    {
        return Ok(Equivalence::WrittenAsForced { module });
    }
    // Memory leaves are cut out as what they observe (`observed`), unless the edit is in one.
    let observe = if drawn.leaves.is_empty() || drawn.leaves.contains(&module) {
        String::new()
    } else {
        let (declarations, rules) = &drawn.observed;
        format!("read_verilog -lib \"{}\"\ntechmap -map \"{}\"\n", declarations.display(), rules.display())
    };
    let cut_type = |kind: &str| {
        if observe.is_empty() || !drawn.leaves.iter().any(|l| l == kind) {
            kind.to_string()
        } else {
            observed::core_name(kind)
        }
    };
    let edited = format!("{read}mutate -module {module} -cell {cell} {edit}\n");
    let mut scopes: Vec<Scope> = Vec::new();
    // The edited cell alone, its inputs free: an edit that leaves the cell's function as it
    // was (a bit inverted where another bit of the same OR already decides it, a constant
    // operand bit that an AND with zero masks) changes nothing anywhere. Seconds, where the
    // module around a wide datapath (the BDI compressor's 1,024-bit deltas) times out.
    // Then with the cells that drive its inputs: an operand bit that a constant decides there
    // (an AND with a constant 0) is free with the cell alone. Then with all the logic between
    // flip-flops around it: an edit that the logic after it masks in every state (a counter's
    // increment enabled where the compare beside it is false anyway), checked without the
    // module's wide registers and memories (a register file cache's 48 entries).
    let liftable = lone_cell(&rtlil, &module, &cell);
    let lifts = [
        ("cell", Cut::AllButTheCell),
        ("cell_drivers", Cut::AllButTheCellAndItsDrivers),
        ("cone", Cut::AllButTheCombinationalCone),
    ];
    for (folder, cut) in lifts {
        if liftable && let Ok(lone) = lift(&read, &module, &cell, cut, &dir.join(folder)) {
            let read_lone = format!("read_rtlil \"{}\"\n", lone.display());
            let copy = format!("{read_lone}mutate -module {CELL} -cell {cell} {edit}\n");
            scopes.push(Scope::new(folder, CELL, &module, cut, read_lone, copy));
        }
    }
    // Flattened, with its memory leaves cut out (the commands after the design is read).
    let flat_steps = |m: &str| {
        let cores: Vec<String> = drawn.leaves.iter().map(|l| format!("{m}/t:{}", observed::core_name(l))).collect();
        if observe.is_empty() || !holds_any(m, &drawn.leaves, &drawn.instances) {
            (format!("hierarchy -top {m}\nproc\nflatten\n"), Cut::Nothing)
        } else {
            let cut = format!("expose -evert {}\n", cores.join(" "));
            (format!("{observe}hierarchy -top {m}\nproc\nflatten\n{cut}"), Cut::MemoryLeaves)
        }
    };
    let flat = |m: &str| {
        let (steps, cut) = flat_steps(m);
        (format!("{read}{steps}"), cut)
    };
    // The block flattened with the edited module's invariants, if it has any, and every memory
    // cut out: an edit masked only in the states the module reaches (a cache's rank update),
    // checked where its inputs keep their contract (no write-back during a flush).
    if let Some(invariants) = drawn.invariants.iter().find(|(m, _)| *m == module)
        && !cell_kind(&rtlil, &module, &cell).is_some_and(|k| k.starts_with("$mem"))
        && let Ok(file) = super::invariants::write(
            &read,
            &rtlil,
            top,
            &[invariants],
            &[],
            &flat_steps(top).0,
            &dir.join("invariants"),
        )
    {
        let generated = format!("read_rtlil \"{}\"\n", file.display());
        let assumed = super::invariants::assumed(&file);
        let copy = format!("{generated}mutate -module {top} -cell {} {edit}\n{assumed}", mutant.cell);
        scopes.push(Scope::new("with_invariants", top, top, Cut::MemoriesWithInvariants, generated, copy));
    }
    let cut_commands = cut_instances(&module, &drawn.instances, cut_type);
    if !cut_commands.is_empty() {
        let (generated, copy) = (format!("{read}{observe}{cut_commands}"), format!("{edited}{observe}{cut_commands}"));
        scopes.push(Scope::new("module_cut", &module, &module, Cut::Instances, generated, copy));
    }
    let mut alone = (module != *top).then(|| Scope {
        ends_if_unknown: true,
        ..Scope::new("module", &module, &module, Cut::Nothing, read.clone(), edited)
    });
    // An edit of a memory leaf that the leaf's reader never sees (what a read register holds
    // between the cycles it is read in, which the leaf's and its bank group's ports show), or of
    // the module issuing its reads that the reader never sees (a read enable raised where no
    // read is issued): the block with the invariants of the innermost module around the edit
    // that has them (the MRF top's, which tie a slot's delivery to its group's read), every
    // memory cut out and every leaf's read registers compared only in the cycle their reader
    // takes them. Before the modules around the leaf, whose checks end the search when they run
    // out of time (a bank group's, its banks as flip-flops, on shared cores); for an edit of
    // the module issuing the reads, before that module alone, for the same reason.
    let issuer = drawn.issued_reads.iter().any(|(m, _)| *m == module);
    if !issuer {
        scopes.extend(alone.take());
    }
    let owner =
        path.iter().rev().map(|(m, _)| m).chain([top]).find_map(|m| drawn.invariants.iter().find(|(n, _)| n == m));
    if (drawn.leaves.contains(&module) || issuer)
        && let Some((owner, _)) = owner
    {
        // The owner's and those of every module below it: an operand's capture is tied to its
        // group's read by the MRF top's, its one-hot select to its group by the collector's.
        // The modules no read passes through cut out (a register file cache), with their own.
        let beside = |m: &String| {
            drawn.beside_reads.iter().any(|b| b == m || holds_any(b, std::slice::from_ref(m), &drawn.instances))
        };
        let invariants: Vec<_> = drawn
            .invariants
            .iter()
            .filter(|(m, _)| m == owner || holds_any(owner, std::slice::from_ref(m), &drawn.instances))
            .filter(|(m, _)| !beside(m))
            .collect();
        let leaves: Vec<Leaf> = drawn
            .netlist
            .manifest
            .modules
            .iter()
            .filter_map(|m| {
                m.memory.map(|mem| Leaf {
                    name: &m.name,
                    width: mem.width,
                    read_cycles: mem.read_cycles,
                    reads: issued_reads(top, &m.name, drawn, &rtlil),
                })
            })
            .collect();
        let cut: String = drawn.beside_reads.iter().map(|m| format!("expose -evert t:{m}\n")).collect();
        let steps = format!("hierarchy -top {top}\nproc\n{cut}flatten\n");
        if let Ok(file) =
            super::invariants::write(&read, &rtlil, top, &invariants, &leaves, &steps, &dir.join("reads_observed"))
        {
            let generated = format!("read_rtlil \"{}\"\n", file.display());
            let assumed = super::invariants::assumed(&file);
            let copy = format!("{generated}mutate -module {top} -cell {} {edit}\n{assumed}", mutant.cell);
            let unpaired: Vec<String> = leaves
                .iter()
                .flat_map(|leaf| {
                    let registers = read_registers(leaf.read_cycles);
                    instance_paths(top, leaf.name, &drawn.instances)
                        .into_iter()
                        .flat_map(move |p| registers.iter().map(move |(r, _)| format!("w:{p}.{r}")))
                })
                .collect();
            scopes.push(Scope {
                unpaired: unpaired.join(" "),
                ..Scope::new("reads_observed", top, top, Cut::MemoriesWithInvariantsReadsObserved, generated, copy)
            });
        }
    }
    scopes.extend(alone);
    // Flattened, with its memory leaves cut out: each module enclosing the edited one, inner
    // first (an edit of the scoreboard that its ports show may be masked in the issue stage
    // around it, which is a fraction of the composed top), then the block (what is left of an
    // MRF without its banks is small enough to solve where the banks as flip-flops are not).
    for (outer, cell) in path.iter().rev() {
        let (generated, cut) = flat(outer);
        let copy = format!("{generated}mutate -module {outer} -cell {cell} {edit}\n");
        scopes.push(Scope {
            ends_if_unknown: true,
            after_reset: true,
            ..Scope::new(&format!("in_{outer}"), outer, outer, cut, generated, copy)
        });
    }
    if !observe.is_empty() {
        let (generated, cut) = flat(top);
        let copy = format!("{generated}mutate -module {top} -cell {} {edit}\n", mutant.cell);
        scopes.push(Scope { after_reset: true, ..Scope::new("block_cut", top, top, cut, generated, copy) });
    }
    // An edit of a reset multiplexer changes what reset loads: the scopes that can prove it
    // after reset go first, before those where its module's ports show it.
    if reset_multiplexer(&rtlil, &module, &cell) {
        scopes.sort_by_key(|s| !s.after_reset);
    }
    let reset =
        |module: &str| drawn.netlist.manifest.module(module).is_none_or(|m| m.ports.iter().any(|p| p.name == "rst"));
    for Scope { folder, checked, module, cut, generated, copy, ends_if_unknown, after_reset, unpaired } in scopes {
        // With invariants only the proof: the search for a difference follows in the scopes after.
        let invariant = matches!(cut, Cut::MemoriesWithInvariants | Cut::MemoriesWithInvariantsReadsObserved);
        let sides = Sides {
            top: &checked,
            reset: !cut.lifted() && reset(&checked),
            after_reset,
            invariant,
            unpaired: &unpaired,
            generated: Source::Commands(generated),
            copy: Source::Commands(copy),
        };
        // With the module's inputs free its input sequences include every one the block gives
        // it, so a bound there holds for the block too; a difference there may not reach the
        // block's ports, and is looked for again in the block.
        let depth = if invariant { 0 } else { cycles };
        // The induction with the reads observed is one over every pair of the block, where the
        // others split it by module or by fan-in.
        let limit = match cut {
            Cut::MemoriesWithInvariantsReadsObserved => limit * OBSERVED_LIMIT,
            Cut::MemoriesWithInvariants => limit * INVARIANT_LIMIT,
            _ => limit,
        };
        match prove_equiv::check(&sides, depth, limit, &dir.join(folder)) {
            Ok(prove_equiv::Equivalence::Proved) => return Ok(Equivalence::Proved { module, cut }),
            Ok(prove_equiv::Equivalence::ProvedAfterReset { cycles }) => {
                return Ok(Equivalence::ProvedAfterReset { cycles, module, cut });
            }
            Ok(prove_equiv::Equivalence::Bounded { cycles, .. }) => {
                return Ok(Equivalence::Equivalent { cycles, module, cut });
            }
            // The edited module whole, where neither the proof nor the search finished: the
            // block around it holds all of it and more, and would not finish either (a
            // register file cache's rank logic beside its 48 entries of 256 bits: 19 million
            // variables to the search in the module, 23 million in the block).
            Ok(prove_equiv::Equivalence::Unknown { why }) if ends_if_unknown => {
                return Ok(Equivalence::Unknown { why: format!("in {module} alone: {why}") });
            }
            _ => {}
        }
    }
    let flat = format!("{read}hierarchy -top {top}\nflatten\n");
    let copy = format!("{flat}mutate -module {top} -cell {} {edit}\n", mutant.cell);
    let sides = Sides {
        top,
        reset: reset(top),
        after_reset: false,
        invariant: false,
        unpaired: "",
        generated: Source::Commands(flat),
        copy: Source::Commands(copy),
    };
    // A tool that fails on one mutant leaves that mutant unknown, not the campaign stopped.
    let verdict = match prove_equiv::check(&sides, cycles, limit, &dir.join("block")) {
        Ok(v) => v,
        Err(e) => {
            let why = format!("{e:#}");
            return Ok(Equivalence::Unknown { why: why.lines().next().unwrap_or_default().to_string() });
        }
    };
    Ok(match verdict {
        prove_equiv::Equivalence::Proved => Equivalence::Proved { module: top.clone(), cut: Cut::Nothing },
        prove_equiv::Equivalence::ProvedAfterReset { cycles } => {
            Equivalence::ProvedAfterReset { cycles, module: top.clone(), cut: Cut::Nothing }
        }
        prove_equiv::Equivalence::Bounded { cycles, .. } => {
            Equivalence::Equivalent { cycles, module: top.clone(), cut: Cut::Nothing }
        }
        prove_equiv::Equivalence::Differs { output, cycle, .. } => {
            Equivalence::Differs { first_output: output, first_cycle: cycle }
        }
        prove_equiv::Equivalence::Unknown { why } => Equivalence::Unknown { why },
    })
}

/// One module the check tries: `checked` (reported as `module`) with what was `cut` out, the
/// commands loading it as generated and as the copy with the edit, in `dir/folder`. With `ends_if_unknown`,
/// a proof and a search that both run out of time end the check: what comes after holds all of
/// it and more. With `after_reset`, an edit that changes only what reset loads is proved there
/// (`prove::equiv`, step 2): in the block or a module enclosing the edit, where what the edited
/// register's reset value reaches settles.
struct Scope {
    folder: String,
    checked: String,
    module: String,
    cut: Cut,
    generated: String,
    copy: String,
    ends_if_unknown: bool,
    after_reset: bool,
    /// Wires of registers left unpaired, their observers paired instead (`Sides::unpaired`).
    unpaired: String,
}

impl Scope {
    fn new(folder: &str, checked: &str, module: &str, cut: Cut, generated: String, copy: String) -> Self {
        let (folder, checked, module) = (folder.to_string(), checked.to_string(), module.to_string());
        Scope {
            folder,
            checked,
            module,
            cut,
            generated,
            copy,
            ends_if_unknown: false,
            after_reset: false,
            unpaired: String::new(),
        }
    }
}

/// The module a lone edited cell is lifted into ([`lone_cell`]).
const CELL: &str = "rfgen_edited_cell";

/// Whether `cell` of `module` can be checked alone: a cell of Yosys' own library, not a memory
/// port (whose memory stays behind), named without a selection's pattern characters.
fn lone_cell(rtlil: &str, module: &str, cell: &str) -> bool {
    cell_kind(rtlil, module, cell).is_some_and(|k| k.starts_with('$') && !k.starts_with("$mem"))
        && !cell.contains(['[', ']', '*', '?', ' '])
}

/// Whether `cell` of `module` is a multiplexer that reset selects (`if (rst) r <= …`): its
/// select is `rst`, or a wire `proc` connected to it.
fn reset_multiplexer(rtlil: &str, module: &str, cell: &str) -> bool {
    let header = format!("module \\{module}");
    let lines: Vec<&str> =
        rtlil.lines().skip_while(|l| *l != header).take_while(|l| *l != "end").map(str::trim).collect();
    let Some(at) = lines.iter().position(|l| l.strip_prefix("cell $mux ") == Some(cell)) else { return false };
    let body = lines[at..].iter().take_while(|l| **l != "end");
    let Some(select) = body.into_iter().find_map(|l| l.strip_prefix("connect \\S ")) else { return false };
    select == "\\rst" || lines.contains(&format!("connect {select} \\rst").as_str())
}

/// The type of `cell` in `module` of an RTLIL design.
fn cell_kind<'a>(rtlil: &'a str, module: &str, cell: &str) -> Option<&'a str> {
    let header = format!("module \\{module}");
    rtlil.lines().skip_while(|l| *l != header).take_while(|l| *l != "end").find_map(|l| {
        match l.split_whitespace().collect::<Vec<_>>()[..] {
            ["cell", kind, name] if name == cell => Some(kind),
            _ => None,
        }
    })
}

/// Writes `cell` of `module` (with its drivers, as `cut` says), alone in a module of its own
/// ([`CELL`]), to `dir/cell.il`: both sides read that one file, as the names Yosys' `submod`
/// gives the new module's ports follow no fixed order from one run to the next.
fn lift(read: &str, module: &str, cell: &str, cut: Cut, dir: &Path) -> Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir)?;
    // The cell; or the cell and the cells driving its inputs (two steps of the input cone: the
    // wires, then their drivers); or its output cone through combinational cells and that
    // cone's whole combinational input cone.
    let drivers = match cut {
        Cut::AllButTheCellAndItsDrivers => " %ci2 c:* %i",
        Cut::AllButTheCombinationalCone => " %coe* %cie* c:* %i",
        _ => "",
    };
    // `submod` skips a module that holds memories, so they become memory cells first.
    let script = format!(
        "{read}hierarchy -top {module}\nproc\nmemory_collect\nsubmod -name {CELL} {module}/{cell}{drivers}\n\
         hierarchy -top {CELL}\nwrite_rtlil cell.il\n"
    );
    std::fs::write(dir.join("lift.ys"), script)?;
    match yosys::run_for(dir, "lift.ys", "lift.log", Some(Duration::from_secs(STEP_S)))? {
        // Absolute: the proof reads it from a folder of its own, and `--out` may be relative.
        Some(Ok(())) => Ok(std::path::absolute(dir.join("cell.il"))?),
        Some(Err(e)) => Err(e),
        None => anyhow::bail!("Yosys did not lift the cell out in {STEP_S} s"),
    }
}

/// Whether bit `bit` of `port` of `cell` in `module` of an RTLIL design is a constant `x`.
fn undefined(rtlil: &str, module: &str, cell: &str, port: &str, bit: u32) -> bool {
    constant_bit(rtlil, module, cell, port, bit) == Some(b'x')
}

/// Whether `bit` of the `DATA` port of the memory write port `cell` in `module` is one it never
/// writes: its enable bit is the constant 0 once Yosys has simplified the module (each lane of
/// a wide entry written by a port of its own, the other lanes' bits disabled). Checked in the
/// folder `dir`.
fn unwritten(read: &str, rtlil: &str, module: &str, cell: &str, port: &str, bit: u32, dir: &Path) -> Result<bool> {
    if port != "DATA" || !cell_kind(rtlil, module, cell).is_some_and(|k| k.starts_with("$memwr")) {
        return Ok(false);
    }
    std::fs::create_dir_all(dir)?;
    let script = format!(
        "{read}hierarchy -top {module}\nproc\nopt -full\nselect -module {module} {cell}\nwrite_rtlil -selected port.il\n"
    );
    std::fs::write(dir.join("port.ys"), script)?;
    match yosys::run_for(dir, "port.ys", "port.log", Some(Duration::from_secs(STEP_S)))? {
        Some(Ok(())) => {}
        // Not simplified in time, or not at all: left to the checks after this one.
        Some(Err(_)) | None => return Ok(false),
    }
    let simplified = std::fs::read_to_string(dir.join("port.il"))?;
    Ok(constant_bit(&simplified, module, cell, "EN", bit) == Some(b'0'))
}

/// Whether `mutant` forces a data bit of a memory write port to the value every write of that
/// port gives it: in the block `top` flattened, with every register and memory output free (any
/// state), the bit's enable implies the value. Checked in the folder `dir`.
fn written_as_forced(read: &str, top: &str, mutant: &Mutant, dir: &Path) -> Result<bool> {
    let value = match mutant.mode.as_str() {
        "const0" => 0,
        "const1" => 1,
        _ => return Ok(false),
    };
    if mutant.port != "DATA" {
        return Ok(false);
    }
    std::fs::create_dir_all(dir)?;
    let flatten = format!("{read}hierarchy -top {top}\nproc\nflatten\nwrite_rtlil flat.il\n");
    std::fs::write(dir.join("flat.ys"), flatten)?;
    if !matches!(yosys::run_for(dir, "flat.ys", "flat.log", Some(Duration::from_secs(STEP_S)))?, Some(Ok(()))) {
        return Ok(false);
    }
    let flat = std::fs::read_to_string(dir.join("flat.il"))?;
    let bit = |port: &str| port_bit(&flat, top, &mutant.cell, port, mutant.bit);
    let (Some(PortBit::Wire(enable)), Some(data)) = (bit("EN"), bit("DATA")) else { return Ok(false) };
    let data = match data {
        PortBit::Constant(b) => format!("1'{}", b as char),
        PortBit::Wire(w) => w,
    };
    // The two bits on wires of their own, at the end of the top.
    let probes = format!(
        "  wire \\rfgen_written_enable\n  wire \\rfgen_written_data\n  connect \\rfgen_written_enable {enable}\n  \
         connect \\rfgen_written_data {data}\nend\n"
    );
    let header = format!("module \\{top}\n");
    let Some(start) = flat.find(&header) else { return Ok(false) };
    let Some(end) = flat[start..].find("\nend\n").map(|e| start + e + 1) else { return Ok(false) };
    std::fs::write(dir.join("probed.il"), format!("{}{probes}{}", &flat[..end], &flat[end + 4..]))?;
    // Without `-seq` the solver takes every flip-flop's output as free; memories too, as cells
    // it does not model.
    let prove = format!(
        "read_rtlil probed.il\nhierarchy -top {top}\nsat -ignore_unknown_cells -set rfgen_written_enable 1 \
         -prove rfgen_written_data 1'{value} -verify {top}\n"
    );
    std::fs::write(dir.join("forced.ys"), prove)?;
    Ok(matches!(yosys::run_for(dir, "forced.ys", "forced.log", Some(Duration::from_secs(STEP_S)))?, Some(Ok(()))))
}

/// Bit `bit` of `port` of `cell` in `module` of an RTLIL design, when it is a constant: `0`,
/// `1` or `x`.
fn constant_bit(rtlil: &str, module: &str, cell: &str, port: &str, bit: u32) -> Option<u8> {
    match port_bit(rtlil, module, cell, port, bit)? {
        PortBit::Constant(b) => Some(b),
        PortBit::Wire(_) => None,
    }
}

/// One bit of a cell's port: a constant (`0`, `1` or `x`), or a bit of a wire as RTLIL writes
/// it (`\w [3]`).
#[derive(Debug, PartialEq, Eq)]
enum PortBit {
    Constant(u8),
    Wire(String),
}

/// Bit `bit` of `port` of `cell` in `module` of an RTLIL design.
fn port_bit(rtlil: &str, module: &str, cell: &str, port: &str, bit: u32) -> Option<PortBit> {
    let header = format!("module \\{module}");
    // A module's own `end` is the only one not indented.
    let lines: Vec<&str> =
        rtlil.lines().skip_while(|l| *l != header).skip(1).take_while(|l| *l != "end").map(str::trim).collect();
    let at = lines.iter().position(|l| l.starts_with("cell ") && l.split_whitespace().nth(2) == Some(cell))?;
    let connect = format!("connect \\{port} ");
    let spec = lines[at..].iter().take_while(|l| **l != "end").find_map(|l| l.strip_prefix(&connect))?;
    // A width per wire, for parts that name a whole wire.
    let width = |name: &str| {
        lines.iter().find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.first() == Some(&"wire") && w.last() == Some(&name))
                .then(|| w.windows(2).find(|p| p[0] == "width").map_or(Some(1), |p| p[1].parse().ok()))?
        })
    };
    // The parts, most significant first, each as (width, what it is): a constant's bits, or a
    // wire with the index of the part's lowest bit in it (`None`: a whole wire of one bit).
    enum Part<'a> {
        Constant(&'a str),
        Wire(&'a str, Option<u32>),
    }
    let inner = spec.trim().strip_prefix('{').and_then(|s| s.strip_suffix('}')).unwrap_or(spec);
    let mut words = inner.split_whitespace().peekable();
    let mut parts: Vec<(u32, Part)> = Vec::new();
    while let Some(word) = words.next() {
        if let Some((w, bits)) = word.split_once('\'') {
            parts.push((w.parse().ok()?, Part::Constant(bits)));
            continue;
        }
        let range = words.next_if(|w| w.starts_with('['));
        let (w, low) = match range.map(|r| r.trim_matches(['[', ']'])) {
            Some(r) => match r.split_once(':') {
                Some((hi, lo)) => match (hi.parse::<u32>(), lo.parse::<u32>()) {
                    (Ok(hi), Ok(lo)) if hi >= lo => (hi - lo + 1, Some(lo)),
                    _ => return None,
                },
                None => (1, Some(r.parse().ok()?)),
            },
            None => match width(word)? {
                1 => (1, None),
                w => (w, Some(0)),
            },
        };
        parts.push((w, Part::Wire(word, low)));
    }
    // From the least significant part up to the one holding `bit`.
    let mut low = 0;
    for (w, part) in parts.into_iter().rev() {
        if bit < low + w {
            let k = bit - low;
            return match part {
                // Constants are written most significant bit first, as wide as the part, or as
                // one digit when every bit is the same (`128'x`).
                Part::Constant(bits) => match bits.as_bytes() {
                    [b] => Some(PortBit::Constant(*b)),
                    b if b.len() == w as usize => Some(PortBit::Constant(b[(w - 1 - k) as usize])),
                    _ => None,
                },
                Part::Wire(name, None) => Some(PortBit::Wire(name.to_string())),
                Part::Wire(name, Some(lo)) => Some(PortBit::Wire(format!("{name} [{}]", lo + k))),
            };
        }
        low += w;
    }
    None
}

/// The module type of every instance in an RTLIL design: (module, instance) → module.
pub fn instances(rtlil: &str) -> HashMap<(String, String), String> {
    let mut map = HashMap::new();
    let mut module = "";
    for line in rtlil.lines().map(str::trim_start) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["module", name] => module = name.trim_start_matches('\\'),
            ["cell", kind, name] if kind.starts_with('\\') => {
                map.insert((module.to_string(), name.to_string()), kind[1..].to_string());
            }
            _ => {}
        }
    }
    map
}

/// Yosys commands replacing `module`'s instances of other modules by ports (`expose -evert`),
/// each type cut as `cut_type` names it: empty when it has none.
fn cut_instances(
    module: &str,
    instances: &HashMap<(String, String), String>,
    cut_type: impl Fn(&str) -> String,
) -> String {
    // Selected by type: instance names out of generate blocks hold brackets, which a selection
    // reads as a pattern.
    let types: std::collections::BTreeSet<String> = instances
        .iter()
        .filter(|((m, _), _)| m == module)
        .map(|(_, kind)| format!("{module}/t:{}", cut_type(kind)))
        .collect();
    if types.is_empty() {
        return String::new();
    }
    format!("hierarchy -top {module}\nproc\nexpose -evert {}\n", types.into_iter().collect::<Vec<_>>().join(" "))
}

/// Whether `module` instantiates one of `kinds`, directly or below.
fn holds_any(module: &str, kinds: &[String], instances: &HashMap<(String, String), String>) -> bool {
    instances.iter().filter(|((m, _), _)| m == module).any(|(_, k)| kinds.contains(k) || holds_any(k, kinds, instances))
}

/// The reads issued to every instance of memory leaf `leaf` below `top` ([`Leaf::reads`]): the
/// register of `drawn.issued_reads` in the module around each, if that is one such module for
/// all of them and each instance has a plain name (a selection's `?` names no wire).
fn issued_reads<'a>(top: &str, leaf: &str, drawn: &'a Mutants, rtlil: &str) -> Option<Reads<'a>> {
    let instances = instance_paths(top, leaf, &drawn.instances);
    let mut around = instances.iter().map(|path| {
        let parent = path.rsplit_once('.').map_or("", |(p, _)| p);
        parent
            .split('.')
            .filter(|i| !i.is_empty())
            .try_fold(top.to_string(), |m, i| drawn.instances.get(&(m, format!("\\{i}"))).cloned())
    });
    let first = around.next()??;
    if instances.iter().any(|p| p.contains('?')) || !around.all(|m| m.as_deref() == Some(first.as_str())) {
        return None;
    }
    let (_, register) = drawn.issued_reads.iter().find(|(m, _)| *m == first)?;
    let width = super::invariants::wires(rtlil, &first).into_iter().find(|(n, _)| n == register)?.1;
    Some(Reads { register, width, instances })
}

/// The flattened name of every instance of module `kind` below `top` (`u_group0.u_bank_c0`),
/// each bracket of a generate block's name a selection's `?`.
fn instance_paths(top: &str, kind: &str, instances: &HashMap<(String, String), String>) -> Vec<String> {
    let mut paths = Vec::new();
    for ((module, instance), of) in instances {
        if module != top {
            continue;
        }
        let name = instance.trim_start_matches('\\').replace(['[', ']'], "?");
        if of == kind {
            paths.push(name.clone());
        }
        paths.extend(instance_paths(of, kind, instances).into_iter().map(|p| format!("{name}.{p}")));
    }
    paths.sort();
    paths
}

/// Every module below `top` that a flattened cell name sits in, outermost first, each with the
/// cell's name in that module flattened: `$flatten\u_a.\u_b.$and$x.v:3$7` is
/// `$flatten\u_b.$and$x.v:3$7` in `u_a`'s module and `$and$x.v:3$7` in `u_b`'s. Empty for a
/// cell of the top module itself, or an instance the design does not hold.
pub(super) fn enclosing(top: &str, cell: &str, modules: &HashMap<(String, String), String>) -> Vec<(String, String)> {
    let Some(mut rest) = cell.strip_prefix("$flatten") else { return Vec::new() };
    let mut module = top.to_string();
    let mut path = Vec::new();
    while rest.starts_with('\\') {
        let Some((instance, tail)) = rest.split_once('.') else { return Vec::new() };
        let Some(kind) = modules.get(&(module, instance.to_string())) else { return Vec::new() };
        module = kind.clone();
        rest = tail;
        let name = if tail.starts_with('\\') { format!("$flatten{tail}") } else { tail.to_string() };
        path.push((module.clone(), name));
    }
    path
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// What the solver gets in these tests: every check here closes well within it.
    const LIMIT: Duration = Duration::from_secs(60);

    #[test]
    fn a_flattened_cell_is_found_in_its_module_and_named_in_every_module_around_it() {
        let rtlil = "module \\top\n  cell \\group \\u_group2\n  end\nend\nmodule \\group\n  cell \\sram \\u_bank_c0\n  end\n  cell $and $and$g.v:3$1\n  end\nend\n";
        let modules = instances(rtlil);
        let cell = "$flatten\\u_group2.\\u_bank_c0.$auto$proc_memwr.cc:45:proc_memwr$430";
        assert_eq!(
            enclosing("top", cell, &modules).pop(),
            Some(("sram".into(), "$auto$proc_memwr.cc:45:proc_memwr$430".into()))
        );
        assert_eq!(
            enclosing("top", "$flatten\\u_group2.$and$g.v:3$1", &modules).pop(),
            Some(("group".into(), "$and$g.v:3$1".into()))
        );
        assert_eq!(enclosing("top", "$and$top.v:9$3", &modules).pop(), None);
        assert_eq!(enclosing("top", "$flatten\\u_missing.$and$g.v:3$1", &modules).pop(), None);
        // Every module around an edit, each with the edited cell's name in it once flattened:
        // what the check gives Yosys' `mutate` when it tries an enclosing module.
        let cell = "$flatten\\u_group2.\\u_bank_c0.$and$s.v:7$2";
        assert_eq!(
            enclosing("top", cell, &modules),
            vec![
                ("group".to_string(), "$flatten\\u_bank_c0.$and$s.v:7$2".to_string()),
                ("sram".to_string(), "$and$s.v:7$2".to_string()),
            ]
        );
        assert!(holds_any("top", &["sram".to_string()], &modules));
        assert!(!holds_any("sram", &["sram".to_string()], &modules));
        assert!(enclosing("top", "$and$top.v:9$3", &modules).is_empty());
        assert!(enclosing("top", "$flatten\\u_group2.\\u_missing.$and$s.v:7$2", &modules).is_empty());
    }

    #[test]
    fn an_undefined_bit_is_found_in_a_constant_or_a_concatenation() {
        let rtlil = "module \\m\n  wire width 4 \\w\n  cell $mux $procmux$1\n    connect \\A 8'x\n    \
                     connect \\B { 2'01 \\w 1'x \\v [0] }\n  end\nend\n";
        assert!(undefined(rtlil, "m", "$procmux$1", "A", 5));
        // B: bit 0 is v[0], bit 1 the x, bits 2-5 w, bits 6-7 the constant 01.
        assert!(undefined(rtlil, "m", "$procmux$1", "B", 1));
        for bit in [0, 2, 6, 7] {
            assert!(!undefined(rtlil, "m", "$procmux$1", "B", bit), "bit {bit}");
        }
        assert!(!undefined(rtlil, "m", "$procmux$2", "A", 0));
        assert!(!undefined(rtlil, "other", "$procmux$1", "A", 0));
    }

    /// The Verilog module `v` written to `dir/m.il` by Yosys, after `commands` (each ending
    /// in `; `): the file and its text.
    fn rtlil_of(dir: &Path, v: &str, commands: &str) -> (std::path::PathBuf, String) {
        std::fs::write(dir.join("m.v"), v).unwrap();
        let out = std::process::Command::new("yosys")
            .current_dir(dir)
            .args(["-q", "-p", &format!("read_verilog m.v; {commands}write_rtlil m.il")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let design = dir.join("m.il");
        let text = std::fs::read_to_string(&design).unwrap();
        (design, text)
    }

    /// The ORF/LRF module holds its entries in memories, which `submod` will not split: a
    /// compare beside one was never lifted, and its edits went on to the whole block.
    #[test]
    fn a_cell_beside_a_memory_is_lifted_alone() {
        let dir = tempfile::tempdir().unwrap();
        let v = "module m (input wire clk, input wire [1:0] a, input wire [1:0] e, input wire [3:0] d, \
                 output wire y, output wire [3:0] q);\n  reg [3:0] mem [0:3];\n  \
                 always @(posedge clk) mem[a] <= d;\n  assign q = mem[a];\n  assign y = (e == 2'd2);\nendmodule\n";
        let (design, rtlil) = rtlil_of(dir.path(), v, "");
        let cell = rtlil.lines().find_map(|l| l.trim().strip_prefix("cell $eq ")).unwrap().to_string();
        assert!(lone_cell(&rtlil, "m", &cell));
        let read = format!("read_rtlil \"{}\"\n", design.display());
        let lifted = lift(&read, "m", &cell, Cut::AllButTheCell, &dir.path().join("cell")).unwrap();
        let text = std::fs::read_to_string(lifted).unwrap();
        assert_eq!(text.matches("\n  cell ").count(), 1, "{text}");
    }

    /// An entry written lane by lane: each lane's write port carries the whole entry, and only
    /// its lane's bits are enabled.
    #[test]
    fn a_data_bit_a_write_port_never_enables_is_unwritten() {
        let dir = tempfile::tempdir().unwrap();
        let v = "module m (input wire clk, input wire we, input wire [1:0] a, input wire [1:0] lanes, \
                 input wire [7:0] d, output wire [7:0] q);\n  reg [7:0] mem [0:3];\n  \
                 always @(posedge clk) if (we) begin\n    if (lanes[0]) mem[a][3:0] <= d[3:0];\n    \
                 if (lanes[1]) mem[a][7:4] <= d[7:4];\n  end\n  assign q = mem[a];\nendmodule\n";
        let (design, rtlil) = rtlil_of(dir.path(), v, "proc; ");
        let ports: Vec<String> =
            rtlil.lines().filter_map(|l| l.trim().strip_prefix("cell $memwr_v2 ")).map(str::to_string).collect();
        assert_eq!(ports.len(), 2, "{rtlil}");
        let read = format!("read_rtlil \"{}\"\n", design.display());
        let never = |cell: &str, port: &str, bit| {
            unwritten(&read, &rtlil, "m", cell, port, bit, &dir.path().join("port")).unwrap()
        };
        // Each port writes one half; which port is which, the simplified enables tell.
        let (low, high) = if never(&ports[0], "DATA", 5) { (&ports[0], &ports[1]) } else { (&ports[1], &ports[0]) };
        for bit in 4..8 {
            assert!(never(low, "DATA", bit) && !never(high, "DATA", bit), "bit {bit}");
        }
        for bit in 0..4 {
            assert!(!never(low, "DATA", bit) && never(high, "DATA", bit), "bit {bit}");
        }
        assert!(!never(low, "EN", 5) && !never(low, "ADDR", 0), "only data bits");
    }

    /// The register file cache's rank update: `t[0] | t[1]` stuck at 1 enables an increment
    /// only where `r < at`, and `at` is 0 when nothing is touched. The edit shows at the cell and
    /// with the cells driving it, and nowhere in the logic between the flip-flops around it.
    #[test]
    fn an_edit_the_logic_after_it_masks_is_proved_on_its_combinational_cone() {
        let dir = tempfile::tempdir().unwrap();
        let v = "module m (input wire clk, input wire [1:0] t, output reg [1:0] r0, output reg [1:0] r1);\n  \
                 wire any = t[0] | t[1];\n  wire [1:0] at = ({2{t[0]}} & r0) | ({2{t[1]}} & r1);\n  \
                 always @(posedge clk) begin\n    r0 <= t[0] ? 2'd0 : (any & (r0 < at)) ? r0 + 2'd1 : r0;\n    \
                 r1 <= t[1] ? 2'd0 : (any & (r1 < at)) ? r1 + 2'd1 : r1;\n  end\nendmodule\n";
        let (design, rtlil) = rtlil_of(dir.path(), v, "");
        let cell = rtlil.lines().find_map(|l| l.trim().strip_prefix("cell $or ")).unwrap().to_string();
        let read = format!("read_rtlil \"{}\"\n", design.display());
        let proved = |cut, folder: &str| {
            let lone = lift(&read, "m", &cell, cut, &dir.path().join(folder)).unwrap();
            let text = std::fs::read_to_string(&lone).unwrap();
            assert!(!text.contains("$dff"), "the flip-flops stay outside: {text}");
            let read_lone = format!("read_rtlil \"{}\"\n", lone.display());
            let copy = format!("{read_lone}mutate -module {CELL} -cell {cell} -mode const1 -port Y -portbit 0\n");
            let sides = Sides {
                top: CELL,
                reset: false,
                after_reset: false,
                invariant: false,
                unpaired: "",
                generated: Source::Commands(read_lone),
                copy: Source::Commands(copy),
            };
            prove_equiv::check(&sides, 2, LIMIT, &dir.path().join(folder).join("proof")).unwrap()
                == prove_equiv::Equivalence::Proved
        };
        assert!(!proved(Cut::AllButTheCell, "cell"));
        assert!(!proved(Cut::AllButTheCellAndItsDrivers, "cell_drivers"));
        assert!(proved(Cut::AllButTheCombinationalCone, "cone"));
    }

    #[test]
    fn every_instance_of_a_module_is_named_by_its_path() {
        let instances: HashMap<(String, String), String> = [
            (("mrf", "\\u_group0"), "group"),
            (("mrf", "\\u_group1"), "group"),
            (("mrf", "\\u_cu"), "collector"),
            (("group", "\\u_bank_c0"), "leaf"),
            (("group", "\\u_bank[1]"), "leaf"),
        ]
        .into_iter()
        .map(|((m, i), k)| ((m.to_string(), i.to_string()), k.to_string()))
        .collect();
        assert_eq!(
            instance_paths("mrf", "leaf", &instances),
            ["u_group0.u_bank?1?", "u_group0.u_bank_c0", "u_group1.u_bank?1?", "u_group1.u_bank_c0"]
        );
        assert_eq!(instance_paths("mrf", "collector", &instances), ["u_cu"]);
        assert!(instance_paths("group", "collector", &instances).is_empty());
    }

    #[test]
    fn a_module_is_cut_at_its_instances_by_type() {
        let rtlil = "module \\top\n  cell \\group \\g_bank[0].u_group\n  end\n  cell \\group \\g_bank[1].u_group\n  end\n  cell \\map \\u_map\n  end\n  cell $and $and$t.v:2$1\n  end\nend\nmodule \\map\nend\n";
        let modules = instances(rtlil);
        assert_eq!(
            cut_instances("top", &modules, str::to_string),
            "hierarchy -top top\nproc\nexpose -evert top/t:group top/t:map\n"
        );
        assert_eq!(cut_instances("map", &modules, str::to_string), "");
    }

    /// The cell of type `kind` whose source location starts with `src` in `module`, as the
    /// flattened netlist names it through one instance of that module (its own name in the top).
    pub(in crate::mutate) fn drawn_cell(drawn: &Mutants, module: &str, kind: &str, src: &str) -> String {
        let rtlil = std::fs::read_to_string(&drawn.design).unwrap();
        let body = rtlil.split("\nmodule ").find(|m| m.starts_with(&format!("\\{module}\n"))).unwrap();
        let mut located = "";
        let mut name = None;
        for line in body.lines().map(str::trim) {
            if let Some(at) = line.strip_prefix("attribute \\src ") {
                located = at;
            } else if let Some(cell) = line.strip_prefix(&format!("cell {kind} "))
                && (located.contains(&format!("\"{src}")) || cell.contains(src))
            {
                name = Some(cell.to_string());
                break;
            }
        }
        let name = name.unwrap_or_else(|| panic!("no {kind} at {src} in {module}"));
        // The path to one instance of `module` from the top.
        let mut path = Vec::new();
        let mut at = module.to_string();
        while at != drawn.top {
            let ((parent, instance), _) = drawn.instances.iter().find(|(_, kind)| **kind == at).unwrap();
            path.push(instance.clone());
            at = parent.clone();
        }
        path.reverse();
        if path.is_empty() {
            return name;
        }
        format!("$flatten{}.{name}", path.join("."))
    }

    /// One mutant drawn from `block` of `preset` (only the netlist and design it reads matter
    /// here), in a folder kept as long as the returned one lives.
    pub(in crate::mutate) fn drawn_from(preset: &str, block: rfgen_gen::Block) -> (tempfile::TempDir, Mutants) {
        drawn_from_checked(&rfgen_gen::config::preset(preset).unwrap(), block)
    }

    fn drawn_from_checked(checked: &rfgen_gen::Checked, block: rfgen_gen::Block) -> (tempfile::TempDir, Mutants) {
        let checked = checked.clone();
        let design = block.generate(&checked, rfgen_gen::SramKind::Behavioural).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let drawn = super::super::draw(&design, &checked, 1, 1, dir.path()).unwrap();
        (dir, drawn)
    }

    #[test]
    fn an_edit_that_keeps_its_cells_function_is_proved_on_the_cell_alone() {
        let (dir, drawn) = drawn_from("small", rfgen_gen::Block::Scheduler);
        let module = "small_scheduler";
        // `~|(eligible & elder[8*b +: 8])`: the OR over the elder eligible warps.
        let cell = drawn_cell(&drawn, module, "$reduce_or", "small_scheduler.v:50.40");
        let mutant = |index, mode: &str, ctrlbit| Mutant {
            index,
            mode: mode.into(),
            cell: cell.clone(),
            port: "A".into(),
            bit: 0,
            ctrlbit,
            src: vec![],
        };
        // Bit 0 inverted where bit 1 is 1: the OR is 1 either way. Checked in a folder named
        // relative to the working directory, as `--out out` names it.
        let cwd = std::env::current_dir().unwrap();
        let up = "../".repeat(cwd.components().count() - 1);
        let relative = Path::new(&up).join(dir.path().strip_prefix("/").unwrap());
        assert_eq!(
            check(&drawn, &mutant(1, "cnot1", Some(1)), 4, LIMIT, &relative).unwrap(),
            Equivalence::Proved { module: module.into(), cut: Cut::AllButTheCell }
        );
        // Bit 0 inverted: the OR changes, and so does the grant.
        let verdict = check(&drawn, &mutant(2, "inv", None), 4, LIMIT, dir.path()).unwrap();
        assert!(matches!(verdict, Equivalence::Differs { .. }), "{verdict:?}");
    }

    /// An edit its module's ports show and the module around it never reads: the scoreboard's
    /// long-latency bits, which the `small` issue stage leaves unconnected. Proved in the issue
    /// stage within the composed top, without the MRF beside it.
    #[test]
    fn an_edit_the_enclosing_module_never_reads_is_proved_there() {
        let (dir, drawn) = drawn_from("small", rfgen_gen::Block::Sm);
        // `set_longs = set_regs & {256{set_long}}`, bit 3 of the replicated `set_long` stuck:
        // the scoreboard's `long_pending` differs from the third cycle.
        let cell = drawn_cell(&drawn, "small_scoreboard", "$and", "small_scoreboard.v:34");
        let stuck =
            Mutant { index: 1, mode: "const1".into(), cell, port: "B".into(), bit: 3, ctrlbit: None, src: vec![] };
        assert_eq!(
            check(&drawn, &stuck, 4, LIMIT, dir.path()).unwrap(),
            Equivalence::Proved { module: "small_issue".into(), cut: Cut::Nothing }
        );
    }

    #[test]
    fn an_operand_bit_a_constant_decides_is_proved_with_the_cells_driving_it() {
        let (dir, drawn) = drawn_from("isca15-bdi", rfgen_gen::Block::Bdi);
        let module = "isca15_bdi_compressor";
        // The payload: `({1024{keep}} & s1_data) | ({1024{sel[0]}} & {992'd0, s1_data[31:0]})
        // | …`; bit 107 of the second term is an AND with the constant 0.
        let cell = drawn_cell(&drawn, module, "$or", "isca15_bdi_compressor.v:246.21");
        let stuck =
            Mutant { index: 1, mode: "const0".into(), cell, port: "B".into(), bit: 107, ctrlbit: None, src: vec![] };
        assert_eq!(
            check(&drawn, &stuck, 2, LIMIT, dir.path()).unwrap(),
            Equivalence::Proved { module: module.into(), cut: Cut::AllButTheCellAndItsDrivers }
        );
    }

    /// The gate that keeps deliveries to slots in flight, stuck open for slot 4: no delivery
    /// comes for a slot not in flight, which no module alone shows (a bank group's pipeline,
    /// the collectors' in-flight slots); proved with the MRF top's invariants, every memory cut
    /// out. Some two minutes of solver time alone on a core: the limit leaves room for shared
    /// cores.
    #[test]
    fn an_edit_masked_by_the_mrf_tops_invariants_is_proved_with_them() {
        let (dir, drawn) = drawn_from("small", rfgen_gen::Block::Mrf);
        let checked = rfgen_gen::config::preset("small").unwrap();
        let design = rfgen_gen::Block::Mrf.generate(&checked, rfgen_gen::SramKind::Behavioural).unwrap();
        let top = "small_mrf";
        let text = &design.files.iter().find(|(f, _)| *f == format!("{top}.v")).unwrap().1;
        let line = 1 + text.lines().position(|l| l.contains("else slot_deliver <= (")).unwrap();
        let cell = drawn_cell(&drawn, top, "$and", &format!("{top}.v:{line}"));
        let open =
            Mutant { index: 1, mode: "const1".into(), cell, port: "B".into(), bit: 4, ctrlbit: None, src: vec![] };
        assert_eq!(
            check(&drawn, &open, 2, Duration::from_secs(1200), dir.path()).unwrap(),
            Equivalence::Proved { module: top.into(), cut: Cut::MemoriesWithInvariants }
        );
    }

    #[test]
    fn edits_the_memory_leaf_masks_are_proved_where_the_leaf_is_cut_out_as_what_it_observes() {
        let (dir, drawn) = drawn_from("small", rfgen_gen::Block::Mrf);
        let group = "small_mrf_bank_group";
        let mutant = |index, cell: String, mode: &str, port: &str, bit| Mutant {
            index,
            mode: mode.into(),
            cell,
            port: port.into(),
            bit,
            ctrlbit: None,
            src: vec![],
        };
        // `wr_en & (|wr_mask[3:0])` into bank 0's write enable, its mask term stuck at 1: the
        // bank's raw write enable differs, but a write with an empty mask writes nothing.
        let checked = rfgen_gen::config::preset("small").unwrap();
        let design = rfgen_gen::Block::Mrf.generate(&checked, rfgen_gen::SramKind::Behavioural).unwrap();
        let text = &design.files.iter().find(|(f, _)| *f == format!("{group}.v")).unwrap().1;
        let line = 1 + text.lines().position(|l| l.contains("(wr_en & (|wr_mask[3:0]))")).unwrap();
        let enable = mutant(1, drawn_cell(&drawn, group, "$and", &format!("{group}.v:{line}")), "const1", "B", 0);
        assert_eq!(
            check(&drawn, &enable, 2, LIMIT, dir.path()).unwrap(),
            Equivalence::Proved { module: group.into(), cut: Cut::Instances }
        );
        // Inside a bank: the data bit 125 of lane 0's write port, which lane 0's enable never
        // writes.
        let leaf = "small_sram_1r1w_64x128_r2";
        let data = mutant(2, drawn_cell(&drawn, leaf, "$memwr_v2", &format!("{leaf}.v:34")), "inv", "DATA", 125);
        assert_eq!(check(&drawn, &data, 2, LIMIT, dir.path()).unwrap(), Equivalence::Unwritten { module: leaf.into() });
    }

    /// A rename stage over 8 physical registers, 4 of them TFET (ids 4 to 7): every write of
    /// the TFET free list's banks has bit 2 set. Forcing it to 1 is proved in the stage, where
    /// only releases of TFET ids reach that list; forcing bit 0 is not.
    #[test]
    fn a_data_bit_every_write_gives_the_value_forced_is_proved_in_the_block() {
        let config = "name = \"r1\"\n[sm]\nwarps = 2\nlanes = 4\nclusters = 1\nregisters_per_thread = 4\n[mrf]\n\
                      banks = 2\nentries = 4\ncollectors = 1\n[rename]\nenabled = true\ncmos_rows = 2\n";
        let (dir, drawn) = drawn_from_checked(&rfgen_gen::config::parse(config).unwrap(), rfgen_gen::Block::Rename);
        let list = "r1_free_list_tfet";
        let cell = drawn_cell(&drawn, list, "$memwr_v2", &format!("{list}.v:75"));
        let forced = |index, bit| Mutant {
            index,
            mode: "const1".into(),
            cell: cell.clone(),
            port: "DATA".into(),
            bit,
            ctrlbit: None,
            src: vec![],
        };
        let written = Equivalence::WrittenAsForced { module: list.into() };
        assert_eq!(check(&drawn, &forced(1, 2), 2, LIMIT, dir.path()).unwrap(), written);
        assert_ne!(check(&drawn, &forced(2, 0), 2, LIMIT, dir.path()).unwrap(), written);
    }

    /// Each bank leaf of the `small` MRF is observed after the reads its bank group issues:
    /// `read_slot` in the group around it, one wire per instance. The MRF without registered
    /// read data (`isca11-rfc`), whose invariants are not written, names no issued reads: its
    /// leaves are observed after their own enable.
    #[test]
    fn a_bank_leaf_is_observed_after_the_reads_its_bank_group_issues() {
        let (_dir, drawn) = drawn_from("small", rfgen_gen::Block::Mrf);
        let rtlil = std::fs::read_to_string(&drawn.design).unwrap();
        let leaf = "small_sram_1r1w_64x128_r2";
        let reads = issued_reads("small_mrf", leaf, &drawn, &rtlil).unwrap();
        assert_eq!((reads.register, reads.width), ("read_slot", 6));
        let want: Vec<String> = (0..4).flat_map(|g| (0..2).map(move |c| format!("u_group{g}.u_bank_c{c}"))).collect();
        assert_eq!(reads.instances, want);
        let cached = rfgen_gen::config::preset("isca11-rfc").unwrap();
        assert!(rfgen_gen::formal::issued_reads(&cached).is_empty());
    }
}
