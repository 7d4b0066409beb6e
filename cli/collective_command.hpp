#pragma once
// `dtsim collective`: predicts one NCCL collective on a topology over a size sweep and prints it
// in nccl-tests' *_perf format.
#include <CLI/CLI.hpp>

#include <string>

namespace dtsim {

struct CollectiveOptions {
  std::string topology_file;
  std::string collective = "all_reduce";
  int gpus = 8;
  std::string algorithm = "auto";
  std::string protocol = "auto";
  std::string min_bytes = "8", max_bytes = "8G";
  double step_factor = 2;
};

void add_collective_options(CLI::App& command, CollectiveOptions& options);
int run_collective_command(const CollectiveOptions& options);

}  // namespace dtsim
