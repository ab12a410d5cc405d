//! PTX and launch files outside what rfgen runs (docs/ptx.md): refused before the run with the
//! file, the line and the construct (exit 2); a launch file that does not match its kernel named
//! field by field (exit 2); a kernel that faults while running stopped with what went wrong
//! (exit 1). Then a fuzzer: the workloads' PTX and launch files, mutated, through parse, lower,
//! launch and a short run give a result or a clear error, never a panic.
//!
//! CI runs a fixed sample; `RFGEN_FUZZ_CASES=N` scales it (docs/cosim.md, *Fuzzing*).

mod common;

use common::fuzz::runner;
use common::*;
use proptest::prelude::*;
use rfgen_model::kernel::ptx::{self, LoadError, launch};
use rfgen_model::sm::SimError;
use std::path::Path;

/// A kernel writing its thread index to `out[tid]`, with `BODY` before the store and `DECL`
/// among the declarations.
const KERNEL: &str = "\
.version 6.0
.target sm_70
.address_size 64

.visible .entry k(
	.param .u64 k_param_0,
	.param .u32 k_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;
DECL
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd2, %rd2, %rd3;
BODY
	st.global.u32 	[%rd2], %r1;
	ret;
}
";

const LAUNCH: &str = "\
grid = 1
block = 64
params = [{ buffer = \"out\" }, { value = 5 }]

[buffers.out]
type = \"u32\"
count = 64
init = \"zero\"
";

fn kernel(decl: &str, body: &str) -> String {
    KERNEL.replace("DECL\n", decl).replace("BODY\n", body)
}

/// Writes `name.ptx` and its launch file `name.toml`; the PTX's path.
fn write_kernel(dir: &Path, name: &str, ptx: &str, launch: &str) -> String {
    let path = dir.join(format!("{name}.ptx"));
    std::fs::write(&path, ptx).unwrap();
    std::fs::write(path.with_extension("toml"), launch).unwrap();
    path.to_str().unwrap().to_string()
}

/// The 1-based line of `ptx` holding `what`.
fn line_of(ptx: &str, what: &str) -> usize {
    ptx.lines().position(|l| l.contains(what)).unwrap_or_else(|| panic!("`{what}` in the kernel")) + 1
}

/// `rfgen sim` ends with `code` and one `error:` line holding every one of `what`.
fn fails(kernel: &str, code: i32, what: &[&str]) {
    let out = rfgen(&["sim", "--kernel", kernel]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{kernel}: {err}");
    assert!(!err.contains("panicked"), "{kernel}: {err}");
    let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
    assert!(first.starts_with("error: "), "{kernel}: {err}");
    for w in what {
        assert!(err.contains(w), "{kernel}: `{w}` not in: {err}");
    }
}

#[test]
fn unsupported_ptx_is_refused_before_the_run_with_file_line_and_construct() {
    let dir = tempfile::tempdir().unwrap();
    let reg_f64 = "\t.reg .f64 \t%fd<2>;\n";
    // (name, declarations, body, the line's marker, what the error names)
    let cases = [
        ("instruction", "", "\tdiv.s32 \t%r2, %r1, 3;\n", "div.s32", "unsupported instruction `div.s32`"),
        ("ftz", "", "\tadd.ftz.f32 \t%r2, %r1, %r1;\n", "add.ftz", "unsupported instruction `add.ftz.f32`"),
        ("f64_as_32_bits", reg_f64, "\tmov.b32 \t%r2, %fd1;\n", "%fd1;", "`%fd1` is not a 32-bit register"),
        (
            "f64_rounding",
            reg_f64,
            "\tcvt.rz.f32.f64 \t%r2, %fd1;\n",
            "cvt.rz",
            "unsupported instruction `cvt.rz.f32.f64`",
        ),
        ("unknown_type", "\t.reg .q32 \t%q<2>;\n", "", ".q32", "unsupported type `.q32`"),
        (
            "local_byte",
            "",
            "\tld.local.u8 \t%r2, [%rd2];\n",
            "ld.local",
            "unsupported type `.u8` in `ld.local.u8` (32- and 64-bit only)",
        ),
        (
            "const_store",
            "",
            "\tst.const.u32 \t[%rd2], %r1;\n",
            "st.const",
            "`st.const.u32` stores to `.const`, which kernels can only read",
        ),
        ("pragma", "", "\t.pragma \"nounroll\";\n", ".pragma", "unsupported directive `.pragma` in a kernel body"),
        (
            "local_var",
            "\t.local .align 4 .b8 \tstack[];\n",
            "",
            ".local",
            "unsupported `.local` array `stack[]` of unknown size",
        ),
        (
            "texture",
            "",
            "\ttex.1d.v4.f32.s32 \t{%r2, %r3, %r4, %r5}, [tex0, {%r1}];\n",
            "tex.1d",
            "unsupported instruction `tex.1d.v4.f32.s32` (textures and surfaces are not supported)",
        ),
        (
            "call",
            "",
            "\tcall.uni \t(retval0), helper, (param0);\n",
            "call.uni",
            "unsupported `call.uni` of `helper`: the module defines no function `helper`",
        ),
        (
            "vector",
            "",
            "\tld.global.v2.u32 \t{%r2, %r3, %r1}, [%rd2];\n",
            "v2.u32",
            "`ld.global.v2.u32` takes a vector of 2 registers, found 3",
        ),
        ("bar_id", "", "\tbar.sync \t1;\n", "bar.sync", "unsupported barrier: only `bar.sync 0`"),
        ("undeclared", "", "\tmov.u32 \t%r9, %r1;\n", "%r9", "register `%r9` is not declared"),
        ("no_label", "", "\tbra.uni \tNOWHERE;\n", "NOWHERE", "branch to undefined label `NOWHERE`"),
    ];
    for (name, decl, body, marker, what) in cases {
        let ptx = kernel(decl, body);
        let file = write_kernel(dir.path(), name, &ptx, LAUNCH);
        let line = line_of(&ptx, marker);
        fails(&file, 2, &[&format!("{name}.ptx:{line}: {what}")]);
    }
    // Module-level constructs: a texture reference, a global variable, a directive,
    // constant data that does not fit its declaration.
    let module_cases = [
        (".global .texref tex0;\n", ".texref", "unsupported module-level variable in `.global`"),
        (".global .align 4 .u32 counter;\n", "counter", "unsupported module-level variable in `.global`"),
        (".maxnreg 16\n", ".maxnreg", "unsupported directive `.maxnreg`"),
        (".const .b8 t[2] = {1, 2, 3};\n", ".const", "`t` has 2 elements, its initializer gives 3"),
        (".const .b8 t[2] = {1, 256};\n", ".const", "value 256 in `t`'s initializer does not fit `.b8`"),
        (".const .f16 t = 1;\n", ".const", "unsupported `.const` type `.f16`"),
    ];
    for (i, (text, marker, what)) in module_cases.into_iter().enumerate() {
        let ptx = kernel("", "").replace(".visible .entry", &format!("{text}.visible .entry"));
        let file = write_kernel(dir.path(), &format!("module{i}"), &ptx, LAUNCH);
        let line = line_of(&ptx, marker);
        fails(&file, 2, &[&format!("module{i}.ptx:{line}: {what}")]);
    }
    // Calls are inlined: a function calling itself is refused at its call.
    let recursive = ".func helper()\n{\n\tcall.uni \thelper, ();\n\tret;\n}\n.visible .entry";
    let ptx = kernel("", "\tcall.uni \thelper, ();\n").replace(".visible .entry", recursive);
    let file = write_kernel(dir.path(), "recursive", &ptx, LAUNCH);
    let what = "recursive call of `helper` (k → helper → helper): calls are inlined, so recursion is not supported";
    fails(&file, 2, &[&format!("recursive.ptx:{}: {what}", line_of(&ptx, "call.uni"))]);
    // A branch past the last instruction would run off the end of the kernel.
    let ptx = kernel("", "\tbra.uni \tEND;\n").replace("\tret;\n}", "\tret;\nEND:\n}");
    let file = write_kernel(dir.path(), "past_end", &ptx, LAUNCH);
    fails(
        &file,
        2,
        &[&format!("past_end.ptx:{}: branch to `END`, which follows the last instruction", line_of(&ptx, "bra.uni"))],
    );
}

#[test]
fn a_launch_file_that_does_not_match_the_kernel_is_named_field_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = kernel("", "");
    let out_buffer = "[buffers.out]\ntype = \"u32\"\ncount = 64\ninit = \"zero\"\n";
    let head = "grid = 1\nblock = 64\n";
    let cases: Vec<(String, &str)> = vec![
        (
            format!("{head}params = [{{ buffer = \"out\" }}]\n{out_buffer}"),
            "params: `k` has 2 parameters, the launch file gives 1",
        ),
        (
            format!("{head}params = [{{ value = 1 }}, {{ value = 5 }}]\n{out_buffer}"),
            "params[0] (`k_param_0`, .u64): a pointer, give `buffer = NAME`",
        ),
        (
            format!("{head}params = [{{ buffer = \"out\" }}, {{ buffer = \"out\" }}]\n{out_buffer}"),
            "params[1] (`k_param_1`, .u32): not a pointer, give `value = NUMBER`",
        ),
        (
            format!("{head}params = [{{ buffer = \"out\" }}, {{ value = -5000000000 }}]\n{out_buffer}"),
            "params[1] (`k_param_1`, .u32): -5000000000 does not fit",
        ),
        (
            format!("{head}params = [{{ buffer = \"in\" }}, {{ value = 5 }}]\n{out_buffer}"),
            "params[0]: no buffer `in` in [buffers]",
        ),
        (
            format!("{head}params = [{{ buffer = \"out\", value = 1 }}, {{ value = 5 }}]\n{out_buffer}"),
            "params[0]: give one of `buffer = NAME`, `value = NUMBER` or `fields = [...]` (a struct)",
        ),
        ("grid = 0\nblock = 64\nparams = []\n".to_string(), "grid: 0 × 1 blocks (allowed: 1 to"),
        (
            "grid = [4096, 2]\nblock = 64\nparams = []\n".to_string(),
            "grid: 4096 × 2 blocks (allowed: 1 to 4096 in all)",
        ),
        ("grid = 1\nblock = 5000\nparams = []\n".to_string(), "block: 5000 threads (allowed: 1 to 4096)"),
        ("grid = 1\nblock = -1\nparams = []\n".to_string(), "block"),
        (
            "grid = 1\nblock = 64\nentry = \"other\"\nparams = []\n".to_string(),
            "entry: the module has no kernel `other`",
        ),
        ("grid = 1\nblocks = 64\n".to_string(), "blocks"),
        (
            format!(
                "{head}params = [{{ buffer = \"out\" }}, {{ value = 5 }}]\n[buffers.out]\ntype = \"u32\"\ninit = \"zero\"\n"
            ),
            "count",
        ),
        (
            format!(
                "{head}params = [{{ buffer = \"out\" }}, {{ value = 5 }}]\n[buffers.out]\ntype = \"u32\"\ncount = \"many\"\ninit = \"zero\"\n"
            ),
            "count",
        ),
        (
            format!(
                "{head}params = [{{ buffer = \"out\" }}, {{ value = 5 }}]\n[buffers.out]\ntype = \"u32\"\ncount = 0\ninit = \"zero\"\n"
            ),
            "buffers.out.count: 0 (allowed: 1 or more, 4194304 words in all buffers, two per f64)",
        ),
        (
            format!(
                "{head}params = [{{ buffer = \"out\" }}, {{ value = 5 }}]\n[buffers.out]\ntype = \"u32\"\ncount = 4194305\ninit = \"zero\"\n"
            ),
            "buffers.out.count: 4194305 (allowed: 1 or more, 4194304 words in all buffers, two per f64)",
        ),
        (
            format!(
                "{head}params = [{{ buffer = \"out\" }}, {{ value = 5 }}]\n[buffers.out]\ntype = \"f16\"\ncount = 64\ninit = \"zero\"\n"
            ),
            "type",
        ),
        (
            format!(
                "{head}params = [{{ buffer = \"out\" }}, {{ value = 5 }}]\n[buffers.out]\ntype = \"f32\"\ncount = 64\ninit = \"uniform\"\nmin = nan\nmax = 1.0\n"
            ),
            "buffers.out: min NaN must be below max 1",
        ),
        (
            format!(
                "{head}params = [{{ buffer = \"out\" }}, {{ value = 5 }}]\n[buffers.out]\ntype = \"f32\"\ncount = 64\ninit = \"uniform\"\nmin = -3e38\nmax = 3e38\n"
            ),
            "buffers.out: min -3e38 to max 3e38 spans more than the largest f32",
        ),
        (
            format!(
                "{head}params = [{{ buffer = \"out\" }}, {{ value = 5 }}]\n[buffers.out]\ntype = \"u32\"\ncount = 64\ninit = \"uniform\"\nmin = -1\nmax = 3\n"
            ),
            "buffers.out.min: -1 is not a u32 value",
        ),
        (
            format!(
                "{head}params = [{{ buffer = \"out\" }}, {{ value = 5 }}]\n[buffers.out]\ntype = \"u32\"\ncount = 64\ninit = \"constant\"\n"
            ),
            "buffers.out.value: needed by init = \"constant\"",
        ),
    ];
    for (i, (launch, what)) in cases.iter().enumerate() {
        let file = write_kernel(dir.path(), &format!("l{i}"), &ptx, launch);
        fails(&file, 2, &[&format!("l{i}.toml: "), what]);
    }
}

#[test]
fn a_kernel_that_faults_stops_with_exit_1_and_says_where_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let shared = "\t.shared .align 4 .b8 \tbuf[16];\n";
    let cases = [
        (
            "misaligned",
            "",
            "\tadd.s64 \t%rd2, %rd2, 2;\n",
            "st.global",
            "misaligned global address 0x10000002 in lane 0",
        ),
        (
            "beyond_4gib",
            "",
            "\tadd.s64 \t%rd2, %rd2, 4294967296;\n",
            "st.global",
            "64-bit address with high word 0x00000001 in lane 0 is outside the 4 GiB address space",
        ),
        (
            "shared_range",
            shared,
            "\tst.shared.u32 \t[buf+64], %r1;\n",
            "st.shared",
            "shared address 0x40 in lane 0 is misaligned or outside the 16 bytes of .shared",
        ),
    ];
    for (name, decl, body, marker, what) in cases {
        let ptx = kernel(decl, body);
        let file = write_kernel(dir.path(), name, &ptx, LAUNCH);
        let line = line_of(&ptx, marker);
        fails(&file, 1, &[&format!("kernel k faulted in {file} at line {line}: {what}")]);
    }
}

#[test]
fn a_barrier_not_reached_by_every_thread_of_a_block_is_a_fault() {
    let dir = tempfile::tempdir().unwrap();
    let rule = "every thread of a block must reach each barrier";
    // A barrier inside a branch that threads below `n` take: half of warp 0 (a warp diverges
    // at the barrier) or all of warp 0 (warp 1 never comes).
    let branch = |n: u32| format!("\tsetp.lt.u32 \t%p1, %r1, {n};\n\t@!%p1 bra \tSKIP;\n\tbar.sync \t0;\nSKIP:\n");
    let ptx = kernel("", &branch(16));
    let file = write_kernel(dir.path(), "in_warp", &ptx, LAUNCH);
    let at = format!("line {}", line_of(&ptx, "bar.sync"));
    fails(&file, 1, &[&at, "a barrier reached by 16 of the 32 threads of warp 0 of block 0", rule]);

    let ptx = kernel("", &branch(32));
    let file = write_kernel(dir.path(), "across_warps", &ptx, LAUNCH);
    let at = format!("line {}", line_of(&ptx, "bar.sync"));
    fails(&file, 1, &[&at, "never reaches", &format!("exited at line {}", line_of(&ptx, "ret;")), rule]);

    // Threads that return early leave the others waiting.
    let early = "\tsetp.ge.u32 \t%p1, %r1, 48;\n\t@%p1 ret;\n\tbar.sync \t0;\n";
    let ptx = kernel("", early);
    let file = write_kernel(dir.path(), "early_exit", &ptx, LAUNCH);
    fails(&file, 1, &["a barrier reached by 16 of the 32 threads of warp 1 of block 0", rule]);

    // Warps at two different barriers.
    let two = "\tsetp.lt.u32 \t%p1, %r1, 32;\n\t@%p1 bra \tLOW;\n\tbar.sync \t0;\n\tbra.uni \tJOIN;\nLOW:\n\tbar.sync \t0;\nJOIN:\n";
    let ptx = kernel("", two);
    let file = write_kernel(dir.path(), "two_barriers", &ptx, LAUNCH);
    fails(&file, 1, &["waits at the one at line", rule]);

    // The same rule holds for kernel-IR kernels.
    let kir = dir.path().join("b.kir");
    std::fs::write(&kir, ".kernel b\n.grid 1 64\n  setp.lt p0, %tid, 8\n@!p0 bra SKIP\n  bar\nSKIP:\n  exit\n")
        .unwrap();
    fails(kir.to_str().unwrap(), 1, &["line 5", "a barrier reached by 8 of the 32 threads of warp 0 of block 0", rule]);

    // Every thread at the barrier: the kernel runs.
    let ptx = kernel("", &branch(64));
    let file = write_kernel(dir.path(), "everyone", &ptx, LAUNCH);
    let out = rfgen(&["sim", "--kernel", &file]);
    assert!(out.status.success(), "{}", stderr(&out));
}

// ---------------------------------------------------------------------------------------------
// The fuzzer.

/// Every workload: its PTX and the tests' small launch of it (their `ptx` field dropped).
fn workloads() -> Vec<(String, String, String)> {
    workload_names()
        .into_iter()
        .map(|name| {
            let ptx = std::fs::read_to_string(root().join(format!("workloads/{name}.ptx"))).unwrap();
            let small = root().join(format!("tests/data/ptx/{name}.toml"));
            let launch_path = if small.exists() { small } else { root().join(format!("workloads/{name}.toml")) };
            let launch = std::fs::read_to_string(launch_path).unwrap();
            let launch = launch.lines().filter(|l| !l.starts_with("ptx =")).collect::<Vec<_>>().join("\n");
            (name, ptx, launch)
        })
        .collect()
}

/// Numbers at and past every limit the front end has.
const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1",
    "31",
    "32",
    "63",
    "64",
    "2147483647",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "99999999999999999999999",
    "0x7fffffff",
    "0xffffffffffffffff",
    "0f7F800000",
    "0fFFFFFFFF",
    "1.5",
];

