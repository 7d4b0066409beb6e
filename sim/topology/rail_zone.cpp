#include "rail_zone.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <stdexcept>

#include "link_names.hpp"

namespace dtsim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::Route;

RailZone::RailZone(const std::string& name, const RailFabricParams& params)
    : NetZoneImpl(name), p_(params), groups_((params.nodes + params.nodes_per_group - 1) / params.nodes_per_group) {}

RailZone::Duplex RailZone::make_duplex(const std::string& name, double bw_Bps, double latency_s) {
  sg4::SplitDuplexLink* link = get_iface()->create_split_duplex_link(name, bw_Bps);
  link->set_latency(latency_s);
  return {link->get_link_up(), link->get_link_down()};
}

std::vector<sg4::Host*> RailZone::populate(double gpu_speed_flops) {
  const int gpus = p_.gpus_per_node;
  const size_t ranks = size_t(p_.nodes) * gpus;
  hosts_by_rank_.resize(ranks);
  nvlink_.resize(ranks);
  nic_.resize(ranks);
  for (size_t r = 0; r < ranks; ++r) {
    sg4::Host* host = get_iface()->create_host(fmt::format("gpu{}", r), gpu_speed_flops);
    host->seal();  // the zone's seal() only finds hosts reachable from the root (platform_builder.cpp)
    hosts_by_rank_[r] = host;
    const unsigned long id = host->get_netpoint()->id();
    if (rank_of_id_.size() <= id) rank_of_id_.resize(id + 1, -1);
    rank_of_id_[id] = int(r);
    nvlink_[r] = make_duplex(link_name(LinkOwner::nvlink_of(int(r))), p_.nvlink_bw_Bps, p_.nvlink_latency_s);
    nic_[r] = make_duplex(link_name(LinkOwner::nic_of(int(r / gpus), int(r % gpus))), p_.nic_bw_Bps, p_.nic_latency_s);
  }
  // Latency stays on NVLink and NIC links (see platform_builder.hpp), none on the up-links.
  if (groups_ > 1)
    for (int g = 0; g < groups_; ++g)
      for (int k = 0; k < gpus; ++k)
        rail_up_.push_back(make_duplex(fmt::format("group{}-rail{}-up", g, k), p_.rail_uplink_bw_Bps, 0.0));
  return hosts_by_rank_;
}

int RailZone::rank_of(const NetPoint* p) const {
  if (!p->is_host() || p->id() >= rank_of_id_.size() || rank_of_id_[p->id()] < 0)
    throw std::logic_error(fmt::format("RailZone {}: {} is not one of its GPUs", get_name(), p->get_name()));
  return rank_of_id_[p->id()];
}

void RailZone::get_local_route(const NetPoint* src, const NetPoint* dst, Route* into, double* latency) {
  if (src == dst) return;
  auto add = [&](sg4::Link* link) {
    into->link_list_.push_back(link->get_impl());
    if (latency) *latency += link->get_latency();
  };
  const int gpus = p_.gpus_per_node;
  const int a = rank_of(src), b = rank_of(dst);
  const int node_a = a / gpus, node_b = b / gpus;
  if (node_a == node_b) {
    add(nvlink_[a].up);
    add(nvlink_[b].down);
    return;
  }
  // PXN: move the data over NVLink to the source node's GPU on the destination's rail first.
  const int rail = b % gpus;
  const int sender = node_a * gpus + rail;
  if (sender != a) {
    add(nvlink_[a].up);
    add(nvlink_[sender].down);
  }
  add(nic_[sender].up);
  const int group_a = node_a / p_.nodes_per_group, group_b = node_b / p_.nodes_per_group;
  if (group_a != group_b) {
    add(rail_up_[size_t(group_a) * gpus + rail].up);
    add(rail_up_[size_t(group_b) * gpus + rail].down);
  }
  add(nic_[b].down);
}

void RailZone::get_graph(const s_xbt_graph_t* graph, std::map<std::string, xbt_node_t, std::less<>>* nodes,
                         std::map<std::string, xbt_edge_t, std::less<>>* edges) {
  auto edge = [&](const std::string& from, const std::string& to) {
    new_xbt_graph_edge(graph, new_xbt_graph_node(graph, from.c_str(), nodes),
                       new_xbt_graph_node(graph, to.c_str(), nodes), edges);
  };
  const int gpus = p_.gpus_per_node;
  for (size_t r = 0; r < hosts_by_rank_.size(); ++r) {
    const std::string host = hosts_by_rank_[r]->get_name();
    const int node = int(r) / gpus, rail = int(r) % gpus, group = node / p_.nodes_per_group;
    edge(host, nvlink_[r].up->get_name());
    edge(nvlink_[r].up->get_name(), fmt::format("node{}-nvswitch", node));
    edge(host, nic_[r].up->get_name());
    edge(nic_[r].up->get_name(), fmt::format("group{}-rail{}-leaf", group, rail));
  }
  for (size_t i = 0; i < rail_up_.size(); ++i) {
    edge(fmt::format("group{}-rail{}-leaf", i / gpus, i % gpus), rail_up_[i].up->get_name());
    edge(rail_up_[i].up->get_name(), "spines");
  }
}

}  // namespace dtsim
