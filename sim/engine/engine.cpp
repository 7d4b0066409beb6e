#include "engine.hpp"

#include <fmt/format.h>
#include <simgrid/Exception.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "collective_plan.hpp"
#include "host_staged_allreduce.hpp"
#include "phase_flows.hpp"

namespace dtsim {

namespace sg4 = simgrid::s4u;

std::vector<int> ranks_represented(const std::vector<int>& representative, int ranks) {
  std::vector<int> count(size_t(ranks), 1);
  if (representative.size() != size_t(ranks)) return count;
  for (int rank = 0; rank < ranks; ++rank)
    if (const int r = representative[size_t(rank)]; r != rank) {
      --count[size_t(rank)];
      ++count[size_t(r)];
    }
  return count;
}

int EngineResult::simulated_ranks() const {
  const std::vector<int> represented = ranks_represented(representative, int(ranks.size()));
  return int(std::count_if(represented.begin(), represented.end(), [](int n) { return n > 0; }));
}

const char* to_string(SpanKind k) {
  switch (k) {
    case SpanKind::compute: return "compute";
    case SpanKind::collective: return "collective";
    case SpanKind::p2p_transfer: return "p2p";
    case SpanKind::bubble: return "bubble";
    case SpanKind::overlapped_collective: return "overlapped collective";
    case SpanKind::stream_compute: return "stream compute";
  }
  return "?";
}

namespace {

// Mailbox payloads are never read: only the simulated size matters.
char g_token = 0;

// One rank's part of a planned collective: per phase, whom it sends to and receives from.
struct RankPhase {
  std::vector<std::pair<int, double>> sends;  // destination rank, bytes per call
  std::vector<int> receives;                  // source ranks
  double latency_s = 0;                       // per call
};
struct RankCollective {
  std::vector<RankPhase> phases;
};

// Plans each distinct collective once (actors run one at a time, so no locking) and hands
// every rank its own part.
class CollectivePlans {
 public:
  CollectivePlans(const Workload& w, const Platform& p, const NodeSpec& node) : workload_(w), platform_(p), node_(node) {}

  const RankCollective& for_rank(const Task& task, int rank) {
    const Key key = key_of(task);
    auto it = plans_.find(key);
    if (it == plans_.end()) it = plans_.emplace(key, plan(task)).first;
    static const RankCollective kNothing;
    auto mine = it->second.find(rank);
    return mine == it->second.end() ? kNothing : mine->second;
  }

  // A priced collective's time per call (Task::priced): the chosen algorithm's estimate.
  double estimate_s(const Task& task) {
    const Key key = key_of(task);
    auto it = estimates_.find(key);
    if (it != estimates_.end()) return it->second;
    const double time_s = workload_.groups[task.group].ranks.size() < 2 ? 0.0 : chosen(task).time_s;
    return estimates_.emplace(key, time_s).first->second;
  }

 private:
  using Key = std::tuple<int, int, int, int, double>;  // group, kind, algorithm, protocol, bytes
  static Key key_of(const Task& task) {
    return {task.group, int(task.collective), int(task.algorithm), int(task.protocol), task.bytes};
  }

  // The algorithm and protocol NCCL would take for the task's group and size, and their estimate.
  CollectiveEstimate chosen(const Task& task) const {
    const GroupShape shape = group_shape(workload_.groups[task.group].ranks, platform_.gpus_per_node);
    return choose_collective(task.collective, shape, task.bytes, node_, task.algorithm, task.protocol);
  }

  std::map<int, RankCollective> plan(const Task& task) const {
    const std::vector<int>& ranks = workload_.groups[task.group].ranks;
    std::map<int, RankCollective> per_rank;
    if (ranks.size() < 2) return per_rank;
    const CollectivePlan plan =
        plan_collective(task.collective, chosen(task), ranks, platform_.gpus_per_node, node_, task.bytes);
    for (size_t p = 0; p < plan.phases.size(); ++p) {
      for (int r : ranks) {
        per_rank[r].phases.resize(plan.phases.size());
        per_rank[r].phases[p].latency_s = plan.phases[p].latency_s;
      }
      for (const Flow& f : plan.phases[p].flows) {
        per_rank[f.src].phases[p].sends.emplace_back(f.dst, f.bytes);
        per_rank[f.dst].phases[p].receives.push_back(f.src);
      }
    }
    return per_rank;
  }

  const Workload& workload_;
  const Platform& platform_;
  const NodeSpec& node_;
  std::map<Key, std::map<int, RankCollective>> plans_;
  std::map<Key, double> estimates_;
};

// A pull request carries no weights: the size of a small RPC.
constexpr double kPullRequestBytes = 64;

struct SharedState {
  const Platform& platform;
  const NodeSpec& node;
  const Workload& workload;
  CollectivePlans collectives;
  ParameterServerRuntime* servers = nullptr;
  bool record_spans;
  std::vector<RankTimes> ranks;
  std::vector<std::vector<TraceSpan>> spans;  // per rank, merged at the end
  std::vector<int64_t> activities;
  std::vector<bool> finished;

