//! A user's copy of a block's RTL (hand-edited, its SRAM leaf swapped for a macro's model, or
//! rewritten by a tool), checked against the interface rfgen generates for the same block so
//! that it can be cosimulated exactly like generated RTL (`rfgen cosim --rtl DIR`).
//!
//! The top module's ports are read from the Verilog itself, through Verilator's XML dump, never
//! from a `manifest.json` that may no longer describe the files beside it.

use rfgen_gen::Design;
use rfgen_gen::input::{Input, InputError, read_text};
use rfgen_gen::verilog::{Dir, Port};
use roxmltree::{Document, Node};
use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a user's RTL folder cannot be cosimulated.
///
/// Every variant but [`UserRtlError::Tool`] is a fault of the user's folder, found before
/// anything is built: bad input (exit status 2), see [`UserRtlError::is_input_error`].
#[derive(Debug, thiserror::Error)]
pub enum UserRtlError {
    /// Neither a filelist nor a Verilog file, or a filelist that lists nothing.
    #[error("no Verilog sources in {}: {why}", dir.display())]
    NoSources { dir: PathBuf, why: String },
    /// The folder, its filelist or one of its sources cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Unreadable { path: PathBuf, source: io::Error },
    /// A source or the filelist is too large or not text.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Verilator refuses the sources (syntax error, unknown module, ...): its first error lines.
    #[error("Verilator rejects the RTL in {}:\n{excerpt}", dir.display())]
    Rejected { dir: PathBuf, excerpt: String },
    /// The sources do not define the block's top module.
    #[error("the top module `{top}` is not in the sources of {} ({})", dir.display(), files.join(", "))]
    TopMissing { dir: PathBuf, top: String, files: Vec<String> },
    /// The top module's ports differ from the block's interface: every difference.
    #[error("{} does not match the interface of {top}: {}", dir.display(), join(differences))]
    Mismatch { dir: PathBuf, top: String, differences: Vec<Difference> },
    /// Verilator cannot be run or its output is not what rfgen expects: not the user's fault.
    #[error("cannot read the ports of {top}: {reason}")]
    Tool { top: String, reason: String },
}

impl UserRtlError {
    /// The user's folder is at fault (bad input), not the machine or rfgen.
    pub fn is_input_error(&self) -> bool {
        !matches!(self, UserRtlError::Tool { .. })
    }
}

/// One way the top module's ports differ from the interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    Missing {
        port: String,
        dir: Dir,
        width: u32,
    },
    Extra {
        port: String,
    },
    /// `found` is Verilator's direction word: `input`, `output` or `inout`.
    Direction {
        port: String,
        found: String,
        needs: Dir,
    },
    Width {
        port: String,
        found: u32,
        needs: u32,
    },
    /// A type rfgen cannot connect, such as an unpacked array: Verilator's name for it.
    Unsized {
        port: String,
        kind: String,
    },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Missing { port, dir, width } => {
                write!(f, "port `{port}` is missing (the interface needs {} of {})", a(dir_word(*dir)), bits(*width))
            }
            Difference::Extra { port } => write!(f, "port `{port}` is not in the interface"),
            Difference::Direction { port, found, needs } => {
                write!(f, "port `{port}` is {}, the interface needs {}", a(found), a(dir_word(*needs)))
            }
            Difference::Width { port, found, needs } => {
                write!(f, "port `{port}` is {}, the interface needs {needs}", bits(*found))
            }
            Difference::Unsized { port, kind } => {
                write!(f, "port `{port}` has a type whose width rfgen cannot tell ({kind})")
            }
        }
    }
}

fn join(differences: &[Difference]) -> String {
    differences.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

fn dir_word(dir: Dir) -> &'static str {
    match dir {
        Dir::Input => "input",
        Dir::Output => "output",
    }
}

/// `an input`, `an output`, `an inout`, `a ref`.
fn a(word: &str) -> String {
    let article = if word.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {word}")
}

fn bits(width: u32) -> String {
    if width == 1 { "1 bit".into() } else { format!("{width} bits") }
}

/// A user's copy of a block's RTL in `dir`, checked against the interface of `reference` (the
/// design rfgen generates for the same config and block) and ready to cosimulate.
///
/// Sources: the files `dir/<top>.f` lists, in its order, else every `*.v` and `*.sv` file of
/// `dir` sorted by name. The returned design carries `reference`'s manifest and the sources
/// under the names they are built with: a flat folder of `.v` files keeps its names, others are
/// flattened and end in `.v` (`rtl/alu.sv` is built as `rtl__alu.sv.v`).
pub fn load(dir: &Path, reference: &Design) -> Result<Design, UserRtlError> {
    let top = &reference.manifest.top;
    let paths = source_paths(dir, top)?;
    let mut files = Vec::with_capacity(paths.len());
    for (listed, path) in &paths {
        let text = read_text(path, Input::Rtl)?;
        files.push((build_name(listed), text));
    }
    let found = read_ports(dir, top, &paths)?;
    let differences = compare(&reference.manifest.top_module().ports, &found);
    if !differences.is_empty() {
        return Err(UserRtlError::Mismatch { dir: dir.to_path_buf(), top: top.clone(), differences });
    }
    Ok(Design { manifest: reference.manifest.clone(), files })
}

