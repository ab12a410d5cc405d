//! The barrier rule of a block: every thread of the block reaches each barrier, at the same
//! `bar` instruction. CUDA leaves a barrier that only some threads reach undefined (hardware may
//! hang or release early), so the model stops with a fault naming the warps and lines instead
//! of running on. Within a warp the rule is checked where `bar` executes ([`super::Warp`]);
//! across the warps of a block by a [`BlockBarrier`] that the functional run and the SM model
//! each keep per block.

use super::ExecError;
use crate::kernel::Kernel;

const RULE: &str = "every thread of a block must reach each barrier (is it in a branch only some threads take, or after some of them exited?)";

/// Where the warps of one block are with respect to its barrier.
#[derive(Clone, Debug, Default)]
pub struct BlockBarrier {
    /// The `bar` the block waits at and the first warp that reached it.
    waiting: Option<(u32, u32)>,
    /// The exit of the first warp that finished, and the warp.
    exited: Option<(u32, u32)>,
}

fn line(k: &Kernel, pc: u32) -> u32 {
    k.pos[pc as usize].line
}

impl BlockBarrier {
    /// Warp `warp` of block `block` reached the `bar` at `pc`.
    pub fn arrive(&mut self, k: &Kernel, block: u32, warp: u32, pc: u32) -> Result<(), ExecError> {
        let fault = |message: String| ExecError { line: line(k, pc), message };
        if let Some((exit, gone)) = self.exited {
            return Err(fault(format!(
                "warp {warp} of block {block} reached a barrier that warp {gone} never reaches: it exited at line {}; {RULE}",
                line(k, exit)
            )));
        }
        match self.waiting {
            Some((at, first)) if at != pc => Err(fault(format!(
                "warp {warp} of block {block} waits at this barrier while warp {first} waits at the one at line {}; {RULE}",
                line(k, at)
            ))),
            Some(_) => Ok(()),
            None => {
                self.waiting = Some((pc, warp));
                Ok(())
            }
        }
    }

    /// Warp `warp` of block `block` finished at the exit at `pc`.
    pub fn exit(&mut self, k: &Kernel, block: u32, warp: u32, pc: u32) -> Result<(), ExecError> {
        if let Some((at, first)) = self.waiting {
            return Err(ExecError {
                line: line(k, at),
                message: format!(
                    "warp {first} of block {block} waits at this barrier, which warp {warp} never reaches: it exited at line {}; {RULE}",
                    line(k, pc)
                ),
            });
        }
        self.exited.get_or_insert((pc, warp));
        Ok(())
    }

    /// Every warp of the block reached the barrier: it releases them.
    pub fn release(&mut self) {
        self.waiting = None;
    }
}

/// A `bar` executed by `active`, not every thread the warp holds (`threads`).
pub fn partial_warp(block: u32, warp: u32, active: u64, threads: u64) -> String {
    format!(
        "a barrier reached by {} of the {} threads of warp {warp} of block {block} (lanes {active:#x} of {threads:#x}); {RULE}",
        active.count_ones(),
        threads.count_ones()
    )
}

#[cfg(test)]
mod tests {
    use crate::kernel::parse;

    fn fault(body: &str) -> String {
        let k = parse(&format!(".kernel b\n.grid 2 64\n  mov r0, %tid\n{body}  exit\n")).unwrap();
        match crate::func::run(&k, 32) {
            Ok(_) => "no fault".into(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_functional_run_faults_on_a_barrier_some_threads_of_the_block_miss() {
        let part_of_a_warp = fault("  setp.lt p0, r0, 8\n@!p0 bra SKIP\n  bar\nSKIP:\n");
        assert!(
            part_of_a_warp.starts_with("line 6: a barrier reached by 8 of the 32 threads of warp 0 of block 0"),
            "{part_of_a_warp}"
        );
        let one_warp = fault("  setp.lt p0, r0, 32\n@!p0 bra SKIP\n  bar\nSKIP:\n");
        assert!(
            one_warp.starts_with(
                "line 6: warp 0 of block 0 waits at this barrier, which warp 1 never reaches: it exited at line 8"
            ),
            "{one_warp}"
        );
        let two = fault("  setp.lt p0, r0, 32\n@p0 bra LOW\n  bar\n  bra JOIN\nLOW:\n  bar\nJOIN:\n");
        assert!(two.contains("waits at the one at line"), "{two}");
        assert_eq!(fault("  bar\n  add r0, r0, 1\n  bar\n"), "no fault", "every thread at each barrier");
    }
}
