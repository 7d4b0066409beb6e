#include "calibration.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "input_error.hpp"

namespace dtsim {

namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& field, const std::string& expected,
                       const std::string& found) {
  throw InputError({file.string(), 0, field, expected, found});
}

double fraction(const std::filesystem::path& file, const nlohmann::json& j, const std::string& field) {
  if (!j.is_number()) fail(file, field, "a number in (0, 1]", j.dump());
  const double v = j.get<double>();
  if (!(v > 0 && v <= 1)) fail(file, field, "a number in (0, 1]", j.dump());
  return v;
}

}  // namespace

Calibration load_calibration(const std::filesystem::path& file, const EfficiencyTable& defaults) {
  std::ifstream in(file);
  if (!in) fail(file, "", "a readable calibration JSON file", "no such file");
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    fail(file, "", "valid JSON", e.what());
  }
  Calibration c{root.value("device", std::string()), defaults};
  if (!root.contains("efficiency")) return c;
  const nlohmann::json& eff = root["efficiency"];
  if (!eff.is_object()) fail(file, "efficiency", "an object keyed by operator kind", eff.dump());
  for (const auto& [kind_name, value] : eff.items()) {
    int kind = -1;
    for (int k = 0; k < kOperatorKindCount; ++k)
      if (kind_name == to_string(OperatorKind(k))) kind = k;
    if (kind < 0) fail(file, "efficiency." + kind_name, "gemm, attention_gemm, elementwise or optimizer", kind_name);
    if (!value.is_object()) fail(file, "efficiency." + kind_name, "an object with compute and/or memory", value.dump());
    for (const auto& [part, v] : value.items()) {
      const std::string field = fmt::format("efficiency.{}.{}", kind_name, part);
      if (part == "compute") c.efficiencies.by_kind[kind].compute = fraction(file, v, field);
      else if (part == "memory") c.efficiencies.by_kind[kind].memory = fraction(file, v, field);
      else fail(file, field, "compute or memory", part);
    }
  }
  return c;
}

}  // namespace dtsim
