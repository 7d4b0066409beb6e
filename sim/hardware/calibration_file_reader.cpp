#include "calibration_file_reader.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "json_input.hpp"
#include "size_limits.hpp"

namespace dtsim::calib {

namespace {

using json = nlohmann::json;

std::string range(double low, double high) { return "[" + shortest(low) + ", " + shortest(high) + "]"; }

// OpShape's field order (kernels/operator.hpp): a shape reads back in the order it was written.
constexpr const char* kShapeOrder[] = {"m", "n", "k", "batch", "seq", "head_dim", "rows", "cols", "vocab", "count"};

double efficiency(const JsonFields& f, const json& o, const std::string& at, const std::string& key, bool compute,
                  bool used) {
  const double high = compute ? kMaxComputeEfficiency : kMaxMemoryEfficiency;
  return f.number_in(o, at, key, used ? kMinEfficiency : 0, high,
                     compute ? compute_efficiency_range(used) : memory_efficiency_range(used));
}

void read_metadata(const JsonFields& f, const json& root, CalibrationFile& c) {
  const std::pair<const char*, std::string*> strings[] = {
      {"device", &c.device}, {"compute_capability", &c.compute_capability}, {"driver", &c.driver},
      {"cuda_runtime", &c.cuda_runtime}, {"cudnn", &c.cudnn}, {"nccl", &c.nccl}, {"date", &c.date}};
  for (const auto& [key, value] : strings)
    if (f.has(root, key)) *value = f.string(root, "", key);
  if (f.has(root, "gpus")) c.gpus = f.int_in(root, "", "gpus", 1, kMaxGpusPerNode);
}

// Peaks the profiler measured against: present ones must be rates a GPU can have (fp8 may be 0:
// no FP8 tensor cores).
Peaks read_peaks(const JsonFields& f, const json& root) {
  const json& peaks = f.child(root, "", "peaks");
  f.require_object(peaks, "peaks", {"fp32_flops", "tf32_flops", "fp16_flops", "bf16_flops", "fp8_flops", "hbm_Bps"});
  const std::string flops_range = "a rate in [1e9, " + shortest(kMaxPeakFlops) + "] FLOP/s";
  Peaks p;
  const std::pair<const char*, double*> tensor_rates[] = {
      {"fp32_flops", &p.fp32_flops}, {"tf32_flops", &p.tf32_flops}, {"fp16_flops", &p.fp16_flops},
      {"bf16_flops", &p.bf16_flops}};
  for (const auto& [key, value] : tensor_rates)
    if (f.has(peaks, key)) *value = f.number_in(peaks, "peaks", key, 1e9, kMaxPeakFlops, flops_range);
  if (f.has(peaks, "fp8_flops"))
    p.fp8_flops = f.number_in(peaks, "peaks", "fp8_flops", 0, kMaxPeakFlops,
                              "0 or a rate up to " + shortest(kMaxPeakFlops) + " FLOP/s");
  if (f.has(peaks, "hbm_Bps"))
    p.hbm_Bps = f.number_in(peaks, "peaks", "hbm_Bps", 1e9, kMaxPeakMemory_Bps,
                            "a bandwidth in [1e9, " + shortest(kMaxPeakMemory_Bps) + "] B/s");
  return p;
}

void read_kind_efficiencies(const JsonFields& f, const json& eff, CalibrationFile& c) {
  if (!eff.is_object()) f.fail("efficiency", "an object keyed by operator kind", describe_json(eff));
  for (const auto& [kind, value] : eff.items()) {
    const std::string at = "efficiency." + kind;
    if (!is_one_of(kind, kOperatorKinds)) f.fail(at, listed(kOperatorKinds), "'" + kind + "'");
    f.require_object(value, at, {"compute", "memory"});
    KindEfficiency k;
    k.kind = kind;
    // A per-kind value replaces the model's own: both must be rates it can run at.
    if (f.has(value, "compute")) k.compute = efficiency(f, value, at, "compute", true, true);
    if (f.has(value, "memory")) k.memory = efficiency(f, value, at, "memory", false, true);
    c.efficiency.push_back(k);
  }
}

ShapeFields read_shape(const JsonFields& f, const json& o, const std::string& at) {
  const json& shape = f.child(o, at, "shape");
  if (!shape.is_object()) f.fail(at + ".shape", "an object of dimension sizes", describe_json(shape));
  ShapeFields fields;
  std::set<std::string> taken;
  const auto take = [&](const std::string& name) {
    fields.emplace_back(name, f.int_in(shape, at + ".shape", name, 1, 1'000'000'000));
    taken.insert(name);
  };
  for (const char* name : kShapeOrder)
    if (shape.contains(name)) take(name);
  for (const auto& [name, value] : shape.items())
    if (!taken.count(name)) take(name);
  return fields;
}

CalibratedOperator read_operator(const JsonFields& f, const json& o, const std::string& at) {
  f.require_object(o, at,
                   {"op", "kind", "dtype", "shape", "flops", "bytes", "time_s", "runs", "compute_efficiency",
                    "memory_efficiency", "kernels", "access"});
  CalibratedOperator m;
  m.op = f.string(o, at, "op");
  m.kind = f.string(o, at, "kind");
  if (!is_one_of(m.kind, kOperatorKinds)) f.fail(at + ".kind", listed(kOperatorKinds), "'" + m.kind + "'");
  m.dtype = f.string(o, at, "dtype");
  if (f.has(o, "access")) {
    m.access = f.string(o, at, "access");
    if (!is_one_of(m.access, kMemoryAccesses)) f.fail(at + ".access", listed(kMemoryAccesses), "'" + m.access + "'");
    if (is_matmul_kind(m.kind)) f.fail(at + ".access", "no access pattern for a matmul kind", "'" + m.access + "'");
  }
  constexpr const char* kDtypes[] = {"bf16", "fp16", "fp8", "tf32", "fp32"};
  if (!is_one_of(m.dtype, kDtypes)) f.fail(at + ".dtype", listed(kDtypes), "'" + m.dtype + "'");
  m.flops = f.number_in(o, at, "flops", 0, 1e21, "a FLOP count in [0, 1e21]");
  m.bytes = f.number_in(o, at, "bytes", 0, 1e15, "a byte count in [0, 1e15]");
  m.time_s = f.number_in(o, at, "time_s", 1e-9, 1e4, "a time in [1e-9, 1e4] s");
  if (f.has(o, "runs")) m.runs = f.int_in(o, at, "runs", 1, 1'000'000);
  if (f.has(o, "shape")) m.shape = read_shape(f, o, at);
  if (f.has(o, "kernels")) {
    const json& kernels = f.array(o, at, "kernels");
    for (size_t k = 0; k < kernels.size(); ++k) {
      if (!kernels[k].is_string())
        f.fail(at + ".kernels[" + std::to_string(k) + "]", "a kernel name", describe_json(kernels[k]));
      m.kernels.push_back(kernels[k].get<std::string>());
    }
  }
  // The efficiency the model uses for this kind (FLOP/s for matmuls, bytes/s for the rest) must
  // be one it can run at; the other is kept as measured.
  const bool by_flops = is_matmul_kind(m.kind);
  m.compute_efficiency = efficiency(f, o, at, "compute_efficiency", true, by_flops);
  m.memory_efficiency = efficiency(f, o, at, "memory_efficiency", false, !by_flops);
  return m;
}

CalibratedCollective read_collective(const JsonFields& f, const json& o, const std::string& at) {
  f.require_object(o, at, {"op", "gpus", "dtype", "points", "fit"});
  CalibratedCollective m;
  m.op = f.string(o, at, "op");
  if (!is_one_of(m.op, kCollectiveOps)) f.fail(at + ".op", listed(kCollectiveOps), "'" + m.op + "'");
  m.gpus = f.int_in(o, at, "gpus", 1, kMaxGpusPerNode);
  if (f.has(o, "dtype")) m.dtype = f.string(o, at, "dtype");
  if (f.has(o, "points")) {
    const json& points = f.array(o, at, "points");
    for (size_t p = 0; p < points.size(); ++p) {
      const std::string pat = at + ".points[" + std::to_string(p) + "]";
      f.require_object(points[p], pat, {"bytes", "time_s", "algbw_Bps", "busbw_Bps"});
      m.points.push_back({f.number_in(points[p], pat, "bytes", 1, 1e15),
                          f.number_in(points[p], pat, "time_s", 1e-9, 1e4),
                          f.number_in(points[p], pat, "algbw_Bps", 0, kMaxLinkBandwidth_Bps),
                          f.number_in(points[p], pat, "busbw_Bps", 0, kMaxLinkBandwidth_Bps)});
    }
  }
  const json& fit = f.child(o, at, "fit");
  f.require_object(fit, at + ".fit", {"latency_s", "busbw_Bps"});
  m.fit.latency_s = f.number_in(fit, at + ".fit", "latency_s", 0, kMaxLinkLatency_s);
  m.fit.busbw_Bps = f.number_in(fit, at + ".fit", "busbw_Bps", kMinLinkBandwidth_Bps, kMaxLinkBandwidth_Bps,
                                "a bus bandwidth in " + range(kMinLinkBandwidth_Bps, kMaxLinkBandwidth_Bps) + " B/s");
  return m;
}

CopyBandwidths read_copies(const JsonFields& f, const json& root) {
  const json& copies = f.child(root, "", "copies");
  f.require_object(copies, "copies", {"d2d_Bps", "h2d_Bps", "d2h_Bps"});
  CopyBandwidths c;
  const std::pair<const char*, double*> fields[] = {
      {"d2d_Bps", &c.d2d_Bps}, {"h2d_Bps", &c.h2d_Bps}, {"d2h_Bps", &c.d2h_Bps}};
  // 0: not measured (the builder writes 0 for a copy the raw profile lacks).
  for (const auto& [key, value] : fields)
    if (f.has(copies, key) && !(copies[key].is_number() && copies[key].get<double>() == 0))
      *value = f.number_in(copies, "copies", key, kMinLinkBandwidth_Bps, kMaxLinkBandwidth_Bps,
                           "0 (not measured) or a bandwidth in " + range(kMinLinkBandwidth_Bps, kMaxLinkBandwidth_Bps) +
                               " B/s");
  return c;
}

ProfilerSettings read_profiler(const JsonFields& f, const json& root) {
  const json& prof = f.child(root, "", "profiler");
  f.require_object(prof, "profiler", {"cupti", "iterations", "warmup", "overhead_percent"});
  ProfilerSettings p;
  if (f.has(prof, "cupti")) p.cupti = f.boolean(prof, "profiler", "cupti");
  if (f.has(prof, "iterations")) p.iterations = f.int_in(prof, "profiler", "iterations", 1, 1'000'000);
  if (f.has(prof, "warmup")) p.warmup = f.int_in(prof, "profiler", "warmup", 0, 1'000'000);
  // null: the profiler did not measure its own overhead. Slightly negative is noise (CUPTI on
  // was faster by chance).
  if (f.has(prof, "overhead_percent") && !prof["overhead_percent"].is_null())
    p.overhead_percent = f.number_in(prof, "profiler", "overhead_percent", -100, 1000);
  return p;
}

}  // namespace

std::string compute_efficiency_range(bool used_by_model) {
  return "measured / peak FLOP/s in " + range(used_by_model ? kMinEfficiency : 0, kMaxComputeEfficiency) +
         " (above 1: a clock above the datasheet's)";
}

std::string memory_efficiency_range(bool used_by_model) {
  return "measured / peak HBM bytes/s in " + range(used_by_model ? kMinEfficiency : 0, kMaxMemoryEfficiency) +
         " (above 1: served from L2)";
}

CalibrationFile read_calibration_file(const std::filesystem::path& file) {
  const json root = parse_json_input(file, "calibration");
  const JsonFields f(file);
  if (!root.is_object()) f.fail("", "a JSON object", describe_json(root));
  CalibrationFile c;
  c.format.clear();
  // The format first: another dtsim file (a raw profile) would fail on its first field otherwise.
  if (f.has(root, "format")) {
    if (root["format"] != kCalibrationFormat)
      f.fail("format",
             std::string("\"") + kCalibrationFormat + "\" (a raw profile becomes one with dtsim calibrate RAW --out FILE)",
             describe_json(root["format"]));
    c.format = kCalibrationFormat;
  }
  f.require_object(root, "",
                   {"format", "device", "compute_capability", "gpus", "driver", "cuda_runtime", "cudnn", "nccl", "date",
                    "peaks", "efficiency", "operators", "collectives", "copies", "profiler"});
  read_metadata(f, root, c);
  if (f.has(root, "peaks")) c.peaks = read_peaks(f, root);
  if (f.has(root, "copies")) c.copies = read_copies(f, root);
  if (f.has(root, "profiler")) c.profiler = read_profiler(f, root);
  if (f.has(root, "efficiency")) read_kind_efficiencies(f, f.child(root, "", "efficiency"), c);
  if (f.has(root, "operators")) {
    const json& ops = f.array(root, "", "operators");
    for (size_t i = 0; i < ops.size(); ++i)
      c.operators.push_back(read_operator(f, ops[i], "operators[" + std::to_string(i) + "]"));
  }
  if (f.has(root, "collectives")) {
    const json& colls = f.array(root, "", "collectives");
    for (size_t i = 0; i < colls.size(); ++i)
      c.collectives.push_back(read_collective(f, colls[i], "collectives[" + std::to_string(i) + "]"));
  }
  return c;
}

}  // namespace dtsim::calib
