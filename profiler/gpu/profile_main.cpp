// dtsim-profile: measures kernels/ operators (CUPTI kernel time), NCCL collectives and copies on
// this machine's GPUs and writes a calibration JSON for the simulator (README.md).
// Exit codes: 0 written; 1 a CUDA, CUPTI or NCCL failure; 2 no usable GPU or bad input.
#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "byte_size.hpp"
#include "calibration_builder.hpp"
#include "calibration_writer.hpp"
#include "copy_bandwidth.hpp"
#include "cupti_collector.hpp"
#include "device_info.hpp"
#include "device_peaks.hpp"
#include "gpu_check.hpp"
#include "input_error.hpp"
#include "nccl_sweep.hpp"
#include "operator.hpp"
#include "operator_sweep.hpp"
#include "raw_conversion.hpp"
#include "record_command.hpp"
#include "recorded_run.hpp"

namespace {

using namespace dtsim::profiler;
namespace k = dtsim::kernels;

constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;
constexpr const char* kMeasurement = "<measurement>";
constexpr size_t kCopyBytes = size_t(1) << 30;

struct Options {
  std::string out = "calibration.json";
  std::string raw_out;
  std::string from_raw;
  std::string peaks_from_spec;
  std::string driver;  // --from-raw: the driver version, when the raw profile's is not one
  bool gemm_only = false;
  bool skip_nccl = false;
  bool no_cupti = false;
  bool overhead = false;
  std::string min_bytes = "8", max_bytes = "8G";
  double factor = 2;
  int iterations = 20, warmup = 5;
  int gpus = 0;  // 0: every local GPU
  std::vector<std::string> dtypes = {"bf16"};
};

int bad_input(const std::string& message) {
  std::fprintf(stderr, "dtsim-profile: %s\n", message.c_str());
  return kExitBadInput;
}

std::optional<k::DType> dtype_of(const std::string& name) {
  for (k::DType d : {k::DType::fp32, k::DType::tf32, k::DType::fp16, k::DType::bf16, k::DType::fp8})
    if (name == k::to_string(d)) return d;
  return std::nullopt;
}

void write_calibration_announced(const std::string& file, const Calibration& c) {
  write_calibration(file, c);
  std::printf("calibration written to %s: %s", file.c_str(), summarize_calibration(c).c_str());
}

// A measurement of this process: the raw profile (--raw-out), then its calibration.
void write_outputs(const Options& o, const RawProfile& raw) {
  if (!o.raw_out.empty()) {
    write_raw_profile(o.raw_out, raw);
    std::printf("raw profile written to %s\n", o.raw_out.c_str());
  }
  write_calibration_announced(o.out, build_calibration(raw, kMeasurement, std::nullopt));
}

// CUPTI on vs off: each square bf16 GEMM back to back between two CUDA events, once with kernel
// activity recording disabled and once enabled. The percent the total time grows by.
double measure_overhead_percent(gpu::CuptiKernelCollector& collector, const Options& o) {
  std::printf("CUPTI overhead (square bf16 GEMMs, %d runs back to back):\n", o.iterations);
  double off_s = 0, on_s = 0;
  for (const k::OpShape& shape : gpu::square_gemm_shapes(k::DType::bf16)) {
    std::unique_ptr<k::Operator> op;
    try {
      op = k::make_operator(shape);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "  skipped %s: %s\n", k::describe(shape).c_str(), e.what());
      cudaGetLastError();
      continue;
    }
    collector.disable();
    const double shape_off_s = gpu::time_back_to_back_s(*op, o.iterations, o.warmup);
    collector.enable();
    const double shape_on_s = gpu::time_back_to_back_s(*op, o.iterations, o.warmup);
    collector.flush_and_take();  // these records are not needed
    std::printf("  %-40s off %10.3f ms  on %10.3f ms  %+6.2f%%\n", k::describe(shape).c_str(), shape_off_s * 1e3,
                shape_on_s * 1e3, (shape_on_s - shape_off_s) / shape_off_s * 100);
    off_s += shape_off_s;
    on_s += shape_on_s;
  }
  if (!(off_s > 0)) throw std::runtime_error("CUPTI overhead: no GEMM could be run");
  const double percent = (on_s - off_s) / off_s * 100;
  std::printf("  total: %+.2f%%\n", percent);
  return percent;
}

