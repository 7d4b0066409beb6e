#include "calibration_reader.hpp"

#include "device_peaks.hpp"
#include "json_fields.hpp"

namespace dtsim::profiler {

namespace {

CalibratedOperator read_operator(const FieldReader& r, const json& o, const std::string& at) {
  CalibratedOperator op;
  static_cast<OperatorIdentity&>(op) = read_operator_identity(r, o, at);
  op.time_s = r.positive(o, at, "time_s");
  op.runs = int(r.integer(o, at, "runs"));
  op.compute_efficiency = r.non_negative(o, at, "compute_efficiency");
  op.memory_efficiency = r.non_negative(o, at, "memory_efficiency");
  const json& kernels = r.array(o, at, "kernels");
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (!kernels[i].is_string()) r.fail(index_path(at + ".kernels", i), "a string", describe_found(&kernels[i]));
    op.kernels.push_back(kernels[i].get<std::string>());
  }
  return op;
}

CalibratedCollective read_collective(const FieldReader& r, const json& o, const std::string& at) {
  CalibratedCollective c;
  c.op = r.string(o, at, "op");
  c.gpus = int(r.integer(o, at, "gpus"));
  c.dtype = r.string(o, at, "dtype");
  const json& points = r.array(o, at, "points");
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string pat = index_path(at + ".points", i);
    const json& p = r.object_at(points, at + ".points", i);
    c.points.push_back({r.positive(p, pat, "bytes"), r.positive(p, pat, "time_s"), r.non_negative(p, pat, "algbw_Bps"),
                        r.non_negative(p, pat, "busbw_Bps")});
  }
  const json& fit = r.object(o, at, "fit");
  c.fit.latency_s = r.non_negative(fit, at + ".fit", "latency_s");
  c.fit.busbw_Bps = r.positive(fit, at + ".fit", "busbw_Bps");
  return c;
}

}  // namespace

OperatorIdentity read_operator_identity(const FieldReader& r, const json& o, const std::string& at) {
  OperatorIdentity id;
  id.op = r.string(o, at, "op");
  id.kind = r.string(o, at, "kind");
  id.dtype = r.string(o, at, "dtype");
  const json& shape = r.object(o, at, "shape");
  for (const auto& [name, value] : shape.items()) id.shape.emplace_back(name, r.integer(shape, at + ".shape", name));
  id.flops = r.non_negative(o, at, "flops");
  id.bytes = r.non_negative(o, at, "bytes");
  return id;
}

Calibration read_calibration(const std::filesystem::path& file) {
  const json root = read_json_file(file);
  const FieldReader r(file.string());
  if (!root.is_object()) r.fail("", "a JSON object", describe_found(&root));
  Calibration c;
  c.format = r.string(root, "", "format");
  if (c.format != kCalibrationFormat) r.fail("format", std::string("\"") + kCalibrationFormat + "\"", "\"" + c.format + "\"");
  c.device = r.string(root, "", "device");
  c.compute_capability = r.string(root, "", "compute_capability");
  c.gpus = int(r.integer(root, "", "gpus"));
  c.driver = r.string(root, "", "driver");
  c.cuda_runtime = r.string(root, "", "cuda_runtime");
  c.nccl = r.string(root, "", "nccl");
  c.date = r.string(root, "", "date");
  c.peaks = read_peaks(r, root, "", "peaks");
  const json& ops = r.array(root, "", "operators");
  for (size_t i = 0; i < ops.size(); ++i)
    c.operators.push_back(read_operator(r, r.object_at(ops, "operators", i), index_path("operators", i)));
  const json& colls = r.array(root, "", "collectives");
  for (size_t i = 0; i < colls.size(); ++i)
    c.collectives.push_back(read_collective(r, r.object_at(colls, "collectives", i), index_path("collectives", i)));
  const json& copies = r.object(root, "", "copies");
  c.copies = {r.non_negative(copies, "copies", "d2d_Bps"), r.non_negative(copies, "copies", "h2d_Bps"),
              r.non_negative(copies, "copies", "d2h_Bps")};
  const json& prof = r.object(root, "", "profiler");
  c.profiler.cupti = r.boolean(prof, "profiler", "cupti");
  c.profiler.iterations = int(r.integer(prof, "profiler", "iterations"));
  c.profiler.warmup = int(r.integer(prof, "profiler", "warmup"));
  const auto overhead = prof.find("overhead_percent");
  if (overhead == prof.end()) r.fail("profiler.overhead_percent", "a number or null", "nothing");
  if (!overhead->is_null()) c.profiler.overhead_percent = r.number(prof, "profiler", "overhead_percent");
  return c;
}

}  // namespace dtsim::profiler
