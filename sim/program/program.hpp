#pragma once
// What each GPU does in one iteration: an ordered list of tasks that the engine executes.
#include <string>
#include <vector>

namespace dtsim {

// wait_overlapped: block until the first `overlapped_done` overlapped collectives this rank
// issued are done (they complete in issue order).
// Parameter servers (Workload::servers): ps_pull fetches every server's shard of the weights for
// `iteration` (blocking: a sync server answers once that iteration's update is applied);
// ps_push sends bucket `ps_bucket`'s gradients to the servers holding them and goes on;
// ps_wait blocks until the rank's pushes have arrived and ends the rank's iteration.
enum class TaskKind { compute, collective, send, recv, wait_overlapped, ps_pull, ps_push, ps_wait };
enum class Phase { forward, backward, gradient_sync, optimizer };
enum class CollectiveKind { all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, send_recv };
// How a collective moves its data (NCCL's algorithms plus the textbook ones); `automatic` lets
// the NCCL-like selector in collective_model.hpp choose by size and group shape.
enum class CollectiveAlgorithm { automatic, ring, tree, recursive_halving_doubling, hierarchical, nvls, nvls_tree, direct };
// NCCL's protocols: LL (8-byte flag+data stores), LL128 (128-byte lines), Simple (bulk copies).
enum class Protocol { automatic, ll, ll128, simple };
enum class P2pChannel { activations = 0, gradients = 1 };

const char* to_string(Phase p);
const char* to_string(CollectiveKind k);
const char* to_string(CollectiveAlgorithm a);
const char* to_string(Protocol p);

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
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  Protocol protocol = Protocol::automatic;
  // Issued on the rank's communication stream and run alongside the tasks after it, in issue
  // order (like NCCL kernels on a separate CUDA stream), until a wait_overlapped task. A compute
  // task there (a compressed gradient's decoding) runs after the collective before it; its
  // `group` names the collectives whose communication time it belongs to.
  bool overlapped = false;
  // An all-reduce by MPI on the node CPUs (Horovod without NCCL; host_staged_allreduce.hpp)
  // instead of NCCL's on the GPUs: Workload::cpu_memory_Bps gives the CPUs' speed.
  bool host_staged = false;
  // A blocking collective whose time is its algorithm's estimate once the group has met, no flows
  // simulated: calls the rank waits for while nothing runs beside them, whose bytes an overlapped
  // collective of the same pass already carries (the FSDP units a pass cannot hide; stage_costs.cpp).
  bool priced = false;

  // wait_overlapped: how many of the rank's overlapped collectives, counted from the start of
  // the iteration, must have completed. A pass waits for its own collectives but not for the
  // gradient buckets issued after them, which only the optimizer waits for.
  int overlapped_done = 0;

  // send / recv
  int peer = -1;  // global rank of the other side
  P2pChannel channel = P2pChannel::activations;

  // ps_pull, ps_push, ps_wait
  int iteration = 0;
  int ps_bucket = -1;  // ps_push: index into ParameterServers::bucket_bytes
};

enum class ServerUpdateMode { sync, async, bounded_staleness };

// The parameter servers a workload's ranks push to and pull from (sim/workload/README.md
// "Parameter servers"): each runs as an actor on a node's CPU host, whose speed is its memory bandwidth, so
// an update costs the bytes it streams.
struct ParameterServers {
  std::vector<int> nodes;                        // [server]: the node whose CPU runs it
  std::vector<double> shard_bytes;               // [server]: weights it holds (what a pull returns)
  std::vector<std::vector<double>> bucket_bytes;  // [bucket][server]: gradients one push sends it
  std::vector<int> workers;                      // ranks that push and pull
  ServerUpdateMode mode = ServerUpdateMode::sync;
  int staleness_bound = 0;  // bounded_staleness: iterations a worker may lead the slowest by
  int backup_workers = 0;   // sync: an update waits for workers - backup_workers gradients
  int iterations = 1;
  // Memory traffic per byte: adding one pushed gradient into the accumulator (read both, write
  // one), and applying an update to one weight (the optimizer's reads and writes).
  double accumulate_bytes_per_byte = 3;
  double apply_bytes_per_byte = 5;
  // Gradient compression: a push carries push_wire_share of its gradient bytes, and the server
  // streams decode_bytes_per_byte per gradient byte to decode it.
  double push_wire_share = 1;
  double decode_bytes_per_byte = 0;
  bool empty() const { return nodes.empty(); }
};

// Ranks of one collective, in ring order.
struct CommGroup {
  std::string kind;  // "tp", "cp", "ep", "dp" (dense gradients), "edp" (expert gradients)
  std::vector<int> ranks;
};

struct RankProgram {
  int stage = 0;
  std::vector<Task> tasks;
};

struct Workload {
  std::vector<RankProgram> ranks;  // index = global rank
  std::vector<CommGroup> groups;
  // Fraction of a GPU's compute rate an overlapped collective takes while it runs (its kernels'
  // SMs, DeviceSpec::collective_sm_share); compute beside it runs at the rest.
  double collective_sm_share = 0;
  // Rank folding (DESIGN.md "Scale"): representative[r] is the rank whose program rank r would
  // run identically (r itself for a representative); empty when every rank runs its own. A folded
  // rank's program is empty: it only takes its part in its representative's collectives over the
  // groups they share, and its times are the representative's.
  std::vector<int> representative;
  ParameterServers servers;  // empty: gradients are reduced by collectives
  // Speed of every node's CPU host, its memory bandwidth in B/s (parameter servers and MPI's
  // host-staged all-reduces execute the bytes they stream); 0: the platform has no CPU hosts.
  double cpu_memory_Bps = 0;
};

}  // namespace dtsim
