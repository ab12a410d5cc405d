//! The MRF model's unit tests: the plain subsystem, compressed, with a register file cache, and
//! with TFET rows.

use super::*;

mod plain {
    use super::*;

    /// The timing example of docs/mrf.md on `g`: the tag offered in each of 8 cycles, and the
    /// bank conflicts and operand reads counted.
    fn timing_example(g: &Geometry) -> (Vec<Option<u32>>, u64, u64) {
        let mut m = Mrf::new(g);
        let mut inp = MrfIn::new(g);
        // Cycle 0: A = warp 0, sources r1 and r5 (both bank group 1), tag 0xA.
        inp.issue_valid = true;
        inp.issue_src_valid = [true, true, false];
        inp.issue_src_reg = [1, 5, 0];
        inp.issue_tag = 0xA;
        inp.disp_ready = true;
        let mut seen = Vec::new();
        for cycle in 0..8 {
            if cycle == 1 {
                // B = warp 1, source r2 (bank group 3), tag 0xB.
                inp.issue_warp = 1;
                inp.issue_src_valid = [true, false, false];
                inp.issue_src_reg = [2, 0, 0];
                inp.issue_tag = 0xB;
            }
            if cycle == 2 {
                inp.issue_valid = false;
            }
            let out = m.outputs();
            assert!(out.issue_ready);
            seen.push(out.disp_valid.then_some(out.disp_tag));
            m.tick(&inp);
        }
        (seen, m.stats().bank_conflicts, m.stats().operand_reads)
    }

    /// The timing example of docs/mrf.md, cycle by cycle.
    #[test]
    fn documented_timing_example() {
        let g = rfgen_gen::config::preset("baseline").unwrap().geometry;
        let (seen, conflicts, reads) = timing_example(&g);
        assert_eq!(seen, [None, None, None, None, Some(0xA), Some(0xB), None, None]);
        assert_eq!(conflicts, 1, "A's second source waited one cycle");
        assert_eq!(reads, 3);
    }

    /// The same example with the `[timing]` options (docs/mrf.md): a registered grant reads each
    /// source a cycle after its grant (two with the address registered too), registered read
    /// data reaches the collector a cycle after the read; each costs every instruction one
    /// cycle, and none changes the conflict.
    #[test]
    fn documented_pipeline_stage_timing() {
        let baseline = rfgen_gen::config::preset("baseline").unwrap().geometry;
        let late = |grant, read, dispatch| Geometry {
            registered_grant: grant,
            registered_read: read,
            registered_dispatch: dispatch,
            ..baseline.clone()
        };
        let one = [None, None, None, None, None, Some(0xA), Some(0xB), None];
        let two = [None, None, None, None, None, None, Some(0xA), Some(0xB)];
        // The address registered after the grant: a cycle more again.
        let address = Geometry { registered_address: true, ..late(true, false, false) };
        for (g, offered) in [
            (late(true, false, false), one),
            (late(false, true, false), one),
            (late(false, false, true), one),
            (late(true, true, false), two),
            (address, two),
        ] {
            let (seen, conflicts, reads) = timing_example(&g);
            let options = (g.registered_grant, g.registered_read, g.registered_dispatch);
            assert_eq!(seen, offered, "{options:?}");
            assert_eq!((conflicts, reads), (1, 3), "{options:?}: A's second source waited one cycle");
        }
    }
}

mod compressed_tests {
    use super::*;

