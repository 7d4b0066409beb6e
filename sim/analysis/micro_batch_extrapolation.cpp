#include "micro_batch_extrapolation.hpp"

#include <stdexcept>

namespace dtsim {

std::optional<MicroBatchSamples> micro_batch_samples(const Scenario& s) {
  const int pp = s.parallelism.pp;
  if (s.micro_batches_per_replica() <= 3 * pp || !s.events.empty()) return std::nullopt;
  return MicroBatchSamples{pp, 2 * pp};
}

Scenario with_micro_batches(const Scenario& s, int micro_batches) {
  Scenario out = s;
  out.training.global_batch = micro_batches * s.parallelism.dp * s.training.micro_batch;
  return out;
}

namespace {
double affine(double small, double large, const MicroBatchSamples& m, int micro_batches) {
  return large + (micro_batches - m.large) * (large - small) / (m.large - m.small);
}
}  // namespace

SimulationResult extrapolate_micro_batches(const SimulationResult& small, const SimulationResult& large,
                                           const MicroBatchSamples& samples, int micro_batches) {
  if (small.engine.ranks.size() != large.engine.ranks.size())
    throw std::logic_error("extrapolate_micro_batches: the two samples have different rank counts");
  SimulationResult out = large;
  out.engine.spans.clear();  // a trace of the short run would not be the iteration's
  out.engine.iteration_s = affine(small.engine.iteration_s, large.engine.iteration_s, samples, micro_batches);
  for (size_t r = 0; r < out.engine.ranks.size(); ++r) {
    const RankTimes &a = small.engine.ranks[r], &b = large.engine.ranks[r];
    RankTimes& t = out.engine.ranks[r];
    t.finish_s = affine(a.finish_s, b.finish_s, samples, micro_batches);
    t.compute_s = affine(a.compute_s, b.compute_s, samples, micro_batches);
    t.communication_s = affine(a.communication_s, b.communication_s, samples, micro_batches);
    t.bubble_s = affine(a.bubble_s, b.bubble_s, samples, micro_batches);
    for (auto& [kind, c] : t.communication_by_kind) {
      const auto in_small = a.communication_by_kind.find(kind);
      const CommunicationTimes s = in_small == a.communication_by_kind.end() ? CommunicationTimes{} : in_small->second;
      const CommunicationTimes& l = b.communication_by_kind.at(kind);
      c.total_s = affine(s.total_s, l.total_s, samples, micro_batches);
      c.exposed_s = affine(s.exposed_s, l.exposed_s, samples, micro_batches);
    }
  }
  out.engine.activities = small.engine.activities + large.engine.activities;
  out.platform_build_wall_s = small.platform_build_wall_s + large.platform_build_wall_s;
  out.simulation_wall_s = small.simulation_wall_s + large.simulation_wall_s;
  return out;
}

std::vector<SimulationOutcome> simulate_many_extrapolated(const std::vector<ResolvedScenario>& scenarios, int parallel,
                                                          const SimulationBatchRunner& run) {
  // All short simulations first, then all long ones, so that a batch of `parallel` children
  // holds simulations of similar length.
  std::vector<ResolvedScenario> small_runs, large_runs;
  std::vector<std::optional<MicroBatchSamples>> samples(scenarios.size());
  std::vector<int> slot(scenarios.size());
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const Scenario& s = scenarios[i].scenario;
    samples[i] = micro_batch_samples(s);
    slot[i] = int(small_runs.size());
    if (samples[i]) {
      small_runs.push_back(resolve_variant(scenarios[i], with_micro_batches(s, samples[i]->small)));
      large_runs.push_back(resolve_variant(scenarios[i], with_micro_batches(s, samples[i]->large)));
    } else {
      small_runs.push_back(scenarios[i]);
    }
  }
  std::vector<ResolvedScenario> runs = small_runs;
  runs.insert(runs.end(), large_runs.begin(), large_runs.end());
  const std::vector<SimulationOutcome> done = run ? run(runs) : simulate_many(runs, parallel);
  if (done.size() != runs.size()) return {};  // submitted elsewhere, not gathered yet

  std::vector<SimulationOutcome> outcomes(scenarios.size());
  int large_index = int(small_runs.size());
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const SimulationOutcome& a = done[size_t(slot[i])];
    if (!samples[i]) {
      outcomes[i] = a;
      continue;
    }
    const SimulationOutcome& b = done[size_t(large_index++)];
    if (!a.result || !b.result) {
      outcomes[i].error = a.result ? b.error : a.error;
      continue;
    }
    outcomes[i].result = extrapolate_micro_batches(*a.result, *b.result, *samples[i],
                                                   scenarios[i].scenario.micro_batches_per_replica());
  }
  return outcomes;
}

}  // namespace dtsim
