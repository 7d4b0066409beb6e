// One recorded process (recorded_process.hpp) as a PyTorch-profiler (Kineto) trace that dtsim
// import reads as it reads any other: GPU activities, their launches, NVTX ranges, the
// distributedInfo, deviceProperties and ProfilerStep#N annotations. The NCCL calls the plugin saw
// are given to the NCCL kernels CUPTI timed ("Collective name", "In msg nelems", "dtype",
// "Group size", "Process Group Name" in the kernel's args, as PyTorch 2.x writes them).
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "recorded_process.hpp"

namespace dtsim::profiler::record {

struct ConversionOptions {
  // An NVTX range name that marks one training step; empty: ranges named ProfilerStep#N, else the
  // period of the NCCL calls, else the whole recording.
  std::string step_range;
};

struct ConvertedRecording {
  nlohmann::json trace;  // the Kineto JSON
  int rank = 0, world_size = 1;
  std::string steps_from;  // how the steps were found, in words
  size_t steps = 0;
  size_t gpu_activities = 0;
  size_t nccl_launches = 0;  // groups of NCCL calls the plugin saw (one kernel each)
  size_t nccl_kernels = 0;   // NCCL kernels CUPTI timed
  size_t matched = 0;        // NCCL kernels given their calls' sizes
};

ConvertedRecording kineto_from_recording(const RecordedProcess& process, const ConversionOptions& options);

// The bytes of one element of an NCCL datatype name ("ncclFloat32", "ncclBfloat16", ...), 0 when
// unknown.
double nccl_datatype_bytes(const std::string& datatype);

}  // namespace dtsim::profiler::record