int profile(const Options& o) {
  std::optional<Peaks> spec_peaks;
  if (!o.peaks_from_spec.empty()) spec_peaks = load_peaks_spec(o.peaks_from_spec);

  if (!o.from_raw.empty()) {  // no GPU needed: the code `dtsim calibrate` runs (raw_conversion.hpp)
    const Conversion conversion = convert_raw_profile(o.from_raw, {spec_peaks, o.driver});
    for (const std::string& warning : conversion.warnings) std::fprintf(stderr, "dtsim-profile: warning: %s\n", warning.c_str());
    if (!o.raw_out.empty()) {
      write_raw_profile(o.raw_out, load_raw_profile(o.from_raw));
      std::printf("raw profile written to %s\n", o.raw_out.c_str());
    }
    write_calibration_announced(o.out, conversion.calibration);
    return 0;
  }
  if (!o.driver.empty()) return bad_input("--driver: only with --from-raw (a measurement reads the driver itself)");

  std::vector<k::DType> dtypes;
  for (const std::string& name : o.dtypes) {
    const std::optional<k::DType> d = dtype_of(name);
    if (!d) return bad_input("--dtype: expected fp32, tf32, fp16, bf16 or fp8, found '" + name + "'");
    dtypes.push_back(*d);
  }
  const std::optional<uint64_t> min_bytes = parse_byte_size(o.min_bytes);
  const std::optional<uint64_t> max_bytes = parse_byte_size(o.max_bytes);
  if (!min_bytes || !max_bytes)
    return bad_input("--min-bytes/--max-bytes: expected a byte count such as 8, 64K, 1M or 8G, found '" +
                     (min_bytes ? o.max_bytes : o.min_bytes) + "'");
  try {
    byte_sweep(*min_bytes, *max_bytes, o.factor);
  } catch (const std::invalid_argument& e) {
    return bad_input(std::string("NCCL sizes: ") + e.what());
  }

  int device_count = 0;
  if (const std::optional<std::string> reason = gpu::no_gpu_reason(device_count))
    return bad_input("no usable CUDA GPU (" + *reason + "): nothing measured. dtsim-profile runs on a GPU machine; "
                     "--from-raw FILE turns a recorded raw profile into a calibration without one.");
  const int gpus = o.gpus > 0 ? std::min(o.gpus, device_count) : device_count;

  // CUPTI before the first CUDA context, so that it sees every kernel from the start.
  std::unique_ptr<gpu::CuptiKernelCollector> collector;
  if (!o.no_cupti || o.overhead) {
    try {
      collector = std::make_unique<gpu::CuptiKernelCollector>();
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(std::string(e.what()) + " (--no-cupti times operators with CUDA events instead)");
    }
  }
  if (collector && o.no_cupti) collector->disable();
  PROFILE_CUDA(cudaSetDevice(0));

  RawProfile raw;
  raw.device = gpu::describe_machine(gpus);
  raw.peaks = spec_peaks;
  choose_peaks(raw, kMeasurement, std::nullopt);  // refuse an unknown device before measuring for minutes
  std::printf("dtsim-profile on %s (compute capability %s), %d GPU(s) for NCCL; driver %s, CUDA runtime %s, "
              "cuDNN %s, NCCL %s\n",
              raw.device.name.c_str(), raw.device.compute_capability.c_str(), gpus, raw.device.driver.c_str(),
              raw.device.cuda_runtime.c_str(), raw.device.cudnn.empty() ? "not found" : raw.device.cudnn.c_str(),
              raw.device.nccl.c_str());

  raw.profiler.cupti = !o.no_cupti;
  raw.profiler.iterations = o.iterations;
  raw.profiler.warmup = o.warmup;

  const std::vector<k::OpShape> shapes = gpu::default_shapes(dtypes, o.gemm_only);
  std::printf("operators: %zu shapes, %d warm-up + %d timed runs each, %s\n", shapes.size(), o.warmup, o.iterations,
              o.no_cupti ? "CUDA events" : "CUPTI kernel time");
  raw.operators = gpu::measure_operators(shapes, {o.iterations, o.warmup}, o.no_cupti ? nullptr : collector.get());
  if (collector && collector->dropped_records() > 0)
    std::fprintf(stderr, "warning: CUPTI dropped %llu kernel records\n",
                 static_cast<unsigned long long>(collector->dropped_records()));

  if (o.overhead) raw.profiler.overhead_percent = measure_overhead_percent(*collector, o);
  if (collector) collector->disable();  // NCCL and copies need no kernel records

  std::printf("copies: 1 GiB, pinned host memory\n");
  raw.copies = gpu::measure_copies(kCopyBytes, o.iterations, o.warmup);

  if (o.skip_nccl) {
    std::printf("NCCL: skipped (--skip-nccl)\n");
  } else if (gpus < 2) {
    std::printf("NCCL: skipped, one GPU only (collectives need at least two)\n");
  } else {
    gpu::NcclSweepSettings s;
    s.gpus = gpus;
    s.min_bytes = *min_bytes;
    s.max_bytes = *max_bytes;
    s.factor = o.factor;
    s.iterations = o.iterations;
    s.warmup = o.warmup;
    raw.collectives = gpu::run_nccl_sweep(s);
  }

  write_outputs(o, raw);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"dtsim-profile: measures operators (CUPTI), NCCL collectives and copies on this machine's GPUs "
               "and writes a dtsim calibration JSON"};
  app.add_option("--out", o.out, "calibration JSON to write (atomically)")->capture_default_str();
  app.add_option("--raw-out", o.raw_out, "also write the raw measurements (kernel records, timings) as JSON");
  app.add_option("--from-raw", o.from_raw, "no GPU: turn a recorded raw profile into a calibration")
      ->check(CLI::ExistingFile);
  app.add_option("--driver", o.driver,
                 "with --from-raw: the driver version to record (nvidia-smi's), where the raw profile's is not one");
  app.add_option("--peaks-from-spec", o.peaks_from_spec,
                 "JSON with fp32/tf32/fp16/bf16/fp8_flops and hbm_Bps, for a device the peaks table lacks")
      ->check(CLI::ExistingFile);
  app.add_option("--dtype", o.dtypes, "operator dtypes: fp32, tf32, fp16, bf16, fp8 (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_flag("--gemm-only", o.gemm_only, "measure GEMM shapes only");
  app.add_flag("--skip-nccl", o.skip_nccl, "do not run the NCCL sweep");
  app.add_flag("--no-cupti", o.no_cupti, "time operators with CUDA events instead of CUPTI kernel records");
  app.add_flag("--overhead", o.overhead, "compare square GEMMs with CUPTI recording on and off");
  app.add_option("--min-bytes", o.min_bytes, "smallest NCCL size (K, M, G suffixes)")->capture_default_str();
  app.add_option("--max-bytes", o.max_bytes, "largest NCCL size")->capture_default_str();
  app.add_option("--factor", o.factor, "NCCL size factor")->capture_default_str();
  app.add_option("--iters", o.iterations, "timed runs")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed runs first")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--gpus", o.gpus, "local GPUs for NCCL (default: all)")->check(CLI::NonNegativeNumber);

  gpu::RecordOptions record;
  CLI::App* record_app = app.add_subcommand(
      "record", "run a CUDA job unchanged (dtsim-profile record -- COMMAND...) and write one trace per rank "
                "for dtsim import");
  record_app->add_option("--out", record.out_dir, "folder for the traces (raw/ holds what the job wrote)")
      ->capture_default_str();
  record_app->add_option("--step-range", record.step_range,
                         "NVTX range that marks one step (default: ProfilerStep#N ranges, else the period of "
                         "the NCCL calls)");
  record_app->add_flag("--convert-only", record.convert_only, "run nothing: write the traces from OUT/raw/ again");
  record_app->add_option("command", record.command, "the job and its arguments, after --");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  if (*record_app) return gpu::run_record_command(record);

  try {
    return profile(o);
  } catch (const dtsim::InputError& e) {
    return bad_input(e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dtsim-profile: %s\n", e.what());
    return kExitFailure;
  }
}
