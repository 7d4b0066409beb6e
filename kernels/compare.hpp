#pragma once
// Comparing GPU outputs with a double-precision CPU reference, and the error each dtype may show.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "operator.hpp"

namespace dtsim::kernels {

struct ErrorStats {
  double max_relative = 0;  // max |gpu - ref| / max(|ref|, floor); +inf if any gpu value is NaN/inf
  double floor = 0;         // rms of the reference: the output's scale
  std::size_t worst = 0;    // index of the worst element
  double worst_gpu = 0, worst_ref = 0;
  std::size_t compared = 0;
};

// The floor is the reference's root-mean-square: an element much smaller than the typical output
// (a GEMM sum that cancelled, a normalised value near zero) is judged against the output scale,
// not against its own tiny magnitude, which accumulation error of the right size would exceed.
ErrorStats relative_errors(const std::vector<double>& gpu, const std::vector<double>& ref);

// Worse of the two (for operators with several outputs).
ErrorStats worst_of(const ErrorStats& a, const ErrorStats& b);

// passed = stats.max_relative <= bound; detail says what was compared and the worst element.
CheckResult make_result(const ErrorStats& stats, double bound, const std::string& what);

// Bound for GEMM-like outputs (gemm, attention_*): k-term fp32 accumulation of inputs that the
// reference sees already rounded to the storage type, then one rounding to the output type.
double gemm_bound(DType d, std::int64_t k);
// Bound for elementwise / normalisation outputs computed in fp32 and rounded once to storage.
double elementwise_bound(DType d);

}  // namespace dtsim::kernels
