#include "topology_spec.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "size_limits.hpp"
#include "yaml_choice.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

namespace {
constexpr double kGbps = 1e9 / 8;  // bytes/s in one Gb/s
constexpr double kGBps = 1e9;
constexpr double kUs = 1e-6;

// A link bandwidth given in `unit` (unit_Bps bytes/s each), within size_limits.hpp's bounds.
double bandwidth(const YamlFields& f, const YAML::Node& map, const std::string& path, const std::string& key,
                 double unit_Bps, const std::string& unit) {
  const double low = kMinLinkBandwidth_Bps / unit_Bps, high = kMaxLinkBandwidth_Bps / unit_Bps;
  return f.number_in(map, path, key, low, high, fmt::format("a bandwidth in [{:g}, {:g}] {}", low, high, unit)) *
         unit_Bps;
}

double latency(const YamlFields& f, const YAML::Node& map, const std::string& path, const std::string& key) {
  const double high_us = kMaxLinkLatency_s / kUs;
  return f.number_in(map, path, key, 0, high_us, fmt::format("a latency in [0, {:g}] us", high_us)) * kUs;
}

NodeSpec load_node(const YamlFields& f, const YAML::Node& root) {
  const YAML::Node node = f.child(root, "", "node");
  f.require_known_keys(node, "node", {"type", "gpus", "nvlink", "nics", "pcie", "power_kw"});
  NodeSpec n;
  n.type = f.string_or(node, "node", "type", "");
  n.gpus = f.int_in(node, "node", "gpus", 1, kMaxGpusPerNode);
  if (f.has(node, "power_kw")) n.power_w = f.number_in(node, "node", "power_kw", 0.01, 1000, "a power in [0.01, 1000] kW") * 1e3;

  const YAML::Node nvlink = f.child(node, "node", "nvlink");
  f.require_known_keys(nvlink, "node.nvlink", {"generation", "bandwidth_GBps", "latency_us", "sharp"});
  n.nvlink_generation =
      f.has(nvlink, "generation") ? f.int_in(nvlink, "node.nvlink", "generation", 1, 5, "1 to 5 (NVLink 5: Blackwell)") : 0;
  n.nvlink_bw_Bps = bandwidth(f, nvlink, "node.nvlink", "bandwidth_GBps", kGBps, "GB/s");
  n.nvlink_latency_s = latency(f, nvlink, "node.nvlink", "latency_us");
  n.nvlink_sharp = f.boolean_or(nvlink, "node.nvlink", "sharp", false);
  if (n.nvlink_sharp && n.nvlink_generation != 0 && n.nvlink_generation < 4)
    f.fail(nvlink["sharp"], "node.nvlink.sharp", "false below NVLink generation 4 (NVLS needs NVSwitch 3)",
           fmt::format("true with generation {}", n.nvlink_generation));

  const YAML::Node nics = f.child(node, "node", "nics");
  f.require_known_keys(nics, "node.nics", {"count", "bandwidth_Gbps", "latency_us"});
  n.nics = f.positive_int(nics, "node.nics", "count");
  n.nic_bw_Bps = bandwidth(f, nics, "node.nics", "bandwidth_Gbps", kGbps, "Gb/s");
  n.nic_latency_s = latency(f, nics, "node.nics", "latency_us");
  if (n.nics > n.gpus)
    f.fail(nics["count"], "node.nics.count", fmt::format("at most node.gpus ({})", n.gpus), std::to_string(n.nics));
  if (f.has(node, "pcie")) {
    const YAML::Node pcie = node["pcie"];
    f.require_map(pcie, "node.pcie");
    f.require_known_keys(pcie, "node.pcie", {"bandwidth_GBps", "latency_us"});
    n.pcie_bw_Bps = bandwidth(f, pcie, "node.pcie", "bandwidth_GBps", kGBps, "GB/s");
    n.pcie_latency_s = latency(f, pcie, "node.pcie", "latency_us");
  }
  return n;
}

double ratio_at_least_one(const YamlFields& f, const YAML::Node& fabric, const std::string& key) {
  if (!f.has(fabric, key)) return 1.0;
  return f.number_in(fabric, "fabric", key, 1, kMaxOversubscription,
                     fmt::format("a ratio in [1, {:g}] (1 = non-blocking)", kMaxOversubscription));
}

FabricSpec load_fabric(const YamlFields& f, const YAML::Node& root, const NodeSpec& node) {
  const YAML::Node fabric = f.child(root, "", "fabric");
  const std::string kind =
      f.choice(fabric, "fabric", "kind", {"fat_tree", "spine_leaf", "rail_optimized", "dragonfly", "torus"});
  FabricSpec s;
  if (f.has(fabric, "switch")) {
    const YAML::Node sw = fabric["switch"];
    f.require_known_keys(sw, "fabric.switch", {"radix", "port_Gbps"});
    s.switch_hw.radix = f.has(sw, "radix") ? f.int_in(sw, "fabric.switch", "radix", 2, 65536) : 0;
    s.switch_hw.port_bw_Bps = f.has(sw, "port_Gbps") ? bandwidth(f, sw, "fabric.switch", "port_Gbps", kGbps, "Gb/s") : 0;
  }
  if (kind == "fat_tree") {
    s.kind = FabricKind::fat_tree;
    f.require_known_keys(fabric, "fabric", {"kind", "tiers", "nodes_per_leaf", "leaves_per_pod", "oversubscription",
                                            "pod_oversubscription", "routing", "switch"});
    s.routing = read_choice(f, fabric, "fabric", "routing", kFabricRoutings, FabricRouting::static_routing);
    s.tiers = f.positive_int_or(fabric, "fabric", "tiers", 2);
    if (s.tiers != 2 && s.tiers != 3) f.fail(fabric["tiers"], "fabric.tiers", "2 or 3", std::to_string(s.tiers));
    s.nodes_per_leaf = f.positive_int(fabric, "fabric", "nodes_per_leaf");
    s.oversubscription = ratio_at_least_one(f, fabric, "oversubscription");
    if (s.tiers == 3) {
      s.leaves_per_pod = f.positive_int(fabric, "fabric", "leaves_per_pod");
      s.pod_oversubscription = ratio_at_least_one(f, fabric, "pod_oversubscription");
    } else {
      for (const char* key : {"leaves_per_pod", "pod_oversubscription"})
        if (f.has(fabric, key))
          f.fail(fabric[key], std::string("fabric.") + key, "no such field unless tiers is 3", "tiers 2");
    }
  } else if (kind == "spine_leaf") {
    s.kind = FabricKind::spine_leaf;
    f.require_known_keys(fabric, "fabric", {"kind", "nodes_per_leaf", "spines", "uplink_Gbps", "routing", "switch"});
    s.routing = read_choice(f, fabric, "fabric", "routing", kFabricRoutings, FabricRouting::static_routing);
    s.nodes_per_leaf = f.positive_int(fabric, "fabric", "nodes_per_leaf");
    s.spines = f.positive_int(fabric, "fabric", "spines");
    s.uplink_bw_Bps = bandwidth(f, fabric, "fabric", "uplink_Gbps", kGbps, "Gb/s");
    const double down = s.nodes_per_leaf * node.nic_aggregate_bw_Bps();
    s.oversubscription = down / (s.spines * s.uplink_bw_Bps);
  } else if (kind == "rail_optimized") {
    s.kind = FabricKind::rail_optimized;
    f.require_known_keys(fabric, "fabric", {"kind", "nodes_per_leaf", "oversubscription", "switch"});
    s.nodes_per_leaf = f.positive_int(fabric, "fabric", "nodes_per_leaf");
    s.oversubscription = ratio_at_least_one(f, fabric, "oversubscription");
    if (node.nics != node.gpus)
      f.fail(fabric["kind"], "fabric.kind",
             fmt::format("node.nics.count equal to node.gpus ({}) for a rail-optimised fabric (GPU k on rail k)",
                         node.gpus),
             fmt::format("rail_optimized with {} NICs", node.nics));
  } else if (kind == "dragonfly") {
    s.kind = FabricKind::dragonfly;
    f.require_known_keys(fabric, "fabric",
                         {"kind", "groups", "chassis_per_group", "routers_per_chassis", "nodes_per_router", "switch"});
    s.groups = f.positive_int(fabric, "fabric", "groups");
    s.chassis_per_group = f.positive_int(fabric, "fabric", "chassis_per_group");
    s.routers_per_chassis = f.positive_int(fabric, "fabric", "routers_per_chassis");
    s.nodes_per_router = f.positive_int(fabric, "fabric", "nodes_per_router");
  } else {
    s.kind = FabricKind::torus;
    f.require_known_keys(fabric, "fabric", {"kind", "dimensions", "switch"});
    const YAML::Node dims = f.child(fabric, "fabric", "dimensions");
    if (!dims.IsSequence() || dims.size() == 0)
      f.fail(dims, "fabric.dimensions", "a list of positive sizes such as [4, 4, 2]", YamlFields::describe(dims));
    for (size_t i = 0; i < dims.size(); ++i) {
      long long d = 0;
      if (!YamlFields::decode_integer(dims[i], d) || d <= 0 || d > kMaxGpus)
        f.fail(dims[i], fmt::format("fabric.dimensions[{}]", i), fmt::format("an integer in [1, {}]", kMaxGpus),
               YamlFields::describe(dims[i]));
      s.dimensions.push_back(int(d));
    }
  }
  return s;
}

}  // namespace

