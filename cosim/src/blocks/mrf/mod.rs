//! The `mrf` cosim block: the MRF model driven by a stimulus, encoded onto the ports of the
//! generated `<prefix>_mrf` top. A compressed MRF adds `wb_ready` and the banks' read, write
//! and power-gating strobes, all compared every cycle.

mod stimulus;

pub use stimulus::{Knobs, RandomStimulus, Script, ScriptCycle, ScriptInstr, ScriptWb, ScriptedStimulus};

use crate::lockstep::{Expected, Lockstep};
use crate::verilator::{Layout, PortSlot};
use rfgen_gen::geometry::SLOTS_PER_COLLECTOR;
use rfgen_gen::{Checked, Geometry};
use rfgen_model::block::Block;
use rfgen_model::blocks::mrf::{Mrf, MrfIn, MrfOut, lane_mask};

const SLOTS: usize = SLOTS_PER_COLLECTOR as usize;

/// Chooses the MRF inputs of each cycle, seeing the model's outputs of that cycle.
pub trait MrfStimulus {
    fn next(&mut self, cycle: u64, out: &MrfOut, inp: &mut MrfIn);
    fn done(&self) -> bool {
        false
    }
}

/// Port slots of the MRF top, resolved once.
struct Ports {
    issue_valid: PortSlot,
    issue_ready: PortSlot,
    issue_warp: PortSlot,
    issue_src_valid: PortSlot,
    issue_src_reg: [PortSlot; SLOTS],
    issue_tag: PortSlot,
    disp_valid: PortSlot,
    disp_ready: PortSlot,
    disp_warp: PortSlot,
    disp_tag: PortSlot,
    disp_src_valid: PortSlot,
    disp_src_data: [PortSlot; SLOTS],
    wb_valid: PortSlot,
    wb_warp: PortSlot,
    wb_reg: PortSlot,
    wb_mask: PortSlot,
    wb_data: PortSlot,
    /// Compressed MRF only: `wb_ready`, `wb_commit`, `bank_rd_en`, `bank_wr_en`, `bank_gated`.
    compressed: Option<[PortSlot; 5]>,
}

impl Ports {
    fn new(l: &Layout) -> Ports {
        let i = |n: &str| l.input(n).clone();
        let o = |n: &str| l.output(n).clone();
        Ports {
            issue_valid: i("issue_valid"),
            issue_ready: o("issue_ready"),
            issue_warp: i("issue_warp"),
            issue_src_valid: i("issue_src_valid"),
            issue_src_reg: std::array::from_fn(|s| i(&format!("issue_src{s}_reg"))),
            issue_tag: i("issue_tag"),
            disp_valid: o("disp_valid"),
            disp_ready: i("disp_ready"),
            disp_warp: o("disp_warp"),
            disp_tag: o("disp_tag"),
            disp_src_valid: o("disp_src_valid"),
            disp_src_data: std::array::from_fn(|s| o(&format!("disp_src{s}_data"))),
            wb_valid: i("wb_valid"),
            wb_warp: i("wb_warp"),
            wb_reg: i("wb_reg"),
            wb_mask: i("wb_mask"),
            wb_data: i("wb_data"),
            compressed: l
                .outputs
                .iter()
                .any(|p| p.name == "wb_ready")
                .then(|| ["wb_ready", "wb_commit", "bank_rd_en", "bank_wr_en", "bank_gated"].map(o)),
        }
    }
}

fn bits(flags: &[bool]) -> u64 {
    flags.iter().enumerate().fold(0, |m, (i, &f)| m | (f as u64) << i)
}

pub struct MrfLockstep<S> {
    model: Mrf,
    stimulus: S,
    inp: MrfIn,
    ports: Ports,
}

impl<S: MrfStimulus> MrfLockstep<S> {
    /// The uncompressed MRF of a geometry.
    pub fn new(g: &Geometry, layout: &Layout, stimulus: S) -> Self {
        Self::with_model(Mrf::new(g), layout, stimulus)
    }

    /// The MRF a config describes, compressed or not.
    pub fn for_config(checked: &Checked, layout: &Layout, stimulus: S) -> Self {
        Self::with_model(Mrf::for_config(checked), layout, stimulus)
    }

