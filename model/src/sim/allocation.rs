//! What the ORF/LRF allocation of the config's `[orf]` section (`kernel::alloc`) does to a
//! kernel's register-file traffic: reads and writes per warp instruction at each level,
//! weighted by how often each instruction ran, and the register-file energy against keeping
//! every operand in the MRF. Energy terms: bank access plus wire to the private datapath of
//! every access (`alloc::Costs`); the ORF's longer wire to the shared datapath is not counted.

use crate::kernel::Kernel;
use crate::kernel::alloc::{Accesses, Costs, Placement, allocate};
use rfgen_gen::Checked;
use rfgen_gen::config::LrfKind;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AllocationReport {
    pub orf_entries: u32,
    pub lrf: LrfKind,
    /// Per warp instruction, over the run: reads and writes of the MRF, ORF and LRF.
    pub reads_per_instruction: [f64; 3],
    pub writes_per_instruction: [f64; 3],
    /// Every operand in the MRF.
    pub baseline_reads_per_instruction: f64,
    pub baseline_writes_per_instruction: f64,
    /// Register-file energy with the allocation over the energy with every operand in the MRF.
    pub energy_ratio: f64,
    pub terms: Vec<String>,
}

/// The placements of `k` under the config's `[orf]` section, and their effect given the
/// warp instructions `executed` per static instruction.
pub fn allocation_report(c: &Checked, k: &Kernel, executed: &[u64]) -> (Vec<Placement>, AllocationReport) {
    let orf = &c.config.orf;
    let costs = Costs::new(&c.config.energy, orf.entries);
    let place = allocate(k, orf.entries, orf.lrf, &costs);
    let (mut reads, mut writes, mut base_reads, mut base_writes) = ([0u64; 3], [0u64; 3], 0u64, 0u64);
    let all_mrf = vec![Placement::default(); k.code.len()];
    for (pc, &n) in executed.iter().enumerate() {
        let a = Accesses::of(k, &place, pc);
        let base = Accesses::of(k, &all_mrf, pc);
        for l in 0..3 {
            reads[l] += n * u64::from(a.reads[l]);
            writes[l] += n * u64::from(a.writes[l]);
        }
        base_reads += n * u64::from(base.reads[0]);
        base_writes += n * u64::from(base.writes[0]);
    }
    let per = |x: u64| x as f64 / executed.iter().sum::<u64>().max(1) as f64;
    let energy = |r: [u64; 3], w: [u64; 3]| {
        let (rc, wc) =
            ([costs.mrf_read, costs.orf_read, costs.lrf_read], [costs.mrf_write, costs.orf_write, costs.lrf_write]);
        (0..3).map(|l| r[l] as f64 * rc[l] + w[l] as f64 * wc[l]).sum::<f64>()
    };
    let base = energy([base_reads, 0, 0], [base_writes, 0, 0]);
    let report = AllocationReport {
        orf_entries: orf.entries,
        lrf: orf.lrf,
        reads_per_instruction: reads.map(per),
        writes_per_instruction: writes.map(per),
        baseline_reads_per_instruction: per(base_reads),
        baseline_writes_per_instruction: per(base_writes),
        energy_ratio: energy(reads, writes) / base.max(f64::MIN_POSITIVE),
        terms: ["mrf access", "mrf wire", "orf access", "orf wire (private)", "lrf access", "lrf wire"]
            .map(String::from)
            .to_vec(),
    };
    (place, report)
}
