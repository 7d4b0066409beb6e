#include "event_reach.hpp"

namespace dtsim {

namespace {

// A slowed GPU or link changes the times of the flows and compute on its own GPUs only; the
// collectives across replicas still run every GPU's flows when folded, so the replicas holding
// those GPUs are all that differ. A NIC carries no other node's flows.
class Reach {
 public:
  Reach(int gpus_per_node, std::vector<int>& gpus) : gpus_per_node_(gpus_per_node), gpus_(gpus) {}

  bool operator()(const StragglerEvent& e) const {
    if (e.node >= 0) add_node(e.node);
    else gpus_.push_back(e.gpu);
    return true;
  }
  bool operator()(const SlowLinkEvent& e) const {
    if (e.link == EventLink::nic) add_node(e.node);
    else gpus_.push_back(e.gpu);
    return true;
  }
  // A failure stops its resource's GPUs, or their flows, for good: their replicas run their own
  // programs. The other replicas stay folded, so the iteration completes, and in the same time,
  // exactly when the full simulation's does. When it does not, the members of a collective that
  // can never end stop at different points of its plan, which folded replicas cannot: a folded GPU
  // stops with its representative (DESIGN.md "Scale"). A leaf switch serves nodes that only the
  // topology knows.
  bool operator()(const ResourceFailureEvent& e) const {
    switch (e.resource) {
      case FailedResource::gpu:
      case FailedResource::nvlink: gpus_.push_back(e.gpu); return true;
      case FailedResource::node:
      case FailedResource::nic: add_node(e.node); return true;
      case FailedResource::leaf_switch: return false;
    }
    return false;
  }
  // Another job's flow loads fabric links that any replica's pipeline transfers may cross.
  bool operator()(const BackgroundTrafficEvent&) const { return false; }

 private:
  void add_node(int node) const {
    for (int g = node * gpus_per_node_; g < (node + 1) * gpus_per_node_; ++g) gpus_.push_back(g);
  }

  int gpus_per_node_;
  std::vector<int>& gpus_;
};

}  // namespace

std::optional<std::vector<int>> gpus_events_reach(const std::vector<Event>& events, int gpus_per_node) {
  std::vector<int> gpus;
  for (const Event& e : events)
    if (!std::visit(Reach(gpus_per_node, gpus), e)) return std::nullopt;
  return gpus;
}

}  // namespace dtsim
