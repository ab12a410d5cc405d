// Histogram of bytes into 256 bins: every block counts its grid-stride share of the words (four
// bytes each) in a shared-memory histogram with shared atomics, then adds its bins to the
// global histogram with global atomics.
#include "cuda.h"

extern "C" __global__ void histogram(const unsigned *data, unsigned *bins, int words) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += blockDim.x * gridDim.x) {
    unsigned w = data[i];
    for (int k = 0; k < 4; ++k) atomicAdd(&local[(w >> (8 * k)) & 255], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}
