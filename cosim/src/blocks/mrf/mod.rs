//! The `mrf` cosim block: the MRF model bound to the generated `<prefix>_mrf` top through its
//! typed interface (`rfgen_gen::blocks::mrf::interface`). Compressed or not, every output is
//! compared every cycle it means something; register data lane by lane where the model knows
//! the lane was written.

mod cache_events;
mod stimulus;

pub use cache_events::CacheEvents;
pub use stimulus::{
    CacheKnobs, Knobs, OrfKnobs, RandomStimulus, Script, ScriptCache, ScriptCycle, ScriptInstr, ScriptWb,
    ScriptedStimulus,
};

use crate::glue::{CosimBlock, Expected, Glue, RandomBlock, bind_all, sources};
use crate::kernel::{InSm, SmWith};
use crate::lockstep::Lockstep;
use crate::verilator::{Layout, PortSlot};
use anyhow::Result;
use rfgen_gen::Checked;
use rfgen_gen::blocks::mrf::interface::MrfPorts;
use rfgen_model::blocks::issue::Issue;
use rfgen_model::blocks::mrf::{Mrf, MrfBlock, MrfIn, MrfOut, MrfStats, lane_mask};
use rfgen_model::blocks::sm_rf::SmRf;
use rfgen_model::kernel::Kernel;
use rfgen_model::sm::{SimError, SimStats, Sm};

fn bits(flags: &[bool]) -> u64 {
    flags.iter().enumerate().fold(0, |m, (i, &f)| m | (f as u64) << i)
}

impl Glue for Mrf {
    type Ports = MrfPorts<PortSlot>;

    fn bind(&self, layout: &Layout) -> Result<Self::Ports> {
        bind_all(
            &MrfPorts::new(self.geometry(), self.layout(), self.rfc_layout(), self.orf_layout()),
            layout,
            |i, f| i.map(f),
        )
    }

    fn drive(&self, p: &Self::Ports, i: &MrfIn, buf: &mut [u32]) {
        if let Some(stride) = &p.rows_per_warp {
            stride.put(buf, i.rows_per_warp as u64);
        }
        if let Some(c) = &p.compressed {
            c.free_valid.put(buf, i.free_valid as u64);
            c.free_warp.put(buf, i.free_warp as u64);
        }
        p.issue_valid.put(buf, i.issue_valid as u64);
        p.issue_warp.put(buf, i.issue_warp as u64);
        p.issue_src_valid.put(buf, bits(&i.issue_src_valid));
        for (port, &reg) in p.issue_src_reg.iter().zip(&i.issue_src_reg) {
            port.put(buf, reg as u64);
        }
        p.issue_tag.put(buf, i.issue_tag as u64);
        p.disp_ready.put(buf, i.disp_ready as u64);
        p.wb_valid.put(buf, i.wb_valid as u64);
        p.wb_warp.put(buf, i.wb_warp as u64);
        p.wb_reg.put(buf, i.wb_reg as u64);
        p.wb_mask.put(buf, i.wb_mask);
        if i.wb_valid {
            buf[p.wb_data.range()].copy_from_slice(&i.wb_data);
        }
        if let Some(r) = &p.rfc {
            if let Some(last) = &r.issue_src_last {
                last.put(buf, bits(&i.issue_src_last));
            }
            r.wb_long.put(buf, i.wb_long as u64);
            r.act_valid.put(buf, i.act_valid as u64);
            r.act_warp.put(buf, i.act_warp as u64);
            r.flush_valid.put(buf, i.flush_valid as u64);
            r.flush_warp.put(buf, i.flush_warp as u64);
            r.rel_mask.put(buf, i.rel_mask);
        }
        if let Some(o) = &p.orf {
            let eb = o.issue_src_entry.width / 3;
            o.issue_src_level.put(buf, sources(i.issue_src_level, 2));
            o.issue_src_entry.put(buf, sources(i.issue_src_entry, eb));
            o.issue_src_fill.put(buf, sources(i.issue_src_fill, 2));
            o.issue_strand.put(buf, i.issue_strand as u64);
            o.wb_mrf.put(buf, i.wb_mrf as u64);
            o.wb_upper.put(buf, i.wb_upper as u64);
            o.wb_entry.put(buf, i.wb_entry as u64);
            if let Some(rel) = &o.rel_mask {
                rel.put(buf, i.rel_mask);
            }
        }
    }

