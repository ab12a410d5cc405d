// C = A B for n x n row-major matrices (n a multiple of TILE): each block of TILE x TILE
// threads computes one tile of C, staging tiles of A and B in shared memory.
#include "cuda.h"

#define TILE 8

extern "C" __global__ void sgemm(const float *a, const float *b, float *c, int n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    as[ty][tx] = a[row * n + t + tx];
    bs[ty][tx] = b[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}
