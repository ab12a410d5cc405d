//! Place and route of a design's top on an FPGA with nextpnr (`rfgen synth --pnr`): the
//! achieved clock frequency, the resources used and the critical path.
//!
//! A generated top has far more ports than an FPGA has pins, so it is placed inside a wrapper
//! (`<top>_pnr`, written beside the RTL): every input but the clock comes from a shift register
//! fed by one pin, and every output is registered twice and XOR-reduced to one pin by a tree
//! with a register at each level, 16 bits per flip-flop. Every path of the design then starts
//! and ends at a flip-flop, and no logic is optimized away (each output reaches the pin). Twice, because Yosys merges a register right
//! after a memory's read port into the block RAM: the output's path then ran on through the
//! wrapper's XOR tree, and the rename stage measured the tree's delay, not its own.

use super::Target;
use anyhow::{Context, Result, anyhow, bail};
use rfgen_gen::verilog::{Dir, Port};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::process::Command;

/// Bits XOR-reduced into one flip-flop at each level of the wrapper's output tree: two LUT4
/// levels, so that no path of the wrapper's own is longer than the design's (with 64, three
/// levels and the flip-flop placed among the others, the wrapper set the BDI codec's clock).
const XOR_GROUP: u32 = 16;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pnr {
    /// The nextpnr that ran, and the device.
    pub tool: String,
    pub device: String,
    pub clock: String,
    pub router: Router,
    pub constraint_mhz: f64,
    pub fmax_mhz: f64,
    /// Resources used, `(kind, used, available)`, those used only.
    pub utilization: Vec<(String, u64, u64)>,
    /// The critical path's first and last cell and its delay in ns.
    pub critical_from: String,
    pub critical_to: String,
    pub critical_ns: f64,
    pub wrapper: String,
    /// The placement kept, the fastest (`--seeds`; 1 is nextpnr's default seed), and every
    /// placement's Fmax in MHz, seed by seed.
    #[serde(default = "one")]
    pub seed: u32,
    #[serde(default)]
    pub fmax_by_seed: Vec<f64>,
}

fn one() -> u32 {
    1
}

/// How to place and route: the clock to aim at, nextpnr's router, and how many placements to
/// try (nextpnr's default seed, then `--seed 2` … `--seed N`), keeping the fastest.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PnrSettings {
    pub freq_mhz: f64,
    pub router: Router,
    #[serde(default = "one")]
    pub seeds: u32,
}

/// nextpnr's router. `router1`, nextpnr's default, reaches the better Fmax where it routes;
/// `router2` routes designs too congested for `router1` (the default SM's MRF on ECP5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Router {
    Router1,
    Router2,
}

impl Router {
    pub fn name(self) -> &'static str {
        match self {
            Router::Router1 => "router1",
            Router::Router2 => "router2",
        }
    }
}

pub const WRAPPER: &str = "inputs from a shift register fed by one pin, outputs registered twice and XOR-reduced to one pin in a registered tree of 16-input XORs";

