#pragma once
// The work folder of a Slurm batch (slurm_array.hpp): batch.json, which the submitting dtsim
// writes and the tasks and `dtsim collect` read, and where each file lives.
#include <filesystem>
#include <string>
#include <vector>

#include "goodput_monte_carlo.hpp"
#include "slurm_batch.hpp"

namespace dtsim {

// A share of Monte Carlo job `job`: its runs [first, first + count).
struct MonteCarloShare {
  int job = 0, first = 0, count = 0;
  bool operator==(const MonteCarloShare&) const = default;
};

struct SlurmManifest {
  // The items, one reply each: simulations, or Monte Carlo shares of the jobs.
  std::vector<SlurmSimulation> simulations;
  std::vector<MonteCarloJob> monte_carlo_jobs;
  std::vector<MonteCarloShare> monte_carlo_shares;
  int tasks = 1;
  std::vector<std::string> job_ids;       // the submissions, first one first
  std::vector<std::string> command_line;  // what asked (dtsim collect runs it again)
  std::filesystem::path working_dir;      // where it was asked

  size_t items() const { return simulations.size() + monte_carlo_shares.size(); }
  const char* item_noun() const { return simulations.empty() ? "Monte Carlo shares" : "simulations"; }
  bool same_items(const SlurmManifest& o) const {
    return simulations == o.simulations && monte_carlo_jobs == o.monte_carlo_jobs &&
           monte_carlo_shares == o.monte_carlo_shares;
  }
};

void write_manifest(const std::filesystem::path& work_dir, const SlurmManifest& m);
// Throws InputError naming DIR/batch.json when it is missing or not a manifest.
SlurmManifest read_manifest(const std::filesystem::path& work_dir);

std::filesystem::path reply_file(const std::filesystem::path& work_dir, size_t simulation);
std::filesystem::path task_log(const std::filesystem::path& work_dir, int task, bool retry);

}  // namespace dtsim