  // Who waited for whom (only when asked): a blocking collective cannot end before its last
  // member arrives, so the others' waits are charged to that member; a pipeline receive's
  // bubble to its sender.
  struct Arrivals {
    int count = 0;
    double latest_s = 0, sum_s = 0;
    int latest_rank = -1;
  };
  bool record_waits = false;
  std::vector<std::map<int, Arrivals>> arrivals_by_group;  // [group][k-th collective of the group]
  std::vector<std::map<int, Arrivals>> priced_arrivals_by_group;  // the same for its priced ones
  std::vector<double> waited_on_s;                         // per rank: others' waiting charged to it

  // Rank folding: whether `rank` repeats another rank's program (and has no program of its own).
  bool folded(int rank) const {
    return !workload.representative.empty() && workload.representative[size_t(rank)] != rank;
  }
  // The folded ranks of `group` whose part `rank` starts (none unless it is a representative).
  const std::vector<int>& clones_in(int rank, int group) {
    static const std::vector<int> kNone;
    if (workload.representative.empty() || folded(rank)) return kNone;
    auto [it, fresh] = clones_by_group.try_emplace({rank, group});
    if (fresh)
      for (int m : workload.groups[size_t(group)].ranks)
        if (m != rank && workload.representative[size_t(m)] == rank) it->second.push_back(m);
    return it->second;
  }
  std::map<std::pair<int, int>, std::vector<int>> clones_by_group;  // (representative, group) -> folded ranks

  // A folded rank's stand-in for one lane (0: the rank's own tasks, 1: its communication stream):
  // an actor on the folded rank's GPU that runs the collectives its representative hands it.
  struct Proxy {
    sg4::ActorPtr actor;
    sg4::SemaphorePtr queued, done;
    std::deque<const Task*> tasks;  // nullptr tells the proxy to stop
  };
  std::map<std::pair<int, int>, Proxy> proxies;  // (folded rank, lane)

  // With record_folded_flows: bytes per (source, destination) of the representatives' flows that
  // folded replicas repeat on their own GPUs (pipeline transfers, collectives over groups with no
  // rank folded into the sender).
  bool record_folded_flows = false;
  std::map<std::pair<int, int>, double> repeated_flow_bytes = {};
  void repeated_flow(int from, int to, double bytes) {
    if (record_folded_flows) repeated_flow_bytes[{from, to}] += bytes;
  }

  // A collective ends for no member before it has for every member: in NCCL no rank's all-reduce,
  // all-gather or reduce-scatter completes before the last rank's data has gone round, and a
  // ring's flows alone would release the ranks that are not the late one's ring neighbours. One
  // barrier per (group, lane: the rank's own or its stream's collectives), for the actors that run
  // the group's parts: members with a program of their own, and folded members whose
  // representative is in the group (its proxies). Null for a group of one such actor.
  sg4::BarrierPtr collective_end(int group, bool overlapped) {
    auto [it, fresh] = collective_ends.try_emplace({group, overlapped ? 1 : 0});
    if (fresh) {
      const std::vector<int>& members = workload.groups[size_t(group)].ranks;
      std::vector<int> sorted = members;  // a search per folded member: groups reach 65,536 ranks
      std::sort(sorted.begin(), sorted.end());
      unsigned actors = 0;
      for (int m : members)
        actors += !folded(m) || std::binary_search(sorted.begin(), sorted.end(), workload.representative[size_t(m)]);
      if (actors > 1) it->second = sg4::Barrier::create(actors);
    }
    return it->second;
  }
  std::map<std::pair<int, int>, sg4::BarrierPtr> collective_ends = {};

  // Where a priced collective (Task::priced) meets its group: the members that run their own
  // programs. A folded member repeats its representative's times, so it needs no stand-in there.
  struct PricedMeeting {
    sg4::BarrierPtr barrier;
    int members = 0;
  };
  const PricedMeeting& priced_meeting(int group) {
    auto [it, fresh] = priced_meetings.try_emplace(group);
    if (fresh) {
      const std::vector<int>& members = workload.groups[size_t(group)].ranks;
      it->second.members = int(std::count_if(members.begin(), members.end(), [&](int m) { return !folded(m); }));
      if (it->second.members > 1) it->second.barrier = sg4::Barrier::create(unsigned(it->second.members));
    }
    return it->second;
  }
  std::map<int, PricedMeeting> priced_meetings = {};