/// nextpnr's family name and device flags for a target.
fn device(target: Target) -> Result<(&'static str, &'static [&'static str], &'static str)> {
    match target {
        Target::Ecp5 => Ok(("ecp5", &["--85k", "--package", "CABGA381"], "LFE5U-85F CABGA381")),
        Target::Ice40 => Ok(("ice40", &["--hx8k", "--package", "ct256"], "iCE40-HX8K CT256")),
        t => bail!("--pnr places on ecp5 or ice40, not {}", t.name()),
    }
}

/// The wrapper of `top` with `ports` (see the module documentation).
pub fn wrapper(top: &str, ports: &[Port]) -> String {
    let inputs: Vec<&Port> = ports.iter().filter(|p| p.dir == Dir::Input && p.name != "clk").collect();
    let outputs: Vec<&Port> = ports.iter().filter(|p| p.dir == Dir::Output).collect();
    let n: u32 = inputs.iter().map(|p| p.width).sum();
    let m: u32 = outputs.iter().map(|p| p.width).sum();
    let mut v = format!(
        "// Place-and-route wrapper of {top}: {WRAPPER}.\n`default_nettype none\n\nmodule {top}_pnr (\n  input  wire clk,\n  input  wire din,\n  output reg  dout\n);\n"
    );
    v += &format!(
        "  reg  [{}:0] chain;\n  wire [{}:0] outs;\n  reg  [{}:0] outs_q;\n  reg  [{}:0] outs_qq;\n\n",
        n.max(1) - 1,
        m - 1,
        m - 1,
        m - 1,
    );
    v += if n > 1 { "  always @(posedge clk) chain <= {chain[" } else { "  always @(posedge clk) chain <= din;\n" };
    if n > 1 {
        v += &format!("{}:0], din}};\n", n - 2);
    }
    v += "  always @(posedge clk) outs_q <= outs;\n  always @(posedge clk) outs_qq <= outs_q;\n";
    // The XOR tree, a register at each level: `xor1` from `outs_qq`, `xor2` from `xor1`, ….
    let (mut from, mut width, mut level) = ("outs_qq".to_string(), m, 1);
    while width > XOR_GROUP {
        let groups = width.div_ceil(XOR_GROUP);
        let to = format!("xor{level}");
        v += &format!("  reg  [{}:0] {to};\n", groups - 1);
        for g in 0..groups {
            let (lo, hi) = (g * XOR_GROUP, ((g + 1) * XOR_GROUP).min(width) - 1);
            v += &format!("  always @(posedge clk) {to}[{g}] <= ^{from}[{hi}:{lo}];\n");
        }
        (from, width, level) = (to, groups, level + 1);
    }
    v += &format!("  always @(posedge clk) dout <= ^{from};\n\n");
    let mut conns = Vec::new();
    let mut at = 0;
    for p in ports.iter().filter(|p| p.dir == Dir::Input) {
        if p.name == "clk" {
            conns.push("    .clk(clk)".to_string());
            continue;
        }
        conns.push(format!("    .{}(chain[{}:{}])", p.name, at + p.width - 1, at));
        at += p.width;
    }
    let mut at = 0;
    for p in &outputs {
        conns.push(format!("    .{}(outs[{}:{}])", p.name, at + p.width - 1, at));
        at += p.width;
    }
    v += &format!("  {top} u_top (\n{}\n  );\nendmodule\n\n`default_nettype wire\n", conns.join(",\n"));
    v
}

/// The nextpnr to run for `family`: `nextpnr-<family>` (e.g. Debian's), else the PyPI
/// `yowasp-nextpnr-<family>`.
fn tool(family: &str) -> Result<String> {
    for name in [format!("nextpnr-{family}"), format!("yowasp-nextpnr-{family}")] {
        if Command::new(&name).arg("--version").output().is_ok_and(|o| o.status.success()) {
            return Ok(name);
        }
    }
    bail!(
        "--pnr needs nextpnr-{family} on PATH (Debian: `apt-get install nextpnr-{family}` where packaged; PyPI: `pip install yowasp-nextpnr-{family}`)"
    )
}

/// Places and routes `netlist` (Yosys JSON of the wrapper, in `dir`) once per seed of
/// `settings` and keeps the fastest placement. Placement decides most of a path's routing, so
/// one design's Fmax varies by seed: the `small` MRF with its registered dispatch measured
/// 135.3, 154.7 and 134.8 MHz with seeds 1 to 3.
pub fn run(dir: &Path, netlist: &str, target: Target, settings: PnrSettings) -> Result<Pnr> {
    let (family, flags, device) = device(target)?;
    let nextpnr = Nextpnr { tool: tool(family)?, flags, device };
    let mut best: Option<Pnr> = None;
    let mut fmax_by_seed = Vec::new();
    for seed in 1..=settings.seeds.max(1) {
        let p = place(dir, netlist, &nextpnr, settings, seed)?;
        fmax_by_seed.push(p.fmax_mhz);
        if best.as_ref().is_none_or(|b| p.fmax_mhz > b.fmax_mhz) {
            best = Some(p);
        }
    }
    let mut best = best.expect("one placement at least");
    best.fmax_by_seed = fmax_by_seed;
    Ok(best)
}

/// The nextpnr a placement runs: the program, its device flags and the device's name.
struct Nextpnr {
    tool: String,
    flags: &'static [&'static str],
    device: &'static str,
}

