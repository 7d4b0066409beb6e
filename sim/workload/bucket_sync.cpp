#include "bucket_sync.hpp"

#include <algorithm>

namespace dtsim {

namespace {

double collective_s(CollectiveKind kind, double bytes, const GroupShape& dp, const NodeSpec& node) {
  if (dp.ranks < 2 || bytes <= 0) return 0;
  return choose_collective(kind, dp, bytes, node).time_s;
}

}  // namespace

double bucket_layout_sync_s(const std::vector<GradientBucket>& buckets, double last_backward_s, const GroupShape& dp,
                            const NodeSpec& node) {
  double ready_s = 0, reduced_s = 0, encode_s = 0;
  for (const GradientBucket& b : buckets) {
    ready_s += b.compute_share * last_backward_s + b.encode_s;
    encode_s += b.encode_s;
    double exchange_s = b.exchange.empty() ? collective_s(CollectiveKind::all_reduce, b.bytes, dp, node) : 0.0;
    for (const ExchangeStep& step : b.exchange)
      exchange_s += step.compute_s + collective_s(step.collective, step.bytes, dp, node);
    reduced_s = std::max(reduced_s, ready_s) + exchange_s;
  }
  return std::max(encode_s, reduced_s - last_backward_s);
}

}  // namespace dtsim