    /// The compressed timing example of docs/bdi.md (preset isca15-bdi: compressor 2 cycles,
    /// decompressor 1, wake-up 10), cycle by cycle.
    #[test]
    fn documented_compressed_timing() {
        let checked = rfgen_gen::config::preset("isca15-bdi").unwrap();
        let g = checked.geometry.clone();
        let mut m = Mrf::for_config(&checked);
        let mut inp = MrfIn::new(&g);
        inp.disp_ready = true;
        // (wb_ready, group 0's gated banks, banks read, banks written, offered tag)
        let mut log = Vec::new();
        for cycle in 0..36 {
            inp.wb_valid = matches!(cycle, 0 | 1);
            inp.issue_valid = matches!(cycle, 14 | 30);
            inp.wb_warp = 0;
            inp.wb_reg = 0;
            if cycle == 0 {
                // A: r0 of warp 0, every lane 7 (<4,0>, one bank).
                inp.wb_mask = u64::MAX;
                inp.wb_data.fill(7);
            } else {
                // B: the same register, lane 0 only (divergent): 99.
                inp.wb_mask = 1;
                inp.wb_data.fill(99);
            }
            inp.issue_src_valid = [true, false, false];
            inp.issue_src_reg = [0; 3];
            inp.issue_tag = if cycle == 14 { 0xC } else { 0xD };
            let out = m.outputs();
            let bits = |v: &[u64]| v[0] & 0xff;
            log.push((
                out.wb_ready,
                bits(out.bank_gated),
                bits(out.bank_rd_en),
                bits(out.bank_wr_en),
                out.disp_valid.then_some(out.disp_tag),
            ));
            if out.disp_valid {
                let data = out.disp_src_data[0];
                let want = if out.disp_tag == 0xC { [7, 7] } else { [99, 7] };
                assert_eq!([data[0], data[1]], want, "tag {:#x}", out.disp_tag);
            }
            m.tick(&inp);
        }
        let at = |c: usize| log[c];
        // A is taken in cycle 0 and leaves the compressor in cycle 2; bank 0 of group 0 is gated
        // (reset), wakes from edge 2 for 10 cycles; A commits in cycle 13.
        assert_eq!(at(0), (true, 0xff, 0, 0, None));
        assert_eq!(at(2), (false, 0xff, 0, 0, None));
        assert_eq!(at(3), (false, 0xfe, 0, 0, None), "bank 0 powered, waking");
        assert_eq!(at(12), (false, 0xfe, 0, 0, None));
        assert_eq!(at(13), (true, 0xfe, 0, 0x01, None), "A commits: one bank");
        // B (partial) needs all 8 banks: banks 1..7 wake from edge 14; C reads A meanwhile.
        assert_eq!(at(14), (false, 0xfe, 0, 0, None));
        assert_eq!(at(15), (false, 0x00, 0x01, 0, None), "C's read touches bank 0 only");
        assert_eq!(at(18), (false, 0x00, 0, 0, Some(0xC)));
        // Awake in cycle 25: the dummy MOV reads A, writes it back uncompressed in 27; B in 28.
        assert_eq!(at(24), (false, 0x00, 0, 0, None));
        assert_eq!(at(25), (false, 0x00, 0x01, 0, None), "dummy MOV read");
        assert_eq!(at(26), (false, 0x00, 0, 0, None));
        assert_eq!(at(27), (false, 0x00, 0, 0xff, None), "dummy MOV write-back, uncompressed");
        assert_eq!(at(28), (true, 0x00, 0, 0x01, None), "B writes lane 0's bank");
        // D, issued in cycle 30, reads the uncompressed register: all 8 banks.
        assert_eq!(at(31), (true, 0x00, 0xff, 0, None));
        assert_eq!(at(34), (true, 0x00, 0, 0, Some(0xD)));
        let s = m.stats();
        assert_eq!((s.dummy_movs, s.partial_writes, s.full_writes_by_ri[1], s.bank_wakeups), (1, 1, 1, 8));
        assert_eq!((s.bank_reads, s.bank_writes, s.decompressions, s.compressions), (1 + 1 + 8, 1 + 8 + 1, 2, 1));
    }
}

mod rfc_tests {
    use super::*;

