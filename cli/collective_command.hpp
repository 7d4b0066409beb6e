#pragma once
// `dtsim collective [TOPOLOGY]`: predicts one NCCL collective on a topology over a size sweep
// and prints it in nccl-tests' *_perf format, so it can be diffed against a real run.
#include <CLI/CLI.hpp>

#include <string>

namespace dtsim {

struct CollectiveOptions {
  std::string topology_file;
  std::string op = "all_reduce";
  std::string gpus = "8";
  std::string algorithm = "auto";
  std::string protocol = "auto";
  std::string min_bytes = "8", max_bytes = "8G";  // nccl-tests -b / -e, with K, M, G suffixes
  std::string step_factor = "2";                   // nccl-tests -f
};

void add_collective_options(CLI::App& command, CollectiveOptions& options, const std::string& default_topology);
int run_collective_command(const CollectiveOptions& options);

}  // namespace dtsim
