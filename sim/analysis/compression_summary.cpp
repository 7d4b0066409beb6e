#include "compression_summary.hpp"

#include <fmt/format.h>

#include "gradient_compression.hpp"
#include "workload_builder.hpp"

namespace dtsim {

std::optional<CompressionSummary> compression_summary(const ResolvedScenario& r) {
  const Scenario& s = r.scenario;
  const DataParallelConfig& dp = s.data_parallel;
  if (!s.layer_model || dp.compression == GradientCompression::none) return std::nullopt;
  const WorkloadInputs in = workload_inputs(s, r.compute);
  CompressionSummary c;
  c.scheme = to_string(dp.compression);
  for (const GradientBucket& b : in.gradient_bucket_layout) {
    c.gradient_bytes += b.bytes;
    c.encode_s += b.encode_s;
    for (const ExchangeStep& step : b.exchange) {
      c.collective_bytes += step.bytes;
      c.decode_s += step.compute_s;
    }
  }
  if (dp.uses_servers()) {
    c.exchange = "pushed to the servers, decoded there";
    c.collective_bytes = c.gradient_bytes * push_wire_share(dp);
    return c;
  }
  for (const ExchangeStep& step : in.gradient_bucket_layout.empty() ? std::vector<ExchangeStep>{}
                                                                      : in.gradient_bucket_layout.back().exchange)
    if (step.bytes > 0) c.exchange += fmt::format("{}{}", c.exchange.empty() ? "" : " + ", to_string(step.collective));
  return c;
}

std::string format_compression_summary(const CompressionSummary& c) {
  std::string out = fmt::format("gradient compression {}: {:.2f} MB of fp32 gradients per GPU become {:.3f} MB ({})\n",
                                c.scheme, c.gradient_bytes / 1e6, c.collective_bytes / 1e6, c.exchange);
  out += fmt::format("  codec kernels     encode {:.4f} s (compute stream), decode {:.4f} s (communication stream) "
                     "per GPU and iteration\n",
                     c.encode_s, c.decode_s);
  return out;
}

nlohmann::json compression_to_json(const std::optional<CompressionSummary>& c) {
  if (!c) return nullptr;
  return {{"scheme", c->scheme},
          {"exchange", c->exchange},
          {"gradient_bytes_per_gpu", c->gradient_bytes},
          {"collective_bytes_per_gpu", c->collective_bytes},
          {"encode_s_per_iteration", c->encode_s},
          {"decode_s_per_iteration", c->decode_s}};
}

}  // namespace dtsim
