#include "slurm_work_dir.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "atomic_file.hpp"
#include "input_error.hpp"
#include "json_input.hpp"

namespace dtsim {

namespace {
constexpr int kManifestVersion = 2;
std::filesystem::path manifest_file(const std::filesystem::path& dir) { return dir / "batch.json"; }
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
  const nlohmann::json j = {{"dtsim_slurm_batch", kManifestVersion}, {"tasks", m.tasks}, {"job_ids", m.job_ids},
                            {"command_line", m.command_line}, {"working_dir", m.working_dir.string()},
                            {"simulations", simulations}};
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
  } catch (const nlohmann::json::exception& e) {
    throw InputError({file.string(), 0, "", "a dtsim Slurm batch manifest", e.what()});
  }
  if (m.tasks < 1) throw InputError({file.string(), 0, "tasks", "a positive integer", std::to_string(m.tasks)});
  return m;
}

std::filesystem::path reply_file(const std::filesystem::path& work_dir, size_t simulation) {
  return work_dir / "results" / fmt::format("{}.reply", simulation);
}

std::filesystem::path task_log(const std::filesystem::path& work_dir, int task, bool retry) {
  return work_dir / "logs" / fmt::format("task-{}{}.log", task, retry ? ".retry" : "");
}

}  // namespace dtsim
