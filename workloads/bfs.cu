// Breadth-first search from one vertex, level by level in one block: at each depth every thread
// scans its share of the vertices, and a vertex on the frontier (level == depth) gives every
// unvisited neighbour the level depth + 1. A barrier ends each level; the search stops when a
// level adds no vertex. The graph is in compressed sparse row form (edge_start, edges).
#include "cuda.h"

extern "C" __global__ void bfs(const unsigned *edge_start, const unsigned *edges, int *level, int vertices,
                               int source) {
  __shared__ int grew;
  if (threadIdx.x == 0) level[source] = 0;
  for (int depth = 0;; ++depth) {
    if (threadIdx.x == 0) grew = 0;
    __syncthreads();
    for (int v = threadIdx.x; v < vertices; v += blockDim.x) {
      if (level[v] != depth) continue;
      for (unsigned e = edge_start[v]; e < edge_start[v + 1]; ++e) {
        unsigned u = edges[e];
        if (level[u] < 0) {
          level[u] = depth + 1;
          grew = 1;
        }
      }
    }
    __syncthreads();
    int more = grew;
    // Everyone has read grew before thread 0 clears it for the next level.
    __syncthreads();
    if (!more) break;
  }
}