    /// The timing example of docs/rfc.md, cycle by cycle: the default SM with a 2-entry FIFO
    /// register file cache, liveness, two-level slots.
    #[test]
    fn documented_rfc_timing() {
        let checked = rfgen_gen::config::parse(
            "[scheduler]\npolicy = \"two_level\"\n[rfc]\nenabled = true\nentries = 2\nreplacement = \"fifo\"\n",
        )
        .unwrap();
        let g = checked.geometry.clone();
        let mut m = Mrf::for_config(&checked);
        let mut inp = MrfIn::new(&g);
        inp.disp_ready = true;
        // (wb_ready, act_ready, flush_ready, offered tag, bank write (reg, cause))
        let mut log = Vec::new();
        for cycle in 0..14 {
            inp.act_valid = cycle == 0;
            inp.flush_valid = cycle == 7;
            let wb = [(1, 1, 11), (2, 2, 22), (4, 3, 33), (5, 4, 44)].iter().find(|w| w.0 == cycle);
            inp.wb_valid = wb.is_some();
            if let Some(&(_, reg, value)) = wb {
                (inp.wb_reg, inp.wb_mask) = (reg, lane_mask(g.lanes as usize));
                inp.wb_data.fill(value);
            }
            inp.issue_valid = matches!(cycle, 3 | 10);
            if cycle == 3 {
                // A: r1 (read for the last time) and r2.
                (inp.issue_tag, inp.issue_src_valid, inp.issue_src_reg) = (0xA, [true, true, false], [1, 2, 0]);
                inp.issue_src_last = [true, false, false];
            } else {
                // B: r4.
                (inp.issue_tag, inp.issue_src_valid, inp.issue_src_reg) = (0xB, [true, false, false], [4, 0, 0]);
                inp.issue_src_last = [false; 3];
            }
            let out = m.outputs();
            if out.disp_valid {
                let want: &[u32] = if out.disp_tag == 0xA { &[11, 22] } else { &[44] };
                for (s, &v) in want.iter().enumerate() {
                    assert_eq!(out.disp_src_data[s][0], v, "tag {:#x} source {s}", out.disp_tag);
                }
            }
            let wb_taken = (inp.wb_valid && out.wb_ready).then_some((
                inp.wb_warp,
                inp.wb_reg,
                inp.wb_mask,
                &inp.wb_data[..],
                false,
            ));
            let bank = m.rfc().and_then(|r| r.bank_write(wb_taken)).map(|w| (w.reg, w.cause));
            log.push((out.wb_ready, out.act_ready, out.flush_ready, out.disp_valid.then_some(out.disp_tag), bank));
            m.tick(&inp);
        }
        let at = |c: usize| log[c];
        assert_eq!(at(0), (true, true, true, None, None));
        assert_eq!(at(3), (true, true, true, None, None), "A's sources both hit at issue");
        assert_eq!(at(4), (true, true, true, Some(0xA), None), "A is offered the next cycle; r3 takes dead r1's entry");
        assert_eq!(at(5), (true, true, true, None, None), "r4 evicts r2, dirty and live");
        assert_eq!(at(6), (false, true, true, None, Some((2, WriteCause::Eviction))), "the eviction buffer drains");
        assert_eq!(at(7), (true, true, true, None, None), "the flush of warp 0 is taken");
        assert_eq!(at(8), (false, true, false, None, Some((3, WriteCause::Flush))));
        assert_eq!(at(9), (false, true, false, None, Some((4, WriteCause::Flush))), "the last entry frees the slot");
        assert_eq!(at(10), (true, true, true, None, None), "B's r4 misses: its slot is gone");
        assert_eq!(at(13), (true, true, true, Some(0xB), None), "read from the banks: offered in t+3");
        let r = &m.stats().rfc;
        assert_eq!((r.read_hits, r.allocations, r.evictions, r.dead_evictions), (2, 4, 1, 1));
        assert_eq!((r.flushes, r.flush_writes, r.activations, m.stats().mrf_writes), (1, 2, 1, 3));
    }

