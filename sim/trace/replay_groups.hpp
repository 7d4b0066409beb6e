#pragma once
// Which collectives of a recorded step grow when its job is replayed on more ranks (data
// parallelism: the default process group) and which keep their size (tensor, context, expert
// parallelism: another group of g ranks, laid out as g consecutive ranks, inside a node where g
// fits one). The trace's process groups decide; where it records none for a collective, the
// user's layout does (--layout tp=T), and a replay that would have to guess refuses.
#include <string>
#include <vector>

#include "step_summary.hpp"

namespace dtsim {

struct ReplayLayout {
  int tp = 0;  // ranks of one tensor-parallel group in the traced job; 0: not given
};

struct CollectiveGroups {
  // Per collective, in start order: 0 when it spans every replayed rank, else the size of the
  // group of consecutive ranks it keeps.
  std::vector<int> fixed_size;
  std::vector<std::string> assumed;  // what decided, in words, for the replay's "assumed" lines
};

// `rank` is a traced rank (every rank recorded the same sequence of collectives); the job was
// traced on `traced_world` ranks and is replayed on `replayed_world`. Throws InputError naming
// --layout when the trace and the layout leave a collective's group open while scaling out, or
// the layout does not divide the traced world; naming --ranks when a kept group does not divide
// the replayed world.
CollectiveGroups collective_groups(const RankStep& rank, int traced_world, int replayed_world,
                                   const ReplayLayout& layout);

}  // namespace dtsim