/// One placement of `netlist` with `seed`: 1 runs nextpnr with its default seed, as `--pnr`
/// always did, so a single placement's figures stay comparable with earlier ones.
fn place(dir: &Path, netlist: &str, nextpnr: &Nextpnr, settings: PnrSettings, seed: u32) -> Result<Pnr> {
    let (tool, flags, device) = (nextpnr.tool.clone(), nextpnr.flags, nextpnr.device);
    let at = if seed == 1 { String::new() } else { format!(".seed{seed}") };
    let (report, log) = (format!("{netlist}{at}.pnr.json"), format!("{netlist}{at}.pnr.log"));
    let seed_flag = if seed == 1 { vec![] } else { vec!["--seed".to_string(), seed.to_string()] };
    let out = rfgen_cosim::children::output(
        Command::new(&tool)
            .current_dir(dir)
            .args(flags)
            .args(["--json", netlist, "--report", &report, "--log", &log, "--quiet"])
            .args(["--freq", &settings.freq_mhz.to_string(), "--router", settings.router.name()])
            .args(seed_flag)
            // A design slower than the target is a result (its Fmax), not a failure.
            .arg("--timing-allow-fail"),
    )
    .with_context(|| format!("cannot run {tool}"))?;
    if !out.status.success() {
        let text = std::fs::read_to_string(dir.join(&log)).unwrap_or_default() + &String::from_utf8_lossy(&out.stderr);
        let over: Vec<String> =
            overused(&text).iter().map(|(k, used, avail)| format!("{used} {k} of its {avail}")).collect();
        if !over.is_empty() {
            bail!(
                "the design does not fit the {device}: it needs {}; choose a smaller config\n  log: {}",
                over.join(", "),
                dir.join(&log).display()
            );
        }
        let error = text.lines().find(|l| l.contains("ERROR")).unwrap_or("no ERROR line");
        bail!("{tool} failed ({}): {}\n  log: {}", out.status, error.trim(), dir.join(&log).display());
    }
    let text = std::fs::read_to_string(dir.join(&report)).with_context(|| format!("{tool} wrote no report"))?;
    let r: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{tool}'s report is not JSON"))?;
    let (clock, f) = r["fmax"]
        .as_object()
        .and_then(|m| m.iter().next())
        .ok_or_else(|| anyhow!("{tool} reported no clock; log: {}", dir.join(&log).display()))?;
    let num = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    let mut utilization: Vec<(String, u64, u64)> = r["utilization"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v["used"].as_u64().unwrap_or(0), v["available"].as_u64().unwrap_or(0)))
        .filter(|(_, used, _)| *used > 0)
        .collect();
    utilization.sort();
    let path = r["critical_paths"].as_array().and_then(|p| p.iter().find(|p| p["from"] == p["to"]).or(p.first()));
    let steps = path.and_then(|p| p["path"].as_array()).cloned().unwrap_or_default();
    let cell = |s: Option<&serde_json::Value>, end: &str| {
        s.map(|s| s[end]["cell"].as_str().unwrap_or("").to_string()).unwrap_or_default()
    };
    Ok(Pnr {
        tool,
        device: device.into(),
        clock: clock.trim_start_matches("$glbnet$").to_string(),
        router: settings.router,
        constraint_mhz: num(&f["constraint"]),
        fmax_mhz: num(&f["achieved"]),
        utilization,
        critical_from: cell(steps.first(), "from"),
        critical_to: cell(steps.last(), "to"),
        critical_ns: steps.iter().map(|s| num(&s["delay"])).sum(),
        wrapper: WRAPPER.into(),
        seed,
        fmax_by_seed: vec![],
    })
}

