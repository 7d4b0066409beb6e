#pragma once
// What a recorded collective is, from the names PyTorch and NCCL give it: the c10d collective name
// of record_param_comms ("allreduce", "_allgather_base", "all_to_allv") or an NCCL kernel's name
// ("ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllGather_RING_LL(...)").
#include <optional>
#include <string>

namespace dtsim {

enum class TraceCollectiveKind { all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv };
const char* to_string(TraceCollectiveKind k);

// From a c10d / record_param_comms collective name; nullopt for "wait", "barrier" and names
// that are not collectives.
std::optional<TraceCollectiveKind> collective_from_c10d_name(const std::string& name);

// An NCCL kernel's name ("ncclKernel_..." up to NCCL 2.18, "ncclDevKernel_..." since 2.19):
// whether it is one, and its collective. Up to 2.18 all-to-all and point-to-point ran as
// SendRecv kernels, so send_recv may be an all-to-all: the launching op says which.
bool is_nccl_kernel(const std::string& kernel_name);
std::optional<TraceCollectiveKind> collective_from_nccl_kernel(const std::string& kernel_name);

// Bytes of one element of a record_param_comms dtype ("Float", "BFloat16", "Long", "Byte") or
// a Kineto "Input type" ("float", "c10::BFloat16", "long int"); nullopt when unknown.
std::optional<double> dtype_bytes(const std::string& dtype);

}  // namespace dtsim
