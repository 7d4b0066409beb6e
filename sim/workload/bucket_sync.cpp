#include "bucket_sync.hpp"

#include <algorithm>

#include "host_staged_allreduce.hpp"

namespace dtsim {

namespace {

double collective_s(CollectiveKind kind, double bytes, const GroupShape& dp, const NodeSpec& node,
                    double host_staged_cpu_Bps) {
  if (dp.ranks < 2 || bytes <= 0) return 0;
  if (host_staged_cpu_Bps > 0 && kind == CollectiveKind::all_reduce)
    return host_staged_allreduce_s(dp, bytes, node, host_staged_cpu_Bps);
  return choose_collective(kind, dp, bytes, node).time_s;
}

}  // namespace

double bucket_layout_sync_s(const std::vector<GradientBucket>& buckets, double last_backward_s, const GroupShape& dp,
                            const NodeSpec& node, double host_staged_cpu_Bps) {
  double ready_s = 0, reduced_s = 0, encode_s = 0;
  for (const GradientBucket& b : buckets) {
    ready_s += b.compute_share * last_backward_s + b.encode_s;
    encode_s += b.encode_s;
    double exchange_s =
        b.exchange.empty() ? collective_s(CollectiveKind::all_reduce, b.bytes, dp, node, host_staged_cpu_Bps) : 0.0;
    for (const ExchangeStep& step : b.exchange)
      exchange_s += step.compute_s + collective_s(step.collective, step.bytes, dp, node, host_staged_cpu_Bps);
    reduced_s = std::max(reduced_s, ready_s) + exchange_s;
  }
  return std::max(encode_s, reduced_s - last_backward_s);
}

}  // namespace dtsim
