// Divergent control: every thread counts the Collatz steps of its start value (halve an even
// value, take 3v + 1 of an odd one, wrapping at 32 bits) until it reaches 1, for at most
// `limit` odd steps. The halvings are an inner loop, so the lanes of a warp diverge in both
// loops: neighbouring values take very different numbers of steps.
#include "cuda.h"

extern "C" __global__ void collatz(const unsigned *start, unsigned *steps, int n, unsigned limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = start[i], count = 0;
  for (unsigned odd = 0; odd < limit; ++odd) {
    while (v != 0 && (v & 1) == 0) {
      v >>= 1;
      ++count;
    }
    if (v <= 1) break;
    v = 3 * v + 1;
    ++count;
  }
  steps[i] = count;
}
