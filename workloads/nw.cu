// Needleman-Wunsch (dynamic programming): the global alignment scores of two sequences, as
// Rodinia's nw computes them — each cell the best of its diagonal neighbour plus the pair's
// similarity and its upper or left neighbour minus a gap penalty. A block aligns one pair of
// sequences of length n, one thread per row; the cells of an anti-diagonal depend only on the
// two before it, so the block sweeps the anti-diagonals with a barrier after each, threads
// outside the diagonal idle (the wavefront's divergence). The score matrix, (n+1) x (n+1) per
// pair with its first row and column the gap penalties, is the output.
#include "cuda.h"

extern "C" __global__ void nw(const int *similarity, int *score, int n, int penalty) {
  int w = n + 1, i = threadIdx.x + 1;
  const int *sim = similarity + blockIdx.x * w * w;
  int *s = score + blockIdx.x * w * w;
  s[i * w] = -i * penalty;
  s[i] = -i * penalty;
  if (i == 1) s[0] = 0;
  __syncthreads();
  for (int d = 2; d <= 2 * n; ++d) {
    int j = d - i;
    if (j >= 1 && j <= n) {
      int diagonal = s[(i - 1) * w + j - 1] + sim[i * w + j];
      int up = s[(i - 1) * w + j] - penalty;
      int left = s[i * w + j - 1] - penalty;
      s[i * w + j] = max(diagonal, max(up, left));
    }
    __syncthreads();
  }
}