/// Values of the wrong kind or out of range for a launch file's fields.
const BAD_VALUES: &[&str] = &[
    "0",
    "-1",
    "4096",
    "4097",
    "4194304",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "1e30",
    "3e38",
    "-3e38",
    "-1e39",
    "nan",
    "inf",
    "-inf",
    "0.5",
    "true",
    "\"x\"",
    "\"\"",
    "[]",
    "[0, 0]",
    "[4096, 4096]",
    "[1, 2, 3]",
    "{}",
    "{ buffer = \"nope\" }",
    "{ value = nan }",
    "\"uniform\"",
    "\"f32\"",
];

#[derive(Clone, Debug)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    /// Move a line to before another (a label past the last instruction, a use before a
    /// declaration).
    MoveLine(usize, usize),
    /// Swap two whitespace-separated tokens of the file.
    SwapTokens(usize, usize),
    Truncate(usize),
    InsertBytes(usize, Vec<u8>),
    /// Replace a number of the file by an extreme.
    Number(usize, usize),
    /// Replace a `key = value` line's value by a bad one (launch files).
    Value(usize, usize),
}

/// Mutations of PTX: lines and tokens moved, numbers at their extremes, bytes.
fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>;
    prop_oneof![
        2 => at().prop_map(Mutation::DeleteLine),
        2 => at().prop_map(Mutation::DuplicateLine),
        2 => (at(), at()).prop_map(|(a, b)| Mutation::MoveLine(a, b)),
        2 => (at(), at()).prop_map(|(a, b)| Mutation::SwapTokens(a, b)),
        1 => at().prop_map(Mutation::Truncate),
        2 => (at(), prop::collection::vec(any::<u8>(), 1..8)).prop_map(|(i, b)| Mutation::InsertBytes(i, b)),
        3 => (at(), at()).prop_map(|(a, b)| Mutation::Number(a, b)),
        3 => (at(), at()).prop_map(|(a, b)| Mutation::Value(a, b)),
    ]
}

