#include "reliability_config.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "layer_model_section.hpp"
#include "yaml_choice.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

namespace {

const std::string kPath = "reliability";

// A number > 0, or `word` (returned as nullopt).
std::optional<double> positive_number_or_word(const YamlFields& f, const YAML::Node& map, const std::string& path,
                                              const std::string& key, const std::string& word) {
  const YAML::Node n = f.child(map, path, key);
  if (n.IsScalar() && n.Scalar() == word) return std::nullopt;
  double v = 0;
  if (!YamlFields::decode_number(n, v) || v <= 0)
    f.fail(n, YamlFields::join(path, key), fmt::format("a number > 0 or '{}'", word), YamlFields::describe(n));
  return v;
}

void read_mtbf(const YamlFields& f, const YAML::Node& map, ComponentMtbf& m) {
  const std::string path = kPath + ".mtbf_hours";
  f.require_known_keys(map, path, {"gpu", "hbm", "nic", "switch", "host", "software"});
  const std::pair<const char*, double*> fields[] = {{"gpu", &m.gpu_hours},       {"hbm", &m.hbm_hours},
                                                    {"nic", &m.nic_hours},       {"switch", &m.switch_hours},
                                                    {"host", &m.host_hours},     {"software", &m.software_hours}};
  for (const auto& [key, value] : fields)
    if (f.has(map, key)) *value = positive_number_or_word(f, map, path, key, "never").value_or(kNeverFails);
}

void read_checkpoint(const YamlFields& f, const YAML::Node& map, CheckpointPolicy& c) {
  const std::string path = kPath + ".checkpoint";
  f.require_known_keys(map, path,
                       {"mode", "interval_s", "size_bytes", "write_GBps_per_node", "read_GBps_per_node",
                        "storage_write_GBps", "storage_read_GBps", "restart_s", "host_copy_GBps_per_gpu"});
  c.mode = read_choice(f, map, path, "mode", kCheckpointModes, c.mode);
  if (f.has(map, "host_copy_GBps_per_gpu"))
    c.host_copy_GBps_per_gpu = f.positive_number(map, path, "host_copy_GBps_per_gpu");
  if (f.has(map, "interval_s")) c.interval_s = positive_number_or_word(f, map, path, "interval_s", "auto");
  if (f.has(map, "size_bytes")) c.size_bytes = f.positive_number(map, path, "size_bytes");
  const std::pair<const char*, double*> bandwidths[] = {{"write_GBps_per_node", &c.write_GBps_per_node},
                                                        {"read_GBps_per_node", &c.read_GBps_per_node},
                                                        {"storage_write_GBps", &c.storage_write_GBps},
                                                        {"storage_read_GBps", &c.storage_read_GBps}};
  for (const auto& [key, value] : bandwidths)
    if (f.has(map, key)) *value = f.positive_number(map, path, key);
  if (f.has(map, "restart_s")) c.restart_s = f.non_negative_number(map, path, "restart_s");
}

void read_recovery(const YamlFields& f, const YAML::Node& map, RecoveryPolicy& r) {
  const std::string path = kPath + ".recovery";
  f.require_known_keys(map, path, {"strategy", "repair_hours", "spares", "swap_s"});
  r.strategy = read_choice(f, map, path, "strategy", kRecoveryStrategies, r.strategy);
  if (f.has(map, "repair_hours")) r.repair_hours = f.non_negative_number(map, path, "repair_hours");
  if (f.has(map, "spares")) r.spares = f.non_negative_int(map, path, "spares");
  if (f.has(map, "swap_s")) r.swap_s = f.non_negative_number(map, path, "swap_s");
}

// `layer_model`: the scenario's model is a layer graph, counted in samples, not tokens.
void read_training(const YamlFields& f, const YAML::Node& map, bool layer_model, TrainingLength& t) {
  const std::string path = kPath + ".training";
  f.require_known_keys(map, path, {"iterations", "tokens", "samples", "days"});
  std::string first;
  for (const char* key : {"iterations", "tokens", "samples", "days"}) {
    if (!f.has(map, key)) continue;
    if (!first.empty())
      f.fail(map[key], YamlFields::join(path, key), fmt::format("only one of iterations, tokens, samples, days"),
             fmt::format("both '{}' and '{}'", first, key));
    first = key;
  }
  const char* other_unit = layer_model ? "tokens" : "samples";
  if (f.has(map, other_unit))
    f.fail(map[other_unit], YamlFields::join(path, other_unit),
           layer_model ? "samples, iterations or days: the model is a layer graph, counted in samples"
                       : "tokens, iterations or days: the model is a transformer, counted in tokens",
           other_unit);
  if (f.has(map, "iterations")) t.iterations = f.positive_number(map, path, "iterations");
  if (f.has(map, "tokens")) t.tokens = f.positive_number(map, path, "tokens");
  if (f.has(map, "samples")) t.samples = f.positive_number(map, path, "samples");
  if (f.has(map, "days")) t.days = f.positive_number(map, path, "days");
}

}  // namespace

const char* to_string(CheckpointMode m) {
  switch (m) {
    case CheckpointMode::blocking: return "blocking";
    case CheckpointMode::async: return "async";
    case CheckpointMode::in_memory: return "in_memory";
  }
  return "?";
}

RecoveryStrategy recovery_strategy_from(const std::string& name) {
  for (RecoveryStrategy s : kRecoveryStrategies)
    if (name == to_string(s)) return s;
  throw std::invalid_argument("unknown recovery strategy '" + name + "'");
}

ReliabilityConfig load_reliability_config(const std::filesystem::path& scenario_file) {
  ReliabilityConfig config;
  const YamlFields f(scenario_file);
  const YAML::Node root = f.load();
  if (!f.has(root, kPath)) return config;
  const YAML::Node section = root[kPath];
  f.require_known_keys(section, kPath, {"mtbf_hours", "checkpoint", "recovery", "training"});
  if (f.has(section, "mtbf_hours")) read_mtbf(f, section["mtbf_hours"], config.mtbf);
  if (f.has(section, "checkpoint")) read_checkpoint(f, section["checkpoint"], config.checkpoint);
  if (f.has(section, "recovery")) read_recovery(f, section["recovery"], config.recovery);
  const bool layer_model = f.has(root, "model") && is_layer_model_section(f, root["model"]);
  if (f.has(section, "training")) read_training(f, section["training"], layer_model, config.training);
  return config;
}

}  // namespace dtsim
