//! The PTX workloads shipped in `workloads/` (CUDA C compiled by clang, each with its launch
//! file), built into rfgen so that `--kernel ptx:NAME` runs one from any folder, and
//! `rfgen regress` runs them all on a user's RTL.

pub struct Workload {
    pub name: &'static str,
    /// `workloads/<name>.ptx`.
    pub ptx: &'static str,
    /// `workloads/<name>.toml`.
    pub launch: &'static str,
}

macro_rules! workload {
    ($name:literal) => {
        Workload {
            name: $name,
            ptx: include_str!(concat!("../../../../workloads/", $name, ".ptx")),
            launch: include_str!(concat!("../../../../workloads/", $name, ".toml")),
        }
    };
}

/// Every workload of `workloads/`, in name order.
pub const WORKLOADS: &[Workload] = &[
    workload!("bfs"),
    workload!("blackscholes"),
    workload!("collatz"),
    workload!("histogram"),
    workload!("hotspot"),
    workload!("mriq"),
    workload!("nbody"),
    workload!("nw"),
    workload!("pathfinder"),
    workload!("reduction"),
    workload!("saxpy"),
    workload!("sgemm"),
    workload!("spmv"),
    workload!("srad"),
    workload!("vecadd"),
];

pub fn find(name: &str) -> Option<&'static Workload> {
    WORKLOADS.iter().find(|w| w.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workload added to `workloads/` is built in too.
    #[test]
    fn every_workload_file_is_built_in_and_loads() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.unwrap().file_name().into_string().ok())
            .filter_map(|f| f.strip_suffix(".ptx").map(str::to_string))
            .collect();
        files.sort();
        let built_in: Vec<&str> = WORKLOADS.iter().map(|w| w.name).collect();
        assert_eq!(files, built_in);
        for w in WORKLOADS {
            let launch = super::super::launch::parse(w.launch).unwrap_or_else(|e| panic!("{}: {e}", w.name));
            super::super::load(w.ptx, &launch).unwrap_or_else(|e| panic!("{}: {e}", w.name));
        }
    }
}
