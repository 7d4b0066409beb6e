#pragma once
// The report's gradient-compression section: what each GPU's gradients become on the wire and
// what the encode and decode kernels cost it per iteration (gradient_compression.hpp).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "resolved_scenario.hpp"

namespace dtsim {

struct CompressionSummary {
  std::string scheme;           // fp16, topk, ...
  std::string exchange;         // "all_to_all + all_gather", "push to the servers", ...
  double gradient_bytes = 0;    // fp32 gradients one GPU synchronises per iteration
  double collective_bytes = 0;  // what it hands to the collectives (nccl-tests' sizes) or pushes
  double encode_s = 0;          // per iteration, on the compute stream
  double decode_s = 0;          // per iteration, on the communication stream
};

// Empty without compression (or for a transformer scenario).
std::optional<CompressionSummary> compression_summary(const ResolvedScenario& r);
std::string format_compression_summary(const CompressionSummary& c);
nlohmann::json compression_to_json(const std::optional<CompressionSummary>& c);

}  // namespace dtsim