/// The resources a nextpnr log's device utilisation (`Info:   TRELLIS_COMB: 99114/ 83640 118%`)
/// shows used beyond the device's, as `(kind, used, available)`.
fn overused(log: &str) -> Vec<(String, u64, u64)> {
    log.lines()
        .filter_map(|l| {
            let (kind, counts) = l.strip_prefix("Info:")?.trim().split_once(':')?;
            let (used, rest) = counts.split_once('/')?;
            let avail = rest.split_whitespace().next()?;
            Some((kind.to_string(), used.trim().parse().ok()?, avail.parse().ok()?))
        })
        .filter(|(_, used, avail)| used > avail)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(name: &str, dir: Dir, width: u32) -> Port {
        Port { name: name.into(), dir, width, comment: String::new(), is_reg: false, vector: true }
    }

    /// A table read straight to an output, as the rename stage's ids are: Yosys merges the
    /// first register after the read into the block RAM, and with one stage the wrapper's XOR
    /// tree followed the block RAM directly (34 flip-flops here: the chain, `parts`, `dout`).
    /// Every output bit must keep a flip-flop of its own.
    #[test]
    fn the_outputs_keep_a_register_before_the_xor_tree_when_yosys_merges_one_into_a_block_ram() {
        let dir = tempfile::tempdir().unwrap();
        let table = "module t (input wire clk, input wire we, input wire [9:0] wa, input wire [9:0] wd,\n  \
            input wire [9:0] ra, output wire [9:0] rd);\n  reg [9:0] m [0:1023];\n  \
            always @(posedge clk) if (we) m[wa] <= wd;\n  assign rd = m[ra];\nendmodule\n";
        let ports = [
            port("clk", Dir::Input, 1),
            port("we", Dir::Input, 1),
            port("wa", Dir::Input, 10),
            port("wd", Dir::Input, 10),
            port("ra", Dir::Input, 10),
            port("rd", Dir::Output, 10),
        ];
        std::fs::write(dir.path().join("t.v"), format!("{table}{}", wrapper("t", &ports))).unwrap();
        let out = Command::new("yosys")
            .current_dir(dir.path())
            .args(["-q", "-p", "read_verilog t.v; synth_ecp5 -top t_pnr; tee -q -o stat.txt stat"])
            .output()
            .expect("yosys runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stat = std::fs::read_to_string(dir.path().join("stat.txt")).unwrap();
        let count = |cell: &str| -> u32 {
            stat.lines().find_map(|l| l.trim().strip_prefix(cell).map(|n| n.trim().parse().unwrap())).unwrap_or(0)
        };
        assert_eq!(count("DP16KD"), 1, "the table is in block RAM:\n{stat}");
        // 31 bits of chain, 10 outputs, `parts` and `dout`: more than 31 + 10 + 1.
        assert!(count("TRELLIS_FF") > 31 + 10 + 1, "{stat}");
    }

    #[test]
    fn overused_names_the_resources_beyond_the_device() {
        let log = "Info: Device utilisation:\nInfo: \t          TRELLIS_IO:       3/    365     0%\nInfo: \t              DP16KD:     128/    208    61%\nInfo: \t        TRELLIS_COMB:  106130/  83640   126%\nInfo: Placed 3 cells based on constraints.\nERROR: Unable to find legal placement\n";
        assert_eq!(overused(log), vec![("TRELLIS_COMB".to_string(), 106130, 83640)]);
        assert!(overused("Info: TRELLIS_COMB:  7340/  83640     8%\n").is_empty());
    }
}
