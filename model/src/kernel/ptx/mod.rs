//! PTX front end (docs/ptx.md): parses the PTX subset clang emits from CUDA C, lowers one
//! `.entry` to the model's instruction stream with its launch description's parameter values,
//! and allocates its virtual registers to architectural ones, giving a [`Kernel`] the SM model,
//! its blocks and the kernel-driven cosim run like any other.

pub mod inline;
pub mod launch;
pub mod lower;
pub mod parse;
pub mod regalloc;
pub mod spill;
pub mod suite;

use super::{Guard, Instr, Kernel, Pos, Src, cfg, passes};
use launch::{Buffer, Launch, LaunchError};
use lower::{Lowered, VSrc};

/// PTX outside the supported subset, or malformed, at a line of the PTX file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}: {message}")]
pub struct PtxError {
    pub line: u32,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LoadError {
    #[error("{0}")]
    Ptx(#[from] PtxError),
    #[error("{0}")]
    Launch(#[from] LaunchError),
}

/// A PTX kernel ready to run, with where its buffers are and what allocation gave.
#[derive(Clone, Debug)]
pub struct PtxKernel {
    pub kernel: Kernel,
    pub buffers: Vec<Buffer>,
    /// PTX registers the code uses (before allocation; predicates and the carries of 64-bit
    /// adds included).
    pub virtual_registers: u32,
    pub predicates: u32,
    /// Values spilled to local memory to fit the SM's registers per thread.
    pub spilled: u32,
}

impl PtxKernel {
    pub fn buffer(&self, name: &str) -> Option<&Buffer> {
        self.buffers.iter().find(|b| b.name == name)
    }
}

/// How virtual registers get their architectural numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbering {
    /// The register allocator ([`regalloc::allocate`]): what rfgen runs.
    Allocated,
    /// One register per virtual register in their order ([`regalloc::virtual_order`]): the
    /// reference the allocator's bank conflicts are measured against.
    VirtualOrder,
}

/// Lowers the launch's entry of the PTX module `text` and allocates its registers.
pub fn load(text: &str, launch: &Launch) -> Result<PtxKernel, LoadError> {
    build(text, launch, Numbering::Allocated, regalloc::MAX_REGISTERS)
}

/// [`load`], spilling values to local memory until at most `max_registers` are used per thread
/// (an SM's `sm.registers_per_thread`).
pub fn load_within(text: &str, launch: &Launch, max_registers: u32) -> Result<PtxKernel, LoadError> {
    build(text, launch, Numbering::Allocated, max_registers)
}

/// [`load`] with the registers numbered as `numbering` says.
pub fn load_numbered(text: &str, launch: &Launch, numbering: Numbering) -> Result<PtxKernel, LoadError> {
    build(text, launch, numbering, regalloc::MAX_REGISTERS)
}

fn build(text: &str, launch: &Launch, numbering: Numbering, max_registers: u32) -> Result<PtxKernel, LoadError> {
    let module = parse::parse(text)?;
    let entry = match (&launch.entry, module.entries.as_slice()) {
        (_, []) => return Err(PtxError { line: 1, message: "the module has no `.entry` kernel".into() }.into()),
        (None, [only]) => only,
        (None, several) => {
            let names: Vec<&str> = several.iter().map(|e| e.name.as_str()).collect();
            return Err(LaunchError(format!(
                "entry: the module has several kernels, name one of {}",
                names.join(", ")
            ))
            .into());
        }
        (Some(name), entries) => entries
            .iter()
            .find(|e| &e.name == name)
            .ok_or_else(|| LaunchError(format!("entry: the module has no kernel `{name}`")))?,
    };
    let (values, structs) = launch.values(&entry.name, &entry.params)?;
    let (consts, const_data) = lower::const_layout(&module.consts)?;
    if let Some(v) = module.consts.iter().find(|v| module.shared.iter().chain(&entry.shared).any(|s| s.name == v.name))
    {
        let message = format!("`{}` is declared both `.shared` and `.const`", v.name);
        return Err(PtxError { line: v.line, message }.into());
    }
    let entry = &inline::inline_calls(entry, &module.funcs)?;
    let lowered = lower::lower(entry, &module.shared, &consts, &values)?;
    let threads_in_grid = launch.blocks_x * launch.blocks_y * launch.threads;
    let windows = u64::from(lowered.local_window) * u64::from(threads_in_grid);
    if windows > lower::LOCAL_WINDOWS_BYTES {
        return Err(LaunchError(format!(
            "`{}` has a `.local` window of {} bytes per thread; {threads_in_grid} threads need {windows} bytes, more than the {} the model gives all windows: launch fewer threads",
            entry.name,
            lowered.local_window,
            lower::LOCAL_WINDOWS_BYTES
        ))
        .into());
    }
    let virtual_registers = used_registers(&lowered);
    let (lowered, alloc, spilled) = match numbering {
        Numbering::Allocated => {
            let s = spill::allocate_within(&lowered, max_registers, threads_in_grid)?;
            (s.code, s.alloc, s.spilled)
        }
        Numbering::VirtualOrder => {
            let alloc = regalloc::virtual_order(&lowered)?;
            (lowered, alloc, 0)
        }
    };
    let code = assign(&lowered, &alloc.place);
    let pos = lowered.code.iter().map(|i| Pos { line: i.line, col: 1 }).collect();
    let mut kernel = Kernel {
        name: entry.name.clone(),
        blocks: launch.blocks_x * launch.blocks_y,
        blocks_y: launch.blocks_y,
        threads: launch.threads,
        // CUDA kernels are written for the block they are launched with: never scale it.
        min_threads: launch.threads,
        derived: Default::default(),
        shared_bytes: lowered.shared_bytes,
        data: launch.data().into_iter().chain(const_data).chain(structs).collect(),
        reconverge: cfg::reconvergence(&code),
        code,
        pos,
        regs: alloc.registers,
        notes: Vec::new(),
    };
    kernel.notes = passes::annotate(&kernel);
    Ok(PtxKernel { kernel, buffers: launch.buffers.clone(), virtual_registers, predicates: alloc.predicates, spilled })
}

/// Virtual registers the code names (spilling's temporaries aside: counted before it).
fn used_registers(l: &Lowered) -> u32 {
    let mut used = vec![false; l.classes.len()];
    for i in &l.code {
        let regs = i.srcs.iter().filter_map(|s| if let VSrc::Reg((v, _)) = s { Some(*v) } else { None });
        regs.chain(i.dst.map(|d| d.0))
            .chain(i.guard.map(|g| g.0))
            .chain(i.pdst)
            .chain(i.psrc)
            .for_each(|v| used[v as usize] = true);
    }
    used.iter().filter(|&&u| u).count() as u32
}

/// The lowered code with every virtual register replaced by its place.
fn assign(l: &Lowered, place: &[Option<u32>]) -> Vec<Instr> {
    let at = |v: u32| place[v as usize].expect("every used register is placed");
    let reg = |(v, half): (u32, u8)| (at(v) + u32::from(half)) as u8;
    let pred = |v: u32| at(v) as u8;
    l.code
        .iter()
        .map(|i| Instr {
            op: i.op,
            guard: i.guard.map(|(p, negate)| Guard { pred: pred(p), negate }),
            dst: i.dst.map(reg),
            pdst: i.pdst.map(pred),
            srcs: i.srcs.map(|s| match s {
                VSrc::None => Src::None,
                VSrc::Reg(h) => Src::Reg(reg(h)),
                VSrc::Imm(v) => Src::Imm(v),
                VSrc::Special(s) => Src::Special(s),
            }),
            psrc: i.psrc.map(pred),
            offset: i.offset,
            target: i.target,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Op;

    const PTX: &str = ".version 6.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{\n\
                       .reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n\
                       ld.param.u64 %rd1, [k_param_0];\n\
                       mov.u32 %r1, %tid.x;\n\
                       add.s32 %r2, %r1, 1;\n\
                       mul.wide.u32 %rd2, %r2, 4;\n\
                       add.s64 %rd1, %rd1, %rd2;\n\
                       st.global.u32 [%rd1], %r2;\n\
                       ret;\n}\n";
    const LAUNCH: &str = "grid = 1\nblock = 32\nparams = [{ buffer = \"out\" }]\n\
                          [buffers.out]\ntype = \"u32\"\ncount = 33\ninit = \"zero\"\n";

    #[test]
    fn pairs_are_aligned_and_a_dying_source_gives_its_register_to_the_result() {
        let k = load(PTX, &launch::parse(LAUNCH).unwrap()).unwrap();
        let dsts: Vec<(Op, Option<u8>)> = k.kernel.code.iter().map(|i| (i.op, i.dst)).collect();
        // %rd1 in r0:r1; %r1 in r2, and %r2, its result, too; %rd2 in the next free pair r4:r5.
        assert_eq!(
            dsts[..7],
            [
                (Op::Mov, Some(0)),
                (Op::Mov, Some(1)),
                (Op::Mov, Some(2)),
                (Op::Add, Some(2)),
                (Op::Mul, Some(4)),
                (Op::MulHiU, Some(5)),
                (Op::AddCc, Some(0)),
            ]
        );
        assert_eq!((k.kernel.regs, k.virtual_registers, k.predicates), (6, 5, 1));
        let memory = crate::func::run(&k.kernel, 32).unwrap().memory;
        let out = k.buffer("out").unwrap().addr;
        let got: Vec<u32> = (0..33).map(|i| memory.read(out + 4 * i)).collect();
        let want: Vec<u32> = (0..33).map(|i| if i == 0 { 0 } else { i }).collect();
        assert_eq!(got, want, "thread t writes t + 1 at word t + 1");
    }
}
