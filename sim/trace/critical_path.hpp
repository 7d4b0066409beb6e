#pragma once
// Which rank each collective of a recorded step waited for: on a shared clock (ranks whose steps
// overlap in time), a collective's kernels end together and start when each rank reached it, so the
// rank that started it last held the others up by the spread of the starts. Chained, the last
// arrivals are the step's critical path: that rank's work up to the collective, the collective,
// and on from its end.
#include <vector>

#include "step_summary.hpp"

namespace dtsim {

struct CriticalCollective {
  int index = 0;               // in start order, 0-based
  TraceCollectiveKind kind = TraceCollectiveKind::all_reduce;
  double bytes = 0;            // the largest any rank recorded
  int last_rank = -1;          // the rank that reached it last
  double spread_s = 0;         // from the first rank's kernel start to the last's
  double gap_before_s = 0;     // the last rank's time from the previous collective's end (or its
                               // step's start) to this kernel's start: its work on the critical path
  double duration_s = 0;       // from the last start to the latest end
};

// Empty for fewer than two ranks (one waits for no other), ranks that do not share a clock or
// recorded different sequences of collectives, and traces without start times.
std::vector<CriticalCollective> critical_path(const std::vector<RankStep>& ranks);

}  // namespace dtsim
