// Simulator speed at scale (issue 17): one iteration of each case below, with rank folding and,
// up to --unfolded-max-gpus, without, side by side. Prints per run the simulated iteration, the
// wall time of the whole simulate() call (workload, platform, engine, child process), the
// simulating process's peak resident memory, the activities simulated and the GPUs that ran their
// own program; writes the same as CSV.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "atomic_file.hpp"
#include "input_error.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"

using namespace dtsim;

namespace {

struct Case {
  const char* label;
  const char* file;  // relative to the source tree
};

// 1k, 4k, 12k, 16k (with and without what-if events) and 65k GPUs.
const std::vector<Case> kCases = {
    {"gpt3-175b 1k a100 (default)", "scenarios/gpt3-175b-1024-a100.yaml"},
    {"gpt3-175b 4k a100", "bench/scale/gpt3-175b-4096-a100.yaml"},
    {"gpt3-175b 12k a100 megascale", "bench/scale/gpt3-175b-12288-a100.yaml"},
    {"llama3-405b 16k h100", "bench/scale/llama3-405b-16384-h100.yaml"},
    {"llama3-405b 16k h100 straggler+slow nic", "bench/scale/llama3-405b-16384-h100-what-if.yaml"},
    {"llama3-405b 16k h100 straggler+failed nic", "bench/scale/llama3-405b-16384-h100-failure.yaml"},
    {"llama3-405b 65k h100 3-tier", "bench/scale/llama3-405b-65536-h100.yaml"},
};

struct Run {
  bool completed = true;  // false: a failure stopped the iteration (no iteration time)
  double iteration_s = 0, wall_s = 0, peak_memory_bytes = 0;
  int64_t activities = 0;
  int simulated_gpus = 0;
};

Run simulate_once(const Scenario& s, bool fold) {
  SimulationOptions options;
  options.fold_replicas = fold;
  const auto start = std::chrono::steady_clock::now();
  const SimulationResult r = simulate(s, options);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {r.engine.completed, r.engine.iteration_s, wall_s, r.peak_memory_bytes, r.engine.activities,
          r.engine.simulated_ranks()};
}

std::string cells(const std::optional<Run>& r) {
  if (!r) return fmt::format("{:>11} {:>8} {:>7} {:>10} {:>7}", "-", "-", "-", "-", "-");
  const std::string iteration = r->completed ? fmt::format("{:.4f}", r->iteration_s) : "stopped";
  return fmt::format("{:>11} {:>8.2f} {:>7.2f} {:>10} {:>7}", iteration, r->wall_s,
                     r->peak_memory_bytes / 1e9, r->activities, r->simulated_gpus);
}

std::string csv_cells(const std::optional<Run>& r) {
  if (!r) return ",,,,";
  const std::string iteration = r->completed ? fmt::format("{:.6g}", r->iteration_s) : "";
  return fmt::format("{},{:.3f},{:.0f},{},{}", iteration, r->wall_s, r->peak_memory_bytes, r->activities,
                     r->simulated_gpus);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dtsim simulator speed: folded and unfolded runs from 1k to 65k GPUs"};
  int unfolded_max_gpus = 4096;
  long max_gpus = 1L << 20;
  std::string csv_path = "dtsim-bench.csv";
  app.add_option("--unfolded-max-gpus", unfolded_max_gpus,
                 "also run --no-fold up to this many GPUs (4096 unfolded took 1-2 min on 2 cores)")
      ->capture_default_str();
  app.add_option("--max-gpus", max_gpus, "skip cases larger than this")->capture_default_str();
  app.add_option("--csv", csv_path, "CSV written at the end")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const std::filesystem::path source = DTSIM_SOURCE_DIR;
  const std::string columns =
      fmt::format("{:>11} {:>8} {:>7} {:>10} {:>7}", "iteration_s", "wall_s", "peak_GB", "activities", "ran");
  fmt::print("{:<42} {:>7} | folded: {} | unfolded: {}\n", "case", "gpus", columns, columns);
  std::string csv =
      "case,gpus,folded_iteration_s,folded_wall_s,folded_peak_memory_bytes,folded_activities,folded_simulated_gpus,"
      "unfolded_iteration_s,unfolded_wall_s,unfolded_peak_memory_bytes,unfolded_activities,unfolded_simulated_gpus\n";
  try {
    for (const Case& c : kCases) {
      const Scenario s = load_scenario(source / c.file);
      const long gpus = long(s.cluster.nodes) * s.cluster.topology.node.gpus;
      if (gpus > max_gpus) continue;
      const Run folded = simulate_once(s, true);
      std::optional<Run> unfolded;
      if (gpus <= unfolded_max_gpus) unfolded = simulate_once(s, false);
      fmt::print("{:<42} {:>7} | folded: {} | unfolded: {}\n", c.label, gpus, cells(folded), cells(unfolded));
      std::fflush(stdout);
      csv += fmt::format("{},{},{},{}\n", c.label, gpus, csv_cells(folded), csv_cells(unfolded));
    }
  } catch (const std::exception& e) {
    std::cerr << "dtsim_bench: " << e.what() << "\n";
    return 2;
  }
  if (const std::string error = write_file_atomically(csv_path, csv); !error.empty()) {
    std::cerr << "dtsim_bench: cannot write " << csv_path << ": " << error << "\n";
    return 2;
  }
  fmt::print("wrote {}\n", csv_path);
  return 0;
}
