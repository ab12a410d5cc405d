// SRAD (speckle-reducing anisotropic diffusion), one step on a square image: every cell's
// diffusion coefficient from its four differences (clamped at the border), then the cell moves
// by lambda / 4 times the coefficient-weighted differences, with the south and east
// neighbours' coefficients. A block of 64 threads owns an 8 x 8 tile and first computes the
// coefficients of the tile and of its south and east neighbours into shared memory. Launched
// on a grid of (size / 8) x (size / 8) blocks; q0sqr is the speckle scale (Rodinia computes it
// from a region of the image).
#include "cuda.h"

static __device__ inline float at(const float *image, int size, int row, int col) {
  return image[min(max(row, 0), size - 1) * size + min(max(col, 0), size - 1)];
}

// The diffusion coefficient of cell (row, col), in [0, 1].
static __device__ inline float coefficient(const float *image, int size, int row, int col, float q0sqr) {
  float j = at(image, size, row, col);
  float dn = at(image, size, row - 1, col) - j, ds = at(image, size, row + 1, col) - j;
  float dw = at(image, size, row, col - 1) - j, de = at(image, size, row, col + 1) - j;
  float g2 = __fdiv_rn(dn * dn + ds * ds + dw * dw + de * de, j * j);
  float l = __fdiv_rn(dn + ds + dw + de, j);
  float num = 0.5f * g2 - 0.0625f * l * l;
  float den = 1.0f + 0.25f * l;
  float qsqr = __fdiv_rn(num, den * den);
  float c = __fdiv_rn(1.0f, 1.0f + __fdiv_rn(qsqr - q0sqr, q0sqr * (1.0f + q0sqr)));
  return c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
}

extern "C" __global__ void srad(const float *image, float *out, int size, float q0sqr, float lambda) {
  // 9 x 9 coefficients, row by row: the tile, the row south of it and the column east of it.
  __shared__ float coef[9 * 9];
  int tx = threadIdx.x & 7, ty = threadIdx.x >> 3;
  int col = blockIdx.x * 8 + tx, row = blockIdx.y * 8 + ty;
  int here = ty * 9 + tx;
  // The 81 coefficients, the threads taking turns (the corner one is not needed).
  for (int cell = threadIdx.x; cell < 81; cell += 64) {
    int r = min(blockIdx.y * 8 + cell / 9, size - 1), c = min(blockIdx.x * 8 + cell % 9, size - 1);
    coef[cell] = coefficient(image, size, r, c, q0sqr);
  }
  __syncthreads();
  float j = at(image, size, row, col);
  float dn = at(image, size, row - 1, col) - j, ds = at(image, size, row + 1, col) - j;
  float dw = at(image, size, row, col - 1) - j, de = at(image, size, row, col + 1) - j;
  float c = coef[here];
  float d = c * dn + coef[here + 9] * ds + c * dw + coef[here + 1] * de;
  out[row * size + col] = j + 0.25f * lambda * d;
}
