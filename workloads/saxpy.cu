// SAXPY with a grid-stride loop: y[i] = a * x[i] + y[i].
#include "cuda.h"

extern "C" __global__ void saxpy(const float *x, float *y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
