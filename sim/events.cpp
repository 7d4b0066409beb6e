#include "events.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>

#include "leaf_switches.hpp"

namespace dtsim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::profile::ProfileBuilder;

namespace {

// A profile that holds `normal` outside [start_s, end_s) and `during` inside it. SimGrid reads
// "time value" lines; period -1: no repetition.
std::string window_profile(double normal, double during, double start_s, double end_s) {
  std::string text;
  if (start_s > 0) text += fmt::format("0 {:.17g}\n", normal);
  text += fmt::format("{:.17g} {:.17g}\n", start_s, during);
  if (end_s < kForever_s) text += fmt::format("{:.17g} {:.17g}\n", end_s, normal);
  return text;
}

std::vector<sg4::Link*> both_directions(const std::string& name) {
  sg4::SplitDuplexLink* link = sg4::SplitDuplexLink::by_name(name);
  return {link->get_link_up(), link->get_link_down()};
}

std::vector<sg4::Host*> gpus_of_node(const Platform& platform, int node) {
  const auto first = platform.gpus.begin() + long(node) * platform.gpus_per_node;
  return {first, first + platform.gpus_per_node};
}

class EventApplier {
 public:
  EventApplier(Platform& platform, int index, const TopologySpec& topology)
      : platform_(platform), index_(index), nics_(topology.node.nics), topology_(topology) {}

  // Host speed profiles are fractions of peak.
  void operator()(const StragglerEvent& e) const {
    const std::vector<sg4::Host*> hosts = e.node >= 0 ? gpus_of_node(platform_, e.node)
                                                      : std::vector<sg4::Host*>{platform_.gpus.at(e.gpu)};
    for (sg4::Host* host : hosts)
      host->set_speed_profile(ProfileBuilder::from_string(name(host->get_name()),
                                                          window_profile(1, 1.0 / e.slowdown, e.start_s, e.end_s), -1));
  }

  // Links are sealed with the platform, so link changes run in a daemon actor at their time
  // (the simulation ends when the ranks do); Link::set_bandwidth works at run time.
  void operator()(const SlowLinkEvent& e) const {
    const std::vector<sg4::Link*> links = both_directions(link_name(e.link == EventLink::nic, e.node, e.nic, e.gpu));
    const double fraction = e.bandwidth_fraction, start_s = e.start_s, end_s = e.end_s;
    at_times(name("slow-link"), {}, [links, fraction, start_s, end_s] {
      std::vector<double> full_Bps;
      for (sg4::Link* link : links) full_Bps.push_back(link->get_bandwidth());
      sg4::this_actor::sleep_until(start_s);
      for (sg4::Link* link : links) link->set_bandwidth(link->get_bandwidth() * fraction);
      if (end_s >= kForever_s) return;
      sg4::this_actor::sleep_until(end_s);
      for (size_t i = 0; i < links.size(); ++i) links[i]->set_bandwidth(full_Bps[i]);
    });
  }

  // Turned off at at_s by a daemon actor on a host the failure spares: a host that turns off
  // kills its actors, and flows over a link that turns off fail.
  void operator()(const ResourceFailureEvent& e) const {
    std::vector<sg4::Host*> hosts;
    std::vector<sg4::Link*> links;
    switch (e.resource) {
      case FailedResource::gpu: hosts.push_back(platform_.gpus.at(e.gpu)); break;
      case FailedResource::node:
        hosts = gpus_of_node(platform_, e.node);
        for (int nic = 0; nic < nics_; ++nic)
          for (sg4::Link* l : both_directions(link_name(true, e.node, nic, 0))) links.push_back(l);
        break;
      case FailedResource::nic: links = both_directions(link_name(true, e.node, e.nic, 0)); break;
      case FailedResource::nvlink: links = both_directions(link_name(false, 0, 0, e.gpu)); break;
      case FailedResource::leaf_switch:
        for (const auto& [node, nic] : leaf_nics(e.leaf))
          for (sg4::Link* l : both_directions(link_name(true, node, nic, 0))) links.push_back(l);
        break;
    }
    const double at_s = e.at_s;
    at_times(name("failure"), hosts, [hosts, links, at_s] {
      sg4::this_actor::sleep_until(at_s);
      for (sg4::Link* link : links) link->turn_off();
      for (sg4::Host* host : hosts) host->turn_off();
    });
  }

  // A daemon actor (the simulation ends when the ranks do) that sends one rate-limited message
  // lasting the window.
  void operator()(const BackgroundTrafficEvent& e) const {
    sg4::Host* from = platform_.gpus.at(size_t(e.from_node) * platform_.gpus_per_node);
    sg4::Host* to = platform_.gpus.at(size_t(e.to_node) * platform_.gpus_per_node);
    const double duration_s = std::min(e.end_s, 1e6) - e.start_s;  // an open window: longer than any iteration
    const double bytes = e.rate_Bps * duration_s;
    const double start_s = e.start_s, rate_Bps = e.rate_Bps;
    sg4::Actor::create(name("background"), from, [from, to, start_s, rate_Bps, bytes] {
      sg4::this_actor::sleep_for(start_s);
      // Rate and size before the hosts: naming both hosts starts the transfer.
      sg4::Comm::sendto_init()->set_payload_size(uint64_t(bytes))->set_rate(rate_Bps)->set_source(from)->set_destination(to)->wait();
    })->daemonize();
  }

 private:
  // A daemon actor running `body`, on a GPU host not in `avoid`.
  template <class Body>
  void at_times(const std::string& actor_name, const std::vector<sg4::Host*>& avoid, Body body) const {
    sg4::Host* host = platform_.gpus.back();
    for (sg4::Host* candidate : platform_.gpus)
      if (std::find(avoid.begin(), avoid.end(), candidate) == avoid.end()) {
        host = candidate;
        break;
      }
    sg4::Actor::create(actor_name, host, body)->daemonize();
  }

  // The (node, NIC) ports of a leaf switch (scenario.hpp, ResourceFailureEvent).
  std::vector<std::pair<int, int>> leaf_nics(int leaf) const {
    const int nodes = int(platform_.gpus.size()) / platform_.gpus_per_node;
    const LeafSwitch l = leaf_switch(topology_, nodes, leaf);
    std::vector<std::pair<int, int>> ports;
    for (int node = l.first_node; node < l.end_node; ++node) {
      if (l.rail >= 0) ports.emplace_back(node, l.rail);
      else
        for (int nic = 0; nic < nics_; ++nic) ports.emplace_back(node, nic);
    }
    return ports;
  }

  static std::string link_name(bool nic, int node, int nic_index, int gpu) {
    return nic ? fmt::format("node{}-nic{}", node, nic_index) : fmt::format("gpu{}-nvlink", gpu);
  }
  std::string name(const std::string& what) const { return fmt::format("event{}-{}", index_, what); }

  Platform& platform_;
  int index_;
  int nics_;
  const TopologySpec& topology_;  // outlives the applier (apply_events)
};

}  // namespace

void apply_events(const std::vector<Event>& events, Platform& platform, const TopologySpec& topology) {
  for (size_t i = 0; i < events.size(); ++i) std::visit(EventApplier(platform, int(i), topology), events[i]);
}

}  // namespace dtsim
