#pragma once
// Paths and small builders shared by the test suites.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <filesystem>
#include <functional>

#include "device_spec.hpp"
#include "efficiency_defaults.hpp"
#include "input_error.hpp"
#include "scenario.hpp"
#include "scenario_loader.hpp"
#include "topology_spec.hpp"
#include "transformer_config.hpp"
#include "workload_builder.hpp"

namespace dtsim::test {

inline std::filesystem::path source_dir() { return DTSIM_SOURCE_DIR; }
inline std::filesystem::path data_dir() { return source_dir() / "tests" / "data"; }
inline TopologySpec test_topology(const std::string& name) {
  return load_topology(data_dir() / "topologies" / (name + ".yaml"));
}

// A preset model on `nodes` DGX H100 nodes of the NDR fat-tree, micro-batch 1; the caller sets the
// parallelism.
inline Scenario preset_on_h100_nodes(const std::string& preset, int nodes, int global_batch) {
  Scenario s;
  s.name = preset;
  s.model = *find_model_preset(preset);
  s.training.global_batch = global_batch;
  s.training.micro_batch = 1;
  s.cluster.gpu = "h100-sxm";
  s.cluster.nodes = nodes;
  s.cluster.topology = load_topology(source_dir() / "topologies" / "dgx-h100-ndr-fattree.yaml");
  return s;
}

// VGG-16 (fp32, 32 images per GPU) on 16 K80 in two PCIe servers with one 25 Gb/s Ethernet NIC
// each (topologies/pcie-gpu-server-ethernet.yaml), with the given data_parallel line(s).
inline Scenario vgg16_on_k80_servers(const std::string& data_parallel_lines) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("dtsim-vgg16-test-" + std::to_string(getpid()) + ".yaml");
  std::ofstream(file) << "name: vgg16-k80\nmodel: {zoo: vgg-16}\n"
                         "training: {global_batch: 512, micro_batch: 32, precision: fp32}\n"
                         "parallelism: {dp: 16}\n"
                      << data_parallel_lines << "cluster:\n  gpu: k80\n  nodes: 2\n  topology: "
                      << (source_dir() / "topologies" / "pcie-gpu-server-ethernet.yaml").string() << "\n";
  struct Removed {
    std::filesystem::path file;
    ~Removed() { std::filesystem::remove(file); }
  } removed{file};  // also when the loader throws
  return load_scenario(file);
}

// Inputs for a workload that only does what the test fills in: no compute, no transfers.
inline WorkloadInputs empty_inputs(int stages, int micro_batches) {
  WorkloadInputs in;
  in.micro_batches = micro_batches;
  in.forward.assign(stages, StagePass{});
  in.backward.assign(stages, StagePass{});
  in.gradient_bytes.assign(stages, 0.0);
  in.optimizer_s.assign(stages, 0.0);
  return in;
}

// Rank 0's collective tasks over one iteration on the groups of `kind` ("dp", "tp", "cp", ...),
// as build_workload lays them out at the scenario's GPU's default efficiencies.
inline std::vector<Task> rank0_collectives(const Scenario& s, const std::string& kind) {
  const ComputeModel compute(*find_device(s.cluster.gpu), s.training.precision, default_efficiencies());
  const Workload w = build_workload(s, compute);
  std::vector<Task> tasks;
  for (const Task& t : w.ranks[0].tasks)
    if (t.kind == TaskKind::collective && w.groups[t.group].kind == kind) tasks.push_back(t);
  return tasks;
}

// The InputError `action` throws; fails the test when it throws none.
inline InputErrorInfo error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& e) {
    return e.info();
  }
  ADD_FAILURE() << "no InputError thrown";
  return {};
}

// A file's bytes ("" when it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs the dtsim executable with `args` (a shell command line) and collects what it printed.
struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// A shell command line, its standard error with its output.
inline CliResult run_shell(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  CliResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline CliResult run_dtsim(const std::string& args) { return run_shell(std::string(DTSIM_CLI) + " " + args); }

constexpr double kSpeed = 1e12;  // GPU host speed used where compute is given in seconds

// A folder of its own for one test (ctest runs tests in parallel), removed when the test ends.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("dtsim-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to `name` in the folder and returns its path.
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const std::filesystem::path file = path_ / name;
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace dtsim::test
