//! `rfgen sim`: run a kernel on the SM model and report performance, traffic and energy.

use super::{ConfigSource, bad_input};
use anyhow::Context as _;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rfgen_model::kernel::alloc::{Level, Placement};
use rfgen_model::kernel::parse::mnemonic_of;
use rfgen_model::kernel::ptx::PtxKernel;
use rfgen_model::kernel::{Kernel, library, synthetic};
use rfgen_model::sim::allocation::{AllocationReport, allocation_report};
use rfgen_model::sim::{CompressionReport, Grid, OrfReport, RenameReport, RfcReport, SimReport, simulate};
use rfgen_model::sm::SimStats;
use rfgen_model::sm::stats::Histogram;
use std::process::ExitCode;

/// Run a kernel on the golden SM model: IPC, stalls, register-file traffic, value statistics, energy
#[derive(Args)]
#[command(after_help = "Examples:
  rfgen sim --list-kernels
  rfgen sim --kernel matmul
  rfgen sim --preset baseline --kernel bfs --format json
  rfgen sim --kernel my_kernel.kir
  rfgen sim --kernel workloads/sgemm.ptx           # CUDA C compiled to PTX, launch in sgemm.toml
  rfgen sim --synthetic length=2000,long_latency=0.07,seed=3
  rfgen sim --kernel matmul --show-allocation   # ORF/LRF levels of each operand (docs/orf-lrf.md)