const char* to_string(FabricKind k) {
  switch (k) {
    case FabricKind::fat_tree: return "fat_tree";
    case FabricKind::spine_leaf: return "spine_leaf";
    case FabricKind::rail_optimized: return "rail_optimized";
    case FabricKind::dragonfly: return "dragonfly";
    case FabricKind::torus: return "torus";
  }
  return "?";
}

const char* to_string(FabricRouting r) {
  switch (r) {
    case FabricRouting::static_routing: return "static";
    case FabricRouting::ecmp: return "ecmp";
    case FabricRouting::adaptive: return "adaptive";
  }
  return "?";
}

long FabricSpec::capacity_nodes() const {
  // Saturates at kMaxGpus + 1 (load_topology refuses more), so that no product overflows.
  const auto times = [](long a, long b) { return std::min(a * b, kMaxGpus + 1); };
  switch (kind) {
    case FabricKind::dragonfly:
      return times(times(times(groups, chassis_per_group), routers_per_chassis), nodes_per_router);
    case FabricKind::torus: {
      long n = 1;
      for (int d : dimensions) n = times(n, d);
      return n;
    }
    default: return 0;
  }
}

TopologySpec load_topology(const std::filesystem::path& file) {
  const YamlFields f(file);
  const YAML::Node root = f.load();
  f.require_known_keys(root, "", {"name", "description", "node", "fabric"});
  TopologySpec t;
  t.source_file = file;
  t.name = f.string(root, "", "name");
  t.description = f.string_or(root, "", "description", "");
  t.node = load_node(f, root);
  t.fabric = load_fabric(f, root, t.node);
  if (t.fabric.capacity_nodes() > kMaxGpus)
    f.fail(root["fabric"], "fabric",
           fmt::format("a {} of at most {} nodes (the largest cluster dtsim simulates has {} GPUs)",
                       to_string(t.fabric.kind), kMaxGpus, kMaxGpus),
           "more nodes");
  return t;
}

void check_node_count(const TopologySpec& topo, long nodes, const std::string& requested_by) {
  const long capacity = topo.fabric.capacity_nodes();
  if (nodes < 1 || (capacity > 0 && nodes > capacity))
    throw InputError({topo.source_file.string(), 0, "fabric",
                      capacity > 0 ? fmt::format("room for the {} nodes {} asks for (at most {})", nodes,
                                                 requested_by, capacity)
                                   : "at least one node",
                      fmt::format("{} nodes", nodes)});
}

}  // namespace dtsim
