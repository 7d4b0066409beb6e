#pragma once
// One rank's PyTorch execution trace (ExecutionTraceObserver JSON, "schema" 1.0.1 up to
// 1.1.x-chakra): the collectives it issued, per profiler step, with kind, bytes and process group.
// An ET is recorded on the host and holds no times, so it cannot be replayed alone; its use is the
// sizes and groups a Kineto trace of the same run lacks (a TensorList's dims before PyTorch 2.3).
//
// Two node layouts (tests/data/traces/SOURCES.md): 1.0.1 has flat "parent", "inputs" (a list) and
// "input_types"; later schemas "ctrl_deps", "inputs": {values, shapes, types} and "attrs": [{name,
// type, value}]. A collective is a record_param_comms node whose inputs are [tensor(s), seq,
// process group, rank, collective name, in splits, out splits, ...], a tensor being [id, storage
// id, offset, elements, bytes per element, device]; a "wait" has no tensor. Node ids follow the
// order ops began, on every thread, so a step holds the nodes from its ProfilerStep#N node to the
// next one (the autograd thread's collectives are not below the step node).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kineto_trace.hpp"

namespace dtsim {

struct EtStep {
  std::string name;  // "ProfilerStep#5"; empty when the trace has no ProfilerStep nodes (all of it)
  std::vector<TraceCollective> collectives;  // in the order they were issued; size_source execution_trace
};

struct PyTorchEt {
  std::filesystem::path file;
  std::string schema;   // "1.0.1", "1.1.0-chakra.0.0.4"
  int rank = -1;        // the rank its collectives name; -1 when none does
  int world_size = 0;   // the default process group's size; 0 when not recorded (1.0.1)
  std::vector<EtStep> steps;
};

// Whether a parsed trace file is a PyTorch ET (has "schema" and "nodes").
bool is_pytorch_et(const nlohmann::json& root);

// Throws InputError naming the file for a document that is not an ET or a collective whose
// fields are not what the schema says.
PyTorchEt pytorch_et_from_json(const std::filesystem::path& file, const nlohmann::json& root);

}  // namespace dtsim
