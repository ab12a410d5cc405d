// Module-level constant data (docs/ptx.md): f32 weights and a u32 table read through
// `ld.const`, at computed indices and at a fixed one.
#include "../../../workloads/cuda.h"

__constant__ float weights[4] = {0.25f, 0.5f, -1.0f, 2.0f};
__constant__ unsigned table[5] = {3, 1, 4, 1, 5};

__global__ void constants(const float *x, float *y, unsigned *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i] * weights[i & 3] + weights[2];
    z[i] = table[i % 5] * 7u;
  }
}
