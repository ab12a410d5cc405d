//! The launch description of a PTX kernel (docs/ptx.md): a TOML file giving the grid, the
//! block, every parameter's value and the input buffers, filled by named deterministic
//! generators. Buffers are placed in global memory in name order from [`BUFFER_BASE`].

use super::parse::Param;
use crate::kernel::DataInit;
use crate::kernel::parse::{MAX_BLOCKS, MAX_DATA_WORDS, MAX_THREADS};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Global address of the first buffer; each buffer starts on a 4 KiB boundary.
pub const BUFFER_BASE: u32 = 0x1000_0000;
const BUFFER_ALIGN: u32 = 4096;

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct LaunchError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, LaunchError> {
    Err(LaunchError(message.into()))
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
enum Grid {
    X(u32),
    XY([u32; 2]),
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Number {
    Int(i64),
    Float(f64),
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct ParamFile {
    buffer: Option<String>,
    value: Option<Number>,
    fields: Option<Vec<FieldFile>>,
}

/// One field of a struct passed by value: exactly one of its keys.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct FieldFile {
    u32: Option<Number>,
    s32: Option<Number>,
    f32: Option<Number>,
    u64: Option<Number>,
    s64: Option<Number>,
    f64: Option<Number>,
    buffer: Option<String>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Elem {
    U32,
    S32,
    F32,
    /// A double: two words, the low one first.
    F64,
}

impl Elem {
    /// Words an element takes.
    pub fn words(self) -> u32 {
        if self == Elem::F64 { 2 } else { 1 }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Init {
    Zero,
    Iota,
    Uniform,
    Constant,
    Offsets,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct BufferFile {
    #[serde(rename = "type")]
    ty: Elem,
    count: u32,
    init: Init,
    min: Option<Number>,
    max: Option<Number>,
    value: Option<Number>,
    seed: Option<u64>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct LaunchFile {
    ptx: Option<String>,
    entry: Option<String>,
    grid: Grid,
    block: u32,
    #[serde(default)]
    params: Vec<ParamFile>,
    #[serde(default)]
    buffers: BTreeMap<String, BufferFile>,
}

/// A buffer placed in global memory with its initial contents.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    pub name: String,
    pub ty: Elem,
    pub addr: u32,
    pub words: Vec<u32>,
}

/// A kernel parameter's launch value: a buffer's address, a number or a struct's fields.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Buffer(String),
    Number(Number),
    Struct(Vec<Field>),
}

/// A field of a struct passed by value, laid out as C lays it out: each at its own size's
/// alignment, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    /// A 32-bit value's bits.
    Word(u32),
    /// A 64-bit integer's bits.
    Wide(u64),
    /// A buffer's address (a 64-bit pointer).
    Buffer(String),
}

/// Global address of the structs passed by value: the 4 KiB (CUDA's parameter space) below the
/// constant data, each struct at an 8-byte boundary.
pub const STRUCT_BASE: u32 = BUFFER_BASE - super::parse::MAX_CONST_BYTES - MAX_STRUCT_BYTES;
const MAX_STRUCT_BYTES: u32 = 4096;

/// A parameter as the lowering takes it: a value, or the address of a struct's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    Value(u64),
    At(u32),
}

/// A checked launch description.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// The PTX file, relative to the launch file (when the launch file is what was named).
    pub ptx: Option<String>,
    /// The entry to run; needed when the module has several.
    pub entry: Option<String>,
    pub blocks_x: u32,
    pub blocks_y: u32,
    pub threads: u32,
    pub params: Vec<ParamValue>,
    pub buffers: Vec<Buffer>,
}

/// Parses and checks a launch file, generating its buffers.
pub fn parse(text: &str) -> Result<Launch, LaunchError> {
    let f: LaunchFile = toml::from_str(text).map_err(|e| LaunchError(e.to_string().trim_end().to_string()))?;
    let (blocks_x, blocks_y) = match f.grid {
        Grid::X(x) => (x, 1),
        Grid::XY([x, y]) => (x, y),
    };
    if blocks_x == 0 || blocks_y == 0 || u64::from(blocks_x) * u64::from(blocks_y) > u64::from(MAX_BLOCKS) {
        return fail(format!("grid: {blocks_x} × {blocks_y} blocks (allowed: 1 to {MAX_BLOCKS} in all)"));
    }
    if !(1..=MAX_THREADS).contains(&f.block) {
        return fail(format!("block: {} threads (allowed: 1 to {MAX_THREADS})", f.block));
    }
    let mut params = Vec::new();
    for (i, p) in f.params.into_iter().enumerate() {
        let known = |b: String, at: &str| match f.buffers.contains_key(&b) {
            true => Ok(b),
            false => fail(format!("{at}: no buffer `{b}` in [buffers]")),
        };
        params.push(match (p.buffer, p.value, p.fields) {
            (Some(b), None, None) => ParamValue::Buffer(known(b, &format!("params[{i}]"))?),
            (None, Some(v), None) => ParamValue::Number(v),
            (None, None, Some(fields)) => {
                let mut out = Vec::new();
                for (j, field) in fields.into_iter().enumerate() {
                    out.push(struct_field(field, &format!("params[{i}].fields[{j}]"), &known)?);
                }
                ParamValue::Struct(out)
            }
            _ => {
                return fail(format!(
                    "params[{i}]: give one of `buffer = NAME`, `value = NUMBER` or `fields = [...]` (a struct)"
                ));
            }
        });
    }
    let mut buffers = Vec::new();
    let (mut addr, mut words) = (u64::from(BUFFER_BASE), 0u64);
    for (name, b) in f.buffers {
        words += u64::from(b.count) * u64::from(b.ty.words());
        if b.count == 0 || words > u64::from(MAX_DATA_WORDS) {
            return fail(format!(
                "buffers.{name}.count: {} (allowed: 1 or more, {MAX_DATA_WORDS} words in all buffers, two per f64)",
                b.count
            ));
        }
        let data = generate(&name, &b)?;
        let end = (addr + 4 * data.len() as u64).next_multiple_of(u64::from(BUFFER_ALIGN));
        buffers.push(Buffer { name, ty: b.ty, addr: addr as u32, words: data });
        addr = end;
    }
    Ok(Launch { ptx: f.ptx, entry: f.entry, blocks_x, blocks_y, threads: f.block, params, buffers })
}

/// A struct's field from its launch-file table, which has exactly one key.
fn struct_field(
    f: FieldFile,
    at: &str,
    known: &dyn Fn(String, &str) -> Result<String, LaunchError>,
) -> Result<Field, LaunchError> {
    let word = |n: Number, ty: Elem| bits(n, ty).map(|b| Field::Word(b as u32));
    let wide = |n: Number, signed: bool| match n {
        Number::Int(v) if signed || v >= 0 => Some(Field::Wide(v as u64)),
        _ => None,
    };
    let keys = [
        f.u32.map(|n| ("u32", n, word(n, Elem::U32))),
        f.s32.map(|n| ("s32", n, word(n, Elem::S32))),
        f.f32.map(|n| ("f32", n, word(n, Elem::F32))),
        f.u64.map(|n| ("u64", n, wide(n, false))),
        f.s64.map(|n| ("s64", n, wide(n, true))),
        f.f64.map(|n| ("f64", n, bits(n, Elem::F64).map(Field::Wide))),
    ];
    let mut given: Vec<(&str, Number, Option<Field>)> = keys.into_iter().flatten().collect();
    match (given.len(), f.buffer) {
        (0, Some(b)) => Ok(Field::Buffer(known(b, at)?)),
        (1, None) => {
            let (ty, n, field) = given.remove(0);
            field.ok_or_else(|| LaunchError(format!("{at}: {} does not fit .{ty}", as_f64(n))))
        }
        _ => fail(format!("{at}: give exactly one of u32, s32, f32, u64, s64, f64 = NUMBER or buffer = NAME")),
    }
}

/// FNV-1a of the name: the seed of a buffer that gives none.
fn name_seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

fn as_f64(n: Number) -> f64 {
    match n {
        Number::Int(v) => v as f64,
        Number::Float(v) => v,
    }
}

/// The bits of `n` as an element of type `ty`; `None` when it does not fit.
fn bits(n: Number, ty: Elem) -> Option<u64> {
    match (ty, n) {
        (Elem::F32, n) => Some(u64::from((as_f64(n) as f32).to_bits())),
        (Elem::F64, n) => Some(as_f64(n).to_bits()),
        (Elem::U32, Number::Int(v)) => u32::try_from(v).ok().map(u64::from),
        (Elem::S32, Number::Int(v)) => i32::try_from(v).ok().map(|v| u64::from(v as u32)),
        (_, Number::Float(_)) => None,
    }
}

/// The words of elements' bits: one each, a double's two low word first.
fn words_of(ty: Elem, elements: impl Iterator<Item = u64>) -> Vec<u32> {
    match ty {
        Elem::F64 => elements.flat_map(|e| [e as u32, (e >> 32) as u32]).collect(),
        _ => elements.map(|e| e as u32).collect(),
    }
}

fn generate(name: &str, b: &BufferFile) -> Result<Vec<u32>, LaunchError> {
    let field = |f: &str, v: Option<Number>| match v {
        None => fail(format!("buffers.{name}.{f}: needed by init = \"{:?}\"", b.init).to_lowercase()),
        Some(n) => bits(n, b.ty).map(|_| n).ok_or_else(|| {
            LaunchError(format!("buffers.{name}.{f}: {} is not a {:?} value", as_f64(n), b.ty).to_lowercase())
        }),
    };
    let n = b.count as usize;
    let elements: Vec<u64> = match b.init {
        Init::Zero => vec![0; n],
        Init::Iota => (0..b.count).map(|i| bits(Number::Int(i64::from(i)), b.ty).unwrap()).collect(),
        Init::Constant => vec![bits(field("value", b.value)?, b.ty).unwrap(); n],
        Init::Offsets => offsets(name, b, field("min", b.min)?, field("max", b.max)?)?,
        Init::Uniform => {
            let (lo, hi) = (field("min", b.min)?, field("max", b.max)?);
            let mut rng = rng(name, b);
            match b.ty {
                Elem::F64 => {
                    let (lo, hi) = (as_f64(lo), as_f64(hi));
                    if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) || !(hi - lo).is_finite() {
                        return fail(format!("buffers.{name}: min {lo:e} must be below max {hi:e}, by a finite span"));
                    }
                    (0..n).map(|_| rng.random_range(lo..hi).to_bits()).collect()
                }
                Elem::F32 => {
                    let (lo, hi) = (as_f64(lo) as f32, as_f64(hi) as f32);
                    if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) {
                        return fail(format!("buffers.{name}: min {lo} must be below max {hi}"));
                    }
                    // The generator draws lo + (hi - lo) * u: the span must be a finite f32.
                    if !(hi - lo).is_finite() {
                        return fail(format!(
                            "buffers.{name}: min {lo:e} to max {hi:e} spans more than the largest f32 (allowed: max - min up to {:e})",
                            f32::MAX
                        ));
                    }
                    (0..n).map(|_| u64::from(rng.random_range(lo..hi).to_bits())).collect()
                }
                Elem::U32 | Elem::S32 => {
                    let (lo, hi) = (as_f64(lo) as i64, as_f64(hi) as i64);
                    if lo > hi {
                        return fail(format!("buffers.{name}: min {lo} is above max {hi}"));
                    }
                    (0..n).map(|_| u64::from(rng.random_range(lo..=hi) as u32)).collect()
                }
            }
        }
    };
    Ok(words_of(b.ty, elements.into_iter()))
}

