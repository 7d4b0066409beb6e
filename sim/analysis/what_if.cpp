#include "what_if.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <numeric>
#include <thread>

namespace dtsim {

namespace {

std::string window(double start_s, double end_s) {
  if (end_s >= kForever_s) return start_s > 0 ? fmt::format(" from {:g} s", start_s) : "";
  return fmt::format(" during [{:g}, {:g}) s", start_s, end_s);
}

struct Describer {
  std::string operator()(const StragglerEvent& e) const {
    const std::string who = e.node >= 0 ? fmt::format("every GPU of node {}", e.node) : fmt::format("GPU {}", e.gpu);
    return fmt::format("{} computes {:g}x slower{}", who, e.slowdown, window(e.start_s, e.end_s));
  }
  std::string operator()(const SlowLinkEvent& e) const {
    const std::string link = e.link == EventLink::nic ? fmt::format("NIC {} of node {}", e.nic, e.node)
                                                      : fmt::format("the NVLink of GPU {}", e.gpu);
    return fmt::format("{} at {:g}% of its bandwidth{}", link, 100 * e.bandwidth_fraction, window(e.start_s, e.end_s));
  }
  std::string operator()(const ResourceFailureEvent& e) const {
    switch (e.resource) {
      case FailedResource::gpu: return fmt::format("GPU {} fails at {:g} s", e.gpu, e.at_s);
      case FailedResource::node: return fmt::format("node {} fails at {:g} s", e.node, e.at_s);
      case FailedResource::nic: return fmt::format("NIC {} of node {} fails at {:g} s", e.nic, e.node, e.at_s);
      case FailedResource::nvlink: return fmt::format("the NVLink of GPU {} fails at {:g} s", e.gpu, e.at_s);
      case FailedResource::leaf_switch: return fmt::format("leaf switch {} fails at {:g} s", e.leaf, e.at_s);
    }
    return "?";
  }
  std::string operator()(const BackgroundTrafficEvent& e) const {
    return fmt::format("another job sends {:g} GB/s from node {} to node {}{}", e.rate_Bps / 1e9, e.from_node, e.to_node,
                       window(e.start_s, e.end_s));
  }
};

}  // namespace

std::string describe_event(const Event& e) { return std::visit(Describer{}, e); }

std::string format_what_if(const Scenario& s, const SimulationResult& with_events,
                           const SimulationResult& without_events, int top) {
  std::string out = "what-if events\n";
  for (const Event& e : s.events) out += "  " + describe_event(e) + "\n";
  const EngineResult& w = with_events.engine;
  const double healthy_s = without_events.engine.iteration_s;
  if (!w.completed) {
    out += fmt::format("iteration           did not complete: {} of {} GPUs could not finish; the last progress was "
                       "at {:.4f} s (without the events the iteration takes {:.4f} s). Synchronous training stops "
                       "and restarts from its last checkpoint (see `dtsim goodput`).\n",
                       w.unfinished_ranks, w.ranks.size(), w.stopped_s, healthy_s);
    if (w.simulated_ranks() < int(w.ranks.size()))
      out += "                    With rank folding a folded GPU stops when the GPU it repeats does, so more GPUs "
             "can stop, and earlier, than in the full simulation (--no-fold), where each stops on its own.\n";
  } else {
    out += fmt::format("iteration           {:.4f} s with the events, {:.4f} s without: {:+.1f} %\n", w.iteration_s,
                       healthy_s, 100 * (w.iteration_s / healthy_s - 1));
  }
  if (w.waited_on_s.empty()) return out;
  std::vector<int> order(w.waited_on_s.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return w.waited_on_s[a] > w.waited_on_s[b]; });
  out += "waited for          GPU-seconds the other GPUs spent waiting for each (last into a collective, or a late "
         "pipeline sender)\n";
  for (int i = 0; i < top && i < int(order.size()) && w.waited_on_s[order[i]] > 1e-6; ++i)
    out += fmt::format("  GPU {:<6} {:10.4f} s\n", order[i], w.waited_on_s[order[i]]);
  return out;
}

namespace {

// As `--event` writes it; "{}" prints the shortest text that reads back to the same double.
std::string straggler_words(int gpu, double slowdown) {
  return fmt::format("straggler gpu={} slowdown={}", gpu, slowdown);
}

StragglerEvent straggler(int gpu, double slowdown) {
  StragglerEvent e;
  e.gpu = gpu;
  e.slowdown = slowdown;
  return e;
}

std::vector<SensitivityPoint> points_of(const std::vector<double>& slowdowns,
                                        const std::vector<SimulationOutcome>& outcomes) {
  std::vector<SensitivityPoint> points;
  for (size_t i = 0; i < slowdowns.size(); ++i) {
    SensitivityPoint p{slowdowns[i], 0, outcomes[i].error};
    if (outcomes[i].result) p.iteration_s = outcomes[i].result->engine.iteration_s;
    points.push_back(p);
  }
  return points;
}

std::vector<ResolvedScenario> sensitivity_runs(const Scenario& s, int gpu, const std::vector<double>& slowdowns) {
  const ResolvedScenario resolved = resolve_scenario(s);
  std::vector<ResolvedScenario> runs;
  for (double k : slowdowns) {
    Scenario r = s;
    r.events.push_back(straggler(gpu, k));
    runs.push_back(resolve_variant(resolved, r));
  }
  return runs;
}

}  // namespace

std::vector<SensitivityPoint> straggler_sensitivity(const Scenario& s, int gpu, const std::vector<double>& slowdowns) {
  const int cores = std::max(1, int(std::thread::hardware_concurrency()));
  std::optional<SlurmBatch> none;
  return points_of(slowdowns, simulate_here_or_on_slurm(sensitivity_runs(s, gpu, slowdowns), {}, cores, {},
                                                        std::nullopt, none));
}

SensitivityOnSlurm straggler_sensitivity_on_slurm(const Scenario& s, const std::vector<FieldOverride>& loaded_with,
                                                  int gpu, const std::vector<double>& slowdowns,
                                                  const SlurmOptions& slurm) {
  std::vector<SlurmSimulation> inputs;
  for (double k : slowdowns) {
    inputs.push_back(slurm_simulation(s.source_file, loaded_with));
    inputs.back().overrides.push_back(event_override("--straggler-sweep", straggler_words(gpu, k)));
  }
  SensitivityOnSlurm out;
  out.batch = simulate_on_slurm(inputs, sensitivity_runs(s, gpu, slowdowns), slurm, std::clog);
  if (out.batch.outcomes.size() == slowdowns.size()) out.points = points_of(slowdowns, out.batch.outcomes);
  out.batch.outcomes.clear();
  return out;
}

std::string format_sensitivity(const std::vector<SensitivityPoint>& points, int gpu) {
  std::string out = fmt::format("straggler sensitivity: GPU {} slowed by each factor\n{:>9} {:>13} {:>10}\n", gpu,
                                "slowdown", "iteration s", "vs first");
  const double first_s = points.empty() ? 0 : points.front().iteration_s;
  for (const SensitivityPoint& p : points) {
    if (!p.error.empty()) {
      out += fmt::format("{:>9.3g} {}\n", p.slowdown, p.error);
      continue;
    }
    out += fmt::format("{:>9.3g} {:>13.4f} {:>+9.1f}%\n", p.slowdown, p.iteration_s,
                       first_s > 0 ? 100 * (p.iteration_s / first_s - 1) : 0.0);
  }
  return out;
}

}  // namespace dtsim
