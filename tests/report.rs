//! `rfgen report`: the page of every seed's claims, written as Markdown and HTML with its plots,
//! opened in a headless browser where every plot must render; the same page, byte for byte, from
//! its runs as a Slurm job array on a one-node cluster started here; bad input refused.

mod common;

use common::*;
use std::process::Command;

/// The lines `rfgen report --readme` writes between.
const BEGIN: &str = "<!-- rfgen report: begin (written by `rfgen report --readme`; do not edit) -->";
const END: &str = "<!-- rfgen report: end -->";

/// The headless browser the test opens the page in (`scripts/test` installs it).
const BROWSER: &str = "chromium-headless-shell";

fn browser(args: &[&str]) -> std::process::Output {
    Command::new(BROWSER)
        .args(["--no-sandbox", "--disable-gpu", "--headless"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{BROWSER} must be installed for this test (scripts/test installs it): {e}"))
}

#[test]
fn report_writes_every_claim_and_every_plot_renders() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let o = rfgen(&["report", "--kernel", "vecadd", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for seed in ["000", "001", "002", "003", "004"] {
        assert!(md.contains(&format!("## Seed {seed}")), "no section for seed {seed}:\n{md}");
    }
    // Every claim row has the paper's figure and a measured one.
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| claim")).collect();
    assert!(rows.len() >= 18, "{md}");
    for row in &rows {
        let ours = row.trim_end_matches(" |").rsplit(" | ").next().unwrap();
        assert!(ours.chars().any(|c| c.is_ascii_digit()), "no measured figure in {row}");
    }
    // Seed 004's rows split the energy and the slowdown into their causes (docs/bdi.md).
    for claim in ["| of it dynamic |", "| of it leakage (bank gating) |", "| of it waiting for bank wake-ups"] {
        assert!(md.contains(claim), "no {claim} row:\n{md}");
    }
    let plots = ["bdi-energy", "rfc-traffic", "orf-reads", "war-slowdown", "tfet-designs", "area-rfc"];
    for p in plots {
        let svg = std::fs::read_to_string(out.join(format!("{p}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"), "{p}.svg");
        assert!(md.contains(&format!("({p}.svg)")), "report.md does not show {p}");
    }

    // The page opens in a browser: every plot is an SVG element of its figure, and it renders.
    let page = format!("file://{}", out.join("report.html").display());
    let dom = browser(&["--dump-dom", &page]);
    assert!(dom.status.success(), "{}", String::from_utf8_lossy(&dom.stderr));
    let dom = String::from_utf8_lossy(&dom.stdout);
    for p in plots {
        let at = dom.find(&format!("<figure id=\"{p}\">")).unwrap_or_else(|| panic!("no figure {p}"));
        let figure = &dom[at..at + dom[at..].find("</figure>").unwrap()];
        let drawn = figure.contains("<rect") || figure.contains("<polyline");
        assert!(figure.contains("<svg") && drawn, "{p} has no drawing");
    }
    let shot = dir.path().join("page.png");
    let o = browser(&[&format!("--screenshot={}", shot.display()), "--window-size=1200,4000", &page]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::metadata(&shot).unwrap().len() > 50_000, "the screenshot is nearly empty");

    // Without the area sweep, the same claims and plots but the area's.
    let quick = dir.path().join("quick");
    let o = rfgen(&["report", "--kernel", "vecadd", "--no-synth", "--out", quick.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let quick_md = std::fs::read_to_string(quick.join("report.md")).unwrap();
    assert_eq!(
        quick_md,
        md.split("## Seed 003 area").next().unwrap().to_string() + &quick_md[quick_md.find("## Plots").unwrap()..]
    );
    assert!(!quick.join("area-rfc.svg").exists() && !quick_md.contains("area-rfc"));

    // The same report with every run a Slurm task: the same files, byte for byte. (The area
    // sweep's synthesis runs as tasks the same way; left out here for time.)
    let cluster = common::slurm::Cluster::start();
    let on_slurm = dir.path().join("on-slurm");
    let report_on_slurm = || {
        let (k, v) = cluster.conf();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rfgen"));
        cmd.args(["report", "--kernel", "vecadd", "--no-synth", "--backend", "slurm", "--out"])
            .arg(&on_slurm)
            .env(k, v);
        cmd.output().unwrap()
    };
    let o = report_on_slurm();
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("submitted Slurm job"), "{}", stderr(&o));
    let files = ["report.md", "report.html"].into_iter().map(String::from);
    for file in files.chain(plots[..plots.len() - 1].iter().map(|p| format!("{p}.svg"))) {
        let (a, b) = (std::fs::read(quick.join(&file)).unwrap(), std::fs::read(on_slurm.join(&file)).unwrap());
        assert!(a == b, "{file} differs between the backends");
    }
    // A rerun of the same command finds every run's measurement and submits nothing.
    let again = report_on_slurm();
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(!stderr(&again).contains("submitted"), "{}", stderr(&again));
    assert_eq!(std::fs::read_to_string(on_slurm.join("report.md")).unwrap(), quick_md);
}

/// Each kernel set is its own column beside the paper's figure: the library, the CUDA C suite
/// (`ptx:NAME`) and the synthetic kernels; the suite's and the synthetic kernels' plots are files
/// of their own.
#[test]
fn report_gives_each_kernel_set_its_column() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sets");
    // A README gets the claims between its report lines, and keeps the rest.
    let readme = dir.path().join("README.md");
    let (before, after) = ("# Mine\n\ntext\n", "\n## After\n");
    let stale = format!("{before}{BEGIN}\nold figures\n{END}{after}");
    std::fs::write(&readme, &stale).unwrap();
    let args = ["--kernel", "vecadd", "--kernel", "ptx:vecadd", "--kernel", "synthetic:seed=1", "--no-synth"];
    let o =
        rfgen(&[&["report", "--out", out.to_str().unwrap(), "--readme", readme.to_str().unwrap()][..], &args].concat());
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let written = std::fs::read_to_string(&readme).unwrap();
    assert!(
        written.starts_with(&format!("{before}{BEGIN}\n")) && written.ends_with(&format!("{END}{after}")),
        "{written}"
    );
    assert!(!written.contains("old figures"), "{written}");
    for table in md.split("## Seed").skip(1) {
        let rows = table[table.find("| claim").unwrap()..table.find("\n\nReproduce").unwrap()].to_string();
        assert!(written.contains(&rows), "the README lacks\n{rows}\n{written}");
    }
    // The project's README holds a report's output written by this version: every claim with
    // the paper's figure, in the same three columns of ours.
    let ours = std::fs::read_to_string(root().join("README.md")).unwrap();
    let block = &ours[ours.find(BEGIN).expect("README has the report's lines")..ours.find(END).unwrap()];
    for row in md.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| claim")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let claim_and_paper = format!("{} | {} | ", cells[0], cells[1]);
        assert!(
            block.contains(&claim_and_paper),
            "README's report has no row `{claim_and_paper}`; rerun `rfgen report --readme README.md`"
        );
    }
    assert!(block.contains("| claim | paper | rfgen, library | rfgen, suite | rfgen, synthetic |"));
    assert!(md.contains("| claim | paper | rfgen, library | rfgen, suite | rfgen, synthetic |"), "{md}");
    // Every claim row has a measured figure in each column.
    for row in md.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| claim")) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
        assert_eq!(cells.len(), 5, "{row}");
        assert!(cells[2..].iter().all(|c| c.chars().any(|c| c.is_ascii_digit())), "{row}");
    }
    // The worst warpboard slowdown names its kernel and scheduler; one command reproduces all sets.
    assert!(md.contains("worst kernel and scheduler"), "{md}");
    assert!(md.contains("--kernel vecadd --kernel ptx:vecadd --kernel synthetic:seed=1 --out war/"), "{md}");
    for set in ["", "-suite", "-synthetic"] {
        assert!(out.join(format!("bdi-energy{set}.svg")).exists(), "no bdi-energy{set}.svg");
    }
}

#[test]
fn report_refuses_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let o = rfgen(&["report", "--kernel", "nope", "--out", dir.path().join("r").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--kernel nope: not a library kernel (allowed: vecadd"), "{}", stderr(&o));
    // A README without the report's lines is refused before anything runs, and left alone.
    let readme = dir.path().join("README.md");
    for text in ["# no lines\n".to_string(), format!("{END}\n{BEGIN}\n")] {
        std::fs::write(&readme, &text).unwrap();
        let out = dir.path().join("r");
        let o = rfgen(&[
            "report",
            "--kernel",
            "vecadd",
            "--readme",
            readme.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("to write between"), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&readme).unwrap(), text);
        assert!(!out.exists(), "nothing written before the check");
    }
    std::fs::remove_file(&readme).unwrap();
    // A folder rfgen did not write is left alone.
    std::fs::write(dir.path().join("mine.txt"), "keep").unwrap();
    let o = rfgen(&["report", "--kernel", "vecadd", "--out", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing written beside mine.txt");
}
