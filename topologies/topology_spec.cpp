#include "topology_spec.hpp"

#include <fmt/format.h>

#include "../sim/yaml_fields.hpp"

namespace dtsim {

namespace {
constexpr double kGbps = 1e9 / 8;  // bytes/s in one Gb/s
constexpr double kGBps = 1e9;
constexpr double kUs = 1e-6;
}  // namespace

TopologySpec load_topology(const std::filesystem::path& file) {
  const YamlFields f(file);
  const YAML::Node root = f.load();
  f.require_known_keys(root, "", {"name", "description", "node", "fabric"});

  TopologySpec t;
  t.source_file = file;
  t.name = f.string(root, "", "name");
  t.description = f.string_or(root, "", "description", "");

  const YAML::Node node = f.child(root, "", "node");
  f.require_known_keys(node, "node", {"gpus", "nvlink", "nics"});
  t.node.gpus = f.positive_int(node, "node", "gpus");

  const YAML::Node nvlink = f.child(node, "node", "nvlink");
  f.require_known_keys(nvlink, "node.nvlink", {"bandwidth_GBps", "latency_us"});
  t.node.nvlink_bw_Bps = f.positive_number(nvlink, "node.nvlink", "bandwidth_GBps") * kGBps;
  t.node.nvlink_latency_s = f.non_negative_number(nvlink, "node.nvlink", "latency_us") * kUs;

  const YAML::Node nics = f.child(node, "node", "nics");
  f.require_known_keys(nics, "node.nics", {"count", "bandwidth_Gbps", "latency_us"});
  t.node.nics = f.positive_int(nics, "node.nics", "count");
  t.node.nic_bw_Bps = f.positive_number(nics, "node.nics", "bandwidth_Gbps") * kGbps;
  t.node.nic_latency_s = f.non_negative_number(nics, "node.nics", "latency_us") * kUs;
  if (t.node.nics > t.node.gpus)
    f.fail(nics["count"], "node.nics.count", fmt::format("at most node.gpus ({})", t.node.gpus),
           std::to_string(t.node.nics));

  const YAML::Node fabric = f.child(root, "", "fabric");
  f.require_known_keys(fabric, "fabric", {"kind", "nodes_per_leaf", "oversubscription"});
  f.choice(fabric, "fabric", "kind", {"fat_tree"});
  t.fabric.kind = FabricKind::fat_tree;
  t.fabric.nodes_per_leaf = f.positive_int(fabric, "fabric", "nodes_per_leaf");
  t.fabric.oversubscription =
      f.has(fabric, "oversubscription") ? f.positive_number(fabric, "fabric", "oversubscription") : 1.0;
  if (t.fabric.oversubscription < 1)
    f.fail(fabric["oversubscription"], "fabric.oversubscription", "a ratio >= 1 (1 = non-blocking)",
           YamlFields::describe(fabric["oversubscription"]));
  return t;
}

}  // namespace dtsim
