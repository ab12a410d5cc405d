//! The tools rfgen waits on stop with it. Yosys, `yosys-smtbmc` and the solver it starts can run
//! for an hour; when rfgen is interrupted (Ctrl-C) or told to end (SIGTERM, SIGHUP: a CI job's
//! time limit, a closed terminal), it stops every tool it is waiting on, and the processes each
//! started, before it exits. Tools stay in rfgen's process group, so Ctrl-C reaches them too.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

/// The tools running now, by process id.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());
/// An interrupt came.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Callers that stop themselves on an interrupt ([`Polling`]): while there are any, an interrupt
/// stops the tools but leaves rfgen running.
static POLLING: AtomicUsize = AtomicUsize::new(0);

/// A running tool, stopped with rfgen while this lives.
pub struct Child(u32);

impl Child {
    pub fn watch(pid: u32) -> Self {
        on_interrupt();
        running().push(pid);
        Child(pid)
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        running().retain(|&p| p != self.0);
    }
}

/// While this lives, an interrupt only stops the tools: the caller sees it in [`interrupted`]
/// and ends its own work (the Slurm backend cancels its job array).
pub struct Polling;

impl Polling {
    pub fn start() -> Self {
        on_interrupt();
        POLLING.fetch_add(1, Ordering::SeqCst);
        Polling
    }
}

impl Drop for Polling {
    fn drop(&mut self) {
        POLLING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether an interrupt came.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Stops process `pid` and those it started, children first: a tool's own children (the solver
/// `yosys-smtbmc` runs) would go on alone.
pub fn kill_tree(pid: u32) {
    for child in children(pid) {
        kill_tree(child);
    }
    // SAFETY: kill(2) with a process id; no memory is touched.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
}

/// The processes `pid` started, from any of its threads.
fn children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for thread in std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten() {
        let listed = std::fs::read_to_string(thread.path().join("children")).unwrap_or_default();
        found.extend(listed.split_whitespace().filter_map(|c| c.parse::<u32>().ok()));
    }
    found
}

fn running() -> std::sync::MutexGuard<'static, Vec<u32>> {
    // A panic while the list was held leaves it whole: a push or a retain.
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sets the handler of SIGINT, SIGTERM and SIGHUP, once.
fn on_interrupt() {
    static SET: Once = Once::new();
    SET.call_once(|| {
        // Refused only when a handler is set already, and only this function sets one.
        let _ = ctrlc::set_handler(|| {
            INTERRUPTED.store(true, Ordering::SeqCst);
            let pids = running().clone();
            for pid in pids {
                kill_tree(pid);
            }
            if POLLING.load(Ordering::SeqCst) == 0 {
                eprintln!("rfgen: interrupted; the tools it was running are stopped");
                std::process::exit(130);
            }
        });
    });
}