  // The k-th blocking collective of a group (its priced ones counted apart, among the members
  // that meet there) reached by one more member.
  void arrive(int group, int sequence, int rank, double now_s, bool priced = false) {
    const int size = priced ? priced_meeting(group).members : int(workload.groups[size_t(group)].ranks.size());
    std::map<int, Arrivals>& of_group = (priced ? priced_arrivals_by_group : arrivals_by_group)[size_t(group)];
    Arrivals& a = of_group[sequence];
    if (a.latest_rank < 0 || now_s > a.latest_s) a.latest_s = now_s, a.latest_rank = rank;
    a.sum_s += now_s;
    if (++a.count < size) return;
    waited_on_s[size_t(a.latest_rank)] += size * a.latest_s - a.sum_s;
    of_group.erase(sequence);
  }
};

class RankActor {
 public:
  RankActor(SharedState& state, int rank) : s_(state), rank_(rank) {}

  void operator()() {
    try {
      run_tasks();
    } catch (const simgrid::NetworkFailureException&) {
      record_stop();  // a link on the way failed: this rank cannot go on
    } catch (const simgrid::HostFailureException&) {
      record_stop();
    }
  }

 private:
  void record_stop() { s_.ranks[rank_].finish_s = sg4::Engine::get_clock(); }

  // Counted as they happen: an actor that a failure leaves blocked never ends, and a rank's own
  // actor, its communication stream and a folded rank's two stand-ins all add to the rank's count.
  void count_activities(int64_t n) { s_.activities[size_t(rank_)] += n; }

  void run_tasks() {
    for (const Task& task : s_.workload.ranks[rank_].tasks) {
      switch (task.kind) {
        case TaskKind::compute:
          if (task.overlapped)
            issue_overlapped(task);
          else
            run_compute(task);
          break;
        case TaskKind::collective:
          if (task.overlapped)
            issue_overlapped(task);
          else
            run_collective(task, SpanKind::collective);
          break;
        case TaskKind::send: start_send(task); break;
        case TaskKind::recv: run_recv(task); break;
        case TaskKind::wait_overlapped: wait_overlapped(task); break;
        case TaskKind::ps_pull: pull_weights(task); break;
        case TaskKind::ps_push: push_gradients(task); break;
        case TaskKind::ps_wait: wait_pushes(task); break;
      }
    }
    stop_stream();
    stop_proxies();
    s_.ranks[rank_].finish_s = sg4::Engine::get_clock();
    s_.finished[rank_] = true;
  }

  struct GroupEdge {
    sg4::Mailbox* inbox = nullptr;
    sg4::Mailbox* next_inbox = nullptr;
    double alpha_s = 0;  // latency of the route to the next rank in the ring
    int size = 1;
  };

  void record(SpanKind kind, const Task& task, double start, double end) {
    if (s_.record_spans && !s_.folded(rank_) && end > start)
      s_.spans[rank_].push_back({rank_, kind, task.phase, task.micro_batch, start, end,
                                 task.kind == TaskKind::collective ? task.group : -1, task.collective});
  }

  void run_compute(const Task& task) {
    const double start = sg4::Engine::get_clock();
    // Host speed is the GPU's nominal speed; a straggler's speed profile slows this down.
    sg4::this_actor::execute(task.compute_s * sg4::this_actor::get_host()->get_speed());
    count_activities(1);
    const double end = sg4::Engine::get_clock();
    s_.ranks[rank_].compute_s += end - start;
    record(SpanKind::compute, task, start, end);
  }

  // Runs beside the rank's own compute and shares the GPU's speed with it; its time is part of
  // the gradient synchronisation of its group, not of the rank's compute.
  void run_stream_compute(const Task& task) {
    const double start = sg4::Engine::get_clock();
    sg4::this_actor::execute(task.compute_s * sg4::this_actor::get_host()->get_speed());
    count_activities(1);
    const double end = sg4::Engine::get_clock();
    communication_of(task).total_s += end - start;
    record(SpanKind::stream_compute, task, start, end);
  }

  sg4::Mailbox* p2p_mailbox(int from, int to, P2pChannel channel) {
    const auto key = std::make_tuple(from, to, int(channel));
    auto it = p2p_.find(key);
    if (it != p2p_.end()) return it->second;
    sg4::Mailbox* mb = sg4::Mailbox::by_name(fmt::format("p{}>{}:{}", from, to, int(channel)));
    p2p_.emplace(key, mb);
    return mb;
  }

  double route_latency_s(int from, int to) {
    const auto key = std::make_pair(from, to);
    auto it = route_latency_.find(key);
    if (it != route_latency_.end()) return it->second;
    double latency = 0;
    std::vector<sg4::Link*> links;
    s_.platform.gpus[from]->route_to(s_.platform.gpus[to], links, &latency);
    return route_latency_.emplace(key, latency).first->second;
  }

