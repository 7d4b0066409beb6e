#pragma once
// Parameter servers as SimGrid actors (sim/workload/README.md "Parameter servers"): two per server on its
// node's CPU host, one receiving the workers' pushes and pulls on a mailbox that starts every
// transfer as soon as it is sent (a permanent receiver), one applying updates as executions of
// the bytes they stream through memory; pulls are answered when the update mode allows. The NICs and PCIe links the
// transfers cross are the platform's, so a crowded server NIC is contention SimGrid computes.
#include <simgrid/s4u.hpp>

#include <map>
#include <memory>
#include <vector>

#include "platform_builder.hpp"
#include "program.hpp"

namespace dtsim {

// What a run with parameter servers reports beside the ranks' times.
struct ParameterServerStats {
  std::vector<int> worker_ranks;
  std::vector<std::vector<double>> step_end_s;  // [worker][iteration]: when its iteration ended
  std::map<int, long> staleness_counts;         // gradients applied this many versions behind
  long dropped_gradients = 0;                   // pushes a sync update did not wait for (backup workers)
  std::vector<double> server_received_bytes;    // [server]
  std::vector<double> server_sent_bytes;        // [server]
  std::vector<double> server_update_s;          // [server]: time spent applying
  // The steady-state iteration: per worker (end of the last iteration - end of the first) /
  // (iterations - 1), averaged over workers; the first iteration's end with one iteration.
  double steady_step_s() const;
  // Each worker's steady-state step times, iteration by iteration (after the first).
  std::vector<double> steady_steps_s() const;
};

// A message on a server's mailbox; its simulated size is the data it stands for.
// stop: every worker is done; the server applies what it has received and ends.
struct PsMessage {
  enum Kind { push, pull, stop } kind = push;
  int worker = 0;  // index into ParameterServers::workers
  int iteration = 0;
  double bytes = 0;  // a push's gradient bytes
  bool last_of_iteration = false;  // a push completing the worker's gradient for this server
};

class ParameterServerRuntime {
 public:
  ParameterServerRuntime(const ParameterServers& servers, const Platform& platform);
  ~ParameterServerRuntime();
  ParameterServerRuntime(const ParameterServerRuntime&) = delete;
  ParameterServerRuntime& operator=(const ParameterServerRuntime&) = delete;
  // Creates the server actors. They end once every worker is done and they have applied what
  // they received.
  void start();
  void worker_done();

  int worker_of(int rank) const;                 // index of `rank` in servers.workers, -1 if none
  const std::vector<int>& serving() const { return serving_; }  // servers holding any weights
  simgrid::s4u::Mailbox* inbox(int server) const { return inboxes_[size_t(server)]; }
  simgrid::s4u::Mailbox* reply_box(int server, int worker) const;
  // Pushes of `bucket` a worker sends `server` per iteration, and whether it is the last one.
  bool last_push_for(int server, int bucket) const { return last_bucket_[size_t(server)] == bucket; }
  void record_step_end(int worker, int iteration, double now_s);
  const ParameterServers& config() const { return servers_; }
  ParameterServerStats stats() const { return stats_; }

 private:
  struct Server;
  bool may_answer(const Server& me, const PsMessage& pull) const;
  void answer(int server, Server& me, const PsMessage& pull);
  void receive(int server, Server& me);
  void update(int server, Server& me);

  const ParameterServers& servers_;
  const Platform& platform_;
  std::vector<int> serving_;
  std::vector<int> last_bucket_;  // [server]: the last bucket holding its gradients
  std::vector<simgrid::s4u::Mailbox*> inboxes_;
  std::vector<int> worker_index_;  // [rank]
  ParameterServerStats stats_;
  std::vector<std::unique_ptr<Server>> state_;  // per serving server
  size_t workers_done_ = 0;
};

}  // namespace dtsim
