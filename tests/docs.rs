//! The port tables in `docs/` against the generated RTL: every port of each block's top, over
//! design points that switch on each optional port, is listed in its doc's tables with its
//! direction, and every port the tables list exists in one of them. A port renamed, added or
//! dropped in an interface fails here until the doc says so.

use rfgen_gen::config::{self, SchedulerPolicy, WarPolicy};
use rfgen_gen::verilog::Dir;
use rfgen_gen::{Block, Checked, Design, SramKind};
use std::collections::BTreeSet;

/// A block's top module, the doc sections whose port tables describe it, and design points
/// that between them have every port it can have.
struct Documented {
    block: Block,
    /// Module name after `<prefix>_`.
    top: &'static str,
    tables: &'static [(&'static str, &'static str)],
    points: fn() -> Vec<Checked>,
}

fn preset(name: &str) -> Checked {
    config::preset(name).unwrap()
}

/// `checked` with a field changed, checked again.
fn with(mut checked: Checked, change: impl FnOnce(&mut config::Config)) -> Checked {
    change(&mut checked.config);
    config::check(checked.config).unwrap()
}

const DOCUMENTED: &[Documented] = &[
    Documented {
        block: Block::Mrf,
        top: "mrf",
        tables: &[
            ("docs/mrf.md", "## Ports of `<prefix>_mrf`"),
            ("docs/mrf.md", "## With TFET rows (register renaming)"),
            ("docs/rfc.md", "## Ports added to `<prefix>_mrf`"),
            ("docs/orf-lrf.md", "## The encoding"),
            ("docs/bdi.md", "### Ports added to `<prefix>_mrf`"),
        ],
        points: || ["baseline", "isca15-bdi", "isca11-rfc", "micro11-orf-lrf", "tfet-hybrid"].map(preset).into(),
    },
    Documented {
        block: Block::Issue,
        top: "issue",
        tables: &[("docs/issue.md", "## The stage")],
        points: || {
            let roc = with(preset("baseline"), |c| c.warpboard.policy = WarPolicy::ReleaseOnCommit);
            let trws =
                with(preset("tfet-hybrid"), |c| (c.scheduler.policy, c.rename.trws) = (SchedulerPolicy::Gto, true));
            vec![preset("war-warpboard"), preset("isca11-rfc"), preset("micro11-orf-lrf"), roc, trws]
        },
    },
    Documented {
        block: Block::Scheduler,
        top: "scheduler",
        tables: &[("docs/issue.md", "## Warp scheduler")],
        points: || {
            let trws =
                with(preset("tfet-hybrid"), |c| (c.scheduler.policy, c.rename.trws) = (SchedulerPolicy::Gto, true));
            vec![trws, preset("isca11-rfc")]
        },
    },
    Documented {
        block: Block::Scoreboard,
        top: "scoreboard",
        tables: &[("docs/issue.md", "## Scoreboard")],
        points: || vec![preset("baseline")],
    },
    Documented {
        block: Block::Warpboard,
        top: "warpboard",
        tables: &[("docs/warpboard.md", "## The generated warpboard")],
        points: || {
            let policy = |p| with(preset("war-warpboard"), |c| c.warpboard.policy = p);
            vec![preset("war-warpboard"), policy(WarPolicy::ReleaseOnCommit), policy(WarPolicy::ReleaseOnRead)]
        },
    },
    Documented {
        block: Block::Rename,
        top: "rename",
        tables: &[("docs/rename.md", "## The stage")],
        points: || vec![preset("tfet-hybrid")],
    },
    Documented {
        block: Block::Bdi,
        top: "compressor",
        tables: &[("docs/bdi.md", "## The compressor `<prefix>_compressor`")],
        points: || vec![preset("isca15-bdi")],
    },
    Documented {
        block: Block::Bdi,
        top: "decompressor",
        tables: &[("docs/bdi.md", "## The decompressor `<prefix>_decompressor`")],
        points: || vec![preset("isca15-bdi")],
    },
];

