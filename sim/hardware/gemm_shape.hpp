#pragma once
// How a dense GEMM's rate depends on its shape. A GEMM with a short dimension fills fewer tiles
// and waves of SMs and reuses each loaded operand less, so it runs below the rate of a large one:
// an H100 reaches about 800 TFLOP/s on 4096-sized GEMMs, under 400 when one dimension is 256-512.
// The numbers are OpenXLA's published H100 measurements (gemm_shape.cpp), the only public
// table by shape this project has; other devices take the same profile, relative to their own
// large-GEMM rate, until the profiler measures them.
namespace dtsim {

// Rate of an [m x k] x [k x n] bf16 GEMM as a fraction of the rate of a 16384 x 4096 x 4096 one.
// Piecewise linear in log2 of each dimension between the measured sizes (m 256..16384, n and k
// 256..4096), the edge value beyond them: GEMMs larger than the table run at its large-GEMM rate.
double gemm_shape_factor(double m, double n, double k);

}  // namespace dtsim
