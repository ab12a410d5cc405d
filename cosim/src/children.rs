//! The tools rfgen waits on stop with it. Yosys, `yosys-smtbmc` and the solver it starts, and
//! nextpnr, can run for an hour, a Verilator build for minutes; when rfgen is interrupted (Ctrl-C) or told to end (SIGTERM,
//! SIGHUP: a CI job's time limit, a closed terminal), it stops every tool it is waiting on, and
//! the processes each started, before it exits. Tools stay in rfgen's process group, so Ctrl-C
//! reaches them too. The registry lives in this crate because it is the lowest that runs tools
//! (Verilator); the commands above it use it for theirs.
//!
//! A tool waited on with [`wait`] is also stopped at its time limit, and when the machine runs
//! short of memory: a long equivalence search or a solver on a large model grows to tens of
//! GiB, and stopped here it fails alone, where the system's out-of-memory killer could take any
//! process of the machine.

use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

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

    /// Why this tool must stop for memory, if it must: the machine has less than
    /// [`MEMORY_RESERVE`] left and this tool, with the processes it started (a solver), holds
    /// more than its share ([`must_stop`]).
    fn memory_stop(&self) -> Option<String> {
        let (available, total) = (meminfo("MemAvailable")?, meminfo("MemTotal")?);
        let running = running().len() as u64;
        let resident = tree_resident(self.0);
        must_stop(available, resident, total, running).then(|| {
            let floor = format!("the machine's available memory fell below {} GiB", MEMORY_RESERVE >> 30);
            match running {
                0 | 1 => floor,
                _ => format!("{floor}, this run holding {} MiB beside {} other runs", resident >> 20, running - 1),
            }
        })
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        running().retain(|&p| p != self.0);
    }
}

/// How a tool waited on with [`wait`] ended.
pub enum Waited {
    Exited(ExitStatus),
    /// Still running at its limit, and stopped with the processes it started.
    TimedOut,
    /// Stopped, with the processes it started, as the machine ran short of memory: why.
    OutOfMemory(String),
}

/// Waits for `child`, watched while it runs, stopping it after `limit` (if any) or when the
/// machine runs short of memory.
pub fn wait(child: &mut std::process::Child, limit: Option<Duration>) -> std::io::Result<Waited> {
    let watched = Child::watch(child.id());
    let start = Instant::now();
    let mut polls = 0u32;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Waited::Exited(status));
        }
        polls += 1;
        let memory = if polls.is_multiple_of(20) { watched.memory_stop() } else { None };
        let timed_out = limit.is_some_and(|l| start.elapsed() > l);
        if timed_out || memory.is_some() {
            kill_tree(child.id());
            let _ = child.wait();
            return Ok(memory.map_or(Waited::TimedOut, Waited::OutOfMemory));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `cmd`'s output, as [`std::process::Command::output`], with the tool watched while it runs.
pub fn output(cmd: &mut std::process::Command) -> std::io::Result<std::process::Output> {
    use std::process::Stdio;
    let child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let _watched = Child::watch(child.id());
    child.wait_with_output()
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

/// Memory a tool leaves the rest of the machine: below it, the tool is stopped.
const MEMORY_RESERVE: u64 = 1 << 30;

/// Whether a tool holding `resident` bytes of a machine of `total`, `available` left and
/// `running` tools side by side, must stop: when less than [`MEMORY_RESERVE`] is left. Beside
/// other tools, only one holding more than its equal share stops, unless half the reserve is
/// gone too: the search that never fits, not whichever tool looks next (an induction of under
/// 1 GiB beside a search of a whole MRF growing past 20 GiB).
fn must_stop(available: u64, resident: u64, total: u64, running: u64) -> bool {
    available < MEMORY_RESERVE && (running <= 1 || available < MEMORY_RESERVE / 2 || resident > total / running)
}

/// The resident memory of process `pid` and of those it started, in bytes (a process that has
/// just ended counts nothing).
fn tree_resident(pid: u32) -> u64 {
    let own = kilobytes(&format!("/proc/{pid}/status"), "VmRSS").unwrap_or(0);
    own + children(pid).into_iter().map(tree_resident).sum::<u64>()
}

/// A `field` of `/proc/meminfo` in bytes.
fn meminfo(field: &str) -> Option<u64> {
    kilobytes("/proc/meminfo", field)
}

/// A `field: N kB` line of the file at `path`, in bytes.
fn kilobytes(path: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let value = text.lines().find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))?;
    Some(value.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()? * 1024)
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

#[cfg(test)]
mod tests {
    /// The guard reads the machine's memory, or the long searches run unguarded.
    #[test]
    fn the_available_memory_is_read_and_is_at_most_the_total() {
        let available = super::meminfo("MemAvailable").expect("/proc/meminfo has MemAvailable");
        let total = super::meminfo("MemTotal").expect("/proc/meminfo has MemTotal");
        assert!(available > 0 && available <= total, "{available} of {total} bytes");
    }

    /// A tool's share is the resident memory of its process and of those it started: this
    /// test's own is read, and a child it starts is found and counted.
    #[test]
    fn a_process_trees_resident_memory_is_read_and_is_at_most_the_total() {
        let total = super::meminfo("MemTotal").unwrap();
        let own = super::tree_resident(std::process::id());
        assert!(own > 0 && own < total, "{own} of {total} bytes");
        let mut child = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        let listed = super::children(std::process::id()).contains(&child.id());
        let child_own = super::tree_resident(child.id());
        let _ = (child.kill(), child.wait());
        assert!(listed, "the child is found among this process' children");
        assert!(child_own > 0, "the child's resident memory is read");
    }

    /// A tool run for its output is watched while it runs, and no longer once it has ended.
    #[test]
    fn a_tool_run_for_its_output_is_watched_while_it_runs() {
        let run =
            std::thread::spawn(|| super::output(std::process::Command::new("sh").args(["-c", "sleep 1; echo done"])));
        let is_sh = |p: &u32| std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "sh");
        let mut seen = None;
        for _ in 0..200 {
            seen = super::running().iter().copied().find(is_sh);
            if seen.is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let out = run.join().unwrap().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "done\n");
        let pid = seen.expect("the tool is in the registry while it runs");
        assert!(!super::running().contains(&pid), "and leaves it when it ends");
    }

    /// With memory left a tool goes on; alone it stops below the reserve; beside another, only
    /// past half the machine, or below half the reserve.
    #[test]
    fn a_tool_stops_for_memory_only_when_short_and_past_its_share() {
        let (total, gib) = (24u64 << 30, 1u64 << 30);
        assert!(!super::must_stop(2 * gib, 23 * gib, total, 1));
        assert!(super::must_stop(gib - 1, gib, total, 1));
        assert!(!super::must_stop(gib - 1, gib, total, 2));
        assert!(!super::must_stop(gib - 1, 12 * gib, total, 2));
        assert!(super::must_stop(gib - 1, 12 * gib + 1, total, 2));
        assert!(super::must_stop(gib / 2 - 1, gib, total, 2));
        assert!(super::must_stop(gib - 1, 7 * gib, total, 4));
    }
}
