#include "tree_fabric_zone.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <cstdint>
#include <stdexcept>

namespace dtsim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::Route;

namespace {

// splitmix64's finaliser: a fixed, well-mixed hash, so a flow's path does not depend on the
// platform, the compiler or earlier simulations in the process.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

TreeFabricZone::TreeFabricZone(const std::string& name, const TreeFabricParams& params)
    : NetZoneImpl(name), p_(params) {}

int TreeFabricZone::leaves() const { return (p_.nodes + p_.nodes_per_leaf - 1) / p_.nodes_per_leaf; }

int TreeFabricZone::pods() const {
  return p_.leaves_per_pod > 0 ? (leaves() + p_.leaves_per_pod - 1) / p_.leaves_per_pod : 1;
}

TreeFabricZone::Duplex TreeFabricZone::make_duplex(const std::string& name, double bw_Bps) {
  sg4::SplitDuplexLink* link = get_iface()->create_split_duplex_link(name, bw_Bps);
  return {link->get_link_up(), link->get_link_down()};
}

void TreeFabricZone::create_links() {
  const bool adaptive = p_.routing == FabricRouting::adaptive;
  for (int n = 0; n < p_.nodes; ++n) node_links_.push_back(make_duplex(fmt::format("node{}-leaf", n), p_.node_bw_Bps));
  if (leaves() > 1)
    for (int l = 0; l < leaves(); ++l) {
      if (adaptive) leaf_up_.push_back(make_duplex(fmt::format("leaf{}-up", l), p_.up1 * p_.up1_bw_Bps));
      else
        for (int j = 0; j < p_.up1; ++j) leaf_up_.push_back(make_duplex(fmt::format("leaf{}-up{}", l, j), p_.up1_bw_Bps));
    }
  if (pods() > 1)
    for (int pod = 0; pod < pods(); ++pod) {
      if (adaptive) pod_up_.push_back(make_duplex(fmt::format("pod{}-up", pod), double(p_.up1) * p_.up2 * p_.up2_bw_Bps));
      else
        for (int j = 0; j < p_.up1; ++j)
          for (int c = 0; c < p_.up2; ++c)
            pod_up_.push_back(make_duplex(fmt::format("pod{}-up{}-{}", pod, j, c), p_.up2_bw_Bps));
    }
  gateways_.resize(size_t(p_.nodes), nullptr);
}

void TreeFabricZone::add_node(int node, NetPoint* zone, NetPoint* gateway) {
  const unsigned long id = zone->id();
  if (node_of_id_.size() <= id) node_of_id_.resize(id + 1, -1);
  node_of_id_[id] = node;
  gateways_[size_t(node)] = gateway;
}

int TreeFabricZone::node_of(const NetPoint* p) const {
  if (p->id() >= node_of_id_.size() || node_of_id_[p->id()] < 0)
    throw std::logic_error(fmt::format("TreeFabricZone {}: {} is not one of its nodes", get_name(), p->get_name()));
  return node_of_id_[p->id()];
}

std::pair<int, int> TreeFabricZone::up_ports(int from, int to) const {
  if (p_.routing == FabricRouting::ecmp) {
    const uint64_t h = mix((uint64_t(uint32_t(from)) << 32) | uint32_t(to));
    return {int(h % uint64_t(p_.up1)), int(mix(h) % uint64_t(p_.up2))};
  }
  return {to % p_.up1, (to / p_.up1) % p_.up2};  // D-mod-K on the destination
}

void TreeFabricZone::get_local_route(const NetPoint* src, const NetPoint* dst, Route* into, double* latency) {
  if (src == dst) return;
  const int a = node_of(src), b = node_of(dst);
  into->gw_src_ = gateways_[size_t(a)];
  into->gw_dst_ = gateways_[size_t(b)];
  auto add = [&](sg4::Link* link) {
    into->link_list_.push_back(link->get_impl());
    if (latency) *latency += link->get_latency();
  };
  const int leaf_a = a / p_.nodes_per_leaf, leaf_b = b / p_.nodes_per_leaf;
  const int pod_a = p_.leaves_per_pod > 0 ? leaf_a / p_.leaves_per_pod : 0;
  const int pod_b = p_.leaves_per_pod > 0 ? leaf_b / p_.leaves_per_pod : 0;
  add(node_links_[size_t(a)].up);
  if (leaf_a != leaf_b) {
    if (p_.routing == FabricRouting::adaptive) {
      add(leaf_up_[size_t(leaf_a)].up);
      if (pod_a != pod_b) {
        add(pod_up_[size_t(pod_a)].up);
        add(pod_up_[size_t(pod_b)].down);
      }
      add(leaf_up_[size_t(leaf_b)].down);
    } else {
      const auto [j, c] = up_ports(a, b);
      add(leaf_up_[size_t(leaf_a) * p_.up1 + j].up);
      if (pod_a != pod_b) {
        add(pod_up_[(size_t(pod_a) * p_.up1 + j) * p_.up2 + c].up);
        add(pod_up_[(size_t(pod_b) * p_.up1 + j) * p_.up2 + c].down);
      }
      add(leaf_up_[size_t(leaf_b) * p_.up1 + j].down);
    }
  }
  add(node_links_[size_t(b)].down);
}

}  // namespace dtsim