  // The collective's algorithm as flows, phase by phase: this rank starts its sends and
  // receives of the phase and waits for them; the phase then lasts its latency plus the
  // transfer time of its slowest flow. Flows already paid their route latency, which the
  // phase latency includes, so it is taken off each flow's finish time.
  void run_collective(const Task& task, SpanKind span) {
    if (task.host_staged) return run_host_staged(task, span);
    if (task.priced) return run_priced(task, span);
    const RankCollective& mine = s_.collectives.for_rank(task, rank_);
    if (mine.phases.empty()) return wait_for_group(task);
    const double start = sg4::Engine::get_clock();
    const std::vector<int>& clones = begin_collective(task, span, start);
    for (const RankPhase& phase : mine.phases) {
      const double phase_start = sg4::Engine::get_clock();
      std::vector<PhaseFlow> flows;
      for (const auto& [dst, bytes] : phase.sends) {
        const uint64_t flow_bytes = uint64_t(std::llround(bytes * task.calls));
        flows.push_back({flow_mailbox(task.group, rank_, dst), flow_bytes, true, route_latency_s(rank_, dst)});
        if (clones.empty() && !s_.folded(rank_)) s_.repeated_flow(rank_, dst, double(flow_bytes));
      }
      for (int src : phase.receives)
        flows.push_back({flow_mailbox(task.group, src, rank_), 0, false, route_latency_s(src, rank_)});
      const double transfers_end_s =
          std::max(phase_start, run_phase_flows(flows, sg4::this_actor::get_cname()));
      count_activities(int64_t(phase.sends.size()));  // each flow counted once, on its sender
      const double remaining_s = transfers_end_s + phase.latency_s * task.calls - sg4::Engine::get_clock();
      if (remaining_s > 0) {
        sg4::this_actor::sleep_for(remaining_s);
        count_activities(1);
      }
    }
    end_collective(task, span, start, clones);
  }

  // The proxy lane (SharedState::Proxy) of a collective: 0 for the rank's own, 1 for its stream's.
  static int lane_of(SpanKind span) { return span == SpanKind::overlapped_collective ? 1 : 0; }

  // Hands the folded ranks this rank speaks for their part (returned) and notes its arrival.
  const std::vector<int>& begin_collective(const Task& task, SpanKind span, double start) {
    const std::vector<int>& clones = s_.clones_in(rank_, task.group);
    for (int clone : clones) hand_to_proxy(clone, lane_of(span), task);
    arrive(task, span, start);
    return clones;
  }

  // Notes this rank's arrival at a blocking collective, for the waits charged to the last comer
  // (its priced ones numbered apart: folded members never reach those).
  void arrive(const Task& task, SpanKind span, double start) {
    if (!s_.record_waits || span != SpanKind::collective) return;
    int& sequence = (task.priced ? priced_sequence_ : sequence_)[task.group];
    s_.arrive(task.group, sequence++, rank_, start, task.priced);
  }

  // An all-to-all's flows already tie each rank to every other (it receives from each), and in
  // NCCL a rank's grouped sends and receives end with its own: no barrier for it.
  void wait_for_group(const Task& task) {
    if (task.collective == CollectiveKind::all_to_all || task.collective == CollectiveKind::send_recv) return;
    if (const sg4::BarrierPtr end = s_.collective_end(task.group, task.overlapped)) end->wait();
  }

  // The collective ends when it has for every member of the group (wait_for_group; the proxies of
  // the ranks a representative speaks for are members too, so it waits there before their ends).
  void end_collective(const Task& task, SpanKind span, double start, const std::vector<int>& clones) {
    wait_for_group(task);
    for (int clone : clones) s_.proxies.at({clone, lane_of(span)}).done->acquire();
    account_collective(task, span, start);
  }

  // A priced collective (Task::priced): once the group's members have come, as for any
  // collective, the rank waits its estimated time; no flows (the pass's overlapped collective
  // carries its bytes) and no stand-ins for folded members (SharedState::priced_meeting).
  void run_priced(const Task& task, SpanKind span) {
    const double start = sg4::Engine::get_clock();
    arrive(task, span, start);
    if (const sg4::BarrierPtr& meeting = s_.priced_meeting(task.group).barrier) meeting->wait();
    const double time_s = task.calls * s_.collectives.estimate_s(task);
    if (time_s > 0) {
      sg4::this_actor::sleep_for(time_s);
      count_activities(1);
    }
    account_collective(task, span, start);
  }

  // A priced collective's time is waited for (exposed) but not added to its kind's running time,
  // which the overlapped collective carrying its bytes already counts.
  void account_collective(const Task& task, SpanKind span, double start) {
    const double end = sg4::Engine::get_clock();
    CommunicationTimes& kind = communication_of(task);
    if (!task.priced) kind.total_s += end - start;
    if (span == SpanKind::collective) {
      s_.ranks[rank_].communication_s += end - start;
      kind.exposed_s += end - start;
    }
    record(span, task, start, end);
  }

