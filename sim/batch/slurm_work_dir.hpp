#pragma once
// The work folder of a Slurm batch (slurm_batch.hpp): batch.json, which the submitting dtsim
// writes and the tasks and `dtsim collect` read, and where each file lives.
#include <filesystem>
#include <string>
#include <vector>

#include "slurm_batch.hpp"

namespace dtsim {

struct SlurmManifest {
  std::vector<SlurmSimulation> simulations;
  int tasks = 1;
  std::vector<std::string> job_ids;       // the submissions, first one first
  std::vector<std::string> command_line;  // what asked (dtsim collect runs it again)
  std::filesystem::path working_dir;      // where it was asked
};

void write_manifest(const std::filesystem::path& work_dir, const SlurmManifest& m);
// Throws InputError naming DIR/batch.json when it is missing or not a manifest.
SlurmManifest read_manifest(const std::filesystem::path& work_dir);

std::filesystem::path reply_file(const std::filesystem::path& work_dir, size_t simulation);
std::filesystem::path task_log(const std::filesystem::path& work_dir, int task, bool retry);

}  // namespace dtsim
