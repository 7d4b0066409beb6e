#pragma once
// One profiler step of one rank's trace, as measured: how long the step took, how busy its GPU
// was computing and communicating, how much communication no compute hid, and its collectives.
// The step's GPU work is what the CPU launched during its ProfilerStep annotation (GPU work runs
// behind the CPU, so the GPU events of a step may start after the annotation ends, and a job whose
// CPU runs ahead has its GPU run the step well after the annotation: see gpu_step_start_us).
#include <optional>
#include <string>
#include <vector>

#include "kernel_class.hpp"
#include "kineto_trace.hpp"

namespace dtsim {

struct StepCollective {
  TraceCollective collective;
  long stream = 0;
  double start_us = 0, duration_us = 0;  // of its kernel
};

// A kernel, copy or memset of the step that is not a collective.
struct StepKernel {
  double start_us = 0, duration_us = 0;
  KernelClass kind = KernelClass::memory_bound;
  double end_us() const { return start_us + duration_us; }
};

struct RankStep {
  std::string file;
  int rank = -1;
  std::string gpu_name;
  double gpu_memory_bytes = 0;  // 0: not recorded
  std::string step;        // "ProfilerStep#5"
  double step_start_us = 0;  // the annotation's start, on the trace's clock
  double step_s = 0;       // the annotation's duration: the step as recorded
  bool times_recorded = true;  // false: step_s is the GPU work laid end to end (KinetoTrace)
  // The step as the GPU ran it: from when the GPU had finished the work launched before the
  // annotation (or the annotation's start, if later) to the end of the step's own work (or the
  // annotation's end, if later). The annotation's window where the CPU waits for the GPU every step;
  // where the CPU runs ahead of a busy GPU, a window as long but later (what the replay runs).
  double gpu_step_start_us = 0, gpu_step_end_us = 0;
  double gpu_step_s() const { return (gpu_step_end_us - gpu_step_start_us) * 1e-6; }
  double gpu_lag_s() const { return (gpu_step_start_us - step_start_us) * 1e-6; }  // behind the annotation
  double gpu_span_s = 0;   // first start to last end of the step's GPU work
  double compute_s = 0;    // union of the step's kernels that are not NCCL's, copies and memsets
  double collective_s = 0; // union of its NCCL kernels
  double exposed_collective_s = 0;  // NCCL kernel time during which no other GPU work ran
  int kernels = 0;
  std::vector<StepCollective> collectives;
  std::vector<StepKernel> compute_kernels;  // in time order
  // The step's kernels (not NCCL's), copies and memsets, summed by the class dtsim's model reports
  // (kernel_role); launch_s: the rest of the GPU step (gaps between kernels, waits on the host).
  KernelClassTimes classes;
  int unknown_sizes() const;
};

// A rank's collectives in the order their kernels started.
std::vector<StepCollective> collectives_in_start_order(const RankStep& rank);

// Whether the ranks' steps overlap in time: their traces then share a clock (one host, or clocks in
// step), and when each began its step can be compared.
bool share_a_clock(const std::vector<RankStep>& ranks);

// The longest step annotation of `ranks`: the step as measured (0 for none).
double slowest_step_s(const std::vector<RankStep>& ranks);

// The names of the trace's steps ("ProfilerStep#4", ...), in time order.
std::vector<std::string> step_names(const KinetoTrace& trace);

// The step named `step`; throws InputError naming the file when it has no such step.
RankStep summarize_step(const KinetoTrace& trace, const std::string& step);

// The step every trace has, the latest of them; throws InputError when none is common (a trace
// without ProfilerStep annotations, or traces of different windows).
std::string common_step(const std::vector<KinetoTrace>& traces);

}  // namespace dtsim
