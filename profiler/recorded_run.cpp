#include "recorded_run.hpp"

#include <limits>

#include "calibration_builder.hpp"
#include "calibration_writer.hpp"
#include "device_peaks.hpp"

namespace dtsim::profiler {

namespace {

// [x, y, z] of int32s.
void read_dim3(const FieldReader& r, const json& parent, const std::string& at, const std::string& key,
               int32_t& x, int32_t& y, int32_t& z) {
  const json& a = r.array(parent, at, key);
  const std::string path = field_path(at, key);
  if (a.size() != 3) r.fail(path, "three integers [x, y, z]", describe_found(&a));
  int32_t* out[3] = {&x, &y, &z};
  for (size_t i = 0; i < 3; ++i) {
    if (!a[i].is_number_integer() || a[i].get<int64_t>() < 0 ||
        a[i].get<int64_t>() > std::numeric_limits<int32_t>::max())
      r.fail(index_path(path, i), "an integer >= 0", describe_found(&a[i]));
    *out[i] = int32_t(a[i].get<int64_t>());
  }
}

uint32_t read_u32(const FieldReader& r, const json& parent, const std::string& at, const std::string& key) {
  const uint64_t v = r.unsigned_integer(parent, at, key);
  if (v > std::numeric_limits<uint32_t>::max()) r.fail(field_path(at, key), "an integer < 2^32", std::to_string(v));
  return uint32_t(v);
}

KernelRecord read_kernel(const FieldReader& r, const json& k, const std::string& at) {
  KernelRecord rec;
  rec.name = r.string(k, at, "name");
  rec.start_ns = r.unsigned_integer(k, at, "start_ns");
  rec.end_ns = r.unsigned_integer(k, at, "end_ns");
  if (rec.end_ns < rec.start_ns)
    r.fail(field_path(at, "end_ns"), "a time >= start_ns (" + std::to_string(rec.start_ns) + ")",
           std::to_string(rec.end_ns));
  read_dim3(r, k, at, "grid", rec.grid_x, rec.grid_y, rec.grid_z);
  read_dim3(r, k, at, "block", rec.block_x, rec.block_y, rec.block_z);
  rec.stream_id = read_u32(r, k, at, "stream_id");
  rec.correlation_id = read_u32(r, k, at, "correlation_id");
  rec.device_id = read_u32(r, k, at, "device_id");
  return rec;
}

WindowKind read_attribution(const FieldReader& r, const json& o, const std::string& at) {
  const std::string kind = r.string(o, at, "attribution");
  if (kind == to_string(WindowKind::timestamp_ns)) return WindowKind::timestamp_ns;
  if (kind == to_string(WindowKind::correlation_id)) return WindowKind::correlation_id;
  r.fail(field_path(at, "attribution"), "\"timestamp_ns\" or \"correlation_id\"", "\"" + kind + "\"");
}

// op, kind, dtype, shape (in the file's order), flops and bytes of the operator object `o`.
OperatorIdentity read_operator_identity(const FieldReader& r, const json& o, const std::string& at) {
  OperatorIdentity id;
  id.op = r.string(o, at, "op");
  id.kind = r.string(o, at, "kind");
  id.dtype = r.string(o, at, "dtype");
  const json& shape = r.object(o, at, "shape");
  for (const auto& [name, value] : shape.items()) id.shape.emplace_back(name, r.integer(shape, at + ".shape", name));
  id.flops = r.non_negative(o, at, "flops");
  id.bytes = r.non_negative(o, at, "bytes");
  if (o.contains("access")) {
    id.access = r.string(o, at, "access");
    if (!calib::is_one_of(id.access, kMemoryAccesses))
      r.fail(at + ".access", calib::listed(kMemoryAccesses), "\"" + id.access + "\"");
  }
  return id;
}

RawOperator read_operator(const FieldReader& r, const json& o, const std::string& at, bool cupti) {
  RawOperator op;
  static_cast<OperatorIdentity&>(op) = read_operator_identity(r, o, at);
  if (!cupti) {
    const json& times = r.array(o, at, "event_times_s");
    for (size_t i = 0; i < times.size(); ++i) {
      if (!times[i].is_number() || !(times[i].get<double>() > 0))
        r.fail(index_path(at + ".event_times_s", i), "a time > 0", describe_found(&times[i]));
      op.event_times_s.push_back(times[i].get<double>());
    }
    return op;
  }
  const WindowKind kind = read_attribution(r, o, at);
  const json& runs = r.array(o, at, "runs");
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string rat = index_path(at + ".runs", i);
    const json& w = r.object_at(runs, at + ".runs", i);
    RunWindow win{kind, r.unsigned_integer(w, rat, "begin"), r.unsigned_integer(w, rat, "end")};
    if (win.end < win.begin)
      r.fail(field_path(rat, "end"), "a value >= begin (" + std::to_string(win.begin) + ")", std::to_string(win.end));
    op.runs.push_back(win);
  }
  const json& kernels = r.array(o, at, "kernels");
  for (size_t i = 0; i < kernels.size(); ++i)
    op.kernels.push_back(read_kernel(r, r.object_at(kernels, at + ".kernels", i), index_path(at + ".kernels", i)));
  return op;
}

RawCollective read_collective(const FieldReader& r, const json& o, const std::string& at) {
  RawCollective c;
  c.op = r.string(o, at, "op");
  c.gpus = int(r.integer(o, at, "gpus"));
  if (c.gpus < 1) r.fail(field_path(at, "gpus"), "a GPU count >= 1", std::to_string(c.gpus));
  c.dtype = r.string(o, at, "dtype");
  const json& points = r.array(o, at, "points");
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string pat = index_path(at + ".points", i);
    const json& p = r.object_at(points, at + ".points", i);
    const double bytes = r.positive(p, pat, "bytes");
    const double time_s = r.positive(p, pat, "time_s");
    c.points.push_back({bytes, time_s});
  }
  return c;
}

