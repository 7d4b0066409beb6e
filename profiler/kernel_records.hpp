#pragma once
// CUPTI kernel records as plain data, and their attribution to operator runs without NVTX.
//
// The host marks each timed run of an operator with a window: either host timestamps taken with
// cuptiGetTimestamp() before the run is enqueued and after its stream is synchronised (CUPTI
// gives kernel start/end on that same clock), or the first and last CUPTI correlation ids of the
// run's launches. A kernel belongs to the run whose window contains it; kernels outside every
// window (warm-up runs, other work) are ignored.
#include <cstdint>
#include <string>
#include <vector>

namespace dtsim::profiler {

// One CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL record (CUpti_ActivityKernel10 in CUDA 13), reduced to
// what the profiler uses.
struct KernelRecord {
  std::string name;
  uint64_t start_ns = 0, end_ns = 0;  // CUPTI timestamps, ns
  int32_t grid_x = 0, grid_y = 0, grid_z = 0;
  int32_t block_x = 0, block_y = 0, block_z = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  uint32_t device_id = 0;

  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

enum class WindowKind {
  timestamp_ns,    // kernel inside when begin <= start_ns and end_ns <= end
  correlation_id,  // kernel inside when begin <= correlation_id <= end
};
const char* to_string(WindowKind kind);

// One timed run of an operator, as the host marked it.
struct RunWindow {
  WindowKind kind = WindowKind::timestamp_ns;
  uint64_t begin = 0, end = 0;  // inclusive
};

bool contains(const RunWindow& window, const KernelRecord& kernel);

// Kernel time of one run: the sum of its kernels' durations. This is time the GPU spent in the
// operator's kernels, not wall time: gaps between launches are left out. The kernels of one
// operator run on one stream and do not overlap, so the sum does not count any time twice.
struct RunKernelTime {
  uint64_t kernel_ns = 0;
  size_t kernels = 0;  // how many kernels the window held
};

// One entry per window, in the windows' order. A kernel inside two windows counts for the first.
std::vector<RunKernelTime> attribute_kernels(const std::vector<RunWindow>& windows,
                                             const std::vector<KernelRecord>& kernels);

// The median of `values` (mean of the two middle ones for an even count); throws
// std::invalid_argument for none.
double median(std::vector<double> values);

struct OperatorKernelTiming {
  double time_s = 0;                       // median over the runs that held kernels
  int runs = 0;                            // runs that held kernels
  std::vector<size_t> empty_runs;          // indices of windows that held none (lost records?)
  std::vector<std::string> kernel_names;   // distinct names inside the windows, first seen first
};

// Attributes `kernels` to `windows` and takes the median kernel time over the runs.
OperatorKernelTiming aggregate_operator_runs(const std::vector<RunWindow>& windows,
                                             const std::vector<KernelRecord>& kernels);

}  // namespace dtsim::profiler
