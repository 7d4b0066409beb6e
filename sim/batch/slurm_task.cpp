#include "slurm_task.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string_view>

#include "atomic_file.hpp"
#include "resolved_scenario.hpp"
#include "slurm_monte_carlo.hpp"
#include "slurm_work_dir.hpp"

namespace dtsim {

namespace {

ResolvedScenario rebuilt(const SlurmSimulation& s, const SlurmRebuilders& rebuilders) {
  if (s.kind.empty()) return resolve_scenario(load_scenario(s.scenario_file, s.overrides));
  const auto rebuilder = rebuilders.find(s.kind);
  if (rebuilder == rebuilders.end())
    throw std::runtime_error(fmt::format("this dtsim cannot rebuild a simulation of kind '{}'", s.kind));
  return rebuilder->second(s);
}

}  // namespace

int run_slurm_task(const std::filesystem::path& work_dir, int task, std::ostream& log,
                   const SlurmRebuilders& rebuilders) {
  SlurmManifest m;
  try {
    m = read_manifest(work_dir);
  } catch (const std::exception& e) {
    log << "dtsim slurm-task: " << e.what() << "\n";
    return 1;
  }
  if (task < 0 || task >= m.tasks) {
    log << fmt::format("dtsim slurm-task: task {} of a batch of {} tasks\n", task, m.tasks);
    return 1;
  }
  int failed_writes = 0;
  for (size_t i = size_t(task); i < m.items(); i += size_t(m.tasks)) {
    const std::filesystem::path reply = reply_file(work_dir, i);
    if (std::filesystem::exists(reply)) continue;  // done by the first try
    std::vector<uint8_t> bytes;
    if (i < m.simulations.size()) {
      const SlurmSimulation& s = m.simulations[i];
      bytes = simulate_to_reply([&] { return rebuilt(s, rebuilders); }, s.options());
    } else {
      const MonteCarloShare& share = m.monte_carlo_shares[i - m.simulations.size()];
      bytes = monte_carlo_share_reply(m.monte_carlo_jobs.at(size_t(share.job)), share);
    }
    const std::string error = write_file_atomically(
        reply, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!error.empty()) {
      log << fmt::format("dtsim slurm-task: could not write {}: {}\n", reply.string(), error);
      ++failed_writes;
    } else {
      log << fmt::format("dtsim slurm-task: item {} done\n", i);
    }
  }
  return failed_writes ? 1 : 0;
}

}  // namespace dtsim