fn rng(name: &str, b: &BufferFile) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(b.seed.unwrap_or_else(|| name_seed(name)))
}

/// The start offsets of rows of random lengths (compressed sparse rows, a graph's adjacency
/// lists): element 0 is 0, every next one adds a uniform integer in [min, max].
fn offsets(name: &str, b: &BufferFile, lo: Number, hi: Number) -> Result<Vec<u64>, LaunchError> {
    if matches!(b.ty, Elem::F32 | Elem::F64) {
        return fail(format!("buffers.{name}.type: init = \"offsets\" makes integers (allowed: u32, s32)"));
    }
    let (lo, hi) = (as_f64(lo) as i64, as_f64(hi) as i64);
    if lo < 0 || lo > hi {
        return fail(format!("buffers.{name}: offsets need 0 <= min <= max, found min {lo}, max {hi}"));
    }
    let limit = if b.ty == Elem::U32 { i64::from(u32::MAX) } else { i64::from(i32::MAX) };
    let mut rng = rng(name, b);
    let mut at = 0i64;
    let mut out = vec![0u64];
    for _ in 1..b.count {
        at += rng.random_range(lo..=hi);
        if at > limit {
            return fail(format!("buffers.{name}: offset {at} does not fit a {:?}", b.ty).to_lowercase());
        }
        out.push(at as u64);
    }
    Ok(out)
}

