//! rfgen's golden model, the executable specification of the generated hardware: the kernel IR
//! and its functional executor, one cycle model per generated block (`blocks`), the SM built
//! from them, and the energy accounting of `rfgen sim`. It knows nothing of Verilator.

pub mod block;
pub mod blocks;
pub mod func;
pub mod kernel;
pub mod regset;
pub mod sim;
pub mod sm;
