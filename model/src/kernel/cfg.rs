//! Control flow at instruction granularity: successors, predecessors, and the immediate
//! post-dominator of each divergent branch, where its paths reconverge (the SIMT stack's
//! reconvergence point). Post-dominators come from the Cooper–Harvey–Kennedy dominator
//! algorithm run on the reversed graph rooted at a virtual exit node.

use super::{Instr, Op};

/// Reconvergence point of a branch whose paths only meet at exit.
pub const NO_RECONVERGENCE: u32 = u32::MAX;

/// Successors of instruction `i`; `code.len()` stands for the virtual exit.
pub fn successors(code: &[Instr], i: usize) -> Vec<usize> {
    let exit = code.len();
    let ins = &code[i];
    match (ins.op, ins.guard.is_some()) {
        (Op::Bra, false) => vec![ins.target as usize],
        (Op::Bra, true) => vec![ins.target as usize, i + 1],
        (Op::Exit, false) => vec![exit],
        (Op::Exit, true) => vec![exit, i + 1],
        _ => vec![i + 1],
    }
}

/// Immediate post-dominator of every node (`None` when the node cannot reach the exit): the
/// Lengauer–Tarjan algorithm with path compression on the reversed graph rooted at the virtual
/// exit, O(n log n), so a kernel of many guarded branches is analysed in time linear in practice.
pub fn post_dominators(code: &[Instr]) -> Vec<Option<usize>> {
    const NONE: usize = usize::MAX;
    let n = code.len() + 1; // + virtual exit
    let exit = code.len();
    let succ: Vec<Vec<usize>> = (0..code.len()).map(|i| successors(code, i)).chain([vec![]]).collect();
    let mut pred = vec![Vec::new(); n];
    for (i, s) in succ.iter().enumerate() {
        for &t in s {
            pred[t].push(i);
        }
    }
    // Depth-first numbering of the reversed graph from the exit (its edges are the forward
    // predecessors). Below, nodes are named by their number.
    let mut number = vec![NONE; n];
    let mut node = Vec::with_capacity(n);
    let mut parent = Vec::with_capacity(n);
    let mut stack = vec![(exit, NONE)];
    while let Some((v, from)) = stack.pop() {
        if number[v] != NONE {
            continue;
        }
        number[v] = node.len();
        node.push(v);
        parent.push(from);
        stack.extend(pred[v].iter().rev().filter(|&&u| number[u] == NONE).map(|&u| (u, number[v])));
    }
    let m = node.len();
    let mut semi: Vec<usize> = (0..m).collect();
    let mut idom = vec![0; m];
    let mut forest = Forest { ancestor: vec![NONE; m], label: (0..m).collect() };
    let mut bucket = vec![Vec::new(); m];
    for w in (1..m).rev() {
        // In the reversed graph the predecessors of w are its forward successors.
        for &s in &succ[node[w]] {
            if number[s] != NONE {
                let u = forest.eval(number[s], &semi);
                semi[w] = semi[w].min(semi[u]);
            }
        }
        bucket[semi[w]].push(w);
        let p = parent[w];
        forest.ancestor[w] = p;
        for v in std::mem::take(&mut bucket[p]) {
            let u = forest.eval(v, &semi);
            idom[v] = if semi[u] < semi[v] { u } else { p };
        }
    }
    for w in 1..m {
        if idom[w] != semi[w] {
            idom[w] = idom[idom[w]];
        }
    }
    (0..code.len()).map(|i| (number[i] != NONE).then(|| node[idom[number[i]]])).collect()
}

/// Lengauer–Tarjan's forest of processed nodes: `eval(v)` is the node of least semidominator on
/// the path from `v` up to its forest root, paths compressed as they are walked.
struct Forest {
    ancestor: Vec<usize>,
    label: Vec<usize>,
}

impl Forest {
    fn eval(&mut self, v: usize, semi: &[usize]) -> usize {
        if self.ancestor[v] == usize::MAX {
            return v;
        }
        // The nodes whose ancestor is not a root, from v up; then compress from the top down.
        let mut path = Vec::new();
        let mut x = v;
        while self.ancestor[self.ancestor[x]] != usize::MAX {
            path.push(x);
            x = self.ancestor[x];
        }
        for &x in path.iter().rev() {
            let a = self.ancestor[x];
            if semi[self.label[a]] < semi[self.label[x]] {
                self.label[x] = self.label[a];
            }
            self.ancestor[x] = self.ancestor[a];
        }
        self.label[v]
    }
}

