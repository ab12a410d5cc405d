// Sum of n words: each thread adds a grid-stride slice, each block sums its threads in a
// shared-memory tree (blockDim.x a power of two, at most 256), and thread 0 of every block adds
// the block's sum to *out atomically.
#include "cuda.h"

extern "C" __global__ void reduction(const unsigned *in, unsigned *out, int n) {
  __shared__ unsigned partial[256];
  unsigned sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}
