#include "step_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "input_error.hpp"
#include "intervals.hpp"

namespace dtsim {

int RankStep::unknown_sizes() const {
  return int(std::count_if(collectives.begin(), collectives.end(),
                           [](const StepCollective& c) { return c.collective.size_source == SizeSource::unknown; }));
}

std::vector<StepCollective> collectives_in_start_order(const RankStep& rank) {
  std::vector<StepCollective> c = rank.collectives;
  std::stable_sort(c.begin(), c.end(), [](const StepCollective& a, const StepCollective& b) {
    return a.start_us < b.start_us;
  });
  return c;
}

bool share_a_clock(const std::vector<RankStep>& ranks) {
  if (ranks.empty()) return false;
  double latest_start = ranks[0].step_start_us, first_end = latest_start + ranks[0].step_s * 1e6;
  for (const RankStep& r : ranks) {
    latest_start = std::max(latest_start, r.step_start_us);
    first_end = std::min(first_end, r.step_start_us + r.step_s * 1e6);
  }
  return latest_start < first_end;
}

double slowest_step_s(const std::vector<RankStep>& ranks) {
  double slowest = 0;
  for (const RankStep& r : ranks) slowest = std::max(slowest, r.step_s);
  return slowest;
}

std::vector<std::string> step_names(const KinetoTrace& trace) {
  std::vector<std::string> names;
  for (const TraceStep& s : trace.steps) names.push_back(s.name);
  return names;
}

RankStep summarize_step(const KinetoTrace& trace, const std::string& step) {
  const auto s =
      std::find_if(trace.steps.begin(), trace.steps.end(), [&](const TraceStep& x) { return x.name == step; });
  if (s == trace.steps.end()) {
    std::string have;
    for (const TraceStep& x : trace.steps) have += (have.empty() ? "" : ", ") + x.name;
    throw InputError({trace.file.string(), 0, "--step", "a profiler step of the trace",
                      fmt::format("'{}' (it has: {})", step, have.empty() ? "no ProfilerStep annotation" : have)});
  }
  RankStep r;
  r.file = trace.file.string();
  r.rank = trace.rank;
  r.gpu_name = trace.gpu_name;
  r.gpu_memory_bytes = trace.gpu_memory_bytes;
  r.step = step;
  r.step_start_us = s->start_us;
  r.step_s = s->duration_us * 1e-6;
  r.times_recorded = trace.times_recorded;
  std::vector<Interval> compute, collective;
  double first = std::numeric_limits<double>::infinity(), last = -first, earlier_work_end = s->start_us;
  for (const GpuActivity& a : trace.gpu) {
    if (a.launch_us < s->start_us) earlier_work_end = std::max(earlier_work_end, a.end_us());
    if (a.launch_us < s->start_us || a.launch_us >= s->end_us()) continue;
    first = std::min(first, a.start_us);
    last = std::max(last, a.end_us());
    if (a.kind == GpuActivityKind::kernel) ++r.kernels;
    if (a.collective) {
      collective.push_back({a.start_us, a.end_us()});
      r.collectives.push_back({*a.collective, a.stream, a.start_us, a.duration_us});
    } else {
      compute.push_back({a.start_us, a.end_us()});
      r.compute_kernels.push_back({a.start_us, a.duration_us, kernel_class(a.name, a.kind)});
      r.classes[kernel_role(a.name, a.kind)] += a.duration_us * 1e-6;
    }
  }
  if (last > first) r.gpu_span_s = (last - first) * 1e-6;
  r.gpu_step_start_us = r.times_recorded ? earlier_work_end : s->start_us;
  r.gpu_step_end_us = r.times_recorded ? std::max(s->end_us(), last) : s->end_us();
  r.compute_s = union_length(compute) * 1e-6;
  r.classes.launch_s = std::max(0.0, r.gpu_step_s() - r.classes.kernels_s());
  r.collective_s = union_length(collective) * 1e-6;
  const std::vector<Interval> busy = merged(compute);
  double exposed = 0;
  for (const Interval& c : merged(collective)) exposed += uncovered_length(c, busy);
  r.exposed_collective_s = exposed * 1e-6;
  return r;
}

std::string common_step(const std::vector<KinetoTrace>& traces) {
  if (traces.empty()) return "";
  std::vector<std::string> common = step_names(traces.front());
  for (const KinetoTrace& t : traces) {
    const std::vector<std::string> names = step_names(t);
    std::erase_if(common,
                  [&](const std::string& n) { return std::find(names.begin(), names.end(), n) == names.end(); });
  }
  if (common.empty())
    throw InputError({traces.front().file.string(), 0, "", "a ProfilerStep#N annotation that every trace has",
                      traces.size() == 1 ? "no ProfilerStep annotation" : "none in common"});
  return common.back();
}

}  // namespace dtsim
