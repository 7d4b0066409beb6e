#include "scenario_writer.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "field_override_yaml.hpp"
#include "input_error.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

namespace fs = std::filesystem;

namespace {

// ", start_s: 1, end_s: 2", leaving out the defaults (0 and to the end).
std::string window(double start_s, double end_s) {
  std::string w;
  if (start_s != 0) w += fmt::format(", start_s: {}", start_s);
  if (end_s < kForever_s) w += fmt::format(", end_s: {}", end_s);
  return w;
}

std::string to_yaml(const StragglerEvent& e) {
  if (e.node >= 0) return fmt::format("{{type: slow_node, node: {}, slowdown: {}{}}}", e.node, e.slowdown, window(e.start_s, e.end_s));
  return fmt::format("{{type: straggler, gpu: {}, slowdown: {}{}}}", e.gpu, e.slowdown, window(e.start_s, e.end_s));
}

std::string to_yaml(const SlowLinkEvent& e) {
  const std::string where = e.link == EventLink::nic ? fmt::format("link: nic, node: {}, nic: {}", e.node, e.nic)
                                                     : fmt::format("link: nvlink, gpu: {}", e.gpu);
  return fmt::format("{{type: slow_link, {}, bandwidth_fraction: {}{}}}", where, e.bandwidth_fraction,
                     window(e.start_s, e.end_s));
}

std::string to_yaml(const ResourceFailureEvent& e) {
  std::string what;
  switch (e.resource) {
    case FailedResource::gpu: what = fmt::format("resource: gpu, gpu: {}", e.gpu); break;
    case FailedResource::node: what = fmt::format("resource: node, node: {}", e.node); break;
    case FailedResource::nic: what = fmt::format("resource: nic, node: {}, nic: {}", e.node, e.nic); break;
    case FailedResource::nvlink: what = fmt::format("resource: nvlink, gpu: {}", e.gpu); break;
    case FailedResource::leaf_switch: what = fmt::format("resource: leaf_switch, leaf: {}", e.leaf); break;
  }
  return fmt::format("{{type: failure, {}, at_s: {}}}", what, e.at_s);
}

std::string to_yaml(const BackgroundTrafficEvent& e) {
  return fmt::format("{{type: background_traffic, from_node: {}, to_node: {}, rate_GBps: {}{}}}", e.from_node,
                     e.to_node, e.rate_Bps / 1e9, window(e.start_s, e.end_s));
}

// A relative path of the scenario at `from` rewritten to name the same file from `to`'s folder.
void rebase_path(YAML::Node map, const char* key, const fs::path& from, const fs::path& to) {
  if (!map.IsMap() || !map[key] || !map[key].IsScalar()) return;
  const fs::path value = map[key].as<std::string>();
  if (value.is_absolute()) return;
  const fs::path target = fs::weakly_canonical(fs::absolute(from).parent_path() / value);
  const fs::path folder = fs::weakly_canonical(fs::absolute(to).parent_path());
  map[key] = target.lexically_relative(folder).generic_string();
}

}  // namespace

std::string event_to_yaml(const Event& e) {
  return std::visit([](const auto& x) { return to_yaml(x); }, e);
}

std::string events_to_yaml(const std::vector<Event>& events) {
  std::string out = "[";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? ", " : "") + event_to_yaml(events[i]);
  return out + "]";
}

std::string scenario_yaml(const fs::path& file, const std::vector<FieldOverride>& overrides,
                          const fs::path& destination) {
  if (!fs::is_regular_file(file)) throw InputError({file.string(), 0, "", "an existing file", file.string()});
  YAML::Node root = YamlFields(file).load();
  for (const FieldOverride& o : overrides) apply_field_override(file, root, o);
  if (root.IsMap()) {
    if (root["cluster"]) rebase_path(root["cluster"], "topology", file, destination);
    if (root["model"]) rebase_path(root["model"], "hf_config", file, destination);
    if (root["model"]) rebase_path(root["model"], "layers_file", file, destination);
    rebase_path(root, "calibration", file, destination);
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

}  // namespace dtsim