impl Launch {
    /// The parameters' values as `ld.param` reads them, checked against the kernel's
    /// parameters one by one.
    pub fn values(&self, entry: &str, params: &[Param]) -> Result<(Vec<Arg>, Vec<DataInit>), LaunchError> {
        if params.len() != self.params.len() {
            return fail(format!(
                "params: `{entry}` has {} parameters, the launch file gives {}",
                params.len(),
                self.params.len()
            ));
        }
        let address =
            |b: &String| u64::from(self.buffers.iter().find(|x| &x.name == b).expect("checked when parsed").addr);
        let (mut out, mut structs) = (Vec::new(), Vec::new());
        let mut at = STRUCT_BASE;
        for (i, (p, v)) in params.iter().zip(&self.params).enumerate() {
            let what = format!("params[{i}] (`{}`, .{})", p.name, p.ty);
            out.push(match (p.bytes, p.ty.as_str(), v) {
                (Some(size), _, ParamValue::Struct(fields)) => {
                    let bytes =
                        struct_bytes(fields, size, &address).map_err(|e| LaunchError(format!("{what}: {e}")))?;
                    let end = u64::from(at - STRUCT_BASE) + u64::from(size.next_multiple_of(8));
                    if end > u64::from(MAX_STRUCT_BYTES) {
                        return fail(format!("{what}: the structs passed by value exceed {MAX_STRUCT_BYTES} bytes"));
                    }
                    let words = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
                    structs.push(DataInit { addr: at, words });
                    let arg = Arg::At(at);
                    at = STRUCT_BASE + end as u32;
                    arg
                }
                (Some(size), _, _) => return fail(format!("{what}: a struct of {size} bytes, give `fields = [...]`")),
                (None, _, ParamValue::Struct(_)) => {
                    return fail(format!("{what}: not a struct, give `value` or `buffer`"));
                }
                (None, "u64" | "b64" | "s64", ParamValue::Buffer(b)) => Arg::Value(address(b)),
                (None, "u64" | "b64" | "s64", _) => return fail(format!("{what}: a pointer, give `buffer = NAME`")),
                (None, _, ParamValue::Buffer(_)) => {
                    return fail(format!("{what}: not a pointer, give `value = NUMBER`"));
                }
                (None, ty, ParamValue::Number(n)) => {
                    let elem = match ty {
                        "u32" | "b32" => Elem::U32,
                        "s32" => Elem::S32,
                        "f32" => Elem::F32,
                        "f64" => Elem::F64,
                        _ => return fail(format!("{what}: parameters of type .{ty} are not supported yet")),
                    };
                    let bits = bits(*n, elem).or_else(|| if elem == Elem::U32 { bits(*n, Elem::S32) } else { None });
                    let Some(bits) = bits else {
                        return fail(format!("{what}: {} does not fit", as_f64(*n)));
                    };
                    Arg::Value(bits)
                }
            });
        }
        Ok((out, structs))
    }

