#include "parameter_server_actor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <memory>

namespace dtsim {

namespace sg4 = simgrid::s4u;

namespace {

char g_weights = 0;  // reply payloads are never read: only their simulated size matters

}  // namespace

double ParameterServerStats::steady_step_s() const {
  double sum_s = 0;
  int counted = 0;
  for (const std::vector<double>& ends : step_end_s) {
    if (ends.empty()) continue;
    sum_s += ends.size() > 1 ? (ends.back() - ends.front()) / double(ends.size() - 1) : ends.front();
    ++counted;
  }
  return counted > 0 ? sum_s / counted : 0;
}

std::vector<double> ParameterServerStats::steady_steps_s() const {
  std::vector<double> steps;
  for (const std::vector<double>& ends : step_end_s)
    for (size_t i = 1; i < ends.size(); ++i) steps.push_back(ends[i] - ends[i - 1]);
  return steps;
}

// One server's view: the version of its weights (updates applied), how far each worker's
// gradients have arrived, the pulls it holds back and the gradients waiting to be applied.
struct ParameterServerRuntime::Server {
  int version = 0;
  std::vector<int> clock;                  // async, ssp: [worker] iterations whose gradients were all applied
  std::map<int, int> complete;             // sync: iteration -> workers whose gradients were added
  std::vector<std::map<int, int>> pulled;  // [worker]: iteration -> version it pulled (async, ssp: staleness)
  std::deque<PsMessage> held_pulls;
  std::deque<PsMessage> updates;  // pushes received, in order, for the updater
  sg4::SemaphorePtr queued;
};

ParameterServerRuntime::ParameterServerRuntime(const ParameterServers& servers, const Platform& platform)
    : servers_(servers), platform_(platform) {
  const size_t n = servers.nodes.size();
  last_bucket_.assign(n, -1);
  for (size_t b = 0; b < servers.bucket_bytes.size(); ++b)
    for (size_t s = 0; s < n; ++s)
      if (servers.bucket_bytes[b][s] > 0) last_bucket_[s] = int(b);
  for (size_t s = 0; s < n; ++s) {
    if (servers.shard_bytes[s] > 0) serving_.push_back(int(s));
    inboxes_.push_back(sg4::Mailbox::by_name(fmt::format("ps{}", s)));
  }
  worker_index_.assign(platform.gpus.size(), -1);
  for (size_t w = 0; w < servers.workers.size(); ++w) worker_index_[size_t(servers.workers[w])] = int(w);
  stats_.worker_ranks = servers.workers;
  stats_.step_end_s.assign(servers.workers.size(), std::vector<double>(size_t(servers.iterations), 0.0));
  stats_.server_received_bytes.assign(n, 0);
  stats_.server_sent_bytes.assign(n, 0);
  stats_.server_update_s.assign(n, 0);
}

ParameterServerRuntime::~ParameterServerRuntime() = default;

int ParameterServerRuntime::worker_of(int rank) const {
  return rank >= 0 && size_t(rank) < worker_index_.size() ? worker_index_[size_t(rank)] : -1;
}

sg4::Mailbox* ParameterServerRuntime::reply_box(int server, int worker) const {
  return sg4::Mailbox::by_name(fmt::format("ps{}>w{}", server, worker));
}

void ParameterServerRuntime::record_step_end(int worker, int iteration, double now_s) {
  std::vector<double>& ends = stats_.step_end_s[size_t(worker)];
  if (iteration >= 0 && size_t(iteration) < ends.size()) ends[size_t(iteration)] = now_s;
}

// Two actors per server on its CPU: a receiver that takes every message as it arrives, answers
// the pulls the update mode allows and queues the gradients, and an updater that applies them in
// order (as a parameter server's request threads and its update ops do), so that a pull is
// not held up by updates in progress unless the mode says it must wait for them.
void ParameterServerRuntime::start() {
  for (int s : serving_) {
    sg4::Host* cpu = platform_.cpus.at(size_t(servers_.nodes[size_t(s)]));
    Server& me = *state_.emplace_back(std::make_unique<Server>());
    me.clock.assign(servers_.workers.size(), 0);
    me.pulled.resize(servers_.workers.size());
    me.queued = sg4::Semaphore::create(0);
    sg4::Actor::create(fmt::format("server{}", s), cpu, [this, s, &me] { receive(s, me); });
    sg4::Actor::create(fmt::format("server{}-updates", s), cpu, [this, s, &me] { update(s, me); });
  }
}

void ParameterServerRuntime::worker_done() {
  if (++workers_done_ < servers_.workers.size()) return;
  for (int s : serving_) inbox(s)->put_init(new PsMessage{PsMessage::stop}, 0)->detach();
}

// Sync: a pull of iteration k waits for the update of k - 1. Async: pulls never wait. SSP: a
// pull of k waits until every worker's gradients of k - bound - 1 are applied.
bool ParameterServerRuntime::may_answer(const Server& me, const PsMessage& pull) const {
  switch (servers_.mode) {
    case ServerUpdateMode::sync: return me.version >= pull.iteration;
    case ServerUpdateMode::async: return true;
    case ServerUpdateMode::bounded_staleness:
      return *std::min_element(me.clock.begin(), me.clock.end()) >= pull.iteration - servers_.staleness_bound;
  }
  return true;
}

void ParameterServerRuntime::answer(int s, Server& me, const PsMessage& pull) {
  me.pulled[size_t(pull.worker)][pull.iteration] = me.version;
  const double bytes = servers_.shard_bytes[size_t(s)];
  reply_box(s, pull.worker)->put_init(&g_weights, uint64_t(bytes))->detach();
  stats_.server_sent_bytes[size_t(s)] += bytes;
}

void ParameterServerRuntime::receive(int s, Server& me) {
  sg4::Mailbox* inbox = inboxes_[size_t(s)];
  inbox->set_receiver(sg4::Actor::self());
  for (;;) {
    const std::unique_ptr<PsMessage> m(inbox->get<PsMessage>());
    if (m->kind == PsMessage::stop) {
      me.updates.push_back(*m);
      me.queued->release();
      return;
    }
    if (m->kind == PsMessage::pull) {
      if (may_answer(me, *m))
        answer(s, me, *m);
      else
        me.held_pulls.push_back(*m);
      continue;
    }
    stats_.server_received_bytes[size_t(s)] += m->bytes * servers_.push_wire_share;
    me.updates.push_back(*m);
    me.queued->release();
  }
}

// Sync: each gradient is added to the iteration's accumulator; once workers - backup_workers of
// them are in, the update is applied and gradients of that iteration arriving later are dropped.
// Async and SSP: each gradient is applied as it comes, `version - the version it was computed on`
// updates late.
void ParameterServerRuntime::update(int s, Server& me) {
  const double shard_bytes = servers_.shard_bytes[size_t(s)];
  const int needed = int(servers_.workers.size()) - servers_.backup_workers;
  const bool counts_gradients = s == serving_.front();  // staleness and drops: once per gradient
  auto apply = [&](double memory_bytes) {
    const double start = sg4::Engine::get_clock();
    sg4::this_actor::execute(memory_bytes);
    stats_.server_update_s[size_t(s)] += sg4::Engine::get_clock() - start;
  };
  for (;;) {
    me.queued->acquire();
    const PsMessage m = me.updates.front();
    me.updates.pop_front();
    if (m.kind == PsMessage::stop) return;
    const size_t w = size_t(m.worker);
    if (servers_.mode == ServerUpdateMode::sync) {
      if (m.iteration < me.version) {
        if (m.last_of_iteration && counts_gradients) ++stats_.dropped_gradients;
        continue;
      }
      apply((servers_.decode_bytes_per_byte + servers_.accumulate_bytes_per_byte) * m.bytes);
      if (m.last_of_iteration) ++me.complete[m.iteration];
      if (me.complete[me.version] < needed) continue;
      apply(servers_.apply_bytes_per_byte * shard_bytes);
      me.complete.erase(me.version);
      if (counts_gradients) stats_.staleness_counts[0] += needed;
      ++me.version;
    } else {
      apply((servers_.decode_bytes_per_byte + servers_.apply_bytes_per_byte) * m.bytes);
      if (!m.last_of_iteration) continue;
      const auto pulled = me.pulled[w].find(m.iteration);
      const int based_on = pulled == me.pulled[w].end() ? 0 : pulled->second;
      if (counts_gradients) ++stats_.staleness_counts[me.version - based_on];
      me.pulled[w].erase(m.iteration);
      me.clock[w] = m.iteration + 1;
      ++me.version;
    }
    for (size_t i = 0; i < me.held_pulls.size();) {
      if (may_answer(me, me.held_pulls[i])) {
        answer(s, me, me.held_pulls[i]);
        me.held_pulls.erase(me.held_pulls.begin() + long(i));
      } else {
        ++i;
      }
    }
  }
}

}  // namespace dtsim
