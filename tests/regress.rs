//! `rfgen regress` as a CI job runs it: a clean RTL passes and gives a JUnit report of the shape
//! the JUnit schema requires; a seeded RTL bug in `--rtl` fails with the case named and its
//! reproducer in the report; bad input exits 2 before anything runs.

mod common;

use common::*;
use roxmltree::{Document, Node};
use std::path::{Path, PathBuf};

/// The tests' small SM (4 warps of 8 lanes, 8 registers, 4 banks of 16 rows): its MRF is built
/// by the other cosim tests too, so the Verilator cache usually holds it.
fn config(dir: &Path) -> PathBuf {
    let path = dir.join("small.toml");
    std::fs::write(&path, SMALL.iter().find(|(n, _)| *n == "small").unwrap().1).unwrap();
    path
}

fn kernel_file() -> String {
    root().join("tests/data/operand_stress.kir").display().to_string()
}

/// The XML, checked against the JUnit schema (Jenkins', which GitLab and GitHub reporters also
/// follow) by xmllint, and here: elements, required and allowed attributes, the order of
/// children, and counts that add up (which a schema cannot say).
fn check_junit(xml: &str) -> Document<'_> {
    validate_with_xmllint(xml);
    let doc = Document::parse(xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    attributes(root, &[], &["name", "time", "tests", "failures", "disabled", "errors"]);
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for suite in elements(root) {
        assert_eq!(suite.tag_name().name(), "testsuite");
        attributes(
            suite,
            &["name", "tests"],
            &[
                "failures",
                "errors",
                "time",
                "disabled",
                "skipped",
                "timestamp",
                "hostname",
                "id",
                "package",
                "file",
                "log",
                "url",
                "version",
            ],
        );
        let children: Vec<Node> = elements(suite).collect();
        let order: Vec<&str> = children.iter().map(|c| c.tag_name().name()).collect();
        let rank = |n: &str| ["properties", "testcase", "system-out", "system-err"].iter().position(|&t| t == n);
        assert!(order.iter().all(|n| rank(n).is_some()), "{order:?}");
        assert!(order.windows(2).all(|w| rank(w[0]) <= rank(w[1])), "children out of order: {order:?}");
        assert!(order.iter().filter(|&&n| n == "properties").count() <= 1);
        let cases: Vec<Node> = children.iter().filter(|c| c.has_tag_name("testcase")).copied().collect();
        let mut counted = [0usize; 3]; // failures, errors, skipped
        for properties in children.iter().filter(|c| c.has_tag_name("properties")) {
            for p in elements(*properties) {
                assert_eq!(p.tag_name().name(), "property");
                attributes(p, &["name", "value"], &[]);
            }
        }
        for case in &cases {
            attributes(*case, &["name"], &["assertions", "time", "classname", "status", "class", "file", "line"]);
            number(*case, "time");
            let results: Vec<Node> = elements(*case).collect();
            for r in &results {
                match r.tag_name().name() {
                    "failure" | "error" => attributes(*r, &[], &["message", "type"]),
                    "skipped" => attributes(*r, &[], &["message"]),
                    "system-out" | "system-err" => attributes(*r, &[], &[]),
                    other => panic!("testcase holds <{other}>"),
                }
            }
            let kinds = ["failure", "error", "skipped"];
            let outcome: Vec<usize> =
                results.iter().filter_map(|r| kinds.iter().position(|&k| r.has_tag_name(k))).collect();
            assert!(outcome.len() <= 1, "one outcome per case");
            if let Some(&k) = outcome.first() {
                counted[k] += 1;
            }
        }
        assert_eq!(number(suite, "tests"), cases.len() as f64);
        assert_eq!(number(suite, "failures"), counted[0] as f64);
        assert_eq!(number(suite, "errors"), counted[1] as f64);
        assert_eq!(number(suite, "skipped"), counted[2] as f64);
        number(suite, "time");
        tests += cases.len();
        failures += counted[0];
        errors += counted[1];
    }
    assert_eq!(number(root, "tests"), tests as f64);
    assert_eq!(number(root, "failures"), failures as f64);
    assert_eq!(number(root, "errors"), errors as f64);
    doc
}