/// Mutations of launch files: mostly fields removed or given bad values, which keep the file
/// TOML so the checks behind the parser are reached.
fn launch_mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>;
    prop_oneof![
        3 => at().prop_map(Mutation::DeleteLine),
        1 => at().prop_map(Mutation::DuplicateLine),
        1 => at().prop_map(Mutation::Truncate),
        1 => (at(), prop::collection::vec(any::<u8>(), 1..8)).prop_map(|(i, b)| Mutation::InsertBytes(i, b)),
        3 => (at(), at()).prop_map(|(a, b)| Mutation::Number(a, b)),
        8 => (at(), at()).prop_map(|(a, b)| Mutation::Value(a, b)),
    ]
}

/// Byte offsets of `text`'s numbers (a digit run, with a leading `-` or `0x`/`0f` prefix).
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if starts {
            let start = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
            let mut end = i;
            while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'.') {
                end += 1;
            }
            out.push((start, end));
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

fn apply(text: &str, m: &Mutation) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let pick = |n: usize, i: usize| if n == 0 { None } else { Some(i % n) };
    match *m {
        Mutation::DeleteLine(i) => {
            let Some(i) = pick(lines.len(), i) else { return text.into() };
            lines.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, l)| format!("{l}\n")).collect()
        }
        Mutation::DuplicateLine(i) => {
            let Some(i) = pick(lines.len(), i) else { return text.into() };
            let mut out: Vec<&str> = lines.clone();
            out.insert(i, lines[i]);
            out.iter().map(|l| format!("{l}\n")).collect()
        }
        Mutation::MoveLine(from, to) => {
            let (Some(from), Some(to)) = (pick(lines.len(), from), pick(lines.len() + 1, to)) else {
                return text.into();
            };
            let mut out: Vec<&str> = lines.clone();
            let moved = out.remove(from);
            out.insert(to.min(out.len()), moved);
            out.iter().map(|l| format!("{l}\n")).collect()
        }
        Mutation::SwapTokens(a, b) => {
            let spans: Vec<(usize, usize)> = text
                .char_indices()
                .filter(|&(i, c)| !c.is_whitespace() && (i == 0 || text[..i].ends_with(char::is_whitespace)))
                .map(|(i, _)| (i, i + text[i..].find(char::is_whitespace).unwrap_or(text.len() - i)))
                .collect();
            let (Some(a), Some(b)) = (pick(spans.len(), a), pick(spans.len(), b)) else { return text.into() };
            let (x, y) = if spans[a].0 <= spans[b].0 { (spans[a], spans[b]) } else { (spans[b], spans[a]) };
            if x == y {
                return text.into();
            }
            format!("{}{}{}{}{}", &text[..x.0], &text[y.0..y.1], &text[x.1..y.0], &text[x.0..x.1], &text[y.1..])
        }
        Mutation::Truncate(i) => {
            let mut at = i % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text[..at].into()
        }
        Mutation::InsertBytes(i, ref bytes) => {
            let mut at = i % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            format!("{}{}{}", &text[..at], String::from_utf8_lossy(bytes), &text[at..])
        }
        Mutation::Number(i, v) => {
            let spans = numbers(text);
            let Some(i) = pick(spans.len(), i) else { return text.into() };
            let (s, e) = spans[i];
            format!("{}{}{}", &text[..s], EXTREMES[v % EXTREMES.len()], &text[e..])
        }
        Mutation::Value(i, v) => {
            let keyed: Vec<usize> = (0..lines.len()).filter(|&j| lines[j].contains(" = ")).collect();
            let Some(j) = pick(keyed.len(), i) else { return text.into() };
            let line = lines[keyed[j]];
            let key = &line[..line.find(" = ").unwrap()];
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            out[keyed[j]] = format!("{key} = {}", BAD_VALUES[v % BAD_VALUES.len()]);
            out.iter().map(|l| format!("{l}\n")).collect()
        }
    }
}

