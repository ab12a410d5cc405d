//! What every generated block's model is: its outputs in a cycle follow from its state alone
//! (no input reaches an output within the cycle, as in the RTL), and one clock edge takes the
//! inputs of that cycle. The issue stage and its warp scheduler also decide within the cycle
//! (the grant follows from that cycle's eligibility): their models add a `decide` method on the
//! cycle's inputs, which the cosim compares as it compares outputs. The SM runs its blocks through this trait, so a block can be replaced
//! by anything with the same ports and timing — the cosim's lockstep adapter, which runs the
//! model and the Verilated RTL side by side, among them.

pub trait Block {
    /// Inputs of one cycle: one field per input port of the block's interface (`clk`, `rst` aside).
    type In;
    /// Outputs of one cycle: one field per output port, plus what the model knows beyond the
    /// ports (which output lanes hold defined values, for instance).
    type Out<'a>
    where
        Self: 'a;

    /// Synchronous reset: control state returns to its reset value; memories keep their contents.
    fn reset(&mut self);
    /// This cycle's outputs, from the state.
    fn outputs(&self) -> Self::Out<'_>;
    /// One rising clock edge with this cycle's inputs.
    fn tick(&mut self, inp: &Self::In);
    /// Whether the edge with these inputs changes nothing but the block's counters, so that
    /// every later cycle with the same inputs repeats it: the SM then counts such cycles with
    /// [`Block::rest`] instead of clocking them (a memory-bound kernel spends most of its cycles
    /// waiting so). `false`, the default, where the block cannot tell, and for a lockstep
    /// adapter, whose RTL sees every edge.
    fn at_rest(&self, _inp: &Self::In) -> bool {
        false
    }
    /// What `edges` edges at rest ([`Block::at_rest`]) add to the block's counters.
    fn rest(&mut self, _edges: u64) {}
}