/// The XML against `tests/data/junit.xsd`, the schema written out, by libxml2's validator.
fn validate_with_xmllint(xml: &str) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), xml).unwrap();
    let out = std::process::Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(root().join("tests/data/junit.xsd"))
        .arg(file.path())
        .output()
        .unwrap_or_else(|e| panic!("xmllint must be installed (scripts/test installs it): {e}"));
    assert!(out.status.success(), "the report does not validate:\n{}", stderr(&out));
}

fn elements<'a, 'i>(n: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    n.children().filter(|c| c.is_element())
}

fn attributes(n: Node, required: &[&str], optional: &[&str]) {
    for a in required {
        assert!(n.attribute(*a).is_some(), "<{}> lacks `{a}`", n.tag_name().name());
    }
    for a in n.attributes() {
        assert!(
            required.contains(&a.name()) || optional.contains(&a.name()),
            "<{}> has `{}`, which the schema does not allow",
            n.tag_name().name(),
            a.name()
        );
    }
}

fn number(n: Node, attribute: &str) -> f64 {
    let v = n.attribute(attribute).unwrap_or_else(|| panic!("<{}> lacks `{attribute}`", n.tag_name().name()));
    v.parse().unwrap_or_else(|_| panic!("`{attribute}` = {v:?} is not a number"))
}

fn case<'a, 'i>(doc: &'a Document<'i>, suite: &str, name: &str) -> Node<'a, 'i> {
    doc.descendants()
        .find(|n| {
            n.has_tag_name("testcase")
                && n.attribute("name") == Some(name)
                && n.parent().and_then(|p| p.attribute("name")) == Some(suite)
        })
        .unwrap_or_else(|| panic!("no case `{name}` in suite `{suite}`"))
}

#[test]
fn a_clean_rtl_passes_with_a_valid_junit_report() {
    let tmp = tempfile::tempdir().unwrap();
    let config = config(tmp.path());
    let report = tmp.path().join("r.xml");
    let kernel = kernel_file();
    #[rustfmt::skip]
    let out = rfgen(&[
        "regress", "--config", config.to_str().unwrap(), "--block", "mrf", "--seeds", "2", "--cycles", "3000",
        "--kernel", &kernel, "--kernel", "matmul", "--jobs", "2", "--junit", report.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.contains("PASS: 3 cases passed, 1 skipped"), "{text}");
    let xml = std::fs::read_to_string(&report).unwrap();
    let doc = check_junit(&xml);
    let suite = doc.descendants().find(|n| n.has_tag_name("testsuite")).unwrap();
    assert_eq!(suite.attribute("name"), Some("small.mrf"));
    assert_eq!(suite.attribute("tests"), Some("4"));
    assert_eq!(suite.attribute("skipped"), Some("1"));
    let property = |name: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name("property") && n.attribute("name") == Some(name))
            .and_then(|n| n.attribute("value"))
            .unwrap_or_else(|| panic!("no property `{name}`"))
            .to_string()
    };
    assert_eq!(property("top"), "small_mrf");
    assert_eq!(property("rtl"), "generated");
    // Two random cases, their seeds in the names and the properties, each with its reproducer.
    let random: Vec<Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase") && n.attribute("name").unwrap().starts_with("random seed "))
        .collect();
    assert_eq!(random.len(), 2);
    for r in &random {
        let name = r.attribute("name").unwrap();
        let seed = name.strip_prefix("random seed ").unwrap();
        assert_eq!(property(&format!("{name}: seed")), seed);
        assert_eq!(property(&format!("{name}: cycles")), "3000");
        let out = r.children().find(|c| c.has_tag_name("system-out")).unwrap().text().unwrap();
        assert!(
            out.contains(&format!("rfgen cosim --config {} --block mrf --seed {seed} --cycles 3000", config.display())),
            "{out}"
        );
    }
    // The same seeds in every run (CI history follows a case): the table shows the XML's.
    assert!(random.iter().all(|r| text.contains(r.attribute("name").unwrap())), "{text}");
    let kernel_case = case(&doc, "small.mrf", &format!("kernel {kernel}"));
    assert!(kernel_case.children().all(|c| !c.has_tag_name("failure")));
    // matmul needs more registers than this SM has: skipped, with the reason.
    let skipped = case(&doc, "small.mrf", "kernel matmul");
    let why = skipped.children().find(|c| c.has_tag_name("skipped")).unwrap().attribute("message").unwrap();
    assert!(why.contains("registers"), "{why}");
    assert!(text.lines().any(|l| l.contains("kernel matmul") && l.contains("skipped") && l.contains(why)), "{text}");
}

