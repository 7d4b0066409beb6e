#pragma once
// Executes a Workload on a SimGrid platform: one actor per GPU that runs a program (the others
// folded into it take part only in the collectives they share), mailboxes for every transfer
// (DESIGN.md "Scale"). Must run inside a process whose SimGrid Engine already holds the platform.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "parameter_server_actor.hpp"
#include "platform_builder.hpp"
#include "program.hpp"

namespace dtsim {

// One kind of communication on one GPU: how long its collectives or transfers ran, and how much
// of that the GPU spent waiting for them (exposed); the rest ran under compute (hidden).
struct CommunicationTimes {
  double total_s = 0;
  double exposed_s = 0;
  double hidden_s() const { return total_s - exposed_s; }
};

// Where one GPU's time went. compute + communication + bubble + idle = iteration time.
struct RankTimes {
  double finish_s = 0;
  double compute_s = 0;        // executing operators
  double communication_s = 0;  // inside collectives and p2p transfers, waiting for peers included,
                               // and waiting for overlapped collectives that outlast the compute
  double bubble_s = 0;         // waiting for a pipeline neighbour that has not sent yet
  // By CommGroup::kind ("tp", "cp", "ep", "dp", "edp", "node"), "pp" for pipeline transfers and
  // "ps" for pushes to and pulls from parameter servers; the exposed times add up to
  // communication_s.
  std::map<std::string, CommunicationTimes> communication_by_kind;
};

// overlapped_collective: on the rank's communication stream, concurrent with its compute;
// stream_compute: GPU work on that stream (decoding a compressed gradient bucket).
enum class SpanKind : uint8_t { compute, collective, p2p_transfer, bubble, overlapped_collective, stream_compute };
const char* to_string(SpanKind k);

struct TraceSpan {
  int rank = 0;
  SpanKind kind = SpanKind::compute;
  Phase phase = Phase::forward;
  int micro_batch = -1;
  double start_s = 0;
  double end_s = 0;
  // Collectives: the group (index into EngineResult::group_kinds) and the kind; -1 for a wait on
  // the communication stream and for every other span.
  int group = -1;
  CollectiveKind collective = CollectiveKind::all_reduce;
};

struct EngineResult {
  // With parameter servers, several iterations run: iteration_s is the steady-state step
  // (ParameterServerStats::steady_step_s) and each rank's times are per iteration (averages).
  double iteration_s = 0;
  int iterations = 1;
  ParameterServerStats servers;  // empty without parameter servers
  std::vector<RankTimes> ranks;
  std::vector<TraceSpan> spans;  // only when asked for
  int64_t activities = 0;        // execs, comms and sleeps SimGrid simulated
  std::vector<int> representative;  // Workload::representative: empty, or whose times each rank reports
  int simulated_ranks() const;      // ranks that ran their own program (the rest were folded into them)
  std::vector<std::string> group_kinds;  // CommGroup::kind of each group, for span labels
  // False when a failed resource stopped some ranks (their finish_s is when they stopped):
  // synchronous training cannot finish the iteration.
  bool completed = true;
  int unfinished_ranks = 0;
  double stopped_s = 0;  // the last time any rank made progress
  // With record_waits: per rank, the seconds other ranks spent waiting for it (the last member
  // to reach a blocking collective; the sender of a pipeline receive). Empty otherwise.
  std::vector<double> waited_on_s;
  // With record_folded_flows: bytes by SimGrid link name (with _UP/_DOWN) that the folded
  // replicas' own flows would have carried: their pipeline transfers and the collectives inside a
  // replica, which rank folding does not simulate. Used in the child only (link usage).
  std::map<std::string, double> folded_flow_link_bytes;
};

// Per rank of `ranks`, the GPUs it stands for under rank folding: 1 plus the ranks folded into a
// representative, 0 for a folded rank; all 1 when `representative` is empty (nothing folded).
std::vector<int> ranks_represented(const std::vector<int>& representative, int ranks);

struct EngineOptions {
  bool record_spans = false;
  // Resources may be turned off (failure events): ranks left blocked are then reported as an
  // incomplete iteration instead of a deadlock error.
  bool failures_possible = false;
  bool record_waits = false;  // EngineResult::waited_on_s
  bool record_folded_flows = false;  // EngineResult::folded_flow_link_bytes
};

// `node` describes the platform's nodes; collectives are planned from it (collective_plan.hpp).
EngineResult run_engine(simgrid::s4u::Engine& engine, const Platform& platform, const NodeSpec& node,
                        const Workload& workload, const EngineOptions& options);

}  // namespace dtsim
