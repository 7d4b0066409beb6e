#include "scenario_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <sstream>
#include <tuple>

#include "device_spec.hpp"
#include "field_override_yaml.hpp"
#include "input_pipeline_section.hpp"
#include "layer_model_section.hpp"
#include "scenario_consistency.hpp"
#include "scenario_sections.hpp"
#include "size_limits.hpp"
#include "yaml_choice.hpp"
#include "yaml_field_lines.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

namespace {

namespace fs = std::filesystem;

double finite_number(const YamlFields& f, const YAML::Node& map, const std::string& path, const std::string& key) {
  const double largest = std::numeric_limits<double>::max();
  return f.number_in(map, path, key, -largest, largest, "a number");
}

ClusterConfig read_cluster(const YamlFields& f, const YAML::Node& cluster) {
  f.require_known_keys(cluster, "cluster",
                       {"gpu", "nodes", "topology", "oversubscription", "routing", "gpu_differs_from_topology"});
  ClusterConfig c;
  c.gpu = f.choice(cluster, "cluster", "gpu", device_ids());
  c.gpu_differs_from_topology = f.boolean_or(cluster, "cluster", "gpu_differs_from_topology", false);
  c.nodes = f.positive_int(cluster, "cluster", "nodes");
  c.topology_file = read_existing_file(f, cluster, "cluster", "topology");
  c.topology = load_topology(c.topology_file);
  if (f.has(cluster, "oversubscription")) {  // the topology's fabric.oversubscription, for what-ifs and sweeps
    const FabricKind kind = c.topology.fabric.kind;
    if (kind != FabricKind::fat_tree && kind != FabricKind::rail_optimized)
      f.fail(cluster["oversubscription"], "cluster.oversubscription",
             "no such field for this fabric (fat_tree and rail_optimized only)",
             fmt::format("a {} fabric in {}", to_string(kind), c.topology_file.filename().string()));
    const double ratio = f.number_in(cluster, "cluster", "oversubscription", 1, kMaxOversubscription,
                                     fmt::format("a ratio in [1, {:g}] (leaf down- / up-bandwidth)", kMaxOversubscription));
    c.topology.fabric.oversubscription = ratio;
  }
  if (f.has(cluster, "routing")) {  // the topology's fabric.routing, for what-ifs and sweeps
    const FabricKind kind = c.topology.fabric.kind;
    if (kind != FabricKind::fat_tree && kind != FabricKind::spine_leaf)
      f.fail(cluster["routing"], "cluster.routing", "no such field for this fabric (fat_tree and spine_leaf only)",
             fmt::format("a {} fabric in {}", to_string(kind), c.topology_file.filename().string()));
    c.topology.fabric.routing = read_choice(f, cluster, "cluster", "routing", kFabricRoutings);
  }
  const long capacity = c.topology.fabric.capacity_nodes();
  if (capacity > 0 && c.nodes > capacity)
    f.fail(cluster["nodes"], "cluster.nodes",
           fmt::format("at most {} nodes, all that the {} fabric of {} holds", capacity,
                       to_string(c.topology.fabric.kind), c.topology_file.filename().string()),
           std::to_string(c.nodes));
  return c;
}

// [start_s, end_s): both optional (0 and the end of the iteration).
std::pair<double, double> read_window(const YamlFields& f, const YAML::Node& event, const std::string& path) {
  const double start = f.has(event, "start_s") ? finite_number(f, event, path, "start_s") : 0.0;
  const double end = f.has(event, "end_s") ? finite_number(f, event, path, "end_s") : kForever_s;
  return {start, end};
}

Event read_event(const YamlFields& f, const YAML::Node& event, const std::string& path) {
  const std::string type =
      f.choice(event, path, "type", {"straggler", "slow_node", "slow_link", "failure", "background_traffic"});
  if (type == "straggler" || type == "slow_node") {
    const bool node = type == "slow_node";
    f.require_known_keys(event, path, {"type", node ? "node" : "gpu", "slowdown", "start_s", "end_s"});
    StragglerEvent e;
    (node ? e.node : e.gpu) = f.non_negative_int(event, path, node ? "node" : "gpu");
    e.slowdown = finite_number(f, event, path, "slowdown");
    std::tie(e.start_s, e.end_s) = read_window(f, event, path);
    return e;
  }
  if (type == "slow_link") {
    SlowLinkEvent e;
    e.link = f.choice(event, path, "link", {"nic", "nvlink"}) == "nic" ? EventLink::nic : EventLink::nvlink;
    if (e.link == EventLink::nic) {
      f.require_known_keys(event, path, {"type", "link", "node", "nic", "bandwidth_fraction", "start_s", "end_s"});
      e.node = f.non_negative_int(event, path, "node");
      e.nic = f.non_negative_int(event, path, "nic");
    } else {
      f.require_known_keys(event, path, {"type", "link", "gpu", "bandwidth_fraction", "start_s", "end_s"});
      e.gpu = f.non_negative_int(event, path, "gpu");
    }
    e.bandwidth_fraction = finite_number(f, event, path, "bandwidth_fraction");
    std::tie(e.start_s, e.end_s) = read_window(f, event, path);
    return e;
  }
  if (type == "failure") {
    ResourceFailureEvent e;
    const std::string resource = f.choice(event, path, "resource", {"gpu", "node", "nic", "nvlink", "leaf_switch"});
    e.resource = resource == "gpu"      ? FailedResource::gpu
                 : resource == "node"   ? FailedResource::node
                 : resource == "nic"    ? FailedResource::nic
                 : resource == "nvlink" ? FailedResource::nvlink
                                        : FailedResource::leaf_switch;
    if (e.resource == FailedResource::leaf_switch) {
      f.require_known_keys(event, path, {"type", "resource", "leaf", "at_s"});
      e.leaf = f.non_negative_int(event, path, "leaf");
    } else if (e.resource == FailedResource::nic) {
      f.require_known_keys(event, path, {"type", "resource", "node", "nic", "at_s"});
      e.node = f.non_negative_int(event, path, "node");
      e.nic = f.non_negative_int(event, path, "nic");
    } else if (e.resource == FailedResource::node) {
      f.require_known_keys(event, path, {"type", "resource", "node", "at_s"});
      e.node = f.non_negative_int(event, path, "node");
    } else {
      f.require_known_keys(event, path, {"type", "resource", "gpu", "at_s"});
      e.gpu = f.non_negative_int(event, path, "gpu");
    }
    e.at_s = finite_number(f, event, path, "at_s");
    return e;
  }
  f.require_known_keys(event, path, {"type", "from_node", "to_node", "rate_GBps", "start_s", "end_s"});
  BackgroundTrafficEvent e;
  e.from_node = f.non_negative_int(event, path, "from_node");
  e.to_node = f.non_negative_int(event, path, "to_node");
  e.rate_Bps = finite_number(f, event, path, "rate_GBps") * 1e9;
  std::tie(e.start_s, e.end_s) = read_window(f, event, path);
  return e;
}

// The line of a scenario field; a model shape that came from a preset or a config.json is
// reported at the line naming that source.
int line_of_scenario_field(const YAML::Node& root, const std::string& field) {
  if (const auto line = exact_line_of_field(root, field)) return *line;
  if (field.rfind("model.", 0) == 0)
    for (const char* source : {"model.preset", "model.hf_config"})
      if (const auto line = exact_line_of_field(root, source)) return *line;
  return line_of_field(root, field);
}

std::vector<Event> read_events(const YamlFields& f, const YAML::Node& root) {
  std::vector<Event> events;
  if (!f.has(root, "events")) return events;
  const YAML::Node list = root["events"];
  f.require_list(list, "events");
  for (size_t i = 0; i < list.size(); ++i) events.push_back(read_event(f, list[i], fmt::format("events[{}]", i)));
  return events;
}

}  // namespace

