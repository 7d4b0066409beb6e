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

struct Activity {
  double s;
  bool host_sync;  // the host waits for it to finish (Operator::host_sync, on its last kernel)
};

// One run of the activities: returns the GPU's time waiting on the host. `lead` is how far the
// host is ahead of the GPU on entry and on exit.
double run_once(const std::vector<Activity>& activities, double host_s, double& lead) {
  double waited_s = 0;
  double host = -lead, gpu = 0;  // times from when the GPU is free at entry
  for (const Activity& a : activities) {
    host += host_s;
    const double start = std::max(gpu + kGpuActivityGapS, host);
    waited_s += start - gpu - kGpuActivityGapS;
    gpu = start + a.s;
    if (a.host_sync) host = std::max(host, gpu);
  }
  lead = gpu - host;  // the host finished launching this long before the GPU finished
  return waited_s;
}

}  // namespace

KernelClassTimes launched_pass(const std::vector<Operator>& ops, const ComputeModel& compute, double host_s,
                               int repeat) {
  std::vector<Activity> activities;
  KernelClassTimes once;
  for (const Operator& op : ops) {
    const int n = std::max(1, op.kernels);
    const double time_s = compute.time_s(op);
    once[reported_class(op)] += time_s;
    for (int i = 0; i < n; ++i) activities.push_back({time_s / n, op.host_sync && i == n - 1});
  }
  KernelClassTimes pass = once.scaled(repeat);
  pass.launch_s = 0;
  const double gaps_s = double(activities.size()) * kGpuActivityGapS;
  double lead = 0;
  for (int i = 0; i < repeat; ++i) {
    const double lead_before = lead;
    const double waited_s = run_once(activities, host_s, lead);
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
