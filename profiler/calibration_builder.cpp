#include "calibration_builder.hpp"

#include <cstdio>
#include <stdexcept>

#include "calibration_file_reader.hpp"
#include "device_peaks.hpp"
#include "json_fields.hpp"
#include "latency_bandwidth_fit.hpp"
#include "nccl_perf_format.hpp"
#include "input_error.hpp"
#include "size_limits.hpp"

namespace dtsim::profiler {

double compute_efficiency(double flops, double time_s, double peak_flops) {
  if (flops <= 0 || peak_flops <= 0 || time_s <= 0) return 0;
  return flops / time_s / peak_flops;
}

double memory_efficiency(double bytes, double time_s, double hbm_Bps) {
  if (bytes <= 0 || hbm_Bps <= 0 || time_s <= 0) return 0;
  return bytes / time_s / hbm_Bps;
}

Peaks choose_peaks(const RawProfile& raw, const std::string& source, const std::optional<Peaks>& peaks_override) {
  if (raw.peaks) return *raw.peaks;
  if (peaks_override) return *peaks_override;
  if (std::optional<Peaks> p = peaks_of_device(raw.device.name)) return *p;
  throw InputError({source, 0, "device.name",
                    "a GPU of dtsim's datasheet table (sim/hardware/device_spec.cpp: A100, H100, H200, B200 SXM; "
                    "PCIe and NVL parts run other clocks), or peaks from --peaks-from-spec FILE",
                    "\"" + raw.device.name + "\""});
}

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& expected,
                       const std::string& found) {
  throw InputError({source, 0, field, expected, found});
}

// 4 significant digits, for messages: "1.273", "3.35e+12".
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// "gemm bf16 m=8192 n=8192 k=8192", for messages.
std::string describe(const RawOperator& r) {
  std::string d = r.op + " " + r.dtype;
  for (const auto& [name, value] : r.shape) d += " " + name + "=" + std::to_string(value);
  return d;
}

CalibratedOperator calibrate_operator(const RawOperator& r, const ProfilerSettings& settings, const Peaks& peaks,
                                      const std::string& source, const std::string& at) {
  CalibratedOperator o;
  o.op = r.op;
  o.kind = r.kind;
  o.dtype = r.dtype;
  o.shape = r.shape;
  o.flops = r.flops;
  o.bytes = r.bytes;
  o.access = r.access;
  if (settings.cupti) {
    if (r.runs.empty()) fail(source, at + ".runs", "at least one run window", "none");
    const OperatorKernelTiming t = aggregate_operator_runs(r.runs, r.kernels);
    if (!t.empty_runs.empty())
      fail(source, index_path(at + ".runs", t.empty_runs.front()), "a window holding at least one kernel record",
           "none of the " + std::to_string(r.kernels.size()) + " kernel records of " + describe(r) +
               " (records lost, or a wrong window)");
    o.time_s = t.time_s;
    o.runs = t.runs;
    o.kernels = t.kernel_names;
  } else {
    if (r.event_times_s.empty()) fail(source, at + ".event_times_s", "at least one timed run", "none");
    o.time_s = median(r.event_times_s);
    o.runs = int(r.event_times_s.size());
  }
  if (!(o.time_s > 0)) fail(source, at, "a median run time > 0", std::to_string(o.time_s) + " s");
  const double peak = peak_flops(peaks, o.dtype, source, at + ".dtype");
  o.compute_efficiency = compute_efficiency(o.flops, o.time_s, peak);
  o.memory_efficiency = memory_efficiency(o.bytes, o.time_s, peaks.hbm_Bps);
  // Above 1 is kept as measured (a tensor in L2, a clock above the datasheet's); past the
  // physical bounds a count or a time is wrong, and the calibration would be refused anyway.
  if (o.compute_efficiency > kMaxComputeEfficiency)
    fail(source, at, calib::compute_efficiency_range(false),
         number(o.compute_efficiency) + " (" + describe(r) + ": " + number(o.flops) + " FLOP in " + number(o.time_s) +
             " s against " + number(peak) + " FLOP/s)");
  if (o.memory_efficiency > kMaxMemoryEfficiency)
    fail(source, at, calib::memory_efficiency_range(false),
         number(o.memory_efficiency) + " (" + describe(r) + ": " + number(o.bytes) + " bytes in " + number(o.time_s) +
             " s against " + number(peaks.hbm_Bps) + " B/s)");
  return o;
}

CalibratedCollective calibrate_collective(const RawCollective& r, const std::string& source, const std::string& at) {
  const std::optional<CollectiveOp> op = collective_of_name(r.op);
  if (!op) fail(source, at + ".op", "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce or send_recv",
                "\"" + r.op + "\"");
  if (r.gpus < 1) fail(source, at + ".gpus", "a GPU count >= 1", std::to_string(r.gpus));
  if (r.points.size() < 2) fail(source, at + ".points", "at least two sizes to fit", std::to_string(r.points.size()));
  CalibratedCollective c;
  c.op = r.op;
  c.gpus = r.gpus;
  c.dtype = r.dtype;
  const double factor = busbw_factor(*op, r.gpus);
  std::vector<BusPoint> bus;
  for (const RawCollectivePoint& p : r.points) {
    const double algbw_Bps = p.bytes / p.time_s;
    c.points.push_back({p.bytes, p.time_s, algbw_Bps, algbw_Bps * factor});
    bus.push_back({p.bytes * factor, p.time_s});
  }
  try {
    const LatencyBandwidthFit fit = fit_latency_bandwidth(bus);
    c.fit = {fit.latency_s, fit.busbw_Bps};
  } catch (const std::invalid_argument& e) {
    fail(source, at + ".points", "times that grow with size", e.what());
  }
  return c;
}

}  // namespace

Calibration build_calibration(const RawProfile& raw, const std::string& source,
                              const std::optional<Peaks>& peaks_override) {
  Calibration c;
  c.device = raw.device.name;
  c.compute_capability = raw.device.compute_capability;
  c.gpus = raw.device.gpus;
  c.driver = raw.device.driver;
  c.cuda_runtime = raw.device.cuda_runtime;
  c.cudnn = raw.device.cudnn;
  c.nccl = raw.device.nccl;
  c.date = raw.device.date;
  c.peaks = choose_peaks(raw, source, peaks_override);
  c.profiler = raw.profiler;
  for (size_t i = 0; i < raw.operators.size(); ++i)
    c.operators.push_back(calibrate_operator(raw.operators[i], raw.profiler, c.peaks, source, index_path("operators", i)));
  for (size_t i = 0; i < raw.collectives.size(); ++i)
    c.collectives.push_back(calibrate_collective(raw.collectives[i], source, index_path("collectives", i)));
  // d2d moves every byte twice through HBM (read, then write); see CopyBandwidths.
  const RawCopies& k = raw.copies;
  c.copies.d2d_Bps = k.d2d.time_s > 0 ? 2 * k.d2d.bytes / k.d2d.time_s : 0;
  c.copies.h2d_Bps = k.h2d.time_s > 0 ? k.h2d.bytes / k.h2d.time_s : 0;
  c.copies.d2h_Bps = k.d2h.time_s > 0 ? k.d2h.bytes / k.d2h.time_s : 0;
  return c;
}

}  // namespace dtsim::profiler
