#include "engine.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

#include "ring_collective.hpp"

namespace dtsim {

namespace sg4 = simgrid::s4u;

const char* to_string(SpanKind k) {
  switch (k) {
    case SpanKind::compute: return "compute";
    case SpanKind::collective: return "collective";
    case SpanKind::p2p_transfer: return "p2p";
    case SpanKind::bubble: return "bubble";
  }
  return "?";
}

namespace {

// Mailbox payloads are never read: only the simulated size matters.
char g_token = 0;

struct SharedState {
  const Platform& platform;
  const Workload& workload;
  bool record_spans;
  std::vector<RankTimes> ranks;
  std::vector<std::vector<TraceSpan>> spans;  // per rank, merged at the end
  std::vector<int64_t> activities;
};

class RankActor {
 public:
  RankActor(SharedState& state, int rank) : s_(state), rank_(rank) {}

  void operator()() {
    for (const Task& task : s_.workload.ranks[rank_].tasks) {
      switch (task.kind) {
        case TaskKind::compute: run_compute(task); break;
        case TaskKind::collective: run_collective(task); break;
        case TaskKind::send: start_send(task); break;
        case TaskKind::recv: run_recv(task); break;
      }
    }
    // Sends already matched by their receivers; waiting keeps their completion inside the run.
    sg4::Comm::wait_all(pending_sends_);
    s_.ranks[rank_].finish_s = sg4::Engine::get_clock();
    s_.activities[rank_] = activities_;
  }

 private:
  struct GroupEdge {
    sg4::Mailbox* inbox = nullptr;
    sg4::Mailbox* next_inbox = nullptr;
    double alpha_s = 0;  // latency of the route to the next rank in the ring
    int size = 1;
  };

  void record(SpanKind kind, const Task& task, double start, double end) {
    if (s_.record_spans && end > start)
      s_.spans[rank_].push_back({rank_, kind, task.phase, task.micro_batch, start, end});
  }

  void run_compute(const Task& task) {
    const double start = sg4::Engine::get_clock();
    // Host speed is the GPU's nominal speed; a straggler's speed profile slows this down.
    sg4::this_actor::execute(task.compute_s * sg4::this_actor::get_host()->get_speed());
    ++activities_;
    const double end = sg4::Engine::get_clock();
    s_.ranks[rank_].compute_s += end - start;
    record(SpanKind::compute, task, start, end);
  }

  const GroupEdge& edge(int group) {
    auto it = edges_.find(group);
    if (it != edges_.end()) return it->second;
    const std::vector<int>& ranks = s_.workload.groups[group].ranks;
    int me = 0;
    while (ranks[me] != rank_) ++me;
    const int next = ranks[(me + 1) % ranks.size()];
    GroupEdge e;
    e.size = int(ranks.size());
    e.inbox = sg4::Mailbox::by_name(fmt::format("g{}:{}", group, rank_));
    e.next_inbox = sg4::Mailbox::by_name(fmt::format("g{}:{}", group, next));
    std::vector<sg4::Link*> links;
    s_.platform.gpus[rank_]->route_to(s_.platform.gpus[next], links, &e.alpha_s);
    return edges_.emplace(group, e).first->second;
  }

  sg4::Mailbox* p2p_mailbox(int from, int to, P2pChannel channel) {
    const auto key = std::make_tuple(from, to, int(channel));
    auto it = p2p_.find(key);
    if (it != p2p_.end()) return it->second;
    sg4::Mailbox* mb = sg4::Mailbox::by_name(fmt::format("p{}>{}:{}", from, to, int(channel)));
    p2p_.emplace(key, mb);
    return mb;
  }

  // Ring as flows: this rank sends its edge's share to the next rank and receives from the
  // previous one; the flow pays one edge latency, the other steps are added as a delay.
  void run_collective(const Task& task) {
    const GroupEdge& e = edge(task.group);
    if (e.size <= 1) return;
    const double start = sg4::Engine::get_clock();
    const RingPlan plan = ring_plan(task.collective, e.size, task.bytes);
    const auto edge_bytes = uint64_t(std::llround(plan.bytes_per_edge * task.calls));
    char* received = nullptr;
    sg4::CommPtr send = e.next_inbox->put_async(&g_token, edge_bytes);
    sg4::CommPtr recv = e.inbox->get_async<char>(&received);
    recv->wait();
    send->wait();
    activities_ += 1;  // one flow per ring edge: counted once, on its sender
    const double remaining_latency_s = (double(plan.steps) * task.calls - 1) * e.alpha_s;
    if (remaining_latency_s > 0) {
      sg4::this_actor::sleep_for(remaining_latency_s);
      ++activities_;
    }
    const double end = sg4::Engine::get_clock();
    s_.ranks[rank_].communication_s += end - start;
    record(SpanKind::collective, task, start, end);
  }

  // A send is waited for together with the next receive, as Megatron's batched isend/irecv does
  // (send_forward_recv_backward): both sides' receives are posted before anyone blocks, so 1F1B
  // neighbours sending to each other cannot deadlock.
  void start_send(const Task& task) {
    pending_sends_.push_back(p2p_mailbox(rank_, task.peer, task.channel)->put_async(&g_token, uint64_t(task.bytes)));
    ++activities_;
  }

  // Time before the sender shows up is pipeline bubble; the transfer itself is communication.
  void run_recv(const Task& task) {
    const double posted = sg4::Engine::get_clock();
    char* received = nullptr;
    sg4::CommPtr comm = p2p_mailbox(task.peer, rank_, task.channel)->get_async<char>(&received);
    std::vector<sg4::CommPtr> batch = std::move(pending_sends_);
    pending_sends_.clear();
    batch.push_back(comm);
    sg4::Comm::wait_all(batch);
    const double end = sg4::Engine::get_clock();
    const double transfer_start = std::max(posted, std::min(end, comm->get_start_time()));
    s_.ranks[rank_].bubble_s += transfer_start - posted;
    s_.ranks[rank_].communication_s += end - transfer_start;
    record(SpanKind::bubble, task, posted, transfer_start);
    record(SpanKind::p2p_transfer, task, transfer_start, end);
  }

  SharedState& s_;
  int rank_;
  int64_t activities_ = 0;
  std::map<int, GroupEdge> edges_;
  std::map<std::tuple<int, int, int>, sg4::Mailbox*> p2p_;
  std::vector<sg4::CommPtr> pending_sends_;
};

}  // namespace

EngineResult run_engine(sg4::Engine& engine, const Platform& platform, const Workload& workload, bool record_spans) {
  const int n = int(workload.ranks.size());
  SharedState state{platform, workload, record_spans, std::vector<RankTimes>(n),
                    std::vector<std::vector<TraceSpan>>(record_spans ? n : 0), std::vector<int64_t>(n, 0)};
  for (int rank = 0; rank < n; ++rank)
    sg4::Actor::create(fmt::format("rank{}", rank), platform.gpus[rank], RankActor(state, rank));
  engine.run();

  EngineResult result;
  result.ranks = std::move(state.ranks);
  for (const RankTimes& r : result.ranks) result.iteration_s = std::max(result.iteration_s, r.finish_s);
  for (int64_t a : state.activities) result.activities += a;
  for (auto& spans : state.spans) result.spans.insert(result.spans.end(), spans.begin(), spans.end());
  return result;
}

}  // namespace dtsim
