#include "events.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>

#include "event_windows.hpp"
#include "leaf_switches.hpp"
#include "link_names.hpp"

namespace dtsim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::profile::ProfileBuilder;

namespace {

// A SimGrid profile ("time value" lines) holding each factor of `schedule` from its time on.
std::string profile_text(const std::vector<FactorChange>& schedule) {
  std::string text;
  for (const FactorChange& c : schedule) text += fmt::format("{:.17g} {:.17g}\n", c.at_s, c.factor);
  return text;
}

// Windows by resource name, in the order the resources first appear (actors and profiles are
// then created in the same order on every run).
class WindowsByName {
 public:
  void add(const std::string& name, const FactorWindow& w) {
    for (auto& [n, windows] : entries_)
      if (n == name) {
        windows.push_back(w);
        return;
      }
    entries_.push_back({name, {w}});
  }
  const std::vector<std::pair<std::string, std::vector<FactorWindow>>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::vector<FactorWindow>>> entries_;
};

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
  EventApplier(Platform& platform, int index, const TopologySpec& topology, WindowsByName& slow_hosts,
               WindowsByName& slow_links)
      : platform_(platform), index_(index), nics_(topology.node.nics), topology_(topology),
        slow_hosts_(slow_hosts), slow_links_(slow_links) {}

  // Collected, then applied per host by apply_events: a host takes one speed profile.
  void operator()(const StragglerEvent& e) const {
    const std::vector<sg4::Host*> hosts = e.node >= 0 ? gpus_of_node(platform_, e.node)
                                                      : std::vector<sg4::Host*>{platform_.gpus.at(e.gpu)};
    for (sg4::Host* host : hosts) slow_hosts_.add(host->get_name(), {e.start_s, e.end_s, 1 / e.slowdown});
  }

  // Collected, then applied per link by apply_events.
  void operator()(const SlowLinkEvent& e) const {
    slow_links_.add(link_name(e.link == EventLink::nic ? LinkOwner::nic_of(e.node, e.nic) : LinkOwner::nvlink_of(e.gpu)),
                    {e.start_s, e.end_s, e.bandwidth_fraction});
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
          for (sg4::Link* l : both_directions(link_name(LinkOwner::nic_of(e.node, nic)))) links.push_back(l);
        break;
      case FailedResource::nic: links = both_directions(link_name(LinkOwner::nic_of(e.node, e.nic))); break;
      case FailedResource::nvlink: links = both_directions(link_name(LinkOwner::nvlink_of(e.gpu))); break;
      case FailedResource::leaf_switch:
        for (const auto& [node, nic] : leaf_nics(e.leaf))
          for (sg4::Link* l : both_directions(link_name(LinkOwner::nic_of(node, nic)))) links.push_back(l);
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
      // Starting a transfer to a host that is off aborts SimGrid; one that fails on the way (a
      // failure event) just ends the traffic.
      if (!from->is_on() || !to->is_on()) return;
      try {
        // Rate and size before the hosts: naming both hosts starts the transfer.
        sg4::Comm::sendto_init()->set_payload_size(uint64_t(bytes))->set_rate(rate_Bps)->set_source(from)->set_destination(to)->wait();
      } catch (const simgrid::Exception&) {
      }
    })->daemonize();
  }

  // Links are sealed with the platform, so link changes run in a daemon actor at their times
  // (the simulation ends when the ranks do); Link::set_bandwidth works at run time.
  static void slow_link(const std::string& link_name, const std::vector<FactorChange>& schedule, sg4::Host* host) {
    const std::vector<sg4::Link*> links = both_directions(link_name);
    sg4::Actor::create(link_name + "-slow", host, [links, schedule] {
      std::vector<double> full_Bps;
      for (sg4::Link* link : links) full_Bps.push_back(link->get_bandwidth());
      for (const FactorChange& change : schedule) {
        sg4::this_actor::sleep_until(change.at_s);
        for (size_t i = 0; i < links.size(); ++i) links[i]->set_bandwidth(full_Bps[i] * change.factor);
      }
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

  std::string name(const std::string& what) const { return fmt::format("event{}-{}", index_, what); }

  Platform& platform_;
  int index_;
  int nics_;
  const TopologySpec& topology_;  // outlives the applier (apply_events)
  WindowsByName& slow_hosts_;
  WindowsByName& slow_links_;
};

}  // namespace

void apply_events(const std::vector<Event>& events, Platform& platform, const TopologySpec& topology) {
  WindowsByName slow_hosts, slow_links;
  for (size_t i = 0; i < events.size(); ++i)
    std::visit(EventApplier(platform, int(i), topology, slow_hosts, slow_links), events[i]);
  // Host speed profiles are fractions of peak.
  for (const auto& [host, windows] : slow_hosts.entries())
    sg4::Host::by_name(host)->set_speed_profile(
        ProfileBuilder::from_string(host + "-slow", profile_text(combined_factor_schedule(windows)), -1));
  for (const auto& [link, windows] : slow_links.entries())
    EventApplier::slow_link(link, combined_factor_schedule(windows), platform.gpus.front());
}

}  // namespace dtsim
