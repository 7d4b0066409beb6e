#pragma once
// A calibration file as written (format "dtsim-calibration-2", profiler/README.md), as plain
// data: what the profiler builds and writes (profiler/calibration_writer.hpp) and what the one
// reader (calibration_file_reader.hpp) returns, for the simulator (calibration.hpp) and the
// profiler alike. Plain std: the profiler compiles it on a GPU machine without dtsim's packages.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::calib {

inline constexpr const char* kCalibrationFormat = "dtsim-calibration-2";

// Datasheet dense peaks the efficiencies are fractions of (datasheet_peaks.hpp).
struct Peaks {
  double fp32_flops = 0;  // CUDA cores (no tensor cores), FLOP/s
  double tf32_flops = 0, fp16_flops = 0, bf16_flops = 0, fp8_flops = 0;  // tensor cores, FLOP/s; fp8 0: none
  double hbm_Bps = 0;
};

// The non-zero fields of kernels' OpShape, in its order ("m", "n", "k", "batch", "seq", ...).
using ShapeFields = std::vector<std::pair<std::string, int64_t>>;

// What an operator run is, as the raw profile and the calibration both name it.
struct OperatorIdentity {
  std::string op;     // OpShape::op: "gemm", "layernorm", ...
  std::string kind;   // "gemm", "attention_gemm", "elementwise", "optimizer"
  std::string dtype;  // "fp32", "tf32", "fp16", "bf16", "fp8"
  ShapeFields shape;
  double flops = 0, bytes = 0;
  // The memory access pattern of the simulator's (kMemoryAccesses) this operator's kernel moves
  // memory in, where it was built to reproduce one (kernels' access_* probes); empty otherwise.
  std::string access;
};

struct CalibratedOperator : OperatorIdentity {
  double time_s = 0;  // median kernel time of one run (CUPTI), or median event time without CUPTI
  int runs = 0;
  // Measured rate over the datasheet peak; above 1 where the GPU beat its datasheet (bytes served
  // from L2, a clock above the datasheet's), up to kMaxComputeEfficiency / kMaxMemoryEfficiency.
  double compute_efficiency = 0;  // flops / time_s / peak(dtype); 0 when flops == 0
  double memory_efficiency = 0;   // bytes / time_s / hbm_Bps
  std::vector<std::string> kernels;  // distinct kernel names (empty without CUPTI)
};

struct CollectivePoint {
  double bytes = 0;  // nccl-tests' size column
  double time_s = 0;
  double algbw_Bps = 0, busbw_Bps = 0;
};

struct CollectiveFit {
  double latency_s = 0;
  double busbw_Bps = 0;
};

struct CalibratedCollective {
  std::string op;  // "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv"
  int gpus = 0;
  std::string dtype;
  std::vector<CollectivePoint> points;
  CollectiveFit fit;
};

// Copy bandwidths at 1 GiB. d2d counts bytes read plus bytes written (2 x size / time), as CUDA's
// bandwidthTest does, so it compares with hbm_Bps; h2d and d2h are size / time over PCIe.
struct CopyBandwidths {
  double d2d_Bps = 0, h2d_Bps = 0, d2h_Bps = 0;
};

struct ProfilerSettings {
  bool cupti = true;
  int iterations = 0, warmup = 0;
  std::optional<double> overhead_percent;  // CUPTI on vs off, when measured; null otherwise
};

// Format 1, still read: per operator kind, an efficiency that replaces the default table's
// ({"efficiency": {"gemm": {"compute": 0.78}}}).
struct KindEfficiency {
  std::string kind;  // as OperatorIdentity::kind
  std::optional<double> compute, memory;
};

// Every field but the efficiencies the model uses is optional in a file (a hand-written format-1
// file has a device and "efficiency" only); a missing one reads as its default here.
struct CalibrationFile {
  std::string format = kCalibrationFormat;  // empty when the file names none (format 1)
  std::string device;                       // cudaDeviceProp::name
  std::string compute_capability;           // "9.0"
  int gpus = 0;                             // local GPUs used for NCCL
  std::string driver;                       // kernel module version, "580.159.04"
  std::string cuda_runtime;                 // "13.0"
  std::string cudnn;                        // "9.19.0"; empty: not found on the measuring machine
  std::string nccl;                         // "2.28.3"
  std::string date;                         // UTC date of the measurement, YYYY-MM-DD
  Peaks peaks;
  std::vector<KindEfficiency> efficiency;
  std::vector<CalibratedOperator> operators;
  std::vector<CalibratedCollective> collectives;
  CopyBandwidths copies;
  ProfilerSettings profiler;
};

// The operator kinds and collectives a file may name (the simulator's OperatorKind and
// CollectiveKind names; test_h100_calibration.cpp checks they agree).
inline constexpr const char* kOperatorKinds[] = {"gemm", "attention_gemm", "elementwise", "optimizer"};
inline constexpr const char* kCollectiveOps[] = {"all_reduce", "all_gather", "reduce_scatter",
                                                 "all_to_all", "broadcast",  "send_recv"};
// The memory access patterns an operator may name (the simulator's MemoryAccess names; the same
// test checks they agree).
inline constexpr const char* kMemoryAccesses[] = {
    "streaming",     "unrolled",      "promoting",             "strided",
    "normalization", "norm_backward", "batch_norm_statistics", "batch_norm_transform",
    "max_pool_backward", "softmax",   "fill",                  "optimizer_step",
    "multi_tensor",  "layout_transpose",      "row_permute",          "dropout"};

// Whether `name` is one of `names` (the lists above), and the list as "a, b, c or d" for messages.
template <size_t N>
bool is_one_of(const std::string& name, const char* const (&names)[N]) {
  for (const char* n : names)
    if (name == n) return true;
  return false;
}
template <size_t N>
std::string listed(const char* const (&names)[N]) {
  std::string text;
  for (size_t i = 0; i < N; ++i) text += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(names[i]);
  return text;
}

// Matmul kinds are measured by FLOP/s (compute_efficiency), the others by bytes/s.
inline bool is_matmul_kind(const std::string& kind) { return kind == "gemm" || kind == "attention_gemm"; }

}  // namespace dtsim::calib