/// How far a fuzz case got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    LaunchRefused,
    PtxRefused,
    DoesNotFit,
    Faulted,
    Ran,
}

/// Loads `ptx` with `launch` and runs it briefly on the baseline SM; a panic fails the case, an
/// error must say what is wrong (a PTX error inside the file's lines).
fn load_and_run(ptx: &str, launch_text: &str) -> Result<Outcome, TestCaseError> {
    let launch = match launch::parse(launch_text) {
        Ok(l) => l,
        Err(e) => {
            prop_assert!(!e.0.trim().is_empty(), "an empty launch error");
            return Ok(Outcome::LaunchRefused);
        }
    };
    // Within 16 registers, so that spilling runs on the mutants too.
    let k = match ptx::load_within(ptx, &launch, 16) {
        Ok(k) => k,
        Err(LoadError::Ptx(e)) => {
            let lines = ptx.lines().count().max(1) as u32;
            prop_assert!((1..=lines + 1).contains(&e.line), "line {} of {lines}: {}", e.line, e.message);
            prop_assert!(!e.message.trim().is_empty(), "an empty PTX error at line {}", e.line);
            return Ok(Outcome::PtxRefused);
        }
        Err(LoadError::Launch(e)) => {
            prop_assert!(!e.0.trim().is_empty(), "an empty launch error");
            return Ok(Outcome::LaunchRefused);
        }
    };
    let baseline = rfgen_gen::config::preset("baseline").unwrap();
    Ok(match rfgen_model::sim::run(&baseline, &k.kernel, 3_000, &mut |_| {}) {
        Ok(_) | Err(SimError::CycleLimit(_)) => Outcome::Ran,
        Err(SimError::DoesNotFit(m)) => {
            prop_assert!(!m.trim().is_empty());
            Outcome::DoesNotFit
        }
        Err(SimError::Exec(e)) => {
            prop_assert!(!e.message.trim().is_empty());
            Outcome::Faulted
        }
    })
}

