//! Tells a surviving mutant's kind with the check `rfgen prove --rtl` runs on a user's copy
//! (`prove::equiv`), on a netlist holding that one mutant:
//!
//! 1. **In its module**: the module the edited cell sits in, alone, with and without the edit,
//!    proved equal by induction, else searched for a difference within the bound. Equal at that
//!    module's ports, the block is equal at its own — and the check stays small where the block
//!    is large (an MRF's banks are tens of thousands of flip-flops to the solver; one bank or one
//!    arbiter is not). An induction that needs an invariant of the states the module reaches (a
//!    scheduler's age order being transitive) does not close, but the search does.
//!    First with the module's own instances cut out (`expose -evert`): what it drives into them
//!    becomes outputs, compared like its own, and what they drive back becomes inputs, the same
//!    free values on both sides. Equal inputs into identical instances give equal values back,
//!    so equal there is equal with them in place — and a top module of a few hundred cells is
//!    checked without the banks below it. Then, if that fails, with them in place.
//! 2. **In the block**: failing that (an edit the module's ports show may still be masked
//!    around it), the flattened block with and without the edit, proved by induction; else
//!    Yosys' SAT solver looks for an input sequence from reset on which an output differs within
//!    a bounded number of cycles.
//!
//! Proved or not found: the mutant is equivalent (for every input sequence, or within the
//! bound). Found: it is an escape of the stimulus (docs/mutate.md).

use super::{Mutant, Mutants};
use crate::prove::equiv::{self as prove_equiv, Sides, Source};
use anyhow::Result;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// What the check found for one mutant.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "equivalence", rename_all = "snake_case")]
pub enum Equivalence {
    /// Proved by induction, in `module` (the edited cell's, with its instances `cut` out or
    /// not) or the whole block: no input sequence shows it at the ports.
    Proved { module: String, cut: bool },
    /// No input sequence of `cycles` cycles from reset shows it at the ports of `module` (the
    /// edited cell's, with its instances `cut` out or not, or the whole block); the induction
    /// did not close.
    Equivalent { cycles: u32, module: String, cut: bool },
    /// An input sequence shows it: `first_output` differs in `first_cycle` (reset held in cycle 1).
    Differs { first_output: String, first_cycle: u32 },
    /// The solver did not finish in time.
    Unknown { why: String },
}

impl Equivalence {
    /// Proved or bounded: the mutant leaves the score.
    pub fn is_equivalent(&self) -> bool {
        matches!(self, Equivalence::Proved { .. } | Equivalence::Equivalent { .. })
    }
}

/// Seconds the solver gets per mutant, for each proof and for the search.
const TIMEOUT_S: u64 = 60;

