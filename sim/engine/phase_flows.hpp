#pragma once
// One phase of a collective as a rank runs it: its sends and receives started together and
// awaited. SimGrid 3.32 keeps an actor's unfinished activities in a list that it walks to remove
// each one that ends, so one actor awaiting the 2(n-1) flows of an all-to-all over n ranks takes
// O(n^2) list steps per phase (74% of a 256-rank replay's cycles). Above kFlowsPerActor flows,
// helper actors on the rank's host start and await kFlowsPerActor each: the same flows, started
// at the same simulated time, with the same finish times.
#include <simgrid/s4u.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dtsim {

inline constexpr size_t kFlowsPerActor = 64;

struct PhaseFlow {
  simgrid::s4u::Mailbox* mailbox = nullptr;  // the (group, from, to) mailbox
  uint64_t bytes = 0;                        // sends only
  bool send = true;
  double route_latency_s = 0;  // paid by the flow already, and taken off its finish time
};

// Cancels the activities not finished yet: SimGrid aborts when a comm still running is destroyed,
// so when one activity fails (a failed link or host) the others are cancelled before the failure
// propagates.
template <class ActivityPtr>
void cancel_unfinished(const std::vector<ActivityPtr>& activities) {
  for (const ActivityPtr& a : activities)
    if (a->get_state() != simgrid::s4u::Activity::State::FINISHED) a->cancel();
}

// Waits for all the comms; on a failure cancels the others and rethrows.
void wait_all_or_cancel(const std::vector<simgrid::s4u::CommPtr>& comms);

// Starts the flows, waits for all of them and returns the latest finish time less its route
// latency (0 for no flows). A flow that fails (a failed link or host) cancels the rest of its
// actor's and the failure is rethrown here; a helper left waiting then stays blocked, as a rank
// actor does. `helper_name` prefixes the helper actors' names.
double run_phase_flows(const std::vector<PhaseFlow>& flows, const std::string& helper_name);

}  // namespace dtsim
