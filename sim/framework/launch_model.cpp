#include "launch_model.hpp"

#include <algorithm>
#include <cmath>

namespace dtsim {

double host_launch_s(const TrainingConfig& t) {
  if (t.cuda_graphs) return 0;
  return t.framework == Framework::torch_compile ? kCompiledLaunchHostS : kEagerLaunchHostS;
}

double step_overhead_s(const TrainingConfig& t) {
  return t.framework == Framework::torch_compile ? kCompiledStepOverheadS : kEagerStepOverheadS;
}

namespace {

// One run of the activities: returns the GPU's time waiting on the host. `lead` is how far the
// host is ahead of the GPU on entry and on exit.
double run_once(const std::vector<double>& activity_s, double host_s, double& lead) {
  double waited_s = 0;
  double host = -lead, gpu = 0;  // times from when the GPU is free at entry
  for (double t : activity_s) {
    host += host_s;
    const double start = std::max(gpu + kGpuActivityGapS, host);
    waited_s += start - gpu - kGpuActivityGapS;
    gpu = start + t;
  }
  lead = gpu - host;  // the host finished launching this long before the GPU finished
  return waited_s;
}

}  // namespace

KernelClassTimes launched_pass(const std::vector<Operator>& ops, const ComputeModel& compute, double host_s,
                               int repeat) {
  std::vector<double> activity_s;
  KernelClassTimes once;
  for (const Operator& op : ops) {
    const int n = std::max(1, op.kernels);
    const double time_s = compute.time_s(op);
    once[op.kind] += time_s;
    for (int i = 0; i < n; ++i) activity_s.push_back(time_s / n);
  }
  KernelClassTimes pass = once.scaled(repeat);
  pass.launch_s = 0;
  const double gaps_s = double(activity_s.size()) * kGpuActivityGapS;
  double lead = 0;
  for (int i = 0; i < repeat; ++i) {
    const double lead_before = lead;
    const double waited_s = run_once(activity_s, host_s, lead);
    pass.launch_s += gaps_s + waited_s;
    // The same layer again from the same or a larger lead waits the same or less: once a run waited
    // nothing and the host kept its lead, the rest wait nothing; once a run leaves the lead where it
    // found it, the rest repeat it.
    const bool settled = (waited_s == 0 && lead >= lead_before) || std::abs(lead - lead_before) < 1e-12;
    if (settled) {
      const int rest = repeat - i - 1;
      pass.launch_s += rest * (gaps_s + waited_s);
      break;
    }
  }
  return pass;
}

}  // namespace dtsim
