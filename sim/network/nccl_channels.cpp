#include "nccl_channels.hpp"

namespace dtsim {

namespace {
constexpr int kPcieRingChannels = 2;      // one ring, doubled at set-up
// H100, NVIDIA developer forum thread 337991 ("Compute-Communication Overlap Causes Severe GEMM
// Performance Degradation because of Tail Effect"). The same thread measures a GEMM sized to one
// wave slowing far more (tail effect); the SM share is the steady-state part only.
constexpr int kNvlinkMeasuredCtas = 24;
}  // namespace

int nccl_collective_channels(const NodeSpec& node) {
  const bool pcie_only = node.nvlink_bw_Bps <= node.pcie_bw_Bps;
  return pcie_only ? kPcieRingChannels : kNvlinkMeasuredCtas;
}

}  // namespace dtsim
