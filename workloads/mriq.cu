// MRI-Q (Parboil's Q computation, one dimension): for every sample x[i],
// qr[i] = sum_k mag[k] cos(2 pi k_x[k] x[i]) and qi[i] = sum_k mag[k] sin(2 pi k_x[k] x[i]).
#include "cuda.h"

extern "C" __global__ void mriq(const float *kx, const float *mag, const float *x, float *qr, float *qi,
                                int num_k, int num_x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= num_x) return;
  float xi = x[i], re = 0.0f, im = 0.0f;
  for (int k = 0; k < num_k; ++k) {
    float arg = 6.2831853f * kx[k] * xi;
    re += mag[k] * __cosf(arg);
    im += mag[k] * __sinf(arg);
  }
  qr[i] = re;
  qi[i] = im;
}