    /// The ORF/LRF timing example of docs/orf-lrf.md, cycle by cycle (warp 0 throughout).
    #[test]
    fn documented_orf_timing() {
        use rfgen_gen::layout::orf::{LEVEL_LRF, LEVEL_MRF, LEVEL_ORF};
        let checked = rfgen_gen::config::parse("[orf]\nenabled = true\nentries = 3\nlrf = \"split\"\n").unwrap();
        let g = checked.geometry.clone();
        let mut m = Mrf::for_config(&checked);
        let mut inp = MrfIn::new(&g);
        inp.disp_ready = true;
        let (mrf, orf, lrf) = (LEVEL_MRF as u8, LEVEL_ORF as u8, LEVEL_LRF as u8);
        // (offered tag and its first two sources, fill_busy)
        let mut log = Vec::new();
        for cycle in 0..15 {
            // Write-backs: r1 to the MRF and ORF0, r2 to LRF1 only, r3 to the MRF, r4 to ORF2.
            let wb = [
                (0, 1, 11, true, orf, 0),
                (1, 2, 22, false, lrf, 1),
                (2, 3, 33, true, mrf, 0),
                (8, 4, 44, true, orf, 2),
            ]
            .into_iter()
            .find(|w| w.0 == cycle);
            inp.wb_valid = wb.is_some();
            if let Some((_, reg, value, to_mrf, upper, entry)) = wb {
                (inp.wb_reg, inp.wb_mask, inp.wb_mrf, inp.wb_upper, inp.wb_entry) =
                    (reg, lane_mask(g.lanes as usize), to_mrf, upper, entry);
                inp.wb_data.fill(value);
            }
            inp.issue_valid = matches!(cycle, 3 | 5 | 11 | 13);
            inp.issue_src_valid = [true, cycle != 5 && cycle != 13, false];
            inp.issue_src_fill = [0; 3];
            inp.issue_strand = cycle == 11;
            (inp.issue_tag, inp.issue_src_reg, inp.issue_src_level, inp.issue_src_entry) = match cycle {
                // A: r1 from ORF0, r2 from LRF1.
                3 => (0xA, [1, 2, 0], [orf, lrf, mrf], [0, 1, 0]),
                // B: r3 from the MRF, filling ORF1.
                5 => {
                    inp.issue_src_fill = [orf, 0, 0];
                    (0xB, [3, 0, 0], [mrf; 3], [1, 0, 0])
                }
                // C, a strand start: r3 from ORF1, r4 from ORF2.
                11 => (0xC, [3, 4, 0], [orf, orf, mrf], [1, 2, 0]),
                // D: r1 from ORF0, invalid since C.
                _ => (0xD, [1, 0, 0], [orf, mrf, mrf], [0; 3]),
            };
            let out = m.outputs();
            let sources = (out.disp_src_data[0][0], out.disp_src_data[1][0]);
            log.push((out.disp_valid.then_some((out.disp_tag, sources)), out.fill_busy));
            m.tick(&inp);
        }
        let at = |c: usize| log[c];
        assert_eq!(at(4), (Some((0xA, (11, 22))), 0), "A's upper-level sources are read at issue: offered in t+1");
        assert_eq!(at(6), (None, 1), "B's fill holds warp 0 from the cycle after its issue");
        assert_eq!(at(8), (None, 1), "B's read has arrived; the write-back to ORF2 takes the write port");
        assert_eq!(at(9), (None, 1), "the fill is written at this edge");
        assert_eq!(at(10), (Some((0xB, (33, 22))), 0), "B is offered one cycle after its fill (t+5 here)");
        assert_eq!(at(12).0, Some((0xC, (33, 44))), "C reads the filled entry and r4's, before its strand start");
        assert_eq!(at(14).0.map(|(t, s)| (t, s.0)), Some((0xD, 0)), "D's ORF0 is invalid: it reads zero");
        let o = &m.stats().orf;
        assert_eq!((o.orf_reads, o.lrf_reads, o.orf_writes, o.lrf_writes), (4, 1, 3, 1));
        assert_eq!((o.fills, o.fill_waits, o.mrf_writes_skipped, m.stats().mrf_writes), (1, 1, 1, 3));
    }
}