/// Runs a campaign of `ci` cases, counting outcomes; fails unless some cases reach each of
/// `reached` (a fuzzer whose mutants all die in the parser tests nothing after it).
fn campaign<S: Strategy>(
    ci: u32,
    strategy: S,
    reached: &[Outcome],
    case: impl Fn(S::Value) -> Result<Outcome, TestCaseError>,
) {
    let counts = std::cell::RefCell::new(std::collections::BTreeMap::<Outcome, u32>::new());
    runner(ci)
        .run(&strategy, |v| {
            let outcome = case(v)?;
            *counts.borrow_mut().entry(outcome).or_default() += 1;
            Ok(())
        })
        .unwrap();
    let counts = counts.into_inner();
    println!("outcomes: {counts:?}");
    for r in reached {
        assert!(counts.contains_key(r), "no case reached {r:?}: {counts:?}");
    }
}

#[test]
fn mutated_ptx_gives_a_result_or_a_clear_error_never_a_panic() {
    let workloads = workloads();
    let strategy = (0..workloads.len(), prop::collection::vec(mutation(), 1..4));
    campaign(1000, strategy, &[Outcome::PtxRefused, Outcome::Ran], |(w, mutations)| {
        let (_, ptx, launch) = &workloads[w];
        let ptx = mutations.iter().fold(ptx.clone(), |t, m| apply(&t, m));
        load_and_run(&ptx, launch)
    });
}

#[test]
fn mutated_launch_files_give_a_result_or_a_clear_error_never_a_panic() {
    let workloads = workloads();
    let strategy = (0..workloads.len(), prop::collection::vec(launch_mutation(), 1..3));
    campaign(600, strategy, &[Outcome::LaunchRefused, Outcome::Ran], |(w, mutations)| {
        let (_, ptx, launch) = &workloads[w];
        let launch = mutations.iter().fold(launch.clone(), |t, m| apply(&t, m));
        load_and_run(ptx, &launch)
    });
}

#[test]
fn random_bytes_are_refused_as_ptx_and_as_launch_files() {
    let workloads = workloads();
    let (_, ptx, launch) = &workloads[0];
    campaign(100, prop::collection::vec(any::<u8>(), 0..400), &[Outcome::PtxRefused], |bytes| {
        let text = String::from_utf8_lossy(&bytes);
        let as_ptx = load_and_run(&text, launch)?;
        let as_launch = load_and_run(ptx, &text)?;
        prop_assert_eq!(as_launch, Outcome::LaunchRefused, "random bytes accepted as a launch file");
        Ok(as_ptx)
    });
}
