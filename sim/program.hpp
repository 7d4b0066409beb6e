#pragma once
// What each GPU does in one iteration: an ordered list of tasks that the engine executes.
#include <string>
#include <vector>

namespace dtsim {

enum class TaskKind { compute, collective, send, recv };
enum class Phase { forward, backward, gradient_sync, optimizer };
enum class CollectiveKind { all_reduce, all_gather, reduce_scatter };
enum class P2pChannel { activations = 0, gradients = 1 };

const char* to_string(Phase p);
const char* to_string(CollectiveKind k);

struct Task {
  TaskKind kind = TaskKind::compute;
  Phase phase = Phase::forward;
  int micro_batch = -1;  // -1 for tasks outside the pipeline (gradient sync, optimizer)

  // compute
  double compute_s = 0;  // duration at the GPU's full speed
  double flops = 0;      // matmul FLOPs this task performs (recompute included)

  // collective: `calls` back-to-back collectives of `bytes` each over group `group`, merged
  // into one flow per ring edge; each call still pays its own latency term.
  int group = -1;
  CollectiveKind collective = CollectiveKind::all_reduce;
  int calls = 1;
  double bytes = 0;  // per call (collective) or per message (send/recv)

  // send / recv
  int peer = -1;  // global rank of the other side
  P2pChannel channel = P2pChannel::activations;
};

// Ranks of one collective, in ring order.
struct CommGroup {
  std::string kind;  // "tp", "dp"
  std::vector<int> ranks;
};

struct RankProgram {
  int stage = 0;
  std::vector<Task> tasks;
};

struct Workload {
  std::vector<RankProgram> ranks;  // index = global rank
  std::vector<CommGroup> groups;
};

}  // namespace dtsim