/// Checks `mutant` of `drawn` for `cycles` cycles from reset, in the folder
/// `dir/equiv_<index>` (scripts and logs kept there).
pub fn check(drawn: &Mutants, mutant: &Mutant, cycles: u32, dir: &Path) -> Result<Equivalence> {
    let dir = dir.join(format!("equiv_{}", mutant.index));
    let read = format!("read_rtlil \"{}\"\n", drawn.design.display());
    let limit = Duration::from_secs(TIMEOUT_S);
    let edit = mutant.edit();
    let top = &drawn.top;
    let (module, cell) =
        innermost(top, &mutant.cell, &drawn.instances).unwrap_or_else(|| (top.clone(), mutant.cell.clone()));
    let edited = format!("{read}mutate -module {module} -cell {cell} {edit}\n");
    // (folder, instances cut out, generated side, copy)
    let mut scopes = Vec::new();
    let cut_commands = cut_instances(&module, &drawn.instances);
    if !cut_commands.is_empty() {
        scopes.push(("module_cut", true, format!("{read}{cut_commands}"), format!("{edited}{cut_commands}")));
    }
    if module != *top {
        scopes.push(("module", false, read.clone(), edited));
    }
    for (folder, cut, generated, copy) in scopes {
        let sides = Sides { top: &module, generated: Source::Commands(generated), copy: Source::Commands(copy) };
        // With the module's inputs free its input sequences include every one the block gives
        // it, so a bound there holds for the block too; a difference there may not reach the
        // block's ports, and is looked for again in the block.
        match prove_equiv::check(&sides, cycles, limit, &dir.join(folder)) {
            Ok(prove_equiv::Equivalence::Proved) => return Ok(Equivalence::Proved { module, cut }),
            Ok(prove_equiv::Equivalence::Bounded { cycles, .. }) => {
                return Ok(Equivalence::Equivalent { cycles, module, cut });
            }
            _ => {}
        }
    }
    let flat = format!("{read}hierarchy -top {top}\nflatten\n");
    let copy = format!("{flat}mutate -module {top} -cell {} {edit}\n", mutant.cell);
    let sides = Sides { top, generated: Source::Commands(flat), copy: Source::Commands(copy) };
    // A tool that fails on one mutant leaves that mutant unknown, not the campaign stopped.
    let verdict = match prove_equiv::check(&sides, cycles, limit, &dir.join("block")) {
        Ok(v) => v,
        Err(e) => {
            let why = format!("{e:#}");
            return Ok(Equivalence::Unknown { why: why.lines().next().unwrap_or_default().to_string() });
        }
    };
    Ok(match verdict {
        prove_equiv::Equivalence::Proved => Equivalence::Proved { module: top.clone(), cut: false },
        prove_equiv::Equivalence::Bounded { cycles, .. } => {
            Equivalence::Equivalent { cycles, module: top.clone(), cut: false }
        }
        prove_equiv::Equivalence::Differs { output, cycle, .. } => {
            Equivalence::Differs { first_output: output, first_cycle: cycle }
        }
        prove_equiv::Equivalence::Unknown { why } => Equivalence::Unknown { why },
    })
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

/// Yosys commands replacing `module`'s instances of other modules by ports (`expose -evert`):
/// empty when it has none.
fn cut_instances(module: &str, instances: &HashMap<(String, String), String>) -> String {
    // Selected by type: instance names out of generate blocks hold brackets, which a selection
    // reads as a pattern.
    let types: std::collections::BTreeSet<String> =
        instances.iter().filter(|((m, _), _)| m == module).map(|(_, kind)| format!("{module}/t:{kind}")).collect();
    if types.is_empty() {
        return String::new();
    }
    format!("hierarchy -top {module}\nproc\nexpose -evert {}\n", types.into_iter().collect::<Vec<_>>().join(" "))
}

/// The module a flattened cell name (`$flatten\u_a.\u_b.$and$x.v:3$7`) comes from and the
/// cell's name in it (`$and$x.v:3$7`); `None` for a cell of the top module itself.
fn innermost(top: &str, cell: &str, modules: &HashMap<(String, String), String>) -> Option<(String, String)> {
    let mut rest = cell.strip_prefix("$flatten")?;
    let mut module = top.to_string();
    while rest.starts_with('\\') {
        let (instance, tail) = rest.split_once('.')?;
        module = modules.get(&(module, instance.to_string()))?.clone();
        rest = tail;
    }
    (module != top).then(|| (module, rest.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flattened_cell_is_found_in_its_module() {
        let rtlil = "module \\top\n  cell \\group \\u_group2\n  end\nend\nmodule \\group\n  cell \\sram \\u_bank_c0\n  end\n  cell $and $and$g.v:3$1\n  end\nend\n";
        let modules = instances(rtlil);
        let cell = "$flatten\\u_group2.\\u_bank_c0.$auto$proc_memwr.cc:45:proc_memwr$430";
        assert_eq!(
            innermost("top", cell, &modules),
            Some(("sram".into(), "$auto$proc_memwr.cc:45:proc_memwr$430".into()))
        );
        assert_eq!(
            innermost("top", "$flatten\\u_group2.$and$g.v:3$1", &modules),
            Some(("group".into(), "$and$g.v:3$1".into()))
        );
        assert_eq!(innermost("top", "$and$top.v:9$3", &modules), None);
        assert_eq!(innermost("top", "$flatten\\u_missing.$and$g.v:3$1", &modules), None);
    }

    #[test]
    fn a_module_is_cut_at_its_instances_by_type() {
        let rtlil = "module \\top\n  cell \\group \\g_bank[0].u_group\n  end\n  cell \\group \\g_bank[1].u_group\n  end\n  cell \\map \\u_map\n  end\n  cell $and $and$t.v:2$1\n  end\nend\nmodule \\map\nend\n";
        let modules = instances(rtlil);
        assert_eq!(cut_instances("top", &modules), "hierarchy -top top\nproc\nexpose -evert top/t:group top/t:map\n");
        assert_eq!(cut_instances("map", &modules), "");
    }
}
