// Calls of device functions kept out of line (docs/ptx.md: rfgen inlines them): `halved`
// loops and returns early, `blend` calls it and `scale`, and the kernel calls `blend` and
// `halved` directly.
#include "../../../workloads/cuda.h"

__device__ __attribute__((noinline)) float halved(float v, float limit) {
  if (v < 0.0f) return 0.0f;
  for (int j = 0; j < 8 && v > limit; ++j) v = v * 0.5f;
  return v;
}

__device__ __attribute__((noinline)) float scale(float v, int k) { return v * (float)k + 1.0f; }

__device__ __attribute__((noinline)) float blend(float a, float b, int k) {
  return halved(scale(a, k), 2.0f) + b;
}

__global__ void calls(const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = blend(x[i], y[i], i & 7) - halved(y[i], 0.5f);
}
