#pragma once
// One rank's PyTorch profiler (Kineto) trace, read into what dtsim replays: its profiler steps,
// and the GPU activity (kernels, copies, memsets) with the NCCL collectives among it, each with
// its kind, size and process group where the trace says them.
//
// Kineto's JSON (one object, "traceEvents"; formats of 2022-2026 as described in
// tests/data/traces/SOURCES.md): GPU events are `ph: X` with cat kernel / gpu_memcpy /
// gpu_memset, `args.stream`, µs timestamps (integers up to 2023, floats after). A collective's
// size comes, in this order, from the NCCL kernel's own args (PyTorch >= 2.3: "Collective name",
// "In msg nelems", "dtype", "Group size", "Process Group Name"), from the record_param_comms CPU op
// that launched it (the same fields, or only "Input Dims" and "Input type" up to 2023), or is
// unknown (a TensorList's dims are not recorded, unless a "nccl:*" annotation around the launch
// has the flattened tensor's). The launching op is found through the kernel's
// correlation id: the runtime launch event with that correlation, then the innermost
// record_param_comms or "nccl:*" annotation on the same thread around the launch. A kernel launched
// inside a PyTorch symmetric-memory op ("symm_mem::multimem_all_reduce_", not NCCL's) is that
// collective, of the op's first input's size. A trace without ProfilerStep annotations has one
// step, kWholeTraceStep.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "collective_kind.hpp"

namespace dtsim {

// The step of a trace without ProfilerStep annotations: its first launch to its last GPU work's end.
inline constexpr const char* kWholeTraceStep = "the whole trace";

struct TraceStep {
  std::string name;  // "ProfilerStep#5"
  double start_us = 0, duration_us = 0;  // of the CPU annotation
  double end_us() const { return start_us + duration_us; }
};

// Where a collective's bytes came from.
// execution_trace: from the rank's PyTorch ET of the same run (pytorch_et.hpp, et_pairing.hpp);
// chakra_node: a Chakra node's comm_size (chakra_trace.hpp).
enum class SizeSource { kernel_args, launching_op, execution_trace, chakra_node, unknown };
const char* to_string(SizeSource s);

struct TraceCollective {
  TraceCollectiveKind kind = TraceCollectiveKind::all_reduce;
  double bytes = 0;  // input bytes of this rank (0 when size_source is unknown)
  SizeSource size_source = SizeSource::unknown;
  int group_size = 0;          // 0: not recorded
  std::string process_group;   // "0", or empty when not recorded
  // On the default process group (all ranks of the job: it grows with data parallelism), as the
  // trace says (its description "default_pg", else PyTorch's name for it, "0").
  bool default_group = false;
};

// Whether a process group of this name and description (empty when not recorded) is PyTorch's
// default group.
bool is_default_process_group(const std::string& name, const std::string& description);

enum class GpuActivityKind { kernel, memcpy, memset };

struct GpuActivity {
  std::string name;  // without the parameter list a kernel's signature ends with
  GpuActivityKind kind = GpuActivityKind::kernel;
  long stream = 0;
  double start_us = 0, duration_us = 0;
  // When the CPU launched it (the runtime call with its correlation id); its start when unknown.
  double launch_us = 0;
  std::optional<TraceCollective> collective;  // an NCCL or symmetric-memory collective's kernel
  double end_us() const { return start_us + duration_us; }
};

struct KinetoTrace {
  std::filesystem::path file;
  int rank = -1, world_size = 0;  // distributedInfo; -1 and 0 when absent
  std::string gpu_name;           // deviceProperties of the device the GPU events ran on
  double gpu_memory_bytes = 0;    // its totalGlobalMem; 0 when not recorded
  std::vector<TraceStep> steps;   // in time order
  std::vector<GpuActivity> gpu;   // in time order
  // False where the file has durations but no start times (a Chakra .et): the GPU work was laid
  // end to end, and its steps' lengths are not measurements.
  bool times_recorded = true;
};

// Throws InputError naming the file for what is not a Kineto trace (not JSON, no traceEvents,
// an event without the fields its kind needs).
KinetoTrace read_kineto_trace(const std::filesystem::path& file);

// Whether a parsed trace file is a Kineto trace (has traceEvents), and reading one already parsed.
bool is_kineto_trace(const nlohmann::json& root);
KinetoTrace kineto_trace_from_json(const std::filesystem::path& file, const nlohmann::json& root);

}  // namespace dtsim