/// The (name pattern, direction) of every row of the port tables in `section` of `doc`: the
/// backticked names of the first column, `a0_x` … `a2_x` and `a{0,1,2}_x` spelled out, `a_*`
/// kept as a pattern.
fn table_ports(doc: &str, section: &str) -> Vec<(String, Dir)> {
    let text = std::fs::read_to_string(doc).unwrap();
    let level = section.split(' ').next().unwrap();
    let body =
        text.split_once(&format!("\n{section}\n")).unwrap_or_else(|| panic!("{doc} has no section {section:?}")).1;
    // The section ends at the next heading of its level or above.
    let end = body
        .lines()
        .position(|l| l.starts_with('#') && l.split(' ').next().unwrap().len() <= level.len())
        .unwrap_or(usize::MAX);
    let mut ports = Vec::new();
    let mut in_table = false;
    for line in body.lines().take(end) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 3 {
            in_table = false;
            continue;
        }
        if cells[1].starts_with("port") {
            in_table = true;
            continue;
        }
        if !in_table || cells[1].starts_with("---") {
            continue;
        }
        let dir = match cells[2] {
            "in" => Dir::Input,
            "out" => Dir::Output,
            d => panic!("{doc}: direction `{d}` in {line}"),
        };
        let names: Vec<&str> = cells[1].split('`').skip(1).step_by(2).collect();
        if cells[1].contains('…') {
            assert_eq!(names.len(), 2, "{doc}: a range names its first and last port: {line}");
            ports.extend(spell_range(names[0], names[1]).into_iter().map(|n| (n, dir)));
        } else {
            ports.extend(names.iter().flat_map(|n| spell_braces(n)).map(|n| (n, dir)));
        }
    }
    assert!(!ports.is_empty(), "{doc} {section}: no port table");
    ports
}

/// `a0_x` … `a2_x` → a0_x, a1_x, a2_x.
fn spell_range(first: &str, last: &str) -> Vec<String> {
    let at = first.find(|c: char| c.is_ascii_digit()).expect("a numbered port");
    let (lo, hi) = (first[at..at + 1].parse::<u32>().unwrap(), last[at..at + 1].parse::<u32>().unwrap());
    (lo..=hi).map(|i| format!("{}{i}{}", &first[..at], &first[at + 1..])).collect()
}

/// `a{0,1,2}_x` → a0_x, a1_x, a2_x; other names as they are.
fn spell_braces(name: &str) -> Vec<String> {
    match (name.find('{'), name.find('}')) {
        (Some(open), Some(close)) => {
            name[open + 1..close].split(',').map(|i| format!("{}{i}{}", &name[..open], &name[close + 1..])).collect()
        }
        _ => vec![name.to_string()],
    }
}

fn matches(pattern: &str, port: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => port.starts_with(prefix),
        None => pattern == port,
    }
}

/// Every port of the top in some design point: (name, direction).
fn rtl_ports(d: &Documented) -> BTreeSet<(String, String)> {
    let mut ports = BTreeSet::new();
    for checked in (d.points)() {
        let design: Design = d.block.generate(&checked, SramKind::Behavioural).unwrap();
        let name = format!("{}_{}", checked.prefix(), d.top);
        let module = design.manifest.module(&name).unwrap_or_else(|| panic!("{name} is not in the design"));
        ports.extend(module.ports.iter().map(|p| (p.name.clone(), format!("{:?}", p.dir))));
    }
    ports
}

#[test]
fn every_port_table_matches_the_generated_ports() {
    let mut errors = Vec::new();
    for d in DOCUMENTED {
        let documented: Vec<(String, String)> = d
            .tables
            .iter()
            .flat_map(|(doc, section)| table_ports(doc, section))
            .map(|(n, dir)| (n, format!("{dir:?}")))
            .collect();
        let ports = rtl_ports(d);
        let docs: Vec<&str> = d.tables.iter().map(|(doc, _)| *doc).collect();
        for (port, dir) in &ports {
            let listed = documented.iter().any(|(n, dn)| matches(n, port) && dn == dir);
            if !listed && port != "clk" && port != "rst" {
                errors.push(format!("{}: port `{port}` ({dir}) is not in the port tables of {docs:?}", d.top));
            }
        }
        for (name, dir) in &documented {
            if !ports.iter().any(|(p, pd)| matches(name, p) && pd == dir) {
                errors.push(format!("{}: {docs:?} list `{name}` ({dir}), which no design point has", d.top));
            }
        }
    }
    assert!(errors.is_empty(), "the docs' port tables differ from the RTL:\n{}", errors.join("\n"));
}

#[test]
fn ranges_and_braces_are_spelled_out() {
    assert_eq!(spell_range("issue_src0_reg", "issue_src2_reg"), ["issue_src0_reg", "issue_src1_reg", "issue_src2_reg"]);
    assert_eq!(spell_braces("lv_src{0,1,2}_reg"), ["lv_src0_reg", "lv_src1_reg", "lv_src2_reg"]);
    assert_eq!(spell_braces("commit"), ["commit"]);
    assert!(matches("lv_*", "lv_warp") && !matches("lv_*", "commit") && matches("busy", "busy"));
}