#[test]
fn a_seeded_bug_in_the_users_rtl_fails_and_the_report_names_the_case() {
    let tmp = tempfile::tempdir().unwrap();
    let config = config(tmp.path());
    let rtl = tmp.path().join("rtl");
    let design = rfgen_gen::generate(&small("small"), rfgen_gen::SramKind::Behavioural);
    let bug = mutants::MRF.iter().find(|m| m.name == "off-by-one read row").unwrap();
    bug.apply(&design).write(&rtl, false).unwrap();
    let report = tmp.path().join("r.xml");
    #[rustfmt::skip]
    let out = rfgen(&[
        "regress", "--config", config.to_str().unwrap(), "--rtl", rtl.to_str().unwrap(), "--seeds", "1",
        "--cycles", "5000", "--kernel", "none", "--junit", report.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains("FAIL: 1 cases failed (1 mismatched, 0 could not run), 0 passed"), "{text}");
    let doc = check_junit(std::fs::read_to_string(&report).unwrap().leak());
    // The folder holds the MRF only: the other blocks of the config are skipped, saying why.
    for block in ["sm", "issue", "scheduler", "scoreboard"] {
        let suite = doc
            .descendants()
            .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some(&format!("small.{block}")))
            .unwrap();
        let skipped = suite.descendants().find(|n| n.has_tag_name("skipped")).unwrap();
        assert!(skipped.attribute("message").unwrap().contains("defines no module small_"), "{block}");
    }
    let failed = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.parent().unwrap().attribute("name") == Some("small.mrf"))
        .unwrap();
    let seed = failed.attribute("name").unwrap().strip_prefix("random seed ").unwrap();
    let failure = failed.children().find(|c| c.has_tag_name("failure")).expect("a failure element");
    assert!(
        failure.attribute("message").unwrap().starts_with("MISMATCH at cycle "),
        "{:?}",
        failure.attribute("message")
    );
    let body = failure.text().unwrap();
    let command = format!(
        "rfgen cosim --config {} --block mrf --seed {seed} --cycles 5000 --rtl {}",
        config.display(),
        rtl.display()
    );
    assert!(body.contains("port ") && body.contains(&format!("reproduce: {command}")), "{body}");
    // The reproducer repeats the mismatch.
    let mut args: Vec<&str> = command.split_whitespace().skip(1).collect();
    args.extend(["--wave-dir", tmp.path().to_str().unwrap()]);
    let again = rfgen(&args);
    assert_eq!(again.status.code(), Some(1), "{}", stdout(&again));
    let message = failure.attribute("message").unwrap();
    let at_cycle = message.split(" on ").next().unwrap();
    let port = message.split(" on ").nth(1).unwrap().split(", ").next().unwrap();
    assert!(body.contains(&format!("port {port}:")), "{message}\n{body}");
    assert!(stdout(&again).contains(&format!("{at_cycle}\n")), "{}", stdout(&again));
}

