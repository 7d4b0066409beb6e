#include "pipeline_schedule.hpp"

#include <algorithm>
#include <deque>

namespace dtsim {

std::vector<PipelineStep> gpipe(int, int, int micro_batches) {
  std::vector<PipelineStep> steps;
  for (int mb = 0; mb < micro_batches; ++mb) steps.push_back({PassKind::forward, mb});
  for (int mb = micro_batches - 1; mb >= 0; --mb) steps.push_back({PassKind::backward, mb});
  return steps;
}

std::vector<PipelineStep> one_f_one_b(int stage, int stages, int micro_batches) {
  const int warmup = std::min(stages - stage - 1, micro_batches);
  std::vector<PipelineStep> steps;
  steps.reserve(2 * micro_batches);
  int next_forward = 0, next_backward = 0;
  for (int i = 0; i < warmup; ++i) steps.push_back({PassKind::forward, next_forward++});
  while (next_forward < micro_batches) {
    steps.push_back({PassKind::forward, next_forward++});
    steps.push_back({PassKind::backward, next_backward++});
  }
  while (next_backward < micro_batches) steps.push_back({PassKind::backward, next_backward++});
  return steps;
}

namespace {

// Megatron-LM's mapping from the k-th chunk-pass of a direction to (chunk, micro-batch).
PipelineStep interleaved_step(int k, int stages, int virtual_stages, bool forward) {
  const int in_round = k % (stages * virtual_stages);
  int chunk = in_round / stages;
  if (!forward) chunk = virtual_stages - 1 - chunk;
  const int micro_batch = (k / (stages * virtual_stages)) * stages + k % stages;
  return {forward ? PassKind::forward : PassKind::backward, micro_batch, chunk};
}

}  // namespace

std::vector<PipelineStep> interleaved_one_f_one_b(int stage, int stages, int virtual_stages, int micro_batches) {
  const int total = micro_batches * virtual_stages;  // chunk-passes per direction
  const int warmup = std::min((stages - stage - 1) * 2 + (virtual_stages - 1) * stages, total);
  std::vector<PipelineStep> steps;
  steps.reserve(2 * total);
  int next_forward = 0, next_backward = 0;
  for (int i = 0; i < warmup; ++i) steps.push_back(interleaved_step(next_forward++, stages, virtual_stages, true));
  while (next_forward < total) {
    steps.push_back(interleaved_step(next_forward++, stages, virtual_stages, true));
    steps.push_back(interleaved_step(next_backward++, stages, virtual_stages, false));
  }
  while (next_backward < total) steps.push_back(interleaved_step(next_backward++, stages, virtual_stages, false));
  return steps;
}

// ZB-H1 as a greedy list schedule on unit-time passes (T_F = T_B = T_W, free transfers): each
// stage, when free, runs a B whose gradient has arrived, else an F whose input has arrived and
// that keeps at most p - s micro-batches between F and B (1F1B's activation memory), else a
// pending W. This reproduces the handcrafted ZB-H1 order, bubble (p-1)(T_F + T_B - T_W).
std::vector<PipelineStep> zero_bubble_h1(int stage, int stages, int micro_batches) {
  const int p = stages, m = micro_batches;
  constexpr double kNever = 1e300;
  std::vector<std::vector<double>> forward_ready(p, std::vector<double>(m, kNever));
  std::vector<std::vector<double>> backward_ready(p, std::vector<double>(m, kNever));
  for (int mb = 0; mb < m; ++mb) forward_ready[0][mb] = 0;
  struct State {
    int next_forward = 0, next_backward = 0;
    std::deque<int> pending_weight;
    double free_at = 0;
    std::vector<PipelineStep> order;
  };
  std::vector<State> st(p);
  auto done = [&](const State& s) { return s.next_backward == m && s.pending_weight.empty(); };
  for (;;) {
    int s = -1;
    for (int i = 0; i < p; ++i)
      if (!done(st[i]) && (s < 0 || st[i].free_at < st[s].free_at)) s = i;
    if (s < 0) break;
    State& x = st[s];
    const double t = x.free_at;
    const bool can_backward = x.next_backward < x.next_forward && backward_ready[s][x.next_backward] <= t;
    const bool can_forward =
        x.next_forward < m && forward_ready[s][x.next_forward] <= t && x.next_forward - x.next_backward < p - s;
    if (can_backward) {
      const int mb = x.next_backward++;
      x.order.push_back({PassKind::backward_input, mb});
      x.pending_weight.push_back(mb);
      if (s > 0) backward_ready[s - 1][mb] = t + 1;
    } else if (can_forward) {
      const int mb = x.next_forward++;
      x.order.push_back({PassKind::forward, mb});
      if (s + 1 < p) forward_ready[s + 1][mb] = t + 1;
      else backward_ready[s][mb] = t + 1;
    } else if (!x.pending_weight.empty()) {
      x.order.push_back({PassKind::backward_weight, x.pending_weight.front()});
      x.pending_weight.pop_front();
    } else {  // idle until an input arrives: a known one, or one another stage may still produce
      double next = kNever;
      for (int i = 0; i < p; ++i)
        if (i != s && !done(st[i])) next = std::min(next, std::max(t, st[i].free_at) + 1);
      if (x.next_backward < x.next_forward) next = std::min(next, backward_ready[s][x.next_backward]);
      if (x.next_forward < m && x.next_forward - x.next_backward < p - s)
        next = std::min(next, forward_ready[s][x.next_forward]);
      x.free_at = next;
      continue;
    }
    x.free_at = t + 1;
  }
  return st[stage].order;
}

std::vector<PipelineStep> pipeline_steps(const ParallelismConfig& p, int stage, int micro_batches) {
  switch (p.schedule) {
    case PipelineScheduleKind::gpipe: return gpipe(stage, p.pp, micro_batches);
    case PipelineScheduleKind::one_f_one_b: return one_f_one_b(stage, p.pp, micro_batches);
    case PipelineScheduleKind::interleaved_1f1b:
      return interleaved_one_f_one_b(stage, p.pp, p.virtual_stages, micro_batches);
    case PipelineScheduleKind::zero_bubble: return zero_bubble_h1(stage, p.pp, micro_batches);
  }
  return {};
}

}  // namespace dtsim