  // MPI's all-reduce through the CPUs (host_staged_allreduce.hpp), in three phases: the copy to
  // host memory over this GPU's PCIe link, the ring (after meeting both ring neighbours: a ring
  // step needs them), the copy back. Each phase's transfers and its memory traffic, an execution
  // on the node's CPU host shared with the node's other ranks, run together.
  void run_host_staged(const Task& task, SpanKind span) {
    const std::vector<int>& ranks = s_.workload.groups[size_t(task.group)].ranks;
    const int per_node = s_.platform.gpus_per_node;
    const HostStagedPart part = host_staged_part(ranks, per_node, task.bytes * task.calls, rank_);
    if (part.successor < 0) return;
    const double start = sg4::Engine::get_clock();
    const std::vector<int>& clones = begin_collective(task, span, start);
    sg4::Host* gpu = s_.platform.gpus[size_t(rank_)];
    sg4::Host* cpu = s_.platform.cpus[size_t(rank_ / per_node)];
    staged_phase(gpu, cpu, part.copy_bytes, cpu, part.copy_bytes);
    char* token = nullptr;
    wait_all_or_cancel({flow_mailbox(task.group, rank_, part.successor)->put_async(&g_token, 1),
                        flow_mailbox(task.group, part.predecessor, rank_)->get_async<char>(&token)});
    const double ring_start = sg4::Engine::get_clock();
    staged_phase(cpu, s_.platform.cpus[size_t(part.successor / per_node)], part.ring_network_bytes, cpu,
                 part.ring_memory_bytes);
    const GroupShape shape = group_shape(ranks, per_node);
    const double steps_s = part.ring_steps * task.calls * host_staged_step_latency_s(shape, s_.node);
    const double remaining_s = ring_start + steps_s - sg4::Engine::get_clock();
    if (steps_s > 0 && remaining_s > 0) sg4::this_actor::sleep_for(remaining_s);
    staged_phase(cpu, gpu, part.copy_bytes, cpu, part.copy_bytes);
    count_activities(8);  // 3 transfers, 3 executions, the meeting's two messages
    end_collective(task, span, start, clones);
  }

  // `bytes` from one host to another (none when 0) beside `memory_bytes` of memory traffic on
  // `cpu`; returns when both are done.
  static void staged_phase(sg4::Host* from, sg4::Host* to, double bytes, sg4::Host* cpu, double memory_bytes) {
    std::vector<sg4::ActivityPtr> activities;
    if (bytes > 0) activities.push_back(sg4::Comm::sendto_async(from, to, uint64_t(std::llround(bytes))));
    activities.push_back(sg4::Exec::init()->set_flops_amount(memory_bytes)->set_host(cpu)->start());
    try {
      for (const sg4::ActivityPtr& a : activities) a->wait();
    } catch (const simgrid::Exception&) {
      cancel_unfinished(activities);
      throw;
    }
  }

  CommunicationTimes& communication_of(const Task& task) {
    const bool server =
        task.kind == TaskKind::ps_pull || task.kind == TaskKind::ps_push || task.kind == TaskKind::ps_wait;
    const bool grouped = task.kind == TaskKind::collective || (task.kind == TaskKind::compute && task.group >= 0);
    const std::string& kind = grouped  ? s_.workload.groups[size_t(task.group)].kind
                              : server ? kServers
                                       : kPipeline;
    return s_.ranks[rank_].communication_by_kind[kind];
  }
  static inline const std::string kPipeline = "pp";
  static inline const std::string kServers = "ps";

  // Asks every server for its shard of the weights and waits for all of them: exposed
  // communication (a sync server answers only once the previous iteration's update is applied).
  void pull_weights(const Task& task) {
    ParameterServerRuntime& ps = *s_.servers;
    const int worker = ps.worker_of(rank_);
    const double start = sg4::Engine::get_clock();
    std::vector<sg4::CommPtr> comms;
    std::vector<char*> received(ps.serving().size(), nullptr);
    for (size_t i = 0; i < ps.serving().size(); ++i) {
      const int server = ps.serving()[i];
      auto* request = new PsMessage{PsMessage::pull, worker, task.iteration, 0, false};
      ps.inbox(server)->put_init(request, uint64_t(kPullRequestBytes))->detach();
      comms.push_back(ps.reply_box(server, worker)->get_async<char>(&received[i]));
    }
    wait_all_or_cancel(comms);
    count_activities(int64_t(2 * comms.size()));
    const double end = sg4::Engine::get_clock();
    CommunicationTimes& times = communication_of(task);
    times.total_s += end - start;
    times.exposed_s += end - start;
    s_.ranks[rank_].communication_s += end - start;
    record(SpanKind::collective, task, start, end);
  }

