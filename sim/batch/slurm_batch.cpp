#include "slurm_batch.hpp"

#include <fmt/format.h>

#include <iostream>

#include "scenario_writer.hpp"
#include "slurm_array.hpp"

namespace dtsim {

namespace fs = std::filesystem;

SlurmBatch simulate_on_slurm(const std::vector<SlurmSimulation>& simulations,
                             const std::vector<ResolvedScenario>& resolved, const SlurmOptions& options,
                             std::ostream& log,
                             const std::function<void(size_t, const SimulationOutcome&)>& on_outcome,
                             const std::atomic<bool>* cancel) {
  SlurmBatch batch;
  const size_t count = simulations.size();
  if (count == 0) return batch;
  SlurmManifest items;
  items.simulations = simulations;
  const SlurmArray array = run_slurm_array(std::move(items), options, log, cancel);
  batch.work_dir = array.work_dir;
  batch.job_id = array.manifest.job_ids.empty() ? "" : array.manifest.job_ids.front();
  if (array.state == SlurmArray::State::submitted) return batch;
  for (size_t i = 0; i < count; ++i) {
    SimulationOutcome outcome;
    if (array.state == SlurmArray::State::cancelled) {
      outcome.error = SimulationCancelled().what();
    } else if (const auto reply = array.reply(i)) {
      outcome = outcome_from_reply(resolved[i], *reply);
    } else {
      outcome.error = array.missing_reply_error(i);
    }
    batch.outcomes.push_back(outcome);
    if (on_outcome) on_outcome(i, batch.outcomes.back());
  }
  return batch;
}

std::vector<SimulationOutcome> simulate_here_or_on_slurm(const std::vector<ResolvedScenario>& resolved,
                                                         const std::vector<SlurmSimulation>& inputs, int parallel,
                                                         const SimulationOptions& options,
                                                         const std::optional<SlurmOptions>& slurm,
                                                         std::optional<SlurmBatch>& batch) {
  if (!slurm) {
    std::vector<SimulationOutcome> outcomes = simulate_many(resolved, parallel, {}, nullptr, options);
    // Side by side each had its share of the memory budget; a Slurm task has all of it. One that
    // failed is simulated again alone, so that what is simulated does not depend on the cores.
    if (parallel > 1 && resolved.size() > 1)
      for (size_t i = 0; i < resolved.size(); ++i)
        if (!outcomes[i].result) outcomes[i] = simulate_many({resolved[i]}, 1, {}, nullptr, options).front();
    return outcomes;
  }
  batch = simulate_on_slurm(inputs, resolved, *slurm, std::clog);
  std::vector<SimulationOutcome> outcomes = std::move(batch->outcomes);
  batch->outcomes.clear();
  return outcomes;
}

SimulationBatchRunner slurm_runner(const SlurmOptions& options, std::ostream& log, SlurmBatch& record) {
  return [options, &log, &record](const std::vector<ResolvedScenario>& scenarios) {
    SlurmOptions o = options;
    const bool collecting = !o.collect_from.empty();
    if (!collecting && o.work_dir.empty()) o.work_dir = default_work_dir();
    const fs::path dir = fs::absolute(collecting ? o.collect_from : o.work_dir).lexically_normal();
    if (!collecting) refuse_used_work_dir(dir);
    std::vector<SlurmSimulation> simulations;
    for (size_t i = 0; i < scenarios.size(); ++i) {
      const fs::path input = dir / "inputs" / fmt::format("{}.yaml", i);
      if (!collecting) {
        std::error_code ec;
        fs::create_directories(input.parent_path(), ec);
        write_text(input, scenario_to_yaml(scenarios[i].scenario, "A simulation of a dtsim Slurm batch."));
      }
      simulations.push_back(slurm_simulation(input));
    }
    record = simulate_on_slurm(simulations, scenarios, o, log);
    std::vector<SimulationOutcome> outcomes = std::move(record.outcomes);
    record.outcomes.clear();
    return outcomes;
  };
}

SlurmSimulation slurm_simulation(const fs::path& scenario_file, std::vector<FieldOverride> overrides) {
  SlurmSimulation s;
  s.scenario_file = fs::absolute(scenario_file);
  s.overrides = std::move(overrides);
  return s;
}

SimulationOptions SlurmSimulation::options() const {
  SimulationOptions o;
  o.fold_replicas = fold_replicas;
  o.record_link_usage = record_link_usage;
  return o;
}

SavedCommand saved_command(const fs::path& work_dir) {
  const SlurmManifest m = read_manifest(work_dir);
  return {m.command_line, m.working_dir};
}

}  // namespace dtsim
