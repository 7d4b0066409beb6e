#include "kernel_records.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtsim::profiler {

const char* to_string(WindowKind kind) {
  return kind == WindowKind::timestamp_ns ? "timestamp_ns" : "correlation_id";
}

bool contains(const RunWindow& window, const KernelRecord& kernel) {
  if (window.kind == WindowKind::correlation_id)
    return window.begin <= kernel.correlation_id && kernel.correlation_id <= window.end;
  return window.begin <= kernel.start_ns && kernel.end_ns <= window.end;
}

namespace {

// Index of the first window holding `kernel`, or -1.
long window_of(const std::vector<RunWindow>& windows, const KernelRecord& kernel) {
  for (size_t w = 0; w < windows.size(); ++w)
    if (contains(windows[w], kernel)) return long(w);
  return -1;
}

}  // namespace

std::vector<RunKernelTime> attribute_kernels(const std::vector<RunWindow>& windows,
                                             const std::vector<KernelRecord>& kernels) {
  std::vector<RunKernelTime> runs(windows.size());
  for (const KernelRecord& k : kernels) {
    const long w = window_of(windows, k);
    if (w < 0) continue;
    runs[size_t(w)].kernel_ns += k.duration_ns();
    runs[size_t(w)].kernels += 1;
  }
  return runs;
}

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + long(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + long(mid));
  return (lower + upper) / 2;
}

OperatorKernelTiming aggregate_operator_runs(const std::vector<RunWindow>& windows,
                                             const std::vector<KernelRecord>& kernels) {
  OperatorKernelTiming t;
  const std::vector<RunKernelTime> runs = attribute_kernels(windows, kernels);
  std::vector<double> times_s;
  for (size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].kernels == 0) {
      t.empty_runs.push_back(r);
      continue;
    }
    times_s.push_back(double(runs[r].kernel_ns) * 1e-9);
  }
  t.runs = int(times_s.size());
  if (!times_s.empty()) t.time_s = median(times_s);
  for (const KernelRecord& k : kernels) {
    if (window_of(windows, k) < 0) continue;
    if (std::find(t.kernel_names.begin(), t.kernel_names.end(), k.name) == t.kernel_names.end())
      t.kernel_names.push_back(k.name);
  }
  return t;
}

}  // namespace dtsim::profiler
