#pragma once
// How long a layer model's gradient buckets (DDP's, Horovod's fusions, compressed exchanges) keep
// a replica busy after its last backward pass, in closed form: the analytic model's tail, and the
// step a reference measured on several GPUs of one node took.
#include <vector>

#include "collective_model.hpp"
#include "workload_builder.hpp"

namespace dtsim {

// Each bucket's all-reduce (or compressed exchange) starts once its part of the last backward
// pass, and its encoding after it, are done and the bucket before it is reduced. Returns how long
// the last one ends after the pass (encodings included), on a data-parallel group of shape `dp`.
// `host_staged_cpu_Bps` > 0: the all-reduces are MPI's through the CPUs (host_staged_allreduce.hpp).
double bucket_layout_sync_s(const std::vector<GradientBucket>& buckets, double last_backward_s, const GroupShape& dp,
                            const NodeSpec& node, double host_staged_cpu_Bps = 0);

}  // namespace dtsim