// Sets `path` (dotted mapping keys and list indices) of `root` to `value` parsed as YAML; a last
// key "+" appends the value to the list the path names (created if absent).
void apply_field_override(const fs::path& file, YAML::Node root, const FieldOverride& o) {
  std::vector<std::string> keys;
  for (size_t start = 0;;) {
    const size_t dot = o.path.find('.', start);
    keys.push_back(o.path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  const auto bad_path = [&](const std::string& expected) {
    throw InputError({file.string(), 0, o.path, expected, o.path});
  };
  const auto parsed_value = [&] {
    try {
      return YAML::Load(o.value);
    } catch (const YAML::Exception&) {
      throw InputError({file.string(), 0, o.path, "a YAML value", "'" + o.value + "'"});
    }
  };
  YAML::Node node = root;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& key = keys[i];
    const bool last = i + 1 == keys.size();
    if (last && key == "+") {
      if (!node.IsSequence() && node.IsDefined() && !node.IsNull()) bad_path("a path to a list to append to (e.g. events.+)");
      node.push_back(parsed_value());
      return;
    }
    if (node.IsSequence()) {  // a list index: events.0.slowdown
      const bool digits = !key.empty() && key.find_first_not_of("0123456789") == std::string::npos && key.size() < 9;
      const std::size_t index = digits ? std::stoul(key) : node.size();
      if (index >= node.size())
        bad_path(fmt::format("an index of the list at '{}' (0 to {})", key, node.size() == 0 ? 0 : node.size() - 1));
      if (last) {
        node[index] = parsed_value();
        return;
      }
      node.reset(node[index]);
      continue;
    }
    if (key.empty() || !node.IsMap())
      bad_path("a dotted path of mapping keys and list indices (e.g. parallelism.tp, events.0.slowdown)");
    if (last) {
      const YAML::Node value = parsed_value();
      if (value.IsNull()) node.remove(key);  // "~": as if the file left the key out
      else node[key] = value;
    } else {
      if (!node[key]) node[key] = YAML::Node(keys[i + 1] == "+" ? YAML::NodeType::Sequence : YAML::NodeType::Map);
      node.reset(node[key]);
    }
  }
}

Scenario load_scenario(const fs::path& file) { return load_scenario(file, {}); }

std::vector<Event> load_events_file(const fs::path& file) {
  const YamlFields f(file);
  const YAML::Node root = f.load();
  f.require_map(root, "");
  f.require_known_keys(root, "", {"events"});
  f.child(root, "", "events");  // required
  return read_events(f, root);
}

FieldOverride event_override(const std::string& flag, const std::string& text) {
  const auto bad = [&] {
    throw InputError({"<command line>", 0, flag,
                      "an event type and its fields as KEY=VALUE (e.g. 'straggler gpu=5 slowdown=1.3')",
                      "'" + text + "'"});
  };
  const auto is_word = [](const std::string& w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
  };
  std::istringstream words(text);
  std::string type, field;
  if (!(words >> type) || !is_word(type)) bad();
  YAML::Node event(YAML::NodeType::Map);
  event["type"] = type;
  while (words >> field) {
    const size_t equals = field.find('=');
    if (equals == std::string::npos || !is_word(field.substr(0, equals)) || equals + 1 == field.size()) bad();
    YAML::Node value;
    try {
      value = YAML::Load(field.substr(equals + 1));
    } catch (const YAML::Exception&) {
      bad();
    }
    event[field.substr(0, equals)] = value;
  }
  YAML::Emitter flow;
  flow << YAML::Flow << event;
  return {"events.+", flow.c_str()};
}

Scenario load_scenario(const fs::path& file, const std::vector<FieldOverride>& overrides) {
  const YamlFields f(file);
  const YAML::Node root = f.load();
  for (const FieldOverride& o : overrides) apply_field_override(file, root, o);
  if (!overrides.empty()) f.check_tree(root);
  // reliability: read by `dtsim goodput` (reliability_config.hpp)
  f.require_known_keys(root, "",
                       {"name", "model", "training", "parallelism", "cluster", "calibration", "events",
                        "reliability", "data_parallel", "reference", "input_pipeline"});

  Scenario s;
  s.source_file = file;
  s.name = f.string(root, "", "name");
  const YAML::Node model = f.child(root, "", "model");
  if (is_layer_model_section(f, model)) {
    s.layer_model = read_layer_model_section(f, model, "");
    s.model.name = s.layer_model->graph.name;
    s.reference = read_reference_section(f, root, "", s.layer_model->graph.sample_unit);
  } else {
    s.model = read_model_section(f, model, "", s.name);
  }
  if (f.has(root, "data_parallel")) {
    if (!s.layer_model)
      f.fail(root["data_parallel"], "data_parallel",
             "no such section for a transformer model (its gradients are set by parallelism.overlap_grad_reduce "
             "and bucket_mb); a layer-graph model (model.zoo or model.layers_file) takes it",
             "a data_parallel section");
    s.data_parallel = read_data_parallel_section(f, root, "");
  }
  for (const char* section : {"reference", "input_pipeline"})
    if (f.has(root, section) && !s.layer_model)
      f.fail(root[section], section,
             "no such section for a transformer model (a layer-graph model, model.zoo or model.layers_file, takes it)",
             fmt::format("a {} section", section));
  s.input_pipeline = read_input_pipeline_section(f, root, "");
  s.training = read_training_section(f, f.child(root, "", "training"), "",
                                     s.layer_model ? Framework::pytorch : Framework::megatron);
  s.parallelism = read_parallelism_section(f, root, "");
  s.cluster = read_cluster(f, f.child(root, "", "cluster"));
  if (f.has(root, "calibration")) s.calibration_file = read_existing_file(f, root, "", "calibration");
  s.events = read_events(f, root);

  check_consistency(s, [&](const std::string& field, const std::string& expected, const std::string& found) {
    throw InputError({file.string(), line_of_scenario_field(root, field), field, expected, found});
  });
  check_cluster_buildable(s.cluster.topology, s.cluster.nodes);
  return s;
}

}  // namespace dtsim