RawCopy read_copy(const FieldReader& r, const json& copies, const std::string& key) {
  const json& c = r.object(copies, "copies", key);
  const std::string at = field_path("copies", key);
  const double bytes = r.positive(c, at, "bytes");
  const double time_s = r.positive(c, at, "time_s");
  return {bytes, time_s};
}

json shape_to_json(const ShapeFields& shape) {
  json j = json::object();
  for (const auto& [name, value] : shape) j[name] = value;
  return j;
}

json peaks_json(const Peaks& p) {
  return json{{"fp32_flops", p.fp32_flops}, {"tf32_flops", p.tf32_flops}, {"fp16_flops", p.fp16_flops},
              {"bf16_flops", p.bf16_flops}, {"fp8_flops", p.fp8_flops},   {"hbm_Bps", p.hbm_Bps}};
}

}  // namespace

RawProfile load_raw_profile(const std::filesystem::path& file) {
  const json root = read_json_file(file);
  const FieldReader r(file.string());
  if (!root.is_object()) r.fail("", "a JSON object", describe_found(&root));
  const std::string format = r.string(root, "", "format");
  if (format != kRawProfileFormat) r.fail("format", std::string("\"") + kRawProfileFormat + "\"", "\"" + format + "\"");

  RawProfile raw;
  const json& dev = r.object(root, "", "device");
  raw.device.name = r.string(dev, "device", "name");
  raw.device.compute_capability = r.string(dev, "device", "compute_capability");
  raw.device.gpus = int(r.integer(dev, "device", "gpus"));
  if (raw.device.gpus < 1) r.fail("device.gpus", "a GPU count >= 1", std::to_string(raw.device.gpus));
  raw.device.driver = r.string(dev, "device", "driver");
  raw.device.cuda_runtime = r.string(dev, "device", "cuda_runtime");
  if (dev.contains("cudnn")) raw.device.cudnn = r.string(dev, "device", "cudnn");  // absent before issue 43
  raw.device.nccl = r.string(dev, "device", "nccl");
  raw.device.date = r.string(dev, "device", "date");
  if (root.contains("peaks")) raw.peaks = read_peaks(r, root, "", "peaks");

  const json& prof = r.object(root, "", "profiler");
  raw.profiler.cupti = r.boolean(prof, "profiler", "cupti");
  raw.profiler.iterations = int(r.integer(prof, "profiler", "iterations"));
  raw.profiler.warmup = int(r.integer(prof, "profiler", "warmup"));
  if (prof.contains("overhead_percent") && !prof["overhead_percent"].is_null())
    raw.profiler.overhead_percent = r.number(prof, "profiler", "overhead_percent");

  const json& ops = r.array(root, "", "operators");
  for (size_t i = 0; i < ops.size(); ++i)
    raw.operators.push_back(
        read_operator(r, r.object_at(ops, "operators", i), index_path("operators", i), raw.profiler.cupti));
  const json& colls = r.array(root, "", "collectives");
  for (size_t i = 0; i < colls.size(); ++i)
    raw.collectives.push_back(read_collective(r, r.object_at(colls, "collectives", i), index_path("collectives", i)));
  const json& copies = r.object(root, "", "copies");
  raw.copies.d2d = read_copy(r, copies, "d2d");
  raw.copies.h2d = read_copy(r, copies, "h2d");
  raw.copies.d2h = read_copy(r, copies, "d2h");
  return raw;
}

