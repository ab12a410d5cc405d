// Per-thread `.local` arrays and generic addresses (docs/ptx.md): a 3 x 3 median filter. Each
// thread gathers its pixel's clamped neighbourhood into an array and sorts it in a function
// that is not inlined, so the array is in the thread's local memory and the function reads and
// writes it through a generic pointer (`cvta.local`, then `ld` and `st` without a state space).
#include "../../../workloads/cuda.h"

__device__ __attribute__((noinline)) void sort(unsigned *v, int n) {
  for (int i = 1; i < n; i++) {
    unsigned x = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

__global__ void median(const unsigned *in, unsigned *out, int size) {
  int col = blockIdx.x * 8 + (threadIdx.x & 7), row = blockIdx.y * 8 + (threadIdx.x >> 3);
  unsigned v[9];
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      int r = min(max(row + dy, 0), size - 1), c = min(max(col + dx, 0), size - 1);
      v[(dy + 1) * 3 + dx + 1] = in[r * size + c];
    }
  sort(v, 9);
  out[row * size + col] = v[4];
}
