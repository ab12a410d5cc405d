// A struct passed by value (docs/ptx.md): the kernel's first parameter is an aligned byte array
// clang reads both by name (`[param+8]`) and through an address taken of it, two floats at once.
#include "../../../workloads/cuda.h"

struct Affine {
  float scale;
  float bias;
  int n;
  const float *src;
};

__global__ void affine(Affine a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) out[i] = a.src[i] * a.scale + a.bias;
}
