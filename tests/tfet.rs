//! The MRF with TFET rows (`rename.enabled`; seed 003 §4.1.2) in lockstep with its model: random
//! runs over physical register ids on renamed configs (mixed CMOS/TFET, all TFET, all CMOS) that
//! must exercise the slow reads and writes, and seeded RTL bugs in the TFET timing that lockstep
//! catches.

mod common;

use rfgen_cosim::lockstep::stops_after;

use common::*;
use rfgen_cosim::blocks::mrf::{Knobs, RandomStimulus};
use rfgen_cosim::glue::Stimulus;
use rfgen_gen::SramKind;
use rfgen_gen::blocks::mrf::interface::MrfPorts;
use rfgen_model::blocks::mrf::{Mrf, MrfIn, MrfOut};

const CYCLES: u64 = 20_000;

/// Records the register ids the stimulus reads and writes (bit per id) and the warps it names.
struct Observed<S> {
    inner: S,
    read: u64,
    written: u64,
    warps: u64,
}

impl<S: Stimulus<Mrf>> Stimulus<Mrf> for Observed<S> {
    fn next(&mut self, cycle: u64, out: &MrfOut, inp: &mut MrfIn) {
        self.inner.next(cycle, out, inp);
        if inp.issue_valid {
            for s in (0..3).filter(|&s| inp.issue_src_valid[s]) {
                self.read |= 1 << inp.issue_src_reg[s];
            }
            self.warps |= 1 << inp.issue_warp;
        }
        if inp.wb_valid {
            self.written |= 1 << inp.wb_reg;
            self.warps |= 1 << inp.wb_warp;
        }
    }
}

/// Random runs agree with the RTL. With TFET rows they read and write them, so reads wait for
/// busy read ports and write-backs for the busy write port; with every row CMOS nothing does.
#[test]
fn random_runs_agree_and_exercise_tfet_rows() {
    for (name, _) in RENAMED {
        let checked = renamed(name);
        let g = &checked.geometry;
        let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
        let lib = build(&design);
        let inner = RandomStimulus::new(g, 5, Knobs::for_config(&checked));
        let mut stimulus = Observed { inner, read: 0, written: 0, warps: 0 };
        let result = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, CYCLES, 9);
        assert!(result.mismatch.is_none(), "{name}: {}", result.mismatch.unwrap());
        // Physical ids: every one is read and written, under every warp id.
        let every = |n: u32| if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let all = every(g.physical_registers());
        assert_eq!((stimulus.read, stimulus.written), (all, all), "{name}");
        assert_eq!(stimulus.warps, every(g.warps), "{name}");
        assert_eq!(result.cycles, CYCLES, "{name}");
        let s = result.block.model().stats();
        assert!(s.dispatched > CYCLES / 4 && s.mrf_writes > CYCLES / 4, "{name}: {s:?}");
        let ports = MrfPorts::new(g, None, None, None);
        if g.has_tfet() {
            // The share of TFET rows among the physical registers the stimulus draws from.
            let share = (g.entries - g.tfet_row) as f64 / g.entries as f64;
            let reads = s.tfet_reads as f64 / s.operand_reads as f64;
            let writes = s.tfet_writes as f64 / s.mrf_writes as f64;
            assert!((reads - share).abs() < 0.05 && (writes - share).abs() < 0.05, "{name}: {s:?}");
            assert!(s.wb_stall_cycles > 500 && s.bank_conflicts > 1_000, "{name}: {s:?}");
            assert!(ports.wb_ready.is_some() && ports.wb_commit.is_some(), "{name}");
        } else {
            assert_eq!((s.tfet_reads, s.tfet_writes, s.wb_stall_cycles), (0, 0, 0), "{name}");
            assert!(ports.wb_ready.is_none() && ports.wb_commit.is_none(), "{name}: never blocked");
            let group = design.files.iter().find(|(f, _)| f.ends_with("_mrf_bank_group.v")).unwrap();
            assert!(!group.1.contains("deliver"), "{name}: CMOS-only banks are the plain bank group");
        }
    }
}

/// Seeded bugs in the TFET timing, each caught by a random run with its cycle.
#[test]
fn lockstep_catches_tfet_bugs() {
    let checked = renamed("tmixed");
    let design = rfgen_gen::generate(&checked, SramKind::Behavioural);
    for bug in mutants::TFET {
        let lib = build(&bug.apply(&design));
        let mut stimulus = RandomStimulus::new(&checked.geometry, 5, Knobs::for_config(&checked));
        let result = mrf_run(&lib, Mrf::for_config(&checked), &mut stimulus, CYCLES, 9);
        let name = bug.name;
        let m = result.mismatch.unwrap_or_else(|| panic!("`{name}` was not caught"));
        assert_eq!(result.cycles, stops_after(m.cycle), "{name}: the run stops where the lockstep learns of it");
        eprintln!("{name}: caught at cycle {} on {}", m.cycle, m.ports[0].port);
    }
}