  // Sends one bucket's gradients to the servers holding them and goes on computing.
  void push_gradients(const Task& task) {
    ParameterServerRuntime& ps = *s_.servers;
    const int worker = ps.worker_of(rank_);
    if (pushes_.empty()) first_push_s_ = sg4::Engine::get_clock();
    for (int server : ps.serving()) {
      const double bytes = ps.config().bucket_bytes[size_t(task.ps_bucket)][size_t(server)];
      if (bytes <= 0) continue;
      const bool last = ps.last_push_for(server, task.ps_bucket);
      auto* message = new PsMessage{PsMessage::push, worker, task.iteration, bytes, last};
      const double wire_bytes = bytes * ps.config().push_wire_share;
      pushes_.push_back(ps.inbox(server)->put_async(message, uint64_t(std::llround(wire_bytes))));
      count_activities(1);
    }
  }

  // Waits for this iteration's pushes to arrive (the part the backward pass did not hide) and
  // ends the worker's iteration.
  void wait_pushes(const Task& task) {
    const double start = sg4::Engine::get_clock();
    wait_all_or_cancel(pushes_);
    const double end = sg4::Engine::get_clock();
    double last_s = start;
    for (const sg4::CommPtr& c : pushes_) last_s = std::max(last_s, c->get_finish_time());
    CommunicationTimes& times = communication_of(task);
    if (!pushes_.empty()) times.total_s += last_s - first_push_s_;
    times.exposed_s += end - start;
    s_.ranks[rank_].communication_s += end - start;
    pushes_.clear();
    record(SpanKind::collective, task, start, end);
    if (const int worker = s_.servers->worker_of(rank_); worker >= 0) {
      s_.servers->record_step_end(worker, task.iteration, end);
      if (task.iteration + 1 == s_.servers->config().iterations) s_.servers->worker_done();
    }
  }

  // The communication stream: a second actor on this GPU that runs overlapped collectives one
  // after another in issue order, as NCCL kernels on their own CUDA stream do. It is started
  // on first use; semaphores hand it work and report completions.
  void issue_overlapped(const Task& task) {
    if (!stream_actor_) {
      stream_queued_ = sg4::Semaphore::create(0);
      stream_done_ = sg4::Semaphore::create(0);
      stream_actor_ = sg4::Actor::create(fmt::format("rank{}-comm", rank_), sg4::this_actor::get_host(), [this] {
        for (;;) {
          stream_queued_->acquire();
          const Task* next = stream_queue_.front();
          stream_queue_.pop_front();
          if (!next) return;
          sg4::ExecPtr sms;
          try {
            if (next->kind == TaskKind::compute) {
              run_stream_compute(*next);
              stream_done_->release();
              continue;
            }
            if (!next->host_staged) sms = occupy_sms();  // MPI sums on the CPU, not on the SMs
            run_collective(*next, SpanKind::overlapped_collective);
          } catch (const simgrid::NetworkFailureException&) {
            if (sms) sms->cancel();
            return;  // a failed link: this collective never completes, and what waits for it stays blocked
          } catch (const simgrid::HostFailureException&) {
            return;
          }
          if (sms) sms->cancel();
          stream_done_->release();
        }
      });
    }
    stream_queue_.push_back(&task);
    stream_issued_.push_back(&task);
    stream_queued_->release();
  }

  // The SMs an overlapped collective's kernels hold while it runs: an execution on this GPU
  // capped at that share of its speed (as slowed by a straggler event when it starts), so the
  // rank's compute gets the rest (SimGrid shares a host's speed max-min fairly and honours the
  // cap). Cancelled when the collective ends.
  sg4::ExecPtr occupy_sms() const {
    const double share = s_.workload.collective_sm_share;
    if (share <= 0) return nullptr;
    const sg4::Host* gpu = sg4::this_actor::get_host();
    sg4::ExecPtr exec = sg4::this_actor::exec_init(std::numeric_limits<double>::max());
    exec->set_bound(share * gpu->get_speed() * gpu->get_available_speed());
    exec->start();
    return exec;
  }

  // Time spent here is communication the compute did not hide. The stream runs its collectives
  // in issue order, so the time until each awaited one completes is charged to its kind.
  void wait_overlapped(const Task& task) {
    const double start = sg4::Engine::get_clock();
    double mark = start;
    const int issued = int(stream_issued_.size());
    for (; stream_waited_ < std::min(task.overlapped_done, issued); ++stream_waited_) {
      stream_done_->acquire();
      const double now = sg4::Engine::get_clock();
      communication_of(*stream_issued_[size_t(stream_waited_)]).exposed_s += now - mark;
      mark = now;
    }
    const double end = sg4::Engine::get_clock();
    s_.ranks[rank_].communication_s += end - start;
    record(SpanKind::collective, task, start, end);
  }