Exit status: 0 when the kernel ran with no operand mismatch, 1 on mismatches or a kernel fault,
2 on bad input (config, kernel file, flag).")]
pub struct SimArgs {
    #[command(flatten)]
    source: ConfigSource,
    /// Library kernel name, .kir file, .ptx file (launched as the .toml beside it says) or
    /// ptx:NAME (a PTX workload built in, see --list-kernels)
    #[arg(long, value_name = "NAME|FILE", conflicts_with = "synthetic")]
    kernel: Option<String>,
    /// Generate a synthetic kernel; KNOBS is key=value,... (see docs/sim.md)
    #[arg(long, value_name = "KNOBS")]
    synthetic: Option<String>,
    /// List the library kernels and the built-in PTX workloads, and exit
    #[arg(long)]
    list_kernels: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Stop with an error after this many cycles (at most 10^10)
    #[arg(long, default_value_t = 200_000_000, value_parser = super::cycles)]
    max_cycles: u64,
    /// Also show the ORF/LRF allocation of the config's [orf] section: each instruction's
    /// operand levels, and the register-file traffic and energy it gives on this run
    #[arg(long)]
    show_allocation: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// The kernel to run and, for a PTX kernel, the PTX kernel (what register allocation gave).
fn load_kernel(args: &SimArgs, registers_per_thread: u32) -> anyhow::Result<(Kernel, Option<PtxKernel>)> {
    if let Some(knobs) = &args.synthetic {
        let knobs = synthetic::Knobs::parse(knobs).map_err(|e| bad_input(format!("--synthetic: {e}")))?;
        return Ok((synthetic::generate(&knobs), None));
    }
    let Some(name) = &args.kernel else {
        return Err(bad_input(
            "give --kernel NAME|FILE or --synthetic KNOBS (rfgen sim --list-kernels names the library)",
        ));
    };
    if super::ptx::names_ptx(name) {
        let (k, _) = super::ptx::load_within(name, registers_per_thread)?;
        return Ok((k.kernel.clone(), Some(k)));
    }
    Ok((super::kernel(name)?, None))
}

/// The file whose lines a fault names: the kernel file given, or the built-in one.
fn source_file(args: &SimArgs) -> Option<String> {
    let spec = args.kernel.as_deref().filter(|s| !s.starts_with("synthetic:"))?;
    if let Some(name) = spec.strip_prefix(super::ptx::WORKLOAD_PREFIX) {
        return Some(format!("workloads/{name}.ptx"));
    }
    if spec.ends_with(".toml") {
        // The launch file names its PTX, or sits beside one of its name.
        let beside = std::path::Path::new(spec).with_extension("ptx");
        return Some(if beside.exists() { beside.display().to_string() } else { format!("the PTX {spec} launches") });
    }
    // A library name is the built-in kernel, as `--kernel` takes it.
    if library::find(spec).is_some() {
        return Some(format!("kernels/{spec}.kir"));
    }
    Some(spec.to_string())
}

pub fn run(args: SimArgs) -> anyhow::Result<ExitCode> {
    if args.list_kernels {
        for k in library::KERNELS {
            println!("{:<16} {}", k.name, k.about);
        }
        for spec in super::ptx::workload_specs() {
            let file = format!("workloads/{}.ptx", &spec[super::ptx::WORKLOAD_PREFIX.len()..]);
            println!("{spec:<16} CUDA C compiled to PTX ({file}, built in)");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let checked = args.source.load()?;
    let (kernel, ptx) = load_kernel(&args, checked.config.sm.registers_per_thread)?;
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
    let report = simulate(&checked, &kernel, args.max_cycles, &mut |c| bar.set_message(format!("{c} cycles")))
        .map_err(|e| match e {
            rfgen_model::sm::SimError::DoesNotFit(m) => bad_input(m),
            // Found while running: a failure of the kernel, not bad input.
            rfgen_model::sm::SimError::Exec(e) => {
                anyhow::anyhow!(
                    "kernel {} faulted{} at {e}",
                    kernel.name,
                    source_file(&args).map_or(String::new(), |f| format!(" in {f}"))
                )
            }
            other => anyhow::Error::new(other),
        })
        .with_context(|| format!("simulating {} on {}", kernel.name, checked.config.name))?;
    bar.finish_and_clear();
    let allocation = args.show_allocation.then(|| allocation_report(&checked, &kernel, &report.stats.executed));
    match args.format {
        Format::Json => {
            let mut json = serde_json::to_value(&report)?;
            if let Some((_, a)) = &allocation {
                json["allocation"] = serde_json::to_value(a)?;
            }
            if let Some(k) = &ptx {
                json["ptx"] = serde_json::json!({
                    "registers": k.kernel.regs,
                    "virtual_registers": k.virtual_registers,
                    "predicates": k.predicates,
                    "spilled": k.spilled,
                });
            }
            println!("{}", serde_json::to_string_pretty(&json)?);
        }
        Format::Text => {
            print_text(&report, ptx.as_ref().map(super::ptx::allocation_summary));
            if let Some((place, a)) = &allocation {
                print_allocation(&kernel, place, a);
            }
        }
    }
    let s = &report.stats;
    if s.operand_mismatches == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    if s.war_hazards == s.operand_mismatches {
        eprintln!(
            "error: {} operands were overwritten by a later instruction of their warp before they were read (write-after-read hazards); set warpboard.policy to prevent them",
            s.war_hazards
        );
    } else {
        eprintln!(
            "error: {} operands differ from the kernel's values ({} of them write-after-read hazards)",
            s.operand_mismatches, s.war_hazards
        );
    }
    Ok(ExitCode::from(1))
}

fn pct(part: u64, whole: u64) -> String {
    format!("{:.1}%", 100.0 * part as f64 / whole.max(1) as f64)
}

fn hist(h: &Histogram) -> String {
    h.bins.iter().enumerate().map(|(i, b)| format!("{b}: {:.1}%", h.percent(i))).collect::<Vec<_>>().join("  ")
}

/// `16 blocks of 256 threads`, or `2 x 16 blocks of 64 threads` for a two-dimensional grid.
fn grid(g: &Grid) -> String {
    let blocks =
        if g.blocks_y > 1 { format!("{} x {}", g.blocks / g.blocks_y, g.blocks_y) } else { g.blocks.to_string() };
    format!("{blocks} blocks of {} threads", g.threads)
}

/// What a report says of a scaled launch.
pub fn scaled_launch(declared: &Grid, launched: &Grid) -> String {
    format!(
        "{} (declared {}; its block does not fit the SM, so the threads per block were halved, docs/kernel-ir.md)",
        grid(launched),
        grid(declared)
    )
}

/// The report; `registers` says what register allocation gave a PTX kernel.
fn print_text(r: &SimReport, registers: Option<String>) {
    let s = &r.stats;
    let n = s.warp_instructions;
    let row = |k: &str, v: String| println!("  {k:<28} {v}");
    println!("sim {} on {} (config hash {}), scheduler {}", r.kernel, r.config, r.config_hash, r.scheduler);
    if s.sms > 1 {
        row("SMs", format!("{} (sharing global memory, DRAM bandwidth and the blocks; counts are totals)", s.sms));
    }
    if let Some(l) = &r.launch {
        row("launch", scaled_launch(&l.declared, &l.launched));
    }
    if let Some(registers) = registers {
        row("registers", registers);
    }
    row("cycles", s.cycles.to_string());
    if let Some(t) = &r.timing {
        let cost = format!("{:+.1}%", 100.0 * t.slowdown);
        row("pipeline stages", format!("{}: {cost} cycles ({} with none)", t.options.join(", "), t.cycles_without));
    }
    row(
        "warp instructions",
        format!("{n} ({} thread instructions, {} divergent)", s.thread_instructions, pct(s.divergent_instructions, n)),
    );
    row("IPC", format!("{:.3} (issue width 1)", r.ipc));
    let o = &s.occupancy;
    let limit = if o.usable_slots < o.warp_slots {
        format!("{} with register rows ({} rows per warp)", o.usable_slots, o.rows_per_warp)
    } else {
        "all with register rows".into()
    };
    row("occupancy", format!("peak {} warps resident of {} warp slots, {limit}", o.peak_warps, o.warp_slots));
    let st = &s.stalls;
    // Every SM has one issue slot per cycle.
    let slots = s.cycles * u64::from(s.sms.max(1));
    row(
        "issue slots",
        format!(
            "issued {}, scoreboard {}, warpboard {}, collector full {}, barrier {}, descheduled {}, no warp {}",
            pct(st.issued, slots),
            pct(st.scoreboard, slots),
            pct(st.warpboard, slots),
            pct(st.collector_full, slots),
            pct(st.barrier, slots),
            pct(st.descheduled, slots),
            pct(st.no_warp, slots)
        ),
    );
    row(
        "instruction mix",
        format!(
            "ALU {} SFU {} shared {} global {} texture {} control {}",
            s.alu, s.sfu, s.shared, s.global, s.texture, s.control
        ),
    );
    if s.deschedules > 0 {
        row("two-level deschedules", s.deschedules.to_string());
    }
    if s.rename.is_some() {
        row("no physical register free", pct(st.no_register, s.cycles));
    }
    println!("main register file");
    let m = &s.mrf;
    row(
        "reads",
        format!(
            "{} warp registers ({:.2} per instruction), {} bank reads",
            m.reads,
            m.reads as f64 / n.max(1) as f64,
            m.bank_reads
        ),
    );
    row(
        "writes",
        format!(
            "{} warp registers ({:.2} per instruction), {} bank writes",
            m.writes,
            m.writes as f64 / n.max(1) as f64,
            m.bank_writes
        ),
    );
    row("bank conflicts", m.bank_conflicts.to_string());
    println!("operand values (SPEC section 7 / seed 004 section 3 figures in brackets)");
    let v = &s.values;
    row("reads per value", format!("{}  [up to 70% read once, ~10% more than twice]", hist(&v.reads_per_value)));
    row(
        "read once within 3 instr.",
        format!("{}  [up to 40-50%]", pct(v.read_once_within_3, v.reads_per_value.total())),
    );
    row("lifetime (instructions)", hist(&v.lifetime));
    row("lifetime, values read once", format!("{}  [Fig. 2b]", hist(&v.read_once_lifetime)));
    row("reads by SFU/MEM/TEX", format!("{}  [7%]", pct(v.reads_by_sfu_mem_tex, v.reads)));
    row("non-divergent instructions", format!("{}  [79%]", pct(n - s.divergent_instructions, n)));
    row("lane deltas, full mask", hist(&v.lane_delta_non_divergent));
    row("lane deltas, divergent", hist(&v.lane_delta_divergent));
    row("full-mask writes within 2^15", format!("{}  [79%]", pct(v.writes_within_2_15, v.non_divergent_writes)));
    println!("energy (SPEC section 6; terms: {})", r.energy.terms.join(", "));
    row("MRF access", format!("{:.1} nJ", r.energy.mrf_access_pj / 1000.0));
    row("MRF wire", format!("{:.1} nJ", r.energy.mrf_wire_pj / 1000.0));
    if r.rfc.is_some() {
        row("RFC access", format!("{:.1} nJ", r.energy.rfc_access_pj / 1000.0));
        row("RFC wire", format!("{:.1} nJ", r.energy.rfc_wire_pj / 1000.0));
    }
    if r.orf.is_some() {
        row("ORF access", format!("{:.1} nJ", r.energy.orf_access_pj / 1000.0));
        row("ORF wire", format!("{:.1} nJ", r.energy.orf_wire_pj / 1000.0));
        row("LRF access", format!("{:.1} nJ", r.energy.lrf_access_pj / 1000.0));
        row("LRF wire", format!("{:.1} nJ", r.energy.lrf_wire_pj / 1000.0));
    }
    row(
        "total",
        format!(
            "{:.1} nJ ({:.1} pJ per warp instruction)",
            r.energy.total_pj / 1000.0,
            r.energy.total_pj / n.max(1) as f64
        ),
    );
    match &r.baseline {
        Some(b) => row(
            "vs baseline preset",
            format!("{:.3}x ({:.1} nJ, {} cycles)", b.energy_ratio, b.energy_pj / 1000.0, b.cycles),
        ),
        None if r.config_hash == rfgen_gen::config::preset("baseline").map(|b| b.hash()).unwrap_or_default() => {
            row("vs baseline preset", "1.000x (this is the baseline)".into())
        }
        None => row("vs baseline preset", "n/a (the kernel does not fit the baseline SM)".into()),
    }
    if let Some(c) = &r.compression {
        print_compression(r, c);
    }
    if let Some(c) = &r.rfc {
        print_rfc(r, c);
    }
    if let Some(o) = &r.orf {
        print_orf(r, o);
    }
    if let Some(n) = &r.rename {
        print_rename(r, n);
    }
    print_correctness(s);
}

/// Seed 004's figures beside ours: compression ratios, banks, gating, dummy MOVs, energy.
fn print_compression(r: &SimReport, c: &CompressionReport) {
    let row = |k: &str, v: String| println!("  {k:<28} {v}");
    let s = &r.stats;
    use rfgen_model::sim::{
        PAPER_DUMMY_MOV_SHARE, PAPER_ENERGY_REDUCTION, PAPER_RATIO_DIVERGENT, PAPER_RATIO_NON_DIVERGENT,
    };
    println!("compression (seed 004; paper figures in brackets)");
    let ratio = |bits: Option<f64>, banks: Option<f64>| match (bits, banks) {
        (Some(b), Some(k)) => format!("{b:.2} by bits, {k:.2} by banks"),
        _ => "n/a (no such writes)".to_string(),
    };
    let (nd, d) =
        (ratio(c.bit_ratio_non_divergent, c.ratio_non_divergent), ratio(c.bit_ratio_divergent, c.ratio_divergent));
    row("ratio, non-divergent writes", format!("{nd}  [{PAPER_RATIO_NON_DIVERGENT} by bits]"));
    row("ratio, divergent writes", format!("{d}  [{PAPER_RATIO_DIVERGENT} by bits]"));
    row("banks per read / write", format!("{:.2} / {:.2}", c.banks_per_read, c.banks_per_write));
    row(
        "power-gated bank-cycles",
        format!("{} ({:.1}% of all bank-cycles)", c.gated_bank_cycles, 100.0 * c.gated_share),
    );
    row(
        "dummy MOVs",
        format!(
            "{} ({:.2}% of instructions)  [< {:.0}%]",
            c.dummy_movs,
            100.0 * c.dummy_mov_share,
            100.0 * PAPER_DUMMY_MOV_SHARE
        ),
    );
    let t = &c.energy;
    row(
        "energy (Table 3)",
        format!(
            "{:.1} nJ: banks {:.1}, wires {:.1}, leakage {:.1}, compressors {:.1}, decompressors {:.1}",
            t.total_pj / 1000.0,
            t.dynamic_pj / 1000.0,
            t.wire_pj / 1000.0,
            t.leakage_pj / 1000.0,
            t.compressor_pj / 1000.0,
            t.decompressor_pj / 1000.0
        ),
    );
    // One comparison per accounting, both against the same SM without compression.
    row("vs without compression", format!("{} vs {} cycles", s.cycles, c.uncompressed_cycles));
    row(
        "  energy, Table 3 terms",
        format!(
            "{:+.1}% ({:+.1}% dynamic, {:+.1}% leakage; {})  [{:+.0}%]",
            -100.0 * c.reduction,
            -100.0 * c.dynamic_reduction,
            -100.0 * c.leakage_reduction,
            c.table3_terms.join(", "),
            -100.0 * PAPER_ENERGY_REDUCTION
        ),
    );
    row("  energy, SPEC §6 terms", format!("{:+.1}% ({})", -100.0 * c.spec6_reduction, c.spec6_terms.join(", ")));
}

/// Operand mismatches against the functional values, WAR hazards and reads of unwritten registers.
fn print_correctness(s: &SimStats) {
    let row = |k: &str, v: String| println!("  {k:<28} {v}");
    println!("correctness");
    row("operand mismatches", s.operand_mismatches.to_string());
    if s.war_hazards > 0 {
        row(
            "WAR hazards",
            format!(
                "{} of them: a later instruction of the warp wrote the register back before it was read (warpboard.policy = \"none\")",
                s.war_hazards
            ),
        );
    }
    if s.undefined_reads > 0 {
        row("warning", format!("the kernel read {} lanes of registers it never wrote", s.undefined_reads));
    }
    for e in &s.mismatch_examples {
        let war = e.war_writer_line.map(|l| format!(" (WAR: overwritten by line {l})")).unwrap_or_default();
        println!(
            "    cycle {} warp {} line {} operand {} lane {}: expected 0x{:08x}, delivered 0x{:08x}{war}",
            e.cycle, e.warp, e.line, e.operand, e.lane, e.expected, e.actual
        );
    }
}

fn print_orf(r: &SimReport, o: &OrfReport) {
    use rfgen_model::sim::{PAPER_HW_RFC_ENERGY_REDUCTION as PR, PAPER_ORF_ENERGY_REDUCTION as PO};
    let row = |k: &str, v: String| println!("  {k:<28} {v}");
    let t = r.stats.orf.as_ref().expect("an ORF report comes with ORF traffic");
    let lrf = serde_json::to_value(o.lrf).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    println!("operand register file and last result file (seed 001 ch. 6; paper figures in brackets)");
    row("size", format!("{} ORF entries per thread, LRF {lrf}", o.entries));
    let [m, orf, l] = o.reads_per_instruction;
    row(
        "reads per instruction",
        format!("MRF {m:.2}, ORF {orf:.2}, LRF {l:.2} (without: MRF {:.2})", o.plain_reads_per_instruction),
    );
    let [m, orf, l] = o.writes_per_instruction;
    row(
        "writes per instruction",
        format!("MRF {m:.2}, ORF {orf:.2}, LRF {l:.2} (without: MRF {:.2})", o.plain_writes_per_instruction),
    );
    row(
        "fills, MRF writes skipped",
        format!(
            "{} fills ({} cycles waiting for the write port), {} write-backs kept out of the MRF",
            t.fills, t.fill_waits, t.mrf_writes_skipped
        ),
    );
    row(
        "cycles",
        format!("{} vs {} without the ORF/LRF, {} with the hardware RFC", r.stats.cycles, o.plain_cycles, o.rfc_cycles),
    );
    row(
        "energy vs no ORF/LRF",
        format!(
            "{:+.1}% ({:.1} nJ vs {:.1} nJ)  [{:+.0}%]",
            -100.0 * (1.0 - o.energy_ratio),
            r.energy.total_pj / 1000.0,
            o.plain_energy.total_pj / 1000.0,
            -100.0 * PO
        ),
    );
    row(
        "hardware RFC instead",
        format!("{:+.1}% (isca11-rfc's [rfc])  [{:+.0}%]", -100.0 * (1.0 - o.rfc_energy_ratio), -100.0 * PR),
    );
}

fn print_rename(r: &SimReport, n: &RenameReport) {
    let row = |k: &str, v: String| println!("  {k:<28} {v}");
    let t = r.stats.rename.as_ref().expect("a rename report comes with rename statistics");
    println!("renaming, hybrid CMOS/TFET register file (seed 003; paper figures in brackets)");
    row("physical registers", format!("{} ({} CMOS, {} TFET)", t.physical, t.cmos, t.physical - t.cmos));
    row(
        "renamed destinations",
        format!(
            "{}: {} asked for TFET (MEM_RA), {} got TFET ({:.1}%), {} fell back; {} partial writes kept theirs",
            t.renames,
            t.tfet_requests,
            t.tfet_given,
            100.0 * n.tfet_share,
            t.fallbacks,
            t.kept
        ),
    );
    row(
        "values died",
        format!(
            "{} at a last read, {} replaced, {} at warp exit",
            t.died_at_last_read, t.died_replaced, t.died_at_exit
        ),
    );
    row(
        "registers in use",
        format!("peak {} live; ever handed out {} CMOS, {} TFET", t.peak_live, t.cmos_used, t.tfet_used),
    );
    row("TFET accesses", format!("{} reads, {} writes (warp registers)", t.tfet_reads, t.tfet_writes));
    row("stalls, no register free", format!("{} cycles", n.no_register_stalls));
    if let Some(t) = &r.stats.tuba {
        row("TUBA block limits", format!("lowered {} times, raised {} times", t.lowered, t.raised));
    }
    let e = &n.energy;
    row(
        "energy",
        format!(
            "{:.1} nJ: CMOS {:.1}, TFET {:.1}, wires {:.1}, leakage CMOS {:.1}, TFET {:.1} ({})",
            e.total_pj / 1000.0,
            e.cmos_access_pj / 1000.0,
            e.tfet_access_pj / 1000.0,
            e.wire_pj / 1000.0,
            e.cmos_leakage_pj / 1000.0,
            e.tfet_leakage_pj / 1000.0,
            n.terms.join(", ")
        ),
    );
    row(
        "assumed",
        format!(
            "a TFET row leaks {} of a CMOS row (energy.tfet_leakage_ratio; the paper gives no figure), leakage at {} GHz (energy.clock_ghz)",
            n.tfet_leakage_ratio, n.clock_ghz
        ),
    );
    println!(
        "  {:<16} {:>9} {:>9} {:>10} {:>7} {:<14} config",
        "design", "cycles", "slowdown", "energy", "change", "[paper]"
    );
    for d in &n.designs {
        let paper = match (d.paper_energy_reduction, d.paper_slowdown) {
            (Some(e), Some(p)) => format!("[{:+.0}%, {:+.0}%]", -100.0 * e, 100.0 * p),
            (Some(e), None) => format!("[{:+.0}%]", -100.0 * e),
            _ => "reference".into(),
        };
        println!(
            "  {:<16} {:>9} {:>+8.1}% {:>7.1} nJ {:>+6.1}% {:<14} {}",
            d.name,
            d.cycles,
            100.0 * d.slowdown,
            d.energy.total_pj / 1000.0,
            -100.0 * d.energy_reduction,
            paper,
            d.config
        );
    }
}

fn print_rfc(r: &SimReport, c: &RfcReport) {
    use rfgen_model::sim::{PAPER_RFC_READ_REDUCTION as PR, PAPER_RFC_WRITE_REDUCTION as PW};
    let row = |k: &str, v: String| println!("  {k:<28} {v}");
    let t = r.stats.rfc.as_ref().expect("an RFC report comes with RFC traffic");
    println!("register file cache (seed 000; paper figures in brackets)");
    row("size", format!("{} entries x {} warp slots", c.entries, c.slots));
    row("read hits", format!("{} ({:.1}% of source operands)", t.read_hits, 100.0 * c.hit_rate));
    row(
        "write-backs kept",
        format!("{} allocated, {} into their entry, {} bypassed to the MRF", t.allocations, t.write_hits, t.bypasses),
    );
    row(
        "written back to the MRF",
        format!(
            "{} evictions, {} by {} flushes; {} dead entries dropped",
            t.evictions, t.flush_writes, t.flushes, t.dead_evictions
        ),
    );
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    row(
        "MRF reads",
        format!(
            "{} vs {} without the RFC: -{}  [-{:.0} to -{:.0}%]",
            c.mrf_reads,
            c.uncached_mrf_reads,
            pct(c.read_reduction),
            100.0 * PR.0,
            100.0 * PR.1
        ),
    );
    row(
        "MRF writes",
        format!(
            "{} vs {} without the RFC: -{}  [-{:.0} to -{:.0}%]",
            c.mrf_writes,
            c.uncached_mrf_writes,
            pct(c.write_reduction),
            100.0 * PW.0,
            100.0 * PW.1
        ),
    );
    row("cycles", format!("{} vs {} without the RFC", r.stats.cycles, c.uncached_cycles));
    row(
        "energy vs without the RFC",
        format!(
            "{:.3}x ({:.1} nJ vs {:.1} nJ)",
            c.energy_ratio,
            r.energy.total_pj / 1000.0,
            c.uncached_energy.total_pj / 1000.0
        ),
    );
    for t5 in &c.table5 {
        row(
            &format!("  MRF {} mm, RFC {} mm", t5.mrf_mm, t5.rfc_mm),
            format!("{:.3}x  [Table 5: {:.2}]", t5.energy_ratio, t5.paper),
        );
    }
}

fn level(l: Level) -> String {
    match l {
        Level::Mrf => "MRF".into(),
        Level::Orf(e) => format!("ORF{e}"),
        Level::Lrf(e) => format!("LRF{e}"),
    }
}

fn print_allocation(k: &Kernel, place: &[Placement], a: &AllocationReport) {
    println!(
        "allocation ([orf] entries = {}, lrf = {}; docs/orf-lrf.md)",
        a.orf_entries,
        serde_json::to_value(a.lrf).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    );
    println!("  {:>4} {:>5}  {:<10} operands: destination -> levels; sources <- level", "pc", "line", "op");
    for (pc, (ins, p)) in k.code.iter().zip(place).enumerate() {
        let mut parts = Vec::new();
        if let Some(d) = ins.dst {
            let mut to: Vec<String> = p.dst_mrf.then(|| "MRF".to_string()).into_iter().collect();
            to.extend(p.dst_upper.map(level));
            parts.push(format!("r{d} -> {}", to.join("+")));
        }
        for (slot, r) in ins.src_regs() {
            let fill = p.fill[slot].map(|l| format!(" (fills {})", level(l))).unwrap_or_default();
            parts.push(format!("r{r} <- {}{fill}", level(p.src[slot])));
        }
        println!("  {pc:>4} {:>5}  {:<10} {}", k.pos[pc].line, mnemonic_of(ins.op), parts.join(", "));
    }
    let row = |k: &str, v: String| println!("  {k:<28} {v}");
    let [r, w] = [a.reads_per_instruction, a.writes_per_instruction];
    row(
        "reads / warp instruction",
        format!(
            "MRF {:.2}, ORF {:.2}, LRF {:.2} (all in the MRF: {:.2})",
            r[0], r[1], r[2], a.baseline_reads_per_instruction
        ),
    );
    row(
        "writes / warp instruction",
        format!(
            "MRF {:.2}, ORF {:.2}, LRF {:.2} (all in the MRF: {:.2})",
            w[0], w[1], w[2], a.baseline_writes_per_instruction
        ),
    );
    row("register-file energy", format!("{:.3} x all operands in the MRF ({})", a.energy_ratio, a.terms.join(", ")));
}
