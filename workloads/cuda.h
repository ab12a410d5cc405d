// The little of CUDA the workloads use, for clang's CUDA mode without the CUDA toolkit
// (docs/ptx.md: clang-14 -x cuda --cuda-device-only -nocudainc -nocudalib ...).
#pragma once

// threadIdx, blockIdx, blockDim, gridDim: clang's own header, usable without the toolkit.
#include <__clang_cuda_builtin_vars.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))

// Fast sine and cosine (sin.approx / cos.approx on the special-function unit).
static __device__ inline float __sinf(float x) { return __nvvm_sin_approx_f(x); }
static __device__ inline float __cosf(float x) { return __nvvm_cos_approx_f(x); }

// Correctly rounded square root and division, exp2 and log2 on the special-function unit, and
// exp/log built from them as CUDA's fast intrinsics are.
static __device__ inline float __fsqrt_rn(float x) { return __nvvm_sqrt_rn_f(x); }
static __device__ inline float __fdiv_rn(float x, float y) { return __nvvm_div_rn_f(x, y); }
static __device__ inline float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.44269504f); }
static __device__ inline float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.693147181f; }

static __device__ inline float fabsf(float x) { return __builtin_fabsf(x); }
static __device__ inline int min(int a, int b) { return a < b ? a : b; }
static __device__ inline int max(int a, int b) { return a > b ? a : b; }

static __device__ inline unsigned atomicAdd(unsigned *address, unsigned value) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)address, (int)value);
}