  // The folded rank's stand-in runs its part of the collective on its own GPU, with the same
  // flows and waits as the rank's own actor would (rank folding, DESIGN.md "Scale").
  void hand_to_proxy(int clone, int lane, const Task& task) {
    auto [it, fresh] = s_.proxies.try_emplace({clone, lane});
    SharedState::Proxy& proxy = it->second;
    if (fresh) {
      proxy.queued = sg4::Semaphore::create(0);
      proxy.done = sg4::Semaphore::create(0);
      SharedState& state = s_;
      proxy.actor = sg4::Actor::create(fmt::format("rank{}-folded{}", clone, lane), s_.platform.gpus[size_t(clone)],
                                       [&state, clone, &proxy] { RankActor(state, clone).serve(proxy); });
      proxies_.push_back(&proxy);
    }
    proxy.tasks.push_back(&task);
    proxy.queued->release();
  }

  void serve(SharedState::Proxy& proxy) {
    try {
      for (;;) {
        proxy.queued->acquire();
        const Task* task = proxy.tasks.front();
        proxy.tasks.pop_front();
        if (!task) break;
        run_collective(*task, SpanKind::collective);
        proxy.done->release();
      }
    } catch (const simgrid::NetworkFailureException&) {
      // A link on the way failed: the part never ends, and the representative waits for it.
    } catch (const simgrid::HostFailureException&) {
    }
  }

  void stop_proxies() {
    for (SharedState::Proxy* proxy : proxies_) {
      proxy->tasks.push_back(nullptr);
      proxy->queued->release();
      proxy->actor->join();
    }
  }

  void stop_stream() {
    if (!stream_actor_) return;
    stream_queue_.push_back(nullptr);
    stream_queued_->release();
    stream_actor_->join();
  }

  sg4::Mailbox* flow_mailbox(int group, int from, int to) {
    const auto key = std::make_tuple(group, from, to);
    auto it = flows_.find(key);
    if (it != flows_.end()) return it->second;
    sg4::Mailbox* mb = sg4::Mailbox::by_name(fmt::format("c{}:{}>{}", group, from, to));
    flows_.emplace(key, mb);
    return mb;
  }

  // Sends are detached: the sender goes on and the receiver waits for the transfer. Megatron
  // posts the next step's receives together with this step's sends (batched isend/irecv), so a
  // sender never waits for a receiver that is itself waiting; a blocking rendezvous send here
  // would deadlock interleaved schedules, where chunks wrap from the last stage to the first.
  void start_send(const Task& task) {
    p2p_mailbox(rank_, task.peer, task.channel)->put_init(&g_token, uint64_t(task.bytes))->detach();
    s_.repeated_flow(rank_, task.peer, double(uint64_t(task.bytes)));
    count_activities(1);
  }

  // Time before the sender shows up is pipeline bubble; the transfer itself is communication.
  void run_recv(const Task& task) {
    const double posted = sg4::Engine::get_clock();
    char* received = nullptr;
    sg4::CommPtr comm = p2p_mailbox(task.peer, rank_, task.channel)->get_async<char>(&received);
    try {
      comm->wait();
    } catch (const simgrid::Exception&) {
      comm->cancel();  // a pending comm must not outlive the stack that owns it
      throw;
    }
    const double end = sg4::Engine::get_clock();
    const double transfer_start = std::max(posted, std::min(end, comm->get_start_time()));
    s_.ranks[rank_].bubble_s += transfer_start - posted;
    if (s_.record_waits) s_.waited_on_s[size_t(task.peer)] += transfer_start - posted;
    s_.ranks[rank_].communication_s += end - transfer_start;
    CommunicationTimes& pipeline = communication_of(task);
    pipeline.total_s += end - transfer_start;
    pipeline.exposed_s += end - transfer_start;
    record(SpanKind::bubble, task, posted, transfer_start);
    record(SpanKind::p2p_transfer, task, transfer_start, end);
  }

