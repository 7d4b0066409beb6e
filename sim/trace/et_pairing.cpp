#include "et_pairing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dtsim {

namespace {

const EtStep* matching_step(const RankStep& step, const PyTorchEt& et) {
  for (const EtStep& s : et.steps)
    if (s.name == step.step) return &s;
  return et.steps.size() == 1 ? &et.steps.front() : nullptr;
}

// Up to NCCL 2.18 an all-to-all ran as SendRecv kernels: without an annotation saying so, the
// Kineto side has send_recv where the ET has all_to_all.
bool same_kind(TraceCollectiveKind kineto, TraceCollectiveKind et) {
  return kineto == et || (kineto == TraceCollectiveKind::send_recv && et == TraceCollectiveKind::all_to_all);
}

}  // namespace

EtPairing fill_from_execution_trace(RankStep& step, const PyTorchEt& et) {
  EtPairing out;
  const EtStep* et_step = matching_step(step, et);
  if (!et_step) {
    out.unpaired = fmt::format("it has no step {}", step.step);
    return out;
  }
  std::vector<size_t> order(step.collectives.size());  // the step's collectives in start order
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return step.collectives[a].start_us < step.collectives[b].start_us;
  });
  bool same = order.size() == et_step->collectives.size();
  for (size_t i = 0; same && i < order.size(); ++i)
    same = same_kind(step.collectives[order[i]].collective.kind, et_step->collectives[i].kind);
  if (!same) {
    out.unpaired = fmt::format("its {} collectives are not the step's {} (kinds in order)",
                               et_step->collectives.size(), order.size());
    return out;
  }
  for (size_t i = 0; i < order.size(); ++i) {
    TraceCollective& c = step.collectives[order[i]].collective;
    const TraceCollective& from = et_step->collectives[i];
    c.kind = from.kind;
    if (from.size_source != SizeSource::unknown) {
      if (c.size_source == SizeSource::unknown) {
        c.bytes = from.bytes;
        c.size_source = SizeSource::execution_trace;
        ++out.filled;
      } else if (std::abs(c.bytes - from.bytes) < 0.5) {
        ++out.agreed;
      } else {
        ++out.differed;
      }
    }
    if (c.group_size == 0) c.group_size = from.group_size;
    if (c.process_group.empty()) {
      c.process_group = from.process_group;
      c.default_group = from.default_group;
    }
  }
  return out;
}

}  // namespace dtsim