    /// Global memory the kernel starts with: the buffers.
    pub fn data(&self) -> Vec<DataInit> {
        self.buffers.iter().map(|b| DataInit { addr: b.addr, words: b.words.clone() }).collect()
    }
}

/// A struct's bytes (`size` of them, zero past its fields), its fields laid out as C does.
fn struct_bytes(fields: &[Field], size: u32, address: &dyn Fn(&String) -> u64) -> Result<Vec<u8>, String> {
    let mut bytes: Vec<u8> = Vec::new();
    for f in fields {
        let (width, bits) = match f {
            Field::Word(w) => (4, u64::from(*w)),
            Field::Wide(v) => (8, *v),
            Field::Buffer(b) => (8, address(b)),
        };
        bytes.resize(bytes.len().next_multiple_of(width), 0);
        bytes.extend_from_slice(&bits.to_le_bytes()[..width]);
    }
    if bytes.len() > size as usize {
        return Err(format!("the fields take {} bytes, the struct has {size}", bytes.len()));
    }
    bytes.resize((size as usize).next_multiple_of(4), 0);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_placed_in_name_order_and_generated_deterministically() {
        let text = "grid = [2, 3]\nblock = 64\nparams = [{ buffer = \"x\" }, { value = 2.5 }]\n\
                    [buffers.y]\ntype = \"u32\"\ncount = 5000\ninit = \"iota\"\n\
                    [buffers.x]\ntype = \"f32\"\ncount = 8\ninit = \"uniform\"\nmin = -1\nmax = 1.0\n";
        let l = parse(text).unwrap();
        assert_eq!((l.blocks_x, l.blocks_y, l.threads), (2, 3, 64));
        assert_eq!((l.buffers[0].name.as_str(), l.buffers[0].addr), ("x", BUFFER_BASE));
        assert_eq!(l.buffers[1].addr, BUFFER_BASE + BUFFER_ALIGN);
        assert_eq!(l.buffers[1].words[4999], 4999);
        assert!(l.buffers[0].words.iter().all(|&w| (-1.0..1.0).contains(&f32::from_bits(w))));
        assert_eq!(parse(text).unwrap(), l, "generation is deterministic");
    }

    #[test]
    fn doubles_take_two_words_low_first_in_buffers_and_parameters() {
        let text = "grid = 1\nblock = 32\nparams = [{ value = 2.5 }]\n\
                    [buffers.a]\ntype = \"f64\"\ncount = 3\ninit = \"iota\"\n\
                    [buffers.b]\ntype = \"f64\"\ncount = 64\ninit = \"uniform\"\nmin = -1\nmax = 1.0\n";
        let l = parse(text).unwrap();
        let two = 2.0f64.to_bits();
        assert_eq!(l.buffers[0].words, vec![0, 0, 0, (1.0f64.to_bits() >> 32) as u32, two as u32, (two >> 32) as u32]);
        let b = &l.buffers[1].words;
        assert_eq!(b.len(), 128);
        assert!(b.chunks(2).all(|w| (-1.0..1.0).contains(&f64::from_bits(u64::from(w[0]) | u64::from(w[1]) << 32))));
        assert_eq!(l.buffers[1].addr, l.buffers[0].addr + BUFFER_ALIGN, "placed after the first's 24 bytes");
        let params = [Param { name: "s".into(), ty: "f64".into(), bytes: None, line: 1 }];
        assert_eq!(l.values("k", &params).unwrap().0, vec![Arg::Value(2.5f64.to_bits())]);
        // In a struct passed by value: at its own 8-byte alignment.
        let l = parse("grid = 1\nblock = 32\nparams = [{ fields = [{ f32 = 1.0 }, { f64 = -0.5 }] }]\n").unwrap();
        let s = Param { name: "s".into(), ty: "b8".into(), bytes: Some(16), line: 1 };
        let half = (-0.5f64).to_bits();
        let want = vec![1.0f32.to_bits(), 0, half as u32, (half >> 32) as u32];
        assert_eq!(l.values("k", &[s]).unwrap().1, vec![DataInit { addr: STRUCT_BASE, words: want }]);
    }

    #[test]
    fn a_struct_passed_by_value_is_laid_out_as_c_lays_it_out() {
        let text = "grid = 1\nblock = 32\nparams = [{ fields = [{ f32 = 2.0 }, { s32 = -3 }, { buffer = \"a\" }, { u32 = 7 }] }]\n\
                    [buffers.a]\ntype = \"u32\"\ncount = 4\ninit = \"zero\"\n";
        let l = parse(text).unwrap();
        let s = |bytes| Param { name: "k_s".into(), ty: "b8".into(), bytes: Some(bytes), line: 1 };
        let (args, structs) = l.values("k", &[s(24)]).unwrap();
        assert_eq!(args, vec![Arg::At(STRUCT_BASE)]);
        // f32 at 0, s32 at 4, the pointer at 8 (its own alignment), u32 at 16, zero to 24.
        let want = vec![2.0f32.to_bits(), (-3i32) as u32, BUFFER_BASE, 0, 7, 0];
        assert_eq!(structs, vec![DataInit { addr: STRUCT_BASE, words: want }]);
        let e = l.values("k", &[s(16)]).unwrap_err();
        assert_eq!(e.0, "params[0] (`k_s`, .b8): the fields take 20 bytes, the struct has 16");
        let e = parse("grid = 1\nblock = 32\nparams = [{ fields = [{ f32 = 2.0, u32 = 1 }] }]\n").unwrap_err();
        assert!(e.0.starts_with("params[0].fields[0]: give exactly one of"), "{e}");
        let e = parse("grid = 1\nblock = 32\nparams = [{ fields = [{ u64 = -1 }] }]\n").unwrap_err();
        assert_eq!(e.0, "params[0].fields[0]: -1 does not fit .u64");
    }

    #[test]
    fn a_launch_file_that_does_not_match_the_kernel_is_named_field_by_field() {
        let l = parse("grid = 1\nblock = 32\nparams = [{ value = 1.5 }, { value = 3 }]\n").unwrap();
        let p = |ty: &str| Param { name: format!("k_{ty}"), ty: ty.into(), bytes: None, line: 1 };
        let e = l.values("k", &[p("u64"), p("u32")]).unwrap_err();
        assert!(e.0.starts_with("params[0] (`k_u64`, .u64): a pointer"), "{e}");
        let e = l.values("k", &[p("f32")]).unwrap_err();
        assert!(e.0.contains("`k` has 1 parameters, the launch file gives 2"), "{e}");
        let (e, structs) = l.values("k", &[p("f32"), p("f32")]).unwrap();
        assert_eq!(e, vec![Arg::Value(u64::from(1.5f32.to_bits())), Arg::Value(u64::from(3.0f32.to_bits()))]);
        assert!(structs.is_empty());
        let e =
            parse("grid = 1\nblock = 32\n[buffers.a]\ntype = \"f32\"\ncount = 4\ninit = \"uniform\"\n").unwrap_err();
        assert!(e.0.contains("buffers.a.min: needed by init = \"uniform\""), "{e}");
    }

    #[test]
    fn offsets_start_at_zero_and_grow_by_min_to_max() {
        let text = |ty: &str, min: i64| {
            format!(
                "grid = 1\nblock = 32\n[buffers.o]\ntype = \"{ty}\"\ncount = 500\ninit = \"offsets\"\nmin = {min}\nmax = 3\n"
            )
        };
        let o = &parse(&text("u32", 1)).unwrap().buffers[0].words;
        assert_eq!(o[0], 0);
        assert!(o.windows(2).all(|w| (1..=3).contains(&(w[1] - w[0]))));
        assert!(o.windows(3).any(|w| w[1] - w[0] != w[2] - w[1]), "lengths vary");
        let e = parse(&text("f32", 1)).unwrap_err();
        assert!(e.0.contains("buffers.o.type: init = \"offsets\" makes integers"), "{e}");
        let e = parse(&text("s32", -1)).unwrap_err();
        assert!(e.0.contains("buffers.o: offsets need 0 <= min <= max, found min -1"), "{e}");
    }
}
