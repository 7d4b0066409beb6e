#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace dtsim::kernels {

ErrorStats relative_errors(const std::vector<double>& gpu, const std::vector<double>& ref) {
  if (gpu.size() != ref.size()) throw std::logic_error("relative_errors: size mismatch");
  ErrorStats s;
  s.compared = ref.size();
  double sum_squares = 0;
  for (double r : ref) sum_squares += r * r;
  s.floor = std::max(std::sqrt(sum_squares / std::max<std::size_t>(ref.size(), 1)), std::numeric_limits<double>::min());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    double e = std::abs(gpu[i] - ref[i]) / std::max(std::abs(ref[i]), s.floor);
    if (!std::isfinite(gpu[i])) e = std::numeric_limits<double>::infinity();
    if (i == 0 || e > s.max_relative) {
      s.max_relative = e;
      s.worst = i;
      s.worst_gpu = gpu[i];
      s.worst_ref = ref[i];
    }
  }
  return s;
}

ErrorStats worst_of(const ErrorStats& a, const ErrorStats& b) {
  ErrorStats w = a.max_relative >= b.max_relative ? a : b;
  w.compared = a.compared + b.compared;
  return w;
}

CheckResult make_result(const ErrorStats& stats, double bound, const std::string& what) {
  CheckResult r;
  r.max_relative_error = stats.max_relative;
  r.bound = bound;
  r.passed = stats.max_relative <= bound;
  char worst[160];
  std::snprintf(worst, sizeof worst, "; worst at %zu: gpu %.9g ref %.9g (floor %.3g)", stats.worst, stats.worst_gpu,
                stats.worst_ref, stats.floor);
  r.detail = what + " (" + std::to_string(stats.compared) + " values)" + worst;
  return r;
}

double gemm_bound(DType d, std::int64_t k) {
  switch (d) {
    // fp32 inputs and accumulation: the k roundings of a sequential sum leave an error of about
    // 2^-24 * sqrt(k / 6) of the output scale (a random walk): 1.6e-6 at k = 4096, 5.5e-6 at
    // k = 50k (the logits dgrad has k = vocab). The worst of 256 samples (~3 sigma) stays 3x
    // under 4 * 2^-24 * sqrt(k); 1e-5 at least, for small k.
    case DType::fp32: return std::max(1e-5, 4 * 0x1p-24 * std::sqrt(double(k)));
    // TF32 tensor cores round each fp32 input to 10 mantissa bits (2^-11 relative, up to ~1e-3
    // per product); over k random products that averages to ~4e-4 of the output scale, ~1.5e-3
    // at the worst of 256 samples: 5e-3 leaves margin without hiding a wrong layout (errors ~1).
    case DType::tf32: return 5e-3;
    // fp16 inputs are exact in the reference, products exact in fp32; the output rounding is
    // <= 2^-11 = 4.9e-4 relative; a split-k reduction in fp16 could add a few of those.
    case DType::fp16: return 5e-3;
    // bf16 output rounding is <= 2^-8 = 3.9e-3 relative; a split-k reduction in bf16 may round
    // a few partial sums, so 2e-2.
    case DType::bf16: return 2e-2;
    // e4m3 inputs are exact in the reference (scaled by the same powers of two the GPU applies);
    // what remains is the bf16 output rounding (3.9e-3) and Hopper's fp8 tensor-core accumulation,
    // which keeps fewer than fp32's mantissa bits (~2^-14 per add, ~1e-2 of the output scale at
    // k = 4096): 5e-2. A dropped scale or wrong layout gives errors >= 1.
    case DType::fp8: return 5e-2;
  }
  return 0;
}

double elementwise_bound(DType d) {
  switch (d) {
    // fp32 math (expf / tanhf / rsqrtf within a few ulp, row reductions of <= ~16k terms in a
    // tree) stays within ~1e-6 of the output scale.
    case DType::fp32:
    case DType::tf32: return 1e-5;
    // One rounding to fp16 (<= 2^-11 = 4.9e-4 relative) plus fp32 math: 4x margin.
    case DType::fp16: return 2e-3;
    // One rounding to bf16 (<= 2^-8 = 3.9e-3 relative) plus fp32 math: 2.5x margin.
    case DType::bf16: return 1e-2;
    case DType::fp8: return 0;  // elementwise operators do not run in fp8 (make_operator rejects it)
  }
  return 0;
}

}  // namespace dtsim::kernels