mod tfet_tests {
    use super::*;

    /// The TFET timing example of docs/mrf.md, cycle by cycle: 2 bank groups of 16 rows, rows
    /// 10..15 TFET, so physical register `p` is in group `p mod 2`, row `p / 2`, TFET from 20 on.
    #[test]
    fn documented_tfet_timing() {
        let checked = rfgen_gen::config::parse(
            "[sm]\nwarps = 4\nlanes = 8\nclusters = 2\nregisters_per_thread = 8\n[mrf]\nbanks = 4\nentries = 16\ncollectors = 2\ntag_bits = 4\n[rename]\nenabled = true\ncmos_rows = 10\n",
        )
        .unwrap();
        let g = checked.geometry.clone();
        assert!(g.renamed && g.has_tfet() && g.tfet_row == 10);
        let mut m = Mrf::for_config(&checked);
        let mut inp = MrfIn::new(&g);
        inp.disp_ready = true;
        // (wb_ready, wb_commit, offered tag and its first two sources)
        let mut log = Vec::new();
        let mut held = false;
        for cycle in 0..27 {
            // Write-backs: p1 (CMOS) = 11 in cycle 0, p21 (TFET) = 22 in cycle 1, p3 (CMOS) = 33
            // offered in cycle 2 and held while the port finishes the TFET write.
            let wb = [(0, 1, 11), (1, 21, 22), (2, 3, 33)].into_iter().find(|w| w.0 == cycle);
            if let Some((_, reg, value)) = wb {
                (inp.wb_reg, inp.wb_mask) = (reg, lane_mask(g.lanes as usize));
                inp.wb_data.fill(value);
                held = true;
            }
            inp.wb_valid = held;
            // A reads p1 (CMOS), B reads p21 (TFET), C reads p3 and p21 (both in group 1).
            inp.issue_valid = matches!(cycle, 4 | 10 | 20);
            (inp.issue_tag, inp.issue_src_valid, inp.issue_src_reg) = match cycle {
                4 => (0xA, [true, false, false], [1, 0, 0]),
                10 => (0xB, [true, false, false], [21, 0, 0]),
                _ => (0xC, [true, true, false], [3, 21, 0]),
            };
            let out = m.outputs();
            let sources = (out.disp_src_data[0][0], out.disp_src_data[1][0]);
            log.push((out.wb_ready, out.wb_commit, out.disp_valid.then_some((out.disp_tag, sources))));
            held &= !out.wb_ready;
            m.tick(&inp);
        }
        let at = |c: usize| log[c];
        assert_eq!(at(0), (true, false, None));
        assert_eq!(at(1), (true, false, None), "a CMOS write leaves the port free");
        assert_eq!(at(2), (false, true, None), "the TFET write finishes: the offer of p3 is held");
        assert_eq!(at(3), (true, false, None), "p3 is taken");
        assert_eq!(at(4), (true, false, None));
        let first = |c: usize| at(c).2.map(|(tag, s)| (tag, s.0));
        assert_eq!(at(6).2, None);
        assert_eq!(first(7), Some((0xA, 11)), "a CMOS read: offered in t+3");
        assert_eq!(at(13).2, None);
        assert_eq!(first(14), Some((0xB, 22)), "a TFET read: offered in t+4");
        // C (unit 0, whose slot 0 group 1's arbiter granted last): p21 (slot 1) is granted in
        // 21, group 1 is busy in 22, p3 (slot 0) is granted in 23; C is offered in 25.
        assert_eq!(at(24).2, None);
        assert_eq!(at(25).2, Some((0xC, (33, 22))), "p3 waited for the TFET read and its busy cycle");
        let s = m.stats();
        assert_eq!((s.operand_reads, s.tfet_reads, s.mrf_writes, s.tfet_writes), (4, 2, 3, 1));
        assert_eq!((s.bank_conflicts, s.wb_stall_cycles), (2, 1), "p3's read waited twice, its write once");
    }
}
