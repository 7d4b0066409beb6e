#include "slurm_work_dir.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "atomic_file.hpp"
#include "input_error.hpp"
#include "json_input.hpp"
#include "reliability_config.hpp"

namespace dtsim {

namespace {
constexpr int kManifestVersion = 2;
std::filesystem::path manifest_file(const std::filesystem::path& dir) { return dir / "batch.json"; }

using nlohmann::json;

// JSON has no infinity: a class that never fails has a null MTBF. Doubles are written so that
// they read back to the same bits (nlohmann's shortest round-trip form).
json job_json(const MonteCarloJob& j) {
  json classes = json::array();
  for (const FailureClass& c : j.problem.failures)
    classes.push_back({{"name", c.name},
                       {"units", c.units},
                       {"mtbf_hours", std::isinf(c.mtbf_hours) ? json(nullptr) : json(c.mtbf_hours)},
                       {"takes_node_out", c.takes_node_out}});
  const RecoveryModel& r = j.recovery;
  return {{"work_s", j.problem.work_s},
          {"checkpoint_stall_s", j.problem.checkpoint_stall_s},
          {"checkpoint_persist_s", j.problem.checkpoint_persist_s},
          {"recovery_s", j.problem.recovery_s},
          {"failures", classes},
          {"strategy", to_string(r.strategy)},
          {"repair_s", r.repair_s},
          {"spares", r.spares},
          {"swap_s", r.swap_s},
          {"dp", r.dp},
          {"replicas_per_node_failure", r.replicas_per_node_failure},
          {"interval_s", j.interval_s},
          {"runs", j.runs},
          {"seed", j.seed}};
}

MonteCarloJob job_of(const json& j, const std::filesystem::path& file) {
  MonteCarloJob job;
  job.problem.work_s = j.at("work_s").get<double>();
  job.problem.checkpoint_stall_s = j.at("checkpoint_stall_s").get<double>();
  job.problem.checkpoint_persist_s = j.at("checkpoint_persist_s").get<double>();
  job.problem.recovery_s = j.at("recovery_s").get<double>();
  for (const json& c : j.at("failures")) {
    FailureClass f;
    f.name = c.at("name").get<std::string>();
    f.units = c.at("units").get<double>();
    f.mtbf_hours = c.at("mtbf_hours").is_null() ? kNeverFails : c.at("mtbf_hours").get<double>();
    f.takes_node_out = c.at("takes_node_out").get<bool>();
    job.problem.failures.push_back(f);
  }
  const std::string strategy = j.at("strategy").get<std::string>();
  try {
    job.recovery.strategy = recovery_strategy_from(strategy);
  } catch (const std::invalid_argument&) {
    throw InputError({file.string(), 0, "monte_carlo_jobs.strategy", "wait_for_repair, spare_nodes or elastic",
                      "'" + strategy + "'"});
  }
  job.recovery.repair_s = j.at("repair_s").get<double>();
  job.recovery.spares = j.at("spares").get<int>();
  job.recovery.swap_s = j.at("swap_s").get<double>();
  job.recovery.dp = j.at("dp").get<int>();
  job.recovery.replicas_per_node_failure = j.at("replicas_per_node_failure").get<int>();
  job.interval_s = j.at("interval_s").get<double>();
  job.runs = j.at("runs").get<int>();
  job.seed = j.at("seed").get<uint64_t>();
  return job;
}

}  // namespace

void write_manifest(const std::filesystem::path& work_dir, const SlurmManifest& m) {
  nlohmann::json simulations = nlohmann::json::array();
  for (const SlurmSimulation& s : m.simulations) {
    nlohmann::json overrides = nlohmann::json::array();
    for (const FieldOverride& o : s.overrides) overrides.push_back({o.path, o.value});
    simulations.push_back({{"scenario_file", s.scenario_file.string()},
                           {"overrides", overrides},
                           {"kind", s.kind},
                           {"index", s.index},
                           {"topologies_dir", s.topologies_dir.string()},
                           {"fold_replicas", s.fold_replicas},
                           {"record_link_usage", s.record_link_usage}});
  }
  json jobs = json::array(), shares = json::array();
  for (const MonteCarloJob& job : m.monte_carlo_jobs) jobs.push_back(job_json(job));
  for (const MonteCarloShare& share : m.monte_carlo_shares) shares.push_back({share.job, share.first, share.count});
  const nlohmann::json j = {{"dtsim_slurm_batch", kManifestVersion}, {"tasks", m.tasks}, {"job_ids", m.job_ids},
                            {"command_line", m.command_line}, {"working_dir", m.working_dir.string()},
                            {"simulations", simulations}, {"monte_carlo_jobs", jobs},
                            {"monte_carlo_shares", shares}};
  const std::string error = write_file_atomically(manifest_file(work_dir), j.dump(1) + "\n");
  if (!error.empty())
    throw InputError({manifest_file(work_dir).string(), 0, "--slurm-dir", "a folder dtsim can write", error});
}

SlurmManifest read_manifest(const std::filesystem::path& work_dir) {
  const std::filesystem::path file = manifest_file(work_dir);
  if (!std::filesystem::is_regular_file(file))
    throw InputError({file.string(), 0, "", "the work folder of a dtsim Slurm batch (its batch.json)", "no such file"});
  const nlohmann::json j = parse_json_input(file);
  SlurmManifest m;
  try {
    if (j.at("dtsim_slurm_batch").get<int>() != kManifestVersion)
      throw InputError({file.string(), 0, "dtsim_slurm_batch", fmt::format("{}", kManifestVersion),
                        describe_json(j.at("dtsim_slurm_batch"))});
    m.tasks = j.at("tasks").get<int>();
    m.job_ids = j.at("job_ids").get<std::vector<std::string>>();
    m.command_line = j.at("command_line").get<std::vector<std::string>>();
    m.working_dir = j.at("working_dir").get<std::string>();
    for (const nlohmann::json& s : j.at("simulations")) {
      SlurmSimulation sim;
      sim.scenario_file = s.at("scenario_file").get<std::string>();
      for (const nlohmann::json& o : s.at("overrides"))
        sim.overrides.push_back({o.at(0).get<std::string>(), o.at(1).get<std::string>()});
      sim.kind = s.at("kind").get<std::string>();
      sim.index = s.at("index").get<int>();
      sim.topologies_dir = s.at("topologies_dir").get<std::string>();
      sim.fold_replicas = s.at("fold_replicas").get<bool>();
      sim.record_link_usage = s.at("record_link_usage").get<bool>();
      m.simulations.push_back(std::move(sim));
    }
    for (const json& job : j.at("monte_carlo_jobs")) m.monte_carlo_jobs.push_back(job_of(job, file));
    for (const json& share : j.at("monte_carlo_shares"))
      m.monte_carlo_shares.push_back({share.at(0).get<int>(), share.at(1).get<int>(), share.at(2).get<int>()});
  } catch (const nlohmann::json::exception& e) {
    throw InputError({file.string(), 0, "", "a dtsim Slurm batch manifest", e.what()});
  }
  if (m.tasks < 1) throw InputError({file.string(), 0, "tasks", "a positive integer", std::to_string(m.tasks)});
  for (const MonteCarloShare& s : m.monte_carlo_shares)
    if (s.job < 0 || size_t(s.job) >= m.monte_carlo_jobs.size() || s.first < 0 || s.count < 1 ||
        s.first + s.count > m.monte_carlo_jobs[s.job].runs)
      throw InputError({file.string(), 0, "monte_carlo_shares", "runs [first, first + count) of one of its jobs",
                        fmt::format("[{}, {}, {}]", s.job, s.first, s.count)});
  return m;
}

std::filesystem::path reply_file(const std::filesystem::path& work_dir, size_t simulation) {
  return work_dir / "results" / fmt::format("{}.reply", simulation);
}

std::filesystem::path task_log(const std::filesystem::path& work_dir, int task, bool retry) {
  return work_dir / "logs" / fmt::format("task-{}{}.log", task, retry ? ".retry" : "");
}

}  // namespace dtsim