/// The sources of `dir` as `(name relative to dir, path)`, in build order.
fn source_paths(dir: &Path, top: &str) -> Result<Vec<(String, PathBuf)>, UserRtlError> {
    let unreadable = |path: &Path| {
        let path = path.to_path_buf();
        move |source| UserRtlError::Unreadable { path, source }
    };
    let filelist = dir.join(format!("{top}.f"));
    let names: Vec<String> = if filelist.is_file() {
        let text = read_text(&filelist, Input::Rtl)?;
        let names: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'))
            .map(String::from)
            .collect();
        if names.is_empty() {
            let why = format!("its filelist {top}.f lists no file");
            return Err(UserRtlError::NoSources { dir: dir.to_path_buf(), why });
        }
        names
    } else {
        let mut names = Vec::new();
        for entry in fs::read_dir(dir).map_err(unreadable(dir))? {
            let entry = entry.map_err(unreadable(dir))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if (name.ends_with(".v") || name.ends_with(".sv")) && entry.path().is_file() {
                names.push(name);
            }
        }
        if names.is_empty() {
            let why = format!("no filelist {top}.f and no *.v or *.sv file");
            return Err(UserRtlError::NoSources { dir: dir.to_path_buf(), why });
        }
        names.sort();
        names
    };
    Ok(names.into_iter().map(|n| (n.clone(), dir.join(n))).collect())
}

/// The name a source is built under. The build folder is flat and builds only files ending in
/// `.v` (`Design::sources`), so `rtl/alu.sv` becomes `rtl__alu.sv.v`. Verilator parses every
/// file as SystemVerilog whatever its suffix, so the renaming changes nothing else.
fn build_name(listed: &str) -> String {
    let flat = listed.replace(['/', '\\'], "__");
    if flat.ends_with(".v") { flat } else { format!("{flat}.v") }
}

/// A port of the user's top module as Verilator sees it.
#[derive(Debug)]
struct FoundPort {
    name: String,
    dir: String,
    /// `Err(kind)`: a type whose width cannot be read.
    width: Result<u32, String>,
}

/// Every port of `top`, in declaration order, from `verilator --xml-only`.
fn read_ports(dir: &Path, top: &str, paths: &[(String, PathBuf)]) -> Result<Vec<FoundPort>, UserRtlError> {
    let tool = |reason: String| UserRtlError::Tool { top: top.to_string(), reason };
    let top_missing = || UserRtlError::TopMissing {
        dir: dir.to_path_buf(),
        top: top.to_string(),
        files: paths.iter().map(|(n, _)| n.clone()).collect(),
    };
    // Verilator runs in a scratch folder (its current folder is where it would put anything),
    // so the sources are named by absolute path.
    let scratch = tempfile::tempdir().map_err(|e| tool(format!("cannot create a temporary folder: {e}")))?;
    let mut sources = Vec::with_capacity(paths.len());
    for (_, path) in paths {
        sources
            .push(std::path::absolute(path).map_err(|source| UserRtlError::Unreadable { path: path.clone(), source })?);
    }
    let xml_path = scratch.path().join("ports.xml");
    let output = Command::new("verilator")
        .current_dir(scratch.path())
        .args(["--xml-only", "--top-module", top, "-Wno-fatal"])
        .args(&sources)
        .arg("--xml-output")
        .arg(&xml_path)
        .output()
        .map_err(|e| tool(format!("cannot run verilator ({e}); install Verilator >= 5.006")))?;
    if !output.status.success() {
        let log = String::from_utf8_lossy(&[output.stdout, output.stderr].concat()).into_owned();
        if log.contains(&format!("--top-module '{top}' was not found")) {
            return Err(top_missing());
        }
        let mut excerpt = first_errors(&log);
        if excerpt.is_empty() {
            excerpt = format!("no message; verilator {}", output.status);
        }
        return Err(UserRtlError::Rejected { dir: dir.to_path_buf(), excerpt });
    }
    let xml = fs::read_to_string(&xml_path).map_err(|e| tool(format!("cannot read Verilator's XML: {e}")))?;
    let doc = Document::parse(&xml).map_err(|e| tool(format!("Verilator's XML does not parse: {e}")))?;
    let module = doc
        .descendants()
        .find(|n| n.has_tag_name("module") && n.attribute("name") == Some(top))
        .ok_or_else(top_missing)?;
    let types = TypeTable::new(&doc);
    let ports = module
        .children()
        .filter(|n| n.has_tag_name("var"))
        .filter_map(|var| {
            let dir = var.attribute("dir")?;
            Some(FoundPort {
                name: var.attribute("name").unwrap_or_default().to_string(),
                dir: dir.to_string(),
                width: types.width(var.attribute("dtype_id").unwrap_or_default()),
            })
        })
        .collect();
    Ok(ports)
}

/// Lines kept from Verilator's output when it fails.
const EXCERPT_LINES: usize = 12;

