#include "calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

#include "input_error.hpp"

namespace dtsim {

namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& field, const std::string& expected,
                       const std::string& found) {
  throw InputError({file.string(), 0, field, expected, found});
}

double fraction(const std::filesystem::path& file, const json& j, const std::string& field) {
  if (!j.is_number()) fail(file, field, "a number in (0, 1]", j.dump());
  const double v = j.get<double>();
  if (!(v > 0 && v <= 1)) fail(file, field, "a number in (0, 1]", j.dump());
  return v;
}

double non_negative(const std::filesystem::path& file, const json& parent, const std::string& key,
                    const std::string& field) {
  if (!parent.contains(key)) fail(file, field, "a number >= 0", "nothing");
  const json& j = parent[key];
  if (!j.is_number() || j.get<double>() < 0) fail(file, field, "a number >= 0", j.dump());
  return j.get<double>();
}

std::string text(const std::filesystem::path& file, const json& parent, const std::string& key,
                 const std::string& field) {
  if (!parent.contains(key) || !parent[key].is_string()) fail(file, field, "a string", parent.value(key, json()).dump());
  return parent[key].get<std::string>();
}

OperatorKind operator_kind(const std::filesystem::path& file, const std::string& name, const std::string& field) {
  for (int k = 0; k < kOperatorKindCount; ++k)
    if (name == to_string(OperatorKind(k))) return OperatorKind(k);
  fail(file, field, "gemm, attention_gemm, elementwise or optimizer", "'" + name + "'");
}

std::optional<Precision> precision_of(const std::string& dtype) {
  if (dtype == "bf16") return Precision::bf16;
  if (dtype == "fp16") return Precision::fp16;
  if (dtype == "fp8") return Precision::fp8;
  if (dtype == "tf32") return Precision::fp32;
  return std::nullopt;  // plain fp32 (CUDA cores): not what any training precision runs at
}

void read_efficiency_summary(const std::filesystem::path& file, const json& eff, Calibration& c) {
  if (!eff.is_object()) fail(file, "efficiency", "an object keyed by operator kind", eff.dump());
  for (const auto& [kind_name, value] : eff.items()) {
    const int kind = int(operator_kind(file, kind_name, "efficiency." + kind_name));
    if (!value.is_object()) fail(file, "efficiency." + kind_name, "an object with compute and/or memory", value.dump());
    for (const auto& [part, v] : value.items()) {
      const std::string field = fmt::format("efficiency.{}.{}", kind_name, part);
      if (part == "compute") c.efficiencies.by_kind[kind].compute = fraction(file, v, field);
      else if (part == "memory") c.efficiencies.by_kind[kind].memory = fraction(file, v, field);
      else fail(file, field, "compute or memory", part);
    }
  }
}

void read_operators(const std::filesystem::path& file, const json& ops, Calibration& c) {
  if (!ops.is_array()) fail(file, "operators", "an array of measured operators", ops.type_name());
  for (size_t i = 0; i < ops.size(); ++i) {
    const json& o = ops[i];
    const std::string at = fmt::format("operators[{}]", i);
    if (!o.is_object()) fail(file, at, "an object", o.dump());
    MeasuredOperator m;
    m.op = text(file, o, "op", at + ".op");
    m.kind = operator_kind(file, text(file, o, "kind", at + ".kind"), at + ".kind");
    const std::string dtype = text(file, o, "dtype", at + ".dtype");
    const std::optional<Precision> precision = precision_of(dtype);
    if (!precision && dtype != "fp32") fail(file, at + ".dtype", "bf16, fp16, fp8, tf32 or fp32", "'" + dtype + "'");
    m.flops = non_negative(file, o, "flops", at + ".flops");
    m.bytes = non_negative(file, o, "bytes", at + ".bytes");
    m.time_s = non_negative(file, o, "time_s", at + ".time_s");
    m.compute_efficiency = non_negative(file, o, "compute_efficiency", at + ".compute_efficiency");
    m.memory_efficiency = non_negative(file, o, "memory_efficiency", at + ".memory_efficiency");
    if (m.time_s <= 0) fail(file, at + ".time_s", "a time > 0", std::to_string(m.time_s));
    if (!precision) continue;  // fp32 on CUDA cores: kept in the file, not used by the model
    m.precision = *precision;
    c.operators.push_back(m);
  }
}

void read_collectives(const std::filesystem::path& file, const json& colls, Calibration& c) {
  if (!colls.is_array()) fail(file, "collectives", "an array of measured collectives", colls.type_name());
  for (size_t i = 0; i < colls.size(); ++i) {
    const json& o = colls[i];
    const std::string at = fmt::format("collectives[{}]", i);
    if (!o.is_object()) fail(file, at, "an object", o.dump());
    const std::string op = text(file, o, "op", at + ".op");
    MeasuredCollective m;
    bool known = false;
    for (CollectiveKind k : {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                             CollectiveKind::all_to_all, CollectiveKind::broadcast, CollectiveKind::send_recv})
      if (op == to_string(k)) m.kind = k, known = true;
    if (!known) fail(file, at + ".op", "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or send_recv", op);
    if (!o.contains("gpus") || !o["gpus"].is_number_integer() || o["gpus"].get<int>() < 1)
      fail(file, at + ".gpus", "a positive integer", o.value("gpus", json()).dump());
    m.gpus = o["gpus"].get<int>();
    if (!o.contains("fit") || !o["fit"].is_object()) fail(file, at + ".fit", "an object", o.value("fit", json()).dump());
    m.latency_s = non_negative(file, o["fit"], "latency_s", at + ".fit.latency_s");
    m.busbw_Bps = non_negative(file, o["fit"], "busbw_Bps", at + ".fit.busbw_Bps");
    if (m.busbw_Bps <= 0) fail(file, at + ".fit.busbw_Bps", "a bandwidth > 0", "0");
    c.collectives.push_back(m);
  }
}

}  // namespace

Calibration load_calibration(const std::filesystem::path& file, const EfficiencyTable& defaults) {
  std::ifstream in(file);
  if (!in) fail(file, "", "a readable calibration JSON file", "no such file");
  json root;
  try {
    root = json::parse(in);
  } catch (const json::parse_error& e) {
    fail(file, "", "valid JSON", e.what());
  }
  if (!root.is_object()) fail(file, "", "a JSON object", root.type_name());
  Calibration c;
  c.file = file;
  c.device = root.value("device", std::string());
  c.date = root.value("date", std::string());
  c.efficiencies = defaults;
  if (root.contains("format") && root["format"] != "dtsim-calibration-2")
    fail(file, "format", "\"dtsim-calibration-2\"", root["format"].dump());
  if (root.contains("efficiency")) read_efficiency_summary(file, root["efficiency"], c);
  if (root.contains("operators")) read_operators(file, root["operators"], c);
  if (root.contains("collectives")) read_collectives(file, root["collectives"], c);
  return c;
}

std::optional<std::string> device_id_of_name(const std::string& driver_name) {
  std::string n = driver_name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  const auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
  // PCIe and NVL cards and Grace-Hopper modules run other clocks and links than the SXM parts.
  if (has("pcie") || has("nvl") || has("gh200") || has("gb200")) return std::nullopt;
  if (has("h100")) return "h100-sxm";
  if (has("h200")) return "h200-sxm";
  if (has("b200")) return "b200";
  if (has("a100")) return has("40gb") ? "a100-40gb-sxm" : "a100-80gb-sxm";
  return std::nullopt;
}

}  // namespace dtsim