/// Per instruction: where a guarded branch reconverges, else [`NO_RECONVERGENCE`].
pub fn reconvergence(code: &[Instr]) -> Vec<u32> {
    let ipdom = post_dominators(code);
    code.iter()
        .enumerate()
        .map(|(i, ins)| match (ins.op, ins.guard, ipdom[i]) {
            (Op::Bra, Some(_), Some(p)) if p < code.len() => p as u32,
            _ => NO_RECONVERGENCE,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::parse;
    use proptest::prelude::*;

    /// Immediate post-dominators by the definition: the post-dominator sets of a dataflow
    /// fixpoint, the immediate one being the strict post-dominator that all others post-dominate.
    fn by_definition(code: &[Instr]) -> Vec<Option<usize>> {
        let n = code.len() + 1;
        let succ: Vec<Vec<usize>> = (0..code.len()).map(|i| successors(code, i)).collect();
        let all: Vec<bool> = vec![true; n];
        let mut pdom: Vec<Vec<bool>> =
            (0..n).map(|v| if v == code.len() { (0..n).map(|u| u == v).collect() } else { all.clone() }).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for v in 0..code.len() {
                let mut set = all.clone();
                for &s in &succ[v] {
                    set.iter_mut().zip(&pdom[s]).for_each(|(a, b)| *a &= b);
                }
                set[v] = true;
                if set != pdom[v] {
                    pdom[v] = set;
                    changed = true;
                }
            }
        }
        // Nodes that cannot reach the exit have no post-dominator.
        let mut reaches = vec![false; n];
        reaches[code.len()] = true;
        for _ in 0..n {
            for v in 0..code.len() {
                reaches[v] |= succ[v].iter().any(|&s| reaches[s]);
            }
        }
        (0..code.len())
            .map(|v| {
                if !reaches[v] {
                    return None;
                }
                let strict: Vec<usize> = (0..n).filter(|&u| u != v && pdom[v][u]).collect();
                strict.iter().copied().find(|&d| strict.iter().all(|&o| pdom[d][o]))
            })
            .collect()
    }

    /// A random kernel of plain, branching, guarded-branching and exiting instructions.
    fn random_kernel() -> impl Strategy<Value = String> {
        prop::collection::vec((0u8..5, 0usize..24), 1..24).prop_map(|ops| {
            let n = ops.len();
            let mut s = String::from(".kernel t\n.grid 1 32\n");
            for (i, (kind, to)) in ops.iter().enumerate() {
                s += &format!("L{i}:\n");
                s += &match kind {
                    0 | 1 => "  add r0, r0, 1\n".to_string(),
                    2 => format!("  bra L{}\n", to % n),
                    3 => format!("@p0 bra L{}\n", to % n),
                    _ => "@p0 exit\n".to_string(),
                };
            }
            s + "  exit\n"
        })
    }

    proptest! {
        #[test]
        fn post_dominators_match_their_definition(text in random_kernel()) {
            let k = parse(&text).unwrap();
            prop_assert_eq!(post_dominators(&k.code), by_definition(&k.code), "{}", text);
        }
    }

    #[test]
    fn many_guarded_branches_reconverge_one_after_another() {
        let n = 200_000;
        let text = format!(".kernel t\n.grid 1 32\nLOOP:\n{}  exit\n", "@p0 bra LOOP\n".repeat(n));
        let k = parse(&text).unwrap();
        assert!((0..n).all(|i| k.reconverge[i] == i as u32 + 1));
    }

    #[test]
    fn if_else_reconverges_after_both_arms() {
        let k = parse(
            ".kernel t\n.grid 1 32\n  setp.lt p0, %tid, 16\n@p0 bra ELSE\n  mov r0, 1\n  bra JOIN\nELSE:\n  mov r0, 2\nJOIN:\n  add r1, r0, 1\n  exit\n",
        )
        .unwrap();
        assert_eq!(k.reconverge[1], 5, "the branch reconverges at JOIN");
    }

    #[test]
    fn loop_exit_branch_reconverges_after_the_loop() {
        let k = parse(
            ".kernel t\n.grid 1 32\n  mov r0, %tid\nLOOP:\n  sub r0, r0, 1\n  setp.gt p0, r0, 0\n@p0 bra LOOP\n  add r1, r0, 1\n  exit\n",
        )
        .unwrap();
        assert_eq!(k.reconverge[3], 4);
    }
}