json raw_profile_to_json(const RawProfile& raw) {
  json j;
  j["format"] = kRawProfileFormat;
  j["device"] = json{{"name", raw.device.name},
                     {"compute_capability", raw.device.compute_capability},
                     {"gpus", raw.device.gpus},
                     {"driver", raw.device.driver},
                     {"cuda_runtime", raw.device.cuda_runtime}};
  if (!raw.device.cudnn.empty()) j["device"]["cudnn"] = raw.device.cudnn;
  j["device"]["nccl"] = raw.device.nccl;
  j["device"]["date"] = raw.device.date;
  if (raw.peaks) j["peaks"] = peaks_json(*raw.peaks);
  j["profiler"] = json{{"cupti", raw.profiler.cupti},
                       {"iterations", raw.profiler.iterations},
                       {"warmup", raw.profiler.warmup},
                       {"overhead_percent",
                        raw.profiler.overhead_percent ? json(*raw.profiler.overhead_percent) : json(nullptr)}};
  j["operators"] = json::array();
  for (const RawOperator& o : raw.operators) {
    json jo{{"op", o.op}, {"kind", o.kind}, {"dtype", o.dtype}, {"shape", shape_to_json(o.shape)},
            {"flops", o.flops}, {"bytes", o.bytes}};
    if (!o.access.empty()) jo["access"] = o.access;
    if (raw.profiler.cupti) {
      jo["attribution"] = to_string(o.runs.empty() ? WindowKind::timestamp_ns : o.runs.front().kind);
      jo["runs"] = json::array();
      for (const RunWindow& w : o.runs) jo["runs"].push_back(json{{"begin", w.begin}, {"end", w.end}});
      jo["kernels"] = json::array();
      for (const KernelRecord& k : o.kernels)
        jo["kernels"].push_back(json{{"name", k.name},
                                     {"start_ns", k.start_ns},
                                     {"end_ns", k.end_ns},
                                     {"grid", {k.grid_x, k.grid_y, k.grid_z}},
                                     {"block", {k.block_x, k.block_y, k.block_z}},
                                     {"stream_id", k.stream_id},
                                     {"correlation_id", k.correlation_id},
                                     {"device_id", k.device_id}});
    } else {
      jo["event_times_s"] = o.event_times_s;
    }
    j["operators"].push_back(jo);
  }
  j["collectives"] = json::array();
  for (const RawCollective& c : raw.collectives) {
    json points = json::array();
    for (const RawCollectivePoint& p : c.points) points.push_back(json{{"bytes", p.bytes}, {"time_s", p.time_s}});
    j["collectives"].push_back(json{{"op", c.op}, {"gpus", c.gpus}, {"dtype", c.dtype}, {"points", points}});
  }
  const auto copy = [](const RawCopy& c) { return json{{"bytes", c.bytes}, {"time_s", c.time_s}}; };
  j["copies"] = json{{"d2d", copy(raw.copies.d2d)}, {"h2d", copy(raw.copies.h2d)}, {"d2h", copy(raw.copies.d2h)}};
  return j;
}

void write_raw_profile(const std::filesystem::path& file, const RawProfile& raw) {
  write_text_atomically(file, raw_profile_to_json(raw).dump(1) + "\n");
}

Calibration calibrate_recorded_run(const std::filesystem::path& file, const std::optional<Peaks>& peaks_override) {
  return build_calibration(load_raw_profile(file), file.string(), peaks_override);
}

}  // namespace dtsim::profiler