/// The output from the first `%Error` on (the whole output when there is none), without the
/// closing "Exiting due to" line, at most [`EXCERPT_LINES`] lines.
fn first_errors(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines.iter().position(|l| l.starts_with("%Error")).unwrap_or(0);
    let kept: Vec<&str> = lines[start..]
        .iter()
        .filter(|l| !l.starts_with("%Error: Exiting due to"))
        .take(EXCERPT_LINES)
        .copied()
        .collect();
    kept.join("\n")
}

/// Verilator's `<typetable>`: data types by id.
struct TypeTable<'a, 'input> {
    by_id: HashMap<&'a str, Node<'a, 'input>>,
}

/// Bound on `refdtype` chains, against a malformed table that loops.
const MAX_TYPE_DEPTH: u32 = 64;

impl<'a, 'input> TypeTable<'a, 'input> {
    fn new(doc: &'a Document<'input>) -> Self {
        let by_id = doc
            .descendants()
            .filter(|n| n.has_tag_name("typetable"))
            .flat_map(|t| t.children())
            .filter_map(|n| Some((n.attribute("id")?, n)))
            .collect();
        TypeTable { by_id }
    }

    /// Width in bits of a packed type, or the name of a type that has none.
    fn width(&self, id: &str) -> Result<u32, String> {
        self.width_at(id, 0)
    }

    fn width_at(&self, id: &str, depth: u32) -> Result<u32, String> {
        let node = self.by_id.get(id).ok_or_else(|| format!("unknown type {id}"))?;
        let kind = node.tag_name().name();
        let no_width = || Err(kind.to_string());
        if depth > MAX_TYPE_DEPTH {
            return no_width();
        }
        let sub = |n: &Node| self.width_at(n.attribute("sub_dtype_id").unwrap_or_default(), depth + 1);
        match kind {
            // `logic`, `bit`, `integer`...: a range when declared with one, else one bit.
            "basicdtype" => match (node.attribute("left"), node.attribute("right")) {
                (Some(l), Some(r)) => match (l.parse::<i64>(), r.parse::<i64>()) {
                    (Ok(l), Ok(r)) => u32::try_from(l.abs_diff(r) + 1).or_else(|_| no_width()),
                    _ => no_width(),
                },
                _ => Ok(1),
            },
            "refdtype" | "enumdtype" => sub(node),
            // `logic [3:0][7:0]`: elements times the element's width.
            "packarraydtype" => {
                let count = node.children().find(|n| n.has_tag_name("range")).and_then(range_len);
                match count {
                    Some(count) => sub(node)?.checked_mul(count).ok_or_else(|| kind.to_string()),
                    None => no_width(),
                }
            }
            // The members side by side (Verilator 5.006 packs every struct).
            "structdtype" => node
                .children()
                .filter(|n| n.has_tag_name("memberdtype"))
                .try_fold(0u32, |sum, m| sum.checked_add(sub(&m)?).ok_or_else(|| kind.to_string())),
            _ => no_width(),
        }
    }
}

/// Elements of a `<range>` whose bounds are two constants such as `32'sh3`.
fn range_len(range: Node) -> Option<u32> {
    let bounds: Vec<i64> =
        range.children().filter(|n| n.has_tag_name("const")).filter_map(|c| constant(c.attribute("name")?)).collect();
    match bounds[..] {
        [l, r] => u32::try_from(l.abs_diff(r) + 1).ok(),
        _ => None,
    }
}

/// The value of a Verilog sized constant as Verilator prints it: `32'sh1f`, `4'd9`, `2'b10`.
fn constant(text: &str) -> Option<i64> {
    let (_, value) = text.split_once('\'')?;
    let value = value.trim_start_matches(['s', 'S']);
    let radix = match value.chars().next()?.to_ascii_lowercase() {
        'h' => 16,
        'd' => 10,
        'o' => 8,
        'b' => 2,
        _ => return None,
    };
    i64::from_str_radix(&value[1..].replace('_', ""), radix).ok()
}

/// Every difference between the interface and the ports found: the interface's ports in its
/// order, then the ports it does not have, in declaration order.
fn compare(interface: &[Port], found: &[FoundPort]) -> Vec<Difference> {
    let mut differences = Vec::new();
    for want in interface {
        let port = want.name.clone();
        let Some(have) = found.iter().find(|p| p.name == want.name) else {
            differences.push(Difference::Missing { port, dir: want.dir, width: want.width });
            continue;
        };
        if have.dir != dir_word(want.dir) {
            differences.push(Difference::Direction { port: port.clone(), found: have.dir.clone(), needs: want.dir });
        }
        match &have.width {
            Ok(w) if *w == want.width => {}
            Ok(w) => differences.push(Difference::Width { port, found: *w, needs: want.width }),
            Err(kind) => differences.push(Difference::Unsized { port, kind: kind.clone() }),
        }
    }
    for have in found.iter().filter(|p| !interface.iter().any(|w| w.name == p.name)) {
        differences.push(Difference::Extra { port: have.name.clone() });
    }
    differences
}