  SharedState& s_;
  int rank_;
  std::vector<SharedState::Proxy*> proxies_;  // the stand-ins this representative started
  std::map<std::tuple<int, int, int>, sg4::Mailbox*> p2p_;
  std::map<std::tuple<int, int, int>, sg4::Mailbox*> flows_;
  std::map<std::pair<int, int>, double> route_latency_;
  std::map<int, int> sequence_;  // blocking collectives entered so far, per group
  std::map<int, int> priced_sequence_;  // the same for priced ones
  sg4::ActorPtr stream_actor_;
  sg4::SemaphorePtr stream_queued_, stream_done_;
  std::deque<const Task*> stream_queue_;  // nullptr tells the stream to stop
  std::vector<const Task*> stream_issued_;  // every overlapped collective, in issue order
  int stream_waited_ = 0;                   // how many of them the rank has waited for
  std::vector<sg4::CommPtr> pushes_;        // this iteration's pushes to parameter servers
  double first_push_s_ = 0;
};

// A folded rank repeats its representative's flows on its own GPUs: ranks differ by a whole number
// of data-parallel blocks (rank order tp, cp, dp, stage), so the peer of a flow from its
// representative `r` to `to`, in r's block, is `to` + (rank - r).
std::map<std::string, double> folded_flow_link_bytes(const SharedState& state) {
  std::map<int, std::vector<std::pair<int, double>>> flows_from;
  for (const auto& [ends, bytes] : state.repeated_flow_bytes) flows_from[ends.first].emplace_back(ends.second, bytes);
  std::map<const sg4::Link*, double> by_link;
  std::vector<sg4::Link*> route;
  for (size_t rank = 0; rank < state.workload.representative.size(); ++rank) {
    const int r = state.workload.representative[rank];
    const auto flows = flows_from.find(r);
    if (r == int(rank) || flows == flows_from.end()) continue;
    for (const auto& [to, bytes] : flows->second) {
      route.clear();
      double latency_s = 0;
      state.platform.gpus[rank]->route_to(state.platform.gpus[size_t(to + int(rank) - r)], route, &latency_s);
      for (const sg4::Link* link : route) by_link[link] += bytes;
    }
  }
  std::map<std::string, double> by_name;
  for (const auto& [link, bytes] : by_link) by_name[link->get_name()] += bytes;
  return by_name;
}

// Several iterations ran: the result reports the steady-state step and each rank's times per
// iteration.
void per_iteration(ParameterServerStats stats, int iterations, EngineResult& result) {
  result.iterations = iterations;
  if (result.completed) result.iteration_s = stats.steady_step_s();
  const double share = 1.0 / iterations;
  for (RankTimes& r : result.ranks) {
    r.finish_s *= share;
    r.compute_s *= share;
    r.communication_s *= share;
    r.bubble_s *= share;
    for (auto& [kind, times] : r.communication_by_kind) {
      times.total_s *= share;
      times.exposed_s *= share;
    }
  }
  result.servers = std::move(stats);
}

}  // namespace

EngineResult run_engine(sg4::Engine& engine, const Platform& platform, const NodeSpec& node, const Workload& workload,
                        const EngineOptions& options) {
  const bool record_spans = options.record_spans;
  const int n = int(workload.ranks.size());
  SharedState state{platform, node, workload, CollectivePlans(workload, platform, node), nullptr, record_spans,
                    std::vector<RankTimes>(n),
                    std::vector<std::vector<TraceSpan>>(record_spans ? n : 0), std::vector<int64_t>(n, 0),
                    std::vector<bool>(n, false), false, {}, {}, {}, {}};
  state.record_folded_flows = options.record_folded_flows && !workload.representative.empty();
  if (options.record_waits) {
    state.record_waits = true;
    state.arrivals_by_group.resize(workload.groups.size());
    state.priced_arrivals_by_group.resize(workload.groups.size());
    state.waited_on_s.assign(size_t(n), 0.0);
  }
  std::optional<ParameterServerRuntime> servers;
  if (!workload.servers.empty()) {
    servers.emplace(workload.servers, platform);
    servers->start();
    state.servers = &*servers;
  }
  for (int rank = 0; rank < n; ++rank)
    if (!state.folded(rank))
      sg4::Actor::create(fmt::format("rank{}", rank), platform.gpus[rank], RankActor(state, rank));
  engine.run();
  for (int rank = 0; rank < n; ++rank) {
    if (!state.folded(rank)) continue;
    const size_t representative = size_t(workload.representative[size_t(rank)]);
    state.ranks[size_t(rank)] = state.ranks[representative];
    state.finished[size_t(rank)] = state.finished[representative];
  }
  // SimGrid returns from run() when every actor is blocked; a program that waits for a message
  // nobody sends must not pass for a finished iteration.
  EngineResult result;
  for (int rank = 0; rank < n; ++rank) {
    if (state.finished[rank]) continue;
    if (!options.failures_possible)
      throw std::runtime_error(fmt::format("the simulated iteration deadlocked: rank {} never finished its program "
                                           "(a workload whose sends and receives do not match)", rank));
    result.completed = false;
    ++result.unfinished_ranks;
  }
  result.stopped_s = engine.get_clock();
  result.waited_on_s = std::move(state.waited_on_s);
  result.ranks = std::move(state.ranks);
  for (const RankTimes& r : result.ranks) result.iteration_s = std::max(result.iteration_s, r.finish_s);
  for (int64_t a : state.activities) result.activities += a;
  result.representative = workload.representative;
  if (record_spans)
    for (const CommGroup& g : workload.groups) result.group_kinds.push_back(g.kind);
  for (auto& spans : state.spans) result.spans.insert(result.spans.end(), spans.begin(), spans.end());
  if (state.record_folded_flows) result.folded_flow_link_bytes = folded_flow_link_bytes(state);
  if (servers) per_iteration(servers->stats(), workload.servers.iterations, result);
  return result;
}

}  // namespace dtsim
