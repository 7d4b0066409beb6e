#pragma once
// How many channels NCCL builds for its collectives on a node: each channel is one CTA of the
// collective's kernel, on an SM of its own while it runs, so the count sets the share of the SMs
// that compute beside an overlapped collective loses (DeviceSpec::collective_sm_share).
#include "topology_spec.hpp"

namespace dtsim {

// GPUs that reach each other no faster than over one PCIe link: NCCL's topology search finds one
// ring, which it does not duplicate below 25 GB/s (src/graph/search.cc, ncclTopoDupChannels), and
// the set-up doubles the rings (src/graph/connect.cc, ncclTopoPostset): 2 channels, as NCCL logs
// "2 coll channels" on such machines (NVIDIA/nccl issue 1066; ParCIS/Chimera issue 2).
// NVLink nodes: the 24 CTAs of an all-gather beside a GEMM on an H100 in an Nsight Systems trace
// (NVIDIA developer forum thread 337991, 2025), used for every NVLink node; the search would give
// V100 and A100 nodes other counts, which dtsim does not derive.
int nccl_collective_channels(const NodeSpec& node);

}  // namespace dtsim
