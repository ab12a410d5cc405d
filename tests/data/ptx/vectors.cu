// Vector loads and stores (docs/ptx.md): 16-byte aligned four-float elements read and written
// whole, as CUDA's float4 is, and two-word halves of a u32 pair.
#include "../../../workloads/cuda.h"

struct __attribute__((aligned(16))) Float4 {
  float x, y, z, w;
};
struct __attribute__((aligned(8))) Pair {
  unsigned a, b;
};

__global__ void vectors(const Float4 *in, Float4 *out, Pair *pairs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Float4 v = in[i];
    out[i] = Float4{v.w, v.z * 2.0f, v.y + 1.0f, v.x - v.y};
    Pair p = pairs[i];
    pairs[i] = Pair{p.b ^ p.a, p.a + 3u};
  }
}
