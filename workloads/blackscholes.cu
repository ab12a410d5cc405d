// Black-Scholes prices of European call and put options: for every option, d1 and d2 from the
// spot price, strike and time, then the cumulative normal distribution by the Abramowitz-Stegun
// polynomial. exp, log and sqrt are the special-function unit's (CUDA's fast intrinsics).
#include "cuda.h"

// Cumulative normal distribution of d (Abramowitz and Stegun 26.2.17, error below 7.5e-8).
static __device__ inline float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
  float k = __fdiv_rn(1.0f, 1.0f + 0.2316419f * fabsf(d));
  float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
  float c = 0.39894228040f * __expf(-0.5f * d * d) * poly;
  return d > 0.0f ? 1.0f - c : c;
}

extern "C" __global__ void blackscholes(const float *spot, const float *strike, const float *years, float *call,
                                        float *put, int n, float rate, float volatility) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float s = spot[i], x = strike[i], t = years[i];
    float root_t = __fsqrt_rn(t);
    float d1 = __fdiv_rn(__logf(__fdiv_rn(s, x)) + (rate + 0.5f * volatility * volatility) * t, volatility * root_t);
    float d2 = d1 - volatility * root_t;
    float discounted = x * __expf(-rate * t);
    float n1 = cnd(d1), n2 = cnd(d2);
    call[i] = s * n1 - discounted * n2;
    put[i] = discounted * (1.0f - n2) - s * (1.0f - n1);
  }
}
