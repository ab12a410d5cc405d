//! The kernel library: kernels shipped in `kernels/*.kir`, runnable by name
//! (`rfgen sim --kernel NAME`, `rfgen sim --list-kernels`).

use super::{Kernel, ParseError, parse};

pub struct LibraryKernel {
    pub name: &'static str,
    pub about: &'static str,
    pub source: &'static str,
}

macro_rules! kernel {
    ($name:literal, $about:literal) => {
        LibraryKernel { name: $name, about: $about, source: include_str!(concat!("../../../kernels/", $name, ".kir")) }
    };
}

pub const KERNELS: &[LibraryKernel] = &[
    kernel!("vecadd", "vector add c[i] = a[i] + b[i]"),
    kernel!("saxpy", "integer SAXPY y[i] = a x[i] + y[i], grid-stride loop"),
    kernel!("matmul", "64x64 matrix multiply, 16x16 tiles in shared memory"),
    kernel!("reduction", "per-block sums with a shared-memory tree"),
    kernel!("scan", "per-block inclusive prefix sums (Hillis-Steele)"),
    kernel!("pathfinder", "Rodinia-style dynamic program, pyramid of 16 rows"),
    kernel!("bfs", "BFS relaxation step, data-dependent gather loop"),
    kernel!("stencil", "5-point stencil on a 128x128 grid, clamped borders"),
    kernel!("heartwall", "seed 002 Fig. 1: a register reused right after its last read (WAR hazard)"),
];

pub fn find(name: &str) -> Option<&'static LibraryKernel> {
    KERNELS.iter().find(|k| k.name == name)
}

impl LibraryKernel {
    pub fn parse(&self) -> Result<Kernel, ParseError> {
        parse(self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_library_kernel_parses_under_its_own_name() {
        for k in KERNELS {
            let parsed = k.parse().unwrap_or_else(|e| panic!("{}: {e}", k.name));
            assert_eq!(parsed.name, k.name);
        }
    }
}
