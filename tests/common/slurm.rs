//! A one-node Slurm cluster on localhost for the Slurm backend's tests: `munged`, `slurmctld`
//! and `slurmd` started from a generated `slurm.conf` in a temporary folder (no cgroups, no
//! accounting daemon), stopped by their process ids when dropped.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Cluster {
    dir: tempfile::TempDir,
    pids: Vec<PathBuf>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn start(program: &str, args: &[&str]) {
    let status = Command::new(program).args(args).status().unwrap_or_else(|e| {
        panic!("{program} must be installed (the test script installs slurmctld, slurmd, slurm-client and munge): {e}")
    });
    assert!(status.success(), "{program} {args:?} did not start");
}

impl Cluster {
    pub fn start() -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().to_path_buf();
        // munged refuses a socket folder others cannot enter.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        for sub in ["state", "spool"] {
            std::fs::create_dir(d.join(sub)).unwrap();
        }
        let key: Vec<u8> = (0..1024u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        std::fs::write(d.join("munge.key"), key).unwrap();
        std::fs::set_permissions(d.join("munge.key"), std::fs::Permissions::from_mode(0o600)).unwrap();
        let p = |name: &str| d.join(name).display().to_string();
        start(
            "munged",
            &[
                "--force",
                &format!("--key-file={}", p("munge.key")),
                &format!("--socket={}", p("munge.sock")),
                &format!("--pid-file={}", p("munged.pid")),
                &format!("--log-file={}", p("munged.log")),
                &format!("--seed-file={}", p("munged.seed")),
            ],
        );
        let mut cluster = Cluster { pids: vec![d.join("munged.pid")], dir };
        let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout).unwrap();
        let conf = format!(
            "ClusterName=rfgen-test\nSlurmctldHost=localhost\nAuthType=auth/munge\nCredType=cred/munge\n\
             AuthInfo=socket={sock}\nSlurmUser={user}\nSlurmdUser={user}\n\
             SlurmctldPort={ctld}\nSlurmdPort={slurmd}\nStateSaveLocation={state}\nSlurmdSpoolDir={spool}\n\
             SlurmctldPidFile={ctld_pid}\nSlurmdPidFile={slurmd_pid}\n\
             SlurmctldLogFile={ctld_log}\nSlurmdLogFile={slurmd_log}\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nReturnToService=2\nMinJobAge=600\n\
             NodeName=localhost CPUs=2 State=UNKNOWN\n\
             PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n",
            sock = p("munge.sock"),
            user = user.trim(),
            ctld = free_port(),
            slurmd = free_port(),
            state = p("state"),
            spool = p("spool"),
            ctld_pid = p("slurmctld.pid"),
            slurmd_pid = p("slurmd.pid"),
            ctld_log = p("slurmctld.log"),
            slurmd_log = p("slurmd.log"),
        );
        std::fs::write(d.join("slurm.conf"), conf).unwrap();
        let conf = p("slurm.conf");
        start("slurmctld", &["-f", &conf]);
        cluster.pids.push(cluster.dir.path().join("slurmctld.pid"));
        // The machine's host name is not `localhost`: slurmd is told which node it is.
        start("slurmd", &["-f", &conf, "-N", "localhost"]);
        cluster.pids.push(cluster.dir.path().join("slurmd.pid"));
        cluster.wait_idle();
        cluster
    }

    /// The environment variable that points Slurm's commands at this cluster.
    pub fn conf(&self) -> (&'static str, PathBuf) {
        ("SLURM_CONF", self.dir.path().join("slurm.conf"))
    }

    /// A Slurm command against this cluster: its standard output.
    pub fn command(&self, program: &str, args: &[&str]) -> String {
        let (k, v) = self.conf();
        let out = Command::new(program).args(args).env(k, v).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn wait_idle(&self) {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if self.command("sinfo", &["-h", "-o", "%T"]).trim() == "idle" {
                return;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!("the test cluster's node did not become idle; logs in {}", self.dir.path().display());
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // slurmd first: it stops the job steps it started.
        for pid_file in self.pids.iter().rev() {
            if let Some(pid) = std::fs::read_to_string(pid_file).ok().and_then(|s| s.trim().parse::<i32>().ok()) {
                // SAFETY: a plain kill(2) of a daemon this cluster started.
                unsafe { libc::kill(pid, libc::SIGTERM) };
                let gone = Instant::now();
                // SAFETY: signal 0 only asks whether the process still exists.
                while unsafe { libc::kill(pid, 0) } == 0 && gone.elapsed() < Duration::from_secs(10) {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
    }
}
