#pragma once
// What a recorded collective is, from the names PyTorch and NCCL give it: the c10d collective name
// of record_param_comms ("allreduce", "_allgather_base", "all_to_allv"), an NCCL kernel's name
// ("ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllGather_RING_LL(...)"), or a
// symmetric-memory op's ("symm_mem::multimem_all_reduce_").
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

// A PyTorch symmetric-memory collective op ("symm_mem::multimem_all_reduce_",
// "symm_mem::two_shot_all_reduce_", "symm_mem::multimem_one_shot_all_reduce"): its kind; nullopt for
// other ops. Its kernel is not NCCL's ("multimem_all_reduce_kernel<c10::BFloat16, 16>"), carries no
// args, and runs on NVLink (multimem: NVLink SHARP) among the ranks of one node.
std::optional<TraceCollectiveKind> collective_from_symmetric_memory_op(const std::string& op_name);

// Whether a kernel's name says it runs this collective ("multimem_all_reduce_kernel": all_reduce).
bool kernel_names_collective(const std::string& kernel_name, TraceCollectiveKind kind);

// Bytes of one element of a record_param_comms dtype ("Float", "BFloat16", "Long", "Byte") or
// a Kineto "Input type" ("float", "c10::BFloat16", "long int"); nullopt when unknown.
std::optional<double> dtype_bytes(const std::string& dtype);

}  // namespace dtsim