#[test]
fn bad_input_exits_2_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let config = config(tmp.path());
    let config = config.to_str().unwrap();
    let bad = tmp.path().join("bad.toml");
    std::fs::write(&bad, "[mrf]\nbanks = 24\n").unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--config", bad.to_str().unwrap()], "`mrf.banks` = 24"),
        (&["--config", config, "--rtl", "/no/such/rtl"], "--rtl /no/such/rtl: no such folder"),
        (&["--config", config, "--rtl", empty.to_str().unwrap()], "no Verilog sources in"),
        (&["--config", config, "--kernel", "nope"], "`nope` is neither a library kernel"),
        (
            &["--config", config, "--kernel", "ptx:nope"],
            "error: --kernel ptx:nope: no such PTX workload (built in: bfs, blackscholes",
        ),
        (&["--config", config, "--kernel", "none", "--kernel", "matmul"], "cannot be given with others"),
        (&["--config", config, "--junit", "/no/such/dir/r.xml"], "--junit: folder /no/such/dir does not exist"),
        (&["--config", config, "--junit", "/tmp"], "--junit /tmp: is a folder"),
        (&["--config", config, "--wave-dir", "/no/such/dir"], "--wave-dir: folder /no/such/dir does not exist"),
        (&["--config", config, "--jobs", "0"], "--jobs must be at least 1"),
        (&["--config", config, "--seeds", "1001"], "--seeds"),
        (&["--config", config, "--cycles", "0"], "allowed 1 to 10000000000"),
        (&["--config", config, "--block", "alu"], "unknown block `alu`"),
        (&["--config", config, "--seeds", "0", "--kernel", "none"], "nothing to run"),
        (
            &["--config", config, "--block", "mrf", "--seeds", "0", "--kernel", "matmul"],
            "nothing to run: kernel matmul uses",
        ),
    ];
    for (args, message) in cases {
        let mut all = vec!["regress"];
        all.extend_from_slice(args);
        let out = rfgen(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}{}", stdout(&out), stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
    }
    assert!(!tmp.path().join("r.xml").exists());
}

/// Every `rfgen` command line in the shell of a CI file: `run:` steps (GitHub Actions),
/// `before_script:` and `script:` entries (GitLab CI).
fn rfgen_commands(yaml: &yaml_rust2::Yaml, out: &mut Vec<String>) {
    use yaml_rust2::Yaml;
    match yaml {
        Yaml::Hash(map) => {
            for (key, value) in map {
                let shell = matches!(key.as_str(), Some("run" | "script" | "before_script" | "after_script"));
                let lines: Vec<&str> = match value {
                    Yaml::String(s) if shell => vec![s.as_str()],
                    Yaml::Array(items) if shell => items.iter().filter_map(Yaml::as_str).collect(),
                    _ => Vec::new(),
                };
                for text in lines {
                    let joined = text.replace("\\\n", " ");
                    for command in joined.split(['\n', ';', '|', '&']) {
                        let words: Vec<&str> = command.split_whitespace().collect();
                        if words.first() == Some(&"rfgen") {
                            out.push(words.join(" "));
                        }
                    }
                }
                rfgen_commands(value, out);
            }
        }
        Yaml::Array(items) => items.iter().for_each(|i| rfgen_commands(i, out)),
        _ => {}
    }
}

/// The long flags a help text lists.
fn flags(help: &str) -> Vec<String> {
    help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.split(['=', '<']).next().unwrap().to_string())
        .collect()
}

/// The CI examples of docs/ci.md parse, and every rfgen command they run, with each of its
/// flags, is one `rfgen --help` and the subcommand's help list.
#[test]
fn the_ci_examples_are_valid_yaml_running_real_commands() {
    let top = stdout(&rfgen(&["--help"]));
    let doc = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    for file in ["docs/ci/github-actions.yml", "docs/ci/gitlab-ci.yml"] {
        assert!(doc.contains(file.strip_prefix("docs/").unwrap()), "docs/ci.md links {file}");
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let docs = yaml_rust2::YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(docs.len(), 1, "{file}");
        let mut commands = Vec::new();
        rfgen_commands(&docs[0], &mut commands);
        assert!(
            commands.iter().any(|c| c.starts_with("rfgen regress ") && c.contains("--rtl")),
            "{file}: {commands:?}"
        );
        assert!(commands.iter().any(|c| c.contains("--junit")), "{file}: {commands:?}");
        for command in &commands {
            let words: Vec<&str> = command.split_whitespace().collect();
            let sub = words[1];
            assert!(
                top.lines().any(|l| l.split_whitespace().next() == Some(sub)),
                "{file}: `rfgen {sub}` is not a command"
            );
            let known = flags(&stdout(&rfgen(&[sub, "--help"])));
            for flag in words.iter().filter(|w| w.starts_with("--")) {
                let flag = flag.split('=').next().unwrap();
                assert!(known.iter().any(|k| k == flag), "{file}: `rfgen {sub}` has no flag {flag}");
            }
        }
    }
}
