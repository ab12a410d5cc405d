//! Runs already made in this process, kept for commands that simulate the same design on the
//! same kernel many times: `rfgen report` compares every point with the baseline preset, every
//! register file cache size with the same SM without one, every warpboard with none. Off unless
//! a command turns it on (`rfgen bench sim` must rerun its kernel).

use super::energy::Energy;
use crate::kernel::Kernel;
use crate::sm::{SimError, SimStats};
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

type Outcome = Result<(SimStats, Energy), SimError>;

/// A design (its config hash, which leaves out the name), a kernel (all of it) and a cycle limit.
type Key = (String, u64, u64);

static RUNS: Mutex<Option<HashMap<Key, Arc<OnceLock<Outcome>>>>> = Mutex::new(None);

/// From now on, a run repeated in this process is answered from the first.
pub fn enable() {
    RUNS.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new);
}

/// `run()`'s outcome for this key: made once, however many threads ask at the same time.
pub(super) fn once(config_hash: String, kernel: &Kernel, max_cycles: u64, run: impl FnOnce() -> Outcome) -> Outcome {
    let slot = {
        let mut runs = RUNS.lock().unwrap_or_else(|e| e.into_inner());
        let Some(runs) = runs.as_mut() else { return run() };
        // The kernel's every field, so that kernels sharing a name (a reduced one) differ.
        let mut h = DefaultHasher::new();
        format!("{kernel:?}").hash(&mut h);
        runs.entry((config_hash, h.finish(), max_cycles)).or_default().clone()
    };
    slot.get_or_init(run).clone()
}
