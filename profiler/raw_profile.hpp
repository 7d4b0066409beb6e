#pragma once
// What dtsim-profile measures before anything is derived from it: kernel records and run windows
// per operator, collective timings per size, copy timings. The GPU main fills one of these, and
// a recorded one (recorded_run.hpp) loads from JSON; calibration_builder.hpp turns either into a
// Calibration, so the CPU tests exercise the path the GPU run takes.
#include <optional>
#include <string>
#include <vector>

#include "calibration_data.hpp"
#include "kernel_records.hpp"

namespace dtsim::profiler {

inline constexpr const char* kRawProfileFormat = "dtsim-raw-profile-1";

struct RawDevice {
  std::string name;                // cudaDeviceProp::name
  std::string compute_capability;  // "9.0"
  int gpus = 0;                    // local GPUs used for NCCL
  std::string driver;        // kernel module version, "580.159.04"
  std::string cuda_runtime;  // "13.0"
  std::string cudnn;         // "9.19.0"; empty: no cuDNN found (the profiler does not need it)
  std::string nccl;          // of the NCCL the profiler links, "2.28.3"
  std::string date;          // UTC, YYYY-MM-DD
};

struct RawOperator : OperatorIdentity {
  // With CUPTI: one window per timed run and every kernel record seen while the operator ran
  // (warm-up runs included; they fall outside the windows).
  std::vector<RunWindow> runs;
  std::vector<KernelRecord> kernels;
  // Without CUPTI: CUDA-event time of each timed run.
  std::vector<double> event_times_s;
};

struct RawCollectivePoint {
  double bytes = 0;   // nccl-tests' size column
  double time_s = 0;  // per operation, max over the GPUs
};

struct RawCollective {
  std::string op;  // "all_reduce", ...
  int gpus = 0;
  std::string dtype;
  std::vector<RawCollectivePoint> points;
};

struct RawCopy {
  double bytes = 0;   // size of one copy
  double time_s = 0;  // median time of one copy
};

struct RawCopies {
  RawCopy d2d, h2d, d2h;
};

struct RawProfile {
  RawDevice device;
  std::optional<Peaks> peaks;  // overrides the device table when present (from --peaks-from-spec)
  ProfilerSettings profiler;   // cupti decides whether operators carry runs+kernels or event_times_s
  std::vector<RawOperator> operators;
  std::vector<RawCollective> collectives;
  RawCopies copies;
};

}  // namespace dtsim::profiler
