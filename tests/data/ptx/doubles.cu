// Double precision (docs/ptx.md): float code with double literals, as C promotes them, and a
// running sum kept in double, with conversions both ways, a comparison that diverges, min/max,
// square root, reciprocal and a double parameter.
#include "../../../workloads/cuda.h"

__global__ void doubles(const float *x, const double *w, double scale, float *y, double *acc_out, int *steps,
                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float scaled = v * 0.5 + 1.25;
  double acc = w[i];
  for (int k = 0; k < 8; ++k) acc = acc * 1.0001 + (double)v / (k + 1);
  int s = 0;
  while (acc > scale && s < 20) {
    acc = acc * 0.75 - 0.125;
    ++s;
  }
  if (acc < 0.0) acc = -acc;
  acc = __builtin_fmin(acc, 100.0) + __builtin_fmax((double)(unsigned)i, 3.0);
  y[i] = scaled + (float)acc;
  acc_out[i] = __builtin_sqrt(acc) + __nvvm_rcp_rn_d(acc + 1.0);
  steps[i] = s + (int)(acc * 10.0);
}
