#include "calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cctype>
#include <nlohmann/json.hpp>

#include "input_error.hpp"
#include "json_input.hpp"
#include "measured_efficiency.hpp"
#include "size_limits.hpp"

namespace dtsim {

namespace {

using json = nlohmann::json;

OperatorKind operator_kind(const JsonFields& f, const std::string& name, const std::string& field) {
  for (int k = 0; k < kOperatorKindCount; ++k)
    if (name == to_string(OperatorKind(k))) return OperatorKind(k);
  f.fail(field, "gemm, attention_gemm, elementwise or optimizer", "'" + name + "'");
}

std::optional<Precision> precision_of(const std::string& dtype) {
  if (dtype == "bf16") return Precision::bf16;
  if (dtype == "fp16") return Precision::fp16;
  if (dtype == "fp8") return Precision::fp8;
  if (dtype == "tf32") return Precision::fp32;
  return std::nullopt;  // plain fp32 (CUDA cores): not what any training precision runs at
}

const std::string kEfficiencyRange = fmt::format("a fraction of peak in [{:g}, 1]", kMinEfficiency);

double efficiency(const JsonFields& f, const json& parent, const std::string& path, const std::string& key) {
  return f.number_in(parent, path, key, kMinEfficiency, 1, kEfficiencyRange);
}

void read_efficiency_summary(const JsonFields& f, const json& eff, Calibration& c) {
  if (!eff.is_object()) f.fail("efficiency", "an object keyed by operator kind", describe_json(eff));
  for (const auto& [kind_name, value] : eff.items()) {
    const int kind = int(operator_kind(f, kind_name, "efficiency." + kind_name));
    const std::string at = "efficiency." + kind_name;
    f.require_object(value, at, {"compute", "memory"});
    if (f.has(value, "compute")) c.efficiencies.by_kind[kind].compute = efficiency(f, value, at, "compute");
    if (f.has(value, "memory")) c.efficiencies.by_kind[kind].memory = efficiency(f, value, at, "memory");
  }
}

void read_operators(const JsonFields& f, const json& root, Calibration& c) {
  const json& ops = f.array(root, "", "operators");
  for (size_t i = 0; i < ops.size(); ++i) {
    const json& o = ops[i];
    const std::string at = fmt::format("operators[{}]", i);
    f.require_object(o, at,
                     {"op", "kind", "dtype", "shape", "flops", "bytes", "time_s", "runs", "compute_efficiency",
                      "memory_efficiency", "kernels"});
    MeasuredOperator m;
    m.op = f.string(o, at, "op");
    m.kind = operator_kind(f, f.string(o, at, "kind"), at + ".kind");
    const std::string dtype = f.string(o, at, "dtype");
    const std::optional<Precision> precision = precision_of(dtype);
    if (!precision && dtype != "fp32") f.fail(at + ".dtype", "bf16, fp16, fp8, tf32 or fp32", "'" + dtype + "'");
    m.flops = f.number_in(o, at, "flops", 0, 1e21, "a FLOP count in [0, 1e21]");
    m.bytes = f.number_in(o, at, "bytes", 0, 1e15, "a byte count in [0, 1e15]");
    m.time_s = f.number_in(o, at, "time_s", 1e-9, 1e4, "a time in [1e-9, 1e4] s");
    if (f.has(o, "runs")) f.int_in(o, at, "runs", 1, 1'000'000);
    if (f.has(o, "shape")) {
      const json& shape = f.child(o, at, "shape");
      if (!shape.is_object()) f.fail(at + ".shape", "an object of dimension sizes", describe_json(shape));
      for (const auto& [name, value] : shape.items()) f.int_in(shape, at + ".shape", name, 1, 1'000'000'000);
    }
    if (f.has(o, "kernels")) {
      const json& kernels = f.array(o, at, "kernels");
      for (size_t k = 0; k < kernels.size(); ++k)
        if (!kernels[k].is_string())
          f.fail(fmt::format("{}.kernels[{}]", at, k), "a kernel name", describe_json(kernels[k]));
    }
    // The efficiency the model uses for this kind (FLOP/s for matmuls, bytes/s for the rest)
    // must be one it can run at; the other is kept as measured, a fraction in [0, 1].
    const bool by_flops = measured_by_flops(m.kind);
    m.compute_efficiency = by_flops ? efficiency(f, o, at, "compute_efficiency")
                                    : f.number_in(o, at, "compute_efficiency", 0, 1);
    m.memory_efficiency = by_flops ? f.number_in(o, at, "memory_efficiency", 0, 1)
                                   : efficiency(f, o, at, "memory_efficiency");
    if (!precision) continue;  // fp32 on CUDA cores: kept in the file, not used by the model
    m.precision = *precision;
    c.operators.push_back(m);
  }
}

void read_collectives(const JsonFields& f, const json& root, Calibration& c) {
  const json& colls = f.array(root, "", "collectives");
  for (size_t i = 0; i < colls.size(); ++i) {
    const json& o = colls[i];
    const std::string at = fmt::format("collectives[{}]", i);
    f.require_object(o, at, {"op", "gpus", "dtype", "points", "fit"});
    const std::string op = f.string(o, at, "op");
    MeasuredCollective m;
    bool known = false;
    for (CollectiveKind k : {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                             CollectiveKind::all_to_all, CollectiveKind::broadcast, CollectiveKind::send_recv})
      if (op == to_string(k)) m.kind = k, known = true;
    if (!known) f.fail(at + ".op", "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or send_recv", op);
    m.gpus = f.int_in(o, at, "gpus", 1, kMaxGpusPerNode);
    if (f.has(o, "dtype")) f.string(o, at, "dtype");
    if (f.has(o, "points")) {
      const json& points = f.array(o, at, "points");
      for (size_t p = 0; p < points.size(); ++p) {
        const std::string pat = fmt::format("{}.points[{}]", at, p);
        f.require_object(points[p], pat, {"bytes", "time_s", "algbw_Bps", "busbw_Bps"});
        f.number_in(points[p], pat, "bytes", 1, 1e15);
        f.number_in(points[p], pat, "time_s", 1e-9, 1e4);
        f.number_in(points[p], pat, "algbw_Bps", 0, kMaxLinkBandwidth_Bps);
        f.number_in(points[p], pat, "busbw_Bps", 0, kMaxLinkBandwidth_Bps);
      }
    }
    const json& fit = f.child(o, at, "fit");
    f.require_object(fit, at + ".fit", {"latency_s", "busbw_Bps"});
    m.latency_s = f.number_in(fit, at + ".fit", "latency_s", 0, kMaxLinkLatency_s);
    m.busbw_Bps = f.number_in(fit, at + ".fit", "busbw_Bps", kMinLinkBandwidth_Bps, kMaxLinkBandwidth_Bps,
                              fmt::format("a bus bandwidth in [{:g}, {:g}] B/s", kMinLinkBandwidth_Bps,
                                          kMaxLinkBandwidth_Bps));
    c.collectives.push_back(m);
  }
}

// Peaks the profiler measured against: present ones must be rates a GPU can have (fp8 may be 0:
// no FP8 tensor cores).
void check_peaks(const JsonFields& f, const json& root) {
  const json& peaks = f.child(root, "", "peaks");
  f.require_object(peaks, "peaks", {"fp32_flops", "tf32_flops", "fp16_flops", "bf16_flops", "fp8_flops", "hbm_Bps"});
  for (const char* key : {"fp32_flops", "tf32_flops", "fp16_flops", "bf16_flops"})
    if (f.has(peaks, key)) f.number_in(peaks, "peaks", key, 1e9, kMaxPeakFlops, fmt::format("a rate in [1e9, {:g}] FLOP/s", kMaxPeakFlops));
  if (f.has(peaks, "fp8_flops"))
    f.number_in(peaks, "peaks", "fp8_flops", 0, kMaxPeakFlops, fmt::format("0 or a rate up to {:g} FLOP/s", kMaxPeakFlops));
  if (f.has(peaks, "hbm_Bps"))
    f.number_in(peaks, "peaks", "hbm_Bps", 1e9, kMaxPeakMemory_Bps, fmt::format("a bandwidth in [1e9, {:g}] B/s", kMaxPeakMemory_Bps));
}

// What the profiler records about itself and the machine: not used by the model, but checked,
// so that a file that is not a calibration is not taken for one.
void check_metadata(const JsonFields& f, const json& root) {
  for (const char* key : {"compute_capability", "driver", "cuda_runtime", "nccl"})
    if (f.has(root, key)) f.string(root, "", key);
  if (f.has(root, "gpus")) f.int_in(root, "", "gpus", 1, kMaxGpusPerNode);
  if (f.has(root, "peaks")) check_peaks(f, root);
  if (f.has(root, "copies")) {
    const json& copies = f.child(root, "", "copies");
    f.require_object(copies, "copies", {"d2d_Bps", "h2d_Bps", "d2h_Bps"});
    for (const auto& [key, value] : copies.items())
      f.number_in(copies, "copies", key, kMinLinkBandwidth_Bps, kMaxLinkBandwidth_Bps);
  }
  if (f.has(root, "profiler")) {
    const json& prof = f.child(root, "", "profiler");
    f.require_object(prof, "profiler", {"cupti", "iterations", "warmup", "overhead_percent"});
    if (f.has(prof, "cupti")) f.boolean(prof, "profiler", "cupti");
    if (f.has(prof, "iterations")) f.int_in(prof, "profiler", "iterations", 1, 1'000'000);
    if (f.has(prof, "warmup")) f.int_in(prof, "profiler", "warmup", 0, 1'000'000);
    // null: the profiler did not measure its own overhead (the format says so).
    if (f.has(prof, "overhead_percent") && !prof["overhead_percent"].is_null())
      f.number_in(prof, "profiler", "overhead_percent", 0, 1000);
  }
}

}  // namespace

Calibration load_calibration(const std::filesystem::path& file, const EfficiencyTable& defaults) {
  const json root = parse_json_input(file, "calibration");
  const JsonFields f(file);
  if (!root.is_object()) f.fail("", "a JSON object", describe_json(root));
  // The format first: another dtsim file (a raw profile) would fail on its first field otherwise.
  if (f.has(root, "format") && root["format"] != "dtsim-calibration-2")
    f.fail("format", "\"dtsim-calibration-2\" (a raw profile becomes one with dtsim-profile --from-raw)",
           describe_json(root["format"]));
  f.require_object(root, "",
                   {"format", "device", "compute_capability", "gpus", "driver", "cuda_runtime", "nccl", "date", "peaks",
                    "efficiency", "operators", "collectives", "copies", "profiler"});
  Calibration c;
  c.file = file;
  if (f.has(root, "device")) c.device = f.string(root, "", "device");
  if (f.has(root, "date")) c.date = f.string(root, "", "date");
  c.efficiencies = defaults;
  check_metadata(f, root);
  if (f.has(root, "efficiency")) read_efficiency_summary(f, f.child(root, "", "efficiency"), c);
  if (f.has(root, "operators")) read_operators(f, root, c);
  if (f.has(root, "collectives")) read_collectives(f, root, c);
  return c;
}

std::optional<std::string> device_id_of_name(const std::string& driver_name, double memory_bytes) {
  std::string n = driver_name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  const auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
  // PCIe and NVL cards and Grace-Hopper modules run other clocks and links than the SXM parts.
  if (has("pcie") || has("nvl") || has("gh200") || has("gb200")) return std::nullopt;
  if (has("h100")) return "h100-sxm";
  if (has("h200")) return "h200-sxm";
  if (has("b200")) return "b200";
  if (has("a100")) {
    const bool small = has("40gb") || (!has("80gb") && memory_bytes > 0 && memory_bytes < 60 * std::pow(2.0, 30));
    return small ? "a100-40gb-sxm" : "a100-80gb-sxm";
  }
  if (has("v100") && has("sxm2")) return has("32gb") ? "v100-sxm2-32gb" : "v100-sxm2-16gb";
  if (has("p100") && has("sxm2")) return "p100-sxm2-16gb";
  return std::nullopt;
}

}  // namespace dtsim
