// HotSpot-style thermal step on a square grid: each cell's new temperature from its power, its
// four neighbours (clamped at the border) and the ambient temperature. A block of 64 threads
// owns an 8 x 8 tile, read into shared memory with a one-cell halo that the threads on the
// tile's edges load. Launched on a grid of (size / 8) x (size / 8) blocks.
#include "cuda.h"

extern "C" __global__ void hotspot(const float *temp, const float *power, float *out, int size, float cap_inv,
                                   float rx, float ry, float rz, float ambient) {
  // 10 x 10 cells, row by row: the tile and its halo.
  __shared__ float tile[10 * 10];
  int tx = threadIdx.x & 7, ty = threadIdx.x >> 3;
  int col = blockIdx.x * 8 + tx, row = blockIdx.y * 8 + ty;
  int at = (ty + 1) * 10 + tx + 1;
  float t = temp[row * size + col];
  tile[at] = t;
  if (tx == 0) tile[at - 1] = temp[row * size + max(col - 1, 0)];
  if (tx == 7) tile[at + 1] = temp[row * size + min(col + 1, size - 1)];
  if (ty == 0) tile[at - 10] = temp[max(row - 1, 0) * size + col];
  if (ty == 7) tile[at + 10] = temp[min(row + 1, size - 1) * size + col];
  __syncthreads();
  float w = tile[at - 1], e = tile[at + 1], n = tile[at - 10], s = tile[at + 10];
  float delta = power[row * size + col] + (n + s - 2.0f * t) * ry + (e + w - 2.0f * t) * rx + (ambient - t) * rz;
  out[row * size + col] = t + cap_inv * delta;
}