    fn expect(&self, p: &Self::Ports, out: &MrfOut, _inp: &Self::In, exp: &mut Expected) {
        exp.set(&p.issue_ready, out.issue_ready as u64);
        exp.set(&p.disp_valid, out.disp_valid as u64);
        exp.set_if(out.disp_valid, &p.disp_warp, out.disp_warp as u64);
        exp.set_if(out.disp_valid, &p.disp_tag, out.disp_tag as u64);
        exp.set_if(out.disp_valid, &p.disp_src_valid, bits(&out.disp_src_valid));
        let all = lane_mask(self.geometry().lanes as usize);
        for s in 0..p.disp_src_data.len() {
            let known = if out.disp_valid && out.disp_src_valid[s] { out.disp_src_known[s] & all } else { 0 };
            exp.set_lanes(&p.disp_src_data[s], out.disp_src_data[s], known);
        }
        if let Some(ready) = &p.wb_ready {
            exp.set(ready, out.wb_ready as u64);
        }
        if let Some(r) = &p.rfc {
            exp.set(&r.act_ready, out.act_ready as u64);
            exp.set(&r.flush_ready, out.flush_ready as u64);
        }
        if let Some(o) = &p.orf {
            exp.set(&o.fill_busy, out.fill_busy);
        }
        if let Some(commit) = &p.wb_commit {
            exp.set(commit, out.wb_commit as u64);
        }
        if let Some(c) = &p.compressed {
            exp.set_bits(&c.bank_rd_en, out.bank_rd_en);
            exp.set_bits(&c.bank_wr_en, out.bank_wr_en);
            exp.set_bits(&c.bank_gated, out.bank_gated);
        }
    }
}

/// The SM can run on the lockstep pair as on the model alone.
impl<B: Glue + MrfBlock> MrfBlock for Lockstep<B> {
    fn stats(&self) -> &MrfStats {
        self.model().stats()
    }
}

impl CosimBlock for Mrf {
    fn model(checked: &Checked) -> Result<Self> {
        Ok(Mrf::for_config(checked))
    }
}

impl RandomBlock for Mrf {
    type Stimulus = RandomStimulus;

    fn stimulus(checked: &Checked, seed: u64) -> RandomStimulus {
        RandomStimulus::new(&checked.geometry, seed, Knobs::for_config(checked).for_seed(seed))
    }

    fn idle(&self) -> MrfIn {
        MrfIn::new(self.geometry())
    }

    fn summary(&self, s: &RandomStimulus) -> Vec<(&'static str, u64)> {
        let mut lines = summary(self);
        lines.push(("resets in the run", s.resets));
        lines
    }
}

/// In the SM, the MRF in lockstep serves every operand read and write-back of a real kernel.
impl InSm for Mrf {
    type Rf = SmRf<Lockstep<Mrf>, Issue>;

    fn place<'k>(c: &Checked, k: &'k Kernel, pair: Lockstep<Mrf>) -> Result<SmWith<'k, Mrf>, SimError> {
        Sm::with_mrf(c, k, pair)
    }

    fn pair<'a>(sm: &'a SmWith<'_, Mrf>) -> &'a Lockstep<Mrf> {
        sm.mrf()
    }

    fn take(sm: SmWith<'_, Mrf>) -> Lockstep<Mrf> {
        sm.into_mrf()
    }

    fn kernel_stats(&self, _: &SimStats) -> Vec<(&'static str, u64)> {
        summary(self)
    }
}

/// The MRF's event counts for a cosim summary.
pub fn summary(m: &Mrf) -> Vec<(&'static str, u64)> {
    let s = m.stats();
    let mut v = vec![
        ("instructions issued", s.issued),
        ("instructions dispatched", s.dispatched),
        ("operand reads", s.operand_reads),
        ("bank conflicts", s.bank_conflicts),
        ("register writes", s.writes),
    ];
    if m.rfc().is_some() {
        let r = &s.rfc;
        v.extend([
            ("RFC read hits", r.read_hits),
            ("RFC write hits", r.write_hits),
            ("RFC allocations", r.allocations),
            ("RFC bypasses to the MRF", r.bypasses),
            ("RFC evictions written back", r.evictions),
            ("RFC dead evictions dropped", r.dead_evictions),
            ("RFC flushes", r.flushes),
            ("RFC flush write-backs", r.flush_writes),
            ("RFC activations", r.activations),
            ("MRF warp-register writes", s.mrf_writes),
        ]);
    }
    if m.orf_layout().is_some() {
        let o = &s.orf;
        v.extend([
            ("ORF reads", o.orf_reads),
            ("LRF reads", o.lrf_reads),
            ("ORF writes", o.orf_writes),
            ("LRF writes", o.lrf_writes),
            ("fills from MRF reads", o.fills),
            ("fill waits for the port", o.fill_waits),
            ("write-backs skipping MRF", o.mrf_writes_skipped),
            ("slots taken", o.slots_taken),
            ("slots released", o.slots_released),
            ("writes of warps without a slot", o.slotless_writes),
            ("MRF warp-register writes", s.mrf_writes),
        ]);
    }
    if m.layout().is_some() {
        let packed: u64 = s.full_writes_by_ri[1..].iter().sum();
        v.extend([
            ("full writes compressed", packed),
            ("full writes uncompressed", s.full_writes_by_ri[0]),
            ("partial writes", s.partial_writes),
            ("dummy MOVs", s.dummy_movs),
            ("bank reads", s.bank_reads),
            ("bank writes", s.bank_writes),
            ("bank wake-ups", s.bank_wakeups),
            ("power-gated bank-cycles", s.gated_bank_cycles()),
        ]);
    }
    if m.geometry().has_tfet() {
        v.extend([("TFET row reads", s.tfet_reads), ("TFET row writes", s.tfet_writes)]);
    }
    if m.rfc().is_some() || m.layout().is_some() || m.geometry().has_tfet() {
        v.push(("write-back stall cycles", s.wb_stall_cycles));
    }
    v
}
