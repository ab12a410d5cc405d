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

/// Immediate post-dominator of every node (`None` when the node cannot reach the exit).
pub fn post_dominators(code: &[Instr]) -> Vec<Option<usize>> {
    let n = code.len() + 1; // + virtual exit
    let exit = code.len();
    let succ: Vec<Vec<usize>> = (0..code.len()).map(|i| successors(code, i)).chain([vec![]]).collect();
    let mut pred = vec![Vec::new(); n];
    for (i, s) in succ.iter().enumerate() {
        for &t in s {
            pred[t].push(i);
        }
    }
    // Postorder of the reversed graph from the exit (its edges are the forward predecessors).
    let mut order = vec![usize::MAX; n];
    let mut postorder = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut stack = vec![(exit, 0usize)];
    visited[exit] = true;
    while let Some((v, k)) = stack.pop() {
        if let Some(&u) = pred[v].get(k) {
            stack.push((v, k + 1));
            if !visited[u] {
                visited[u] = true;
                stack.push((u, 0));
            }
        } else {
            order[v] = postorder.len();
            postorder.push(v);
        }
    }
    let mut idom = vec![usize::MAX; n];
    idom[exit] = exit;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while order[a] < order[b] {
                a = idom[a];
            }
            while order[b] < order[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in postorder.iter().rev().filter(|&&v| v != exit) {
            // In the reversed graph the predecessors of v are its forward successors.
            let mut new = usize::MAX;
            for &s in &succ[v] {
                if idom[s] != usize::MAX {
                    new = if new == usize::MAX { s } else { intersect(&idom, s, new) };
                }
            }
            if new != usize::MAX && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    (0..code.len()).map(|i| (idom[i] != usize::MAX).then_some(idom[i])).collect()
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
    use crate::kernel::parse;

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