    fn with_model(model: Mrf, layout: &Layout, stimulus: S) -> Self {
        let inp = MrfIn::new(model.geometry());
        let ports = Ports::new(layout);
        assert_eq!(ports.compressed.is_some(), model.layout().is_some(), "RTL and model agree on compression");
        MrfLockstep { model, stimulus, inp, ports }
    }

    pub fn model(&self) -> &Mrf {
        &self.model
    }

    pub fn stimulus(&self) -> &S {
        &self.stimulus
    }
}

impl<S: MrfStimulus> Lockstep for MrfLockstep<S> {
    fn reset(&mut self) {
        self.model.reset();
    }

    fn step(&mut self, cycle: u64, inp: &mut [u32], exp: &mut Expected) {
        let out = self.model.outputs();
        self.stimulus.next(cycle, &out, &mut self.inp);
        let (p, i) = (&self.ports, &self.inp);
        p.issue_valid.put(inp, i.issue_valid as u64);
        p.issue_warp.put(inp, i.issue_warp as u64);
        p.issue_src_valid.put(inp, bits(&i.issue_src_valid));
        for s in 0..SLOTS {
            p.issue_src_reg[s].put(inp, i.issue_src_reg[s] as u64);
        }
        p.issue_tag.put(inp, i.issue_tag as u64);
        p.disp_ready.put(inp, i.disp_ready as u64);
        p.wb_valid.put(inp, i.wb_valid as u64);
        p.wb_warp.put(inp, i.wb_warp as u64);
        p.wb_reg.put(inp, i.wb_reg as u64);
        p.wb_mask.put(inp, i.wb_mask);
        if i.wb_valid {
            inp[p.wb_data.range()].copy_from_slice(&i.wb_data);
        }

        exp.set(&p.issue_ready, out.issue_ready as u64);
        exp.set(&p.disp_valid, out.disp_valid as u64);
        exp.set_if(out.disp_valid, &p.disp_warp, out.disp_warp as u64);
        exp.set_if(out.disp_valid, &p.disp_tag, out.disp_tag as u64);
        exp.set_if(out.disp_valid, &p.disp_src_valid, bits(&out.disp_src_valid));
        let all = lane_mask(i.wb_data.len());
        for s in 0..SLOTS {
            let known = if out.disp_valid && out.disp_src_valid[s] { out.disp_src_known[s] & all } else { 0 };
            exp.set_lanes(&p.disp_src_data[s], out.disp_src_data[s], known);
        }
        if let Some([ready, commit, rd_en, wr_en, gated]) = &p.compressed {
            exp.set(ready, out.wb_ready as u64);
            exp.set(commit, out.wb_commit as u64);
            for (port, bits) in [(rd_en, out.bank_rd_en), (wr_en, out.bank_wr_en), (gated, out.bank_gated)] {
                let words: Vec<u32> = (0..port.words).map(|i| (bits[i / 2] >> (32 * (i % 2))) as u32).collect();
                exp.set_words(port, &words);
            }
        }
    }

    fn tick(&mut self) {
        self.model.tick(&self.inp);
    }

    fn stats(&self) -> Vec<(&'static str, u64)> {
        let s = self.model.stats();
        let mut v = vec![
            ("instructions issued", s.issued),
            ("instructions dispatched", s.dispatched),
            ("operand reads", s.operand_reads),
            ("bank conflicts", s.bank_conflicts),
            ("register writes", s.writes),
        ];
        if self.model.layout().is_some() {
            let compressed: u64 = s.full_writes_by_ri[1..].iter().sum();
            v.extend([
                ("full writes compressed", compressed),
                ("full writes uncompressed", s.full_writes_by_ri[0]),
                ("partial writes", s.partial_writes),
                ("dummy MOVs", s.dummy_movs),
                ("bank reads", s.bank_reads),
                ("bank writes", s.bank_writes),
                ("bank wake-ups", s.bank_wakeups),
                ("power-gated bank-cycles", s.gated_bank_cycles()),
                ("write-back stall cycles", s.wb_stall_cycles),
            ]);
        }
        v
    }

    fn done(&self) -> bool {
        self.stimulus.done()
    }
}
