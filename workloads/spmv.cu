// Sparse matrix times vector, y = A x, with A in compressed sparse row form (row_start[r] to
// row_start[r + 1] index col and val): one thread per row, as the scalar CSR kernel. Rows of
// different lengths diverge and x is gathered by column: memory-bound.
#include "cuda.h"

extern "C" __global__ void spmv(const unsigned *row_start, const unsigned *col, const float *val, const float *x,
                                float *y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (unsigned k = row_start[r]; k < row_start[r + 1]; ++k) sum += val[k] * x[col[k]];
  y[r] = sum;
}
