// N-body accelerations (all pairs, softened gravity): every thread owns one body and sums the
// pull of all bodies, read a block-sized tile at a time through shared memory. Bodies are four
// floats (x, y, z, mass), accelerations three. 1/sqrt is a correctly rounded square root and
// reciprocal (no rsqrt approximation), so the result is IEEE arithmetic in the order clang keeps.
#include "cuda.h"

extern "C" __global__ void nbody(const float *body, float *accel, int n, float softening) {
  __shared__ float tile[4 * 256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float xi = body[4 * i], yi = body[4 * i + 1], zi = body[4 * i + 2];
  float sx = 0.0f, sy = 0.0f, sz = 0.0f;
  // n is a multiple of blockDim.x (at most 256): every thread loads one body of each tile.
  for (int tile_start = 0; tile_start < n; tile_start += blockDim.x) {
    for (int c = 0; c < 4; ++c) tile[4 * threadIdx.x + c] = body[4 * (tile_start + threadIdx.x) + c];
    __syncthreads();
    for (int k = 0; k < blockDim.x; ++k) {
      float dx = tile[4 * k] - xi, dy = tile[4 * k + 1] - yi, dz = tile[4 * k + 2] - zi;
      float d2 = dx * dx + dy * dy + dz * dz + softening;
      float inv = __fdiv_rn(1.0f, __fsqrt_rn(d2));
      float s = tile[4 * k + 3] * inv * inv * inv;
      sx += dx * s;
      sy += dy * s;
      sz += dz * s;
    }
    __syncthreads();
  }
  accel[3 * i] = sx;
  accel[3 * i + 1] = sy;
  accel[3 * i + 2] = sz;
}
