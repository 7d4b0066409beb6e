// libFuzzer targets for the input loaders (issues 14, 45): every input must either load or be
// refused with an InputError; any other exception, a crash, a hang or a memory blow-up is a finding.
// One source, five targets (fuzz/CMakeLists.txt defines DTSIM_FUZZ_SCENARIO, _TOPOLOGY,
// _CALIBRATION, _TRACE or _LAYER_GRAPH); bench/fuzz.sh builds them with clang and runs each for a
// bounded time.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "analytic_model.hpp"
#include "calibration.hpp"
#include "critical_path.hpp"
#include "imported_step.hpp"
#include "input_error.hpp"
#include "layer_model_section.hpp"
#include "measured_efficiency.hpp"
#include "memory_model.hpp"
#include "replay_program.hpp"
#include "scenario_loader.hpp"
#include "topology_graph.hpp"
#include "topology_spec.hpp"

namespace {

namespace fs = std::filesystem;

// The input as a file, as the loaders read files: one per fuzzing process.
fs::path input_file() {
#if defined(DTSIM_FUZZ_CALIBRATION) || defined(DTSIM_FUZZ_TRACE)
  // A trace's name says JSON; a gzipped one is told by its bytes, as `dtsim import` does.
  const char* name = "input.json";
#else
  const char* name = "input.yaml";
#endif
  static const fs::path file = [name] {
    const fs::path dir = fs::temp_directory_path() / ("dtsim-fuzz-" + std::to_string(getpid()));
    fs::create_directories(dir);
    return dir / name;
  }();
  return file;
}

void exercise(const fs::path& file) {
#if defined(DTSIM_FUZZ_SCENARIO)
  // Loading, then the closed-form figures every valid scenario gets before it is simulated.
  const dtsim::Scenario s = dtsim::load_scenario(file);
  if (dtsim::peak_memory_per_gpu(s).fits()) dtsim::estimate_iteration(dtsim::resolve_scenario(s));
#elif defined(DTSIM_FUZZ_TOPOLOGY)
  // Loading, then the graph `dtsim topo` checks it through, where it is small enough to be quick:
  // metrics cost about GPUs x (vertices + links) (an exact diameter up to 4e7 of it), so 2048 GPUs
  // took 5.3 s with sanitizers (topologies/dgx-h100-ndr-3tier.yaml, issue 45 item 17, against
  // -timeout=10) and the slowest graphs of 1024 up to 2.2 s.
  const dtsim::TopologySpec t = dtsim::load_topology(file);
  const long nodes = dtsim::default_node_count(t);
  if (nodes * t.node.gpus <= 1024) dtsim::topology_metrics(dtsim::build_topology_graph(t, nodes));
#elif defined(DTSIM_FUZZ_CALIBRATION)
  // Loading, then the efficiency curves the compute model reads.
  const dtsim::Calibration c = dtsim::load_calibration(file, dtsim::default_efficiencies());
  for (dtsim::Precision p : {dtsim::Precision::bf16, dtsim::Precision::fp8, dtsim::Precision::fp32}) {
    const dtsim::MeasuredEfficiencies m = dtsim::measured_efficiencies(c, p);
    for (const dtsim::EfficiencyCurve& curve : m.by_kind)
      for (double size : {1.0, 1e6, 1e12}) curve.at(size);
  }
#elif defined(DTSIM_FUZZ_TRACE)
  // One rank's trace read as `dtsim import` reads it (Kineto or PyTorch ET JSON, gzipped or not):
  // its step summarized, the critical path and the program the replay would run; not the replay.
  const dtsim::TraceFiles files = dtsim::read_trace_files({file});
  if (files.timed.empty()) return;  // execution traces alone: `dtsim import` only prints them
  const dtsim::ImportedStep imported = dtsim::import_step(files, "");
  dtsim::critical_path(imported.ranks);
  dtsim::replay_program(imported.ranks);
#elif defined(DTSIM_FUZZ_LAYER_GRAPH)
  // A user's layer file (model.layers_file), then the totals the layer-model workload reads.
  const dtsim::LayerGraph g = dtsim::load_layer_file(file);
  const double sums[] = {g.forward_flops(), g.backward_flops(), g.sharded_parameters(), g.sharded_output_elements(),
                         double(dtsim::logits_layers(g).size())};
  (void)sums;
#else
#error "define DTSIM_FUZZ_SCENARIO, _TOPOLOGY, _CALIBRATION, _TRACE or _LAYER_GRAPH"
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fs::path file = input_file();
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), std::streamsize(size));
  try {
    exercise(file);
  } catch (const dtsim::InputError&) {
    // refused with a message naming file and field: what bad input should get
  } catch (const std::exception& e) {
    std::cerr << "dtsim fuzz: not an InputError: " << e.what() << "\n";
    std::abort();
  }
  return 0;
}
