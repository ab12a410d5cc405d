// Pathfinder (dynamic programming): the cheapest path from the top row of a grid of costs to
// each cell of the bottom row, moving down one row at a time to the same column or a
// neighbouring one. A block solves one grid, one thread per column; the previous row's costs
// sit in shared memory, and barriers separate the rows.
#include "cuda.h"

extern "C" __global__ void pathfinder(const int *cost, int *result, int rows) {
  __shared__ int best[2][1024];
  int cols = blockDim.x, c = threadIdx.x;
  const int *grid = cost + blockIdx.x * rows * cols;
  best[0][c] = grid[c];
  __syncthreads();
  for (int r = 1; r < rows; ++r) {
    const int *above = best[(r - 1) & 1];
    int m = above[c];
    if (c > 0) m = min(m, above[c - 1]);
    if (c < cols - 1) m = min(m, above[c + 1]);
    best[r & 1][c] = m + grid[r * cols + c];
    __syncthreads();
  }
  result[blockIdx.x * cols + c] = best[(rows - 1) & 1][c];
}
