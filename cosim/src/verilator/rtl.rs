//! A loaded RTL library and simulator instances created from it.

use super::layout::Layout;
use super::shim::ABI_VERSION;
use anyhow::{Context as _, Result, bail};
use libloading::Library;
use std::ffi::{CString, c_char, c_int, c_void};
use std::path::Path;
use std::sync::Arc;

type NewFn = unsafe extern "C" fn(u32, c_int, u32) -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type EvalFn = unsafe extern "C" fn(*mut c_void, *const u32, *mut u32);
type TickFn = unsafe extern "C" fn(*mut c_void);
type TraceOpenFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;
type TraceEnableFn = unsafe extern "C" fn(*mut c_void, c_int);
type TraceCloseFn = unsafe extern "C" fn(*mut c_void);
type CountFn = unsafe extern "C" fn() -> u32;

/// A shared library built by [`super::cache::BuildPlan`].
pub struct RtlLib {
    _lib: Arc<Library>,
    new: NewFn,
    free: FreeFn,
    eval: EvalFn,
    tick: TickFn,
    trace_open: TraceOpenFn,
    trace_enable: TraceEnableFn,
    trace_close: TraceCloseFn,
    layout: Layout,
    /// The design the instances simulate, of those built in (0 when there is one).
    variant: u32,
}

impl RtlLib {
    /// Loads a library and checks it matches `layout`.
    pub fn load(path: &Path, layout: Layout) -> Result<Arc<RtlLib>> {
        // SAFETY: the library is one rfgen built from its own shim; the symbols below have the
        // signatures declared in shim.rs, and the ABI version is checked before any use.
        unsafe {
            let lib = Library::new(path).with_context(|| format!("cannot load {}", path.display()))?;
            let count = |name: &[u8]| -> Result<u32> { Ok((*lib.get::<CountFn>(name)?)()) };
            let abi = count(b"rfgen_abi_version")?;
            let (ins, outs) = (count(b"rfgen_in_words")? as usize, count(b"rfgen_out_words")? as usize);
            if abi != ABI_VERSION || ins != layout.in_words || outs != layout.out_words {
                bail!(
                    "{} does not match this rfgen (abi {abi}, {ins}/{outs} words); delete it to rebuild",
                    path.display()
                );
            }
            Ok(Arc::new(RtlLib {
                new: *lib.get(b"rfgen_new")?,
                free: *lib.get(b"rfgen_free")?,
                eval: *lib.get(b"rfgen_eval")?,
                tick: *lib.get(b"rfgen_tick")?,
                trace_open: *lib.get(b"rfgen_trace_open")?,
                trace_enable: *lib.get(b"rfgen_trace_enable")?,
                trace_close: *lib.get(b"rfgen_trace_close")?,
                _lib: Arc::new(lib),
                layout,
                variant: 0,
            }))
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The same library, its instances simulating built-in design `variant` (a library built
    /// with a variant port, [`super::cache::BuildPlan::with_variant_port`]).
    pub fn with_variant(&self, variant: u32) -> Arc<RtlLib> {
        Arc::new(RtlLib { _lib: self._lib.clone(), layout: self.layout.clone(), variant, ..*self })
    }
}

/// One simulator instance. Uninitialized state is randomized from `x_seed`.
pub struct Rtl {
    lib: Arc<RtlLib>,
    handle: *mut c_void,
}

impl Rtl {
    pub fn new(lib: &Arc<RtlLib>, x_seed: u32) -> Rtl {
        // SAFETY: `new` returns a fresh instance owned by this value until `Drop`.
        let handle = unsafe { (lib.new)(x_seed, 1, lib.variant) };
        Rtl { lib: lib.clone(), handle }
    }

    /// Applies `inp` (clock low), settles, and writes the outputs into `out`.
    pub fn eval(&mut self, inp: &[u32], out: &mut [u32]) {
        assert!(inp.len() == self.lib.layout.in_words && out.len() == self.lib.layout.out_words);
        // SAFETY: buffer lengths match the library's layout (checked at load and above).
        unsafe { (self.lib.eval)(self.handle, inp.as_ptr(), out.as_mut_ptr()) }
    }

    /// Rising clock edge.
    pub fn tick(&mut self) {
        // SAFETY: the handle is live.
        unsafe { (self.lib.tick)(self.handle) }
    }

    /// Opens a waveform; fails for a library built without tracing.
    pub fn trace_open(&mut self, path: &Path) -> Result<()> {
        let c = CString::new(path.to_string_lossy().as_bytes())?;
        // SAFETY: the handle is live and `c` outlives the call.
        if unsafe { (self.lib.trace_open)(self.handle, c.as_ptr()) } != 0 {
            bail!("this RTL library was built without waveform support");
        }
        Ok(())
    }

    /// Flushes and closes the open waveform.
    pub fn trace_close(&mut self) {
        // SAFETY: the handle is live.
        unsafe { (self.lib.trace_close)(self.handle) }
    }

    /// Starts or stops recording cycles into the open waveform.
    pub fn trace_enable(&mut self, on: bool) {
        // SAFETY: the handle is live.
        unsafe { (self.lib.trace_enable)(self.handle, on as c_int) }
    }
}

impl Drop for Rtl {
    fn drop(&mut self) {
        // SAFETY: the handle came from `new` and is freed exactly once.
        unsafe { (self.lib.free)(self.handle) }
    }
}
