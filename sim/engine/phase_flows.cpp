#include "phase_flows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <memory>

namespace dtsim {

namespace sg4 = simgrid::s4u;

namespace {

char g_token = 0;  // mailbox payloads are never read: only the simulated size matters

double start_and_wait(const PhaseFlow* first, const PhaseFlow* last) {
  std::vector<sg4::CommPtr> comms;
  std::vector<char*> received(size_t(last - first), nullptr);
  for (const PhaseFlow* f = first; f != last; ++f)
    comms.push_back(f->send ? f->mailbox->put_async(&g_token, f->bytes)
                            : f->mailbox->get_async<char>(&received[size_t(f - first)]));
  wait_all_or_cancel(comms);
  double end = 0;
  for (size_t i = 0; i < comms.size(); ++i) end = std::max(end, comms[i]->get_finish_time() - first[i].route_latency_s);
  return end;
}

// What the helpers share with the rank actor, kept alive by whoever ends last.
struct Helpers {
  std::vector<PhaseFlow> flows;
  std::vector<double> ends;
  std::exception_ptr error;
  sg4::SemaphorePtr done = sg4::Semaphore::create(0);
};

}  // namespace

void wait_all_or_cancel(const std::vector<sg4::CommPtr>& comms) {
  try {
    sg4::Comm::wait_all(comms);
  } catch (const simgrid::Exception&) {
    cancel_unfinished(comms);
    throw;
  }
}

double run_phase_flows(const std::vector<PhaseFlow>& flows, const std::string& helper_name) {
  if (flows.size() <= kFlowsPerActor) return start_and_wait(flows.data(), flows.data() + flows.size());
  auto shared = std::make_shared<Helpers>();
  shared->flows = flows;
  const size_t batches = (flows.size() + kFlowsPerActor - 1) / kFlowsPerActor;
  shared->ends.assign(batches, 0);
  for (size_t b = 0; b < batches; ++b)
    sg4::Actor::create(fmt::format("{}-flows{}", helper_name, b), sg4::this_actor::get_host(), [shared, b] {
      const PhaseFlow* first = shared->flows.data() + b * kFlowsPerActor;
      const PhaseFlow* last = shared->flows.data() + std::min(shared->flows.size(), (b + 1) * kFlowsPerActor);
      try {
        shared->ends[b] = start_and_wait(first, last);
      } catch (const simgrid::Exception&) {
        if (!shared->error) shared->error = std::current_exception();
      }
      shared->done->release();
    });
  for (size_t b = 0; b < batches; ++b) {
    shared->done->acquire();
    if (shared->error) std::rethrow_exception(shared->error);
  }
  return *std::max_element(shared->ends.begin(), shared->ends.end());
}

}  // namespace dtsim
