#include "collective_kind.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

namespace dtsim {

namespace {

std::string lower_without_underscores(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != ' ') out += char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

const char* to_string(TraceCollectiveKind k) {
  switch (k) {
    case TraceCollectiveKind::all_reduce: return "all_reduce";
    case TraceCollectiveKind::all_gather: return "all_gather";
    case TraceCollectiveKind::reduce_scatter: return "reduce_scatter";
    case TraceCollectiveKind::broadcast: return "broadcast";
    case TraceCollectiveKind::reduce: return "reduce";
    case TraceCollectiveKind::all_to_all: return "all_to_all";
    case TraceCollectiveKind::send_recv: return "send_recv";
  }
  return "?";
}

std::optional<TraceCollectiveKind> collective_from_c10d_name(const std::string& name) {
  // "_allgather_base", "all_gather_into_tensor_coalesced", "alltoall_base", "all_to_allv": compare
  // without underscores or case, by prefix.
  const std::string n = lower_without_underscores(name);
  const std::pair<const char*, TraceCollectiveKind> prefixes[] = {
      {"allreduce", TraceCollectiveKind::all_reduce},         {"allgather", TraceCollectiveKind::all_gather},
      {"reducescatter", TraceCollectiveKind::reduce_scatter}, {"broadcast", TraceCollectiveKind::broadcast},
      {"alltoall", TraceCollectiveKind::all_to_all},          {"reduce", TraceCollectiveKind::reduce},
      {"send", TraceCollectiveKind::send_recv},               {"recv", TraceCollectiveKind::send_recv},
  };
  for (const auto& [prefix, kind] : prefixes)
    if (starts_with(n, prefix)) return kind;
  return std::nullopt;
}

bool is_nccl_kernel(const std::string& kernel_name) {
  return starts_with(kernel_name, "ncclKernel_") || starts_with(kernel_name, "ncclDevKernel_");
}

std::optional<TraceCollectiveKind> collective_from_nccl_kernel(const std::string& kernel_name) {
  if (!is_nccl_kernel(kernel_name)) return std::nullopt;
  const size_t start = kernel_name.find('_') + 1;
  const size_t end = kernel_name.find_first_of("_(", start);
  const std::string op = kernel_name.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (op == "SendRecv" || op == "Send" || op == "Recv") return TraceCollectiveKind::send_recv;
  if (op == "ReduceScatter") return TraceCollectiveKind::reduce_scatter;
  return collective_from_c10d_name(op);
}

std::optional<TraceCollectiveKind> collective_from_symmetric_memory_op(const std::string& op_name) {
  const std::string ns = "symm_mem::";
  if (!starts_with(op_name, ns)) return std::nullopt;
  std::string rest = op_name.substr(ns.size());
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const char* variant : {"multimem_", "one_shot_", "two_shot_"})
      if (starts_with(rest, variant)) {
        rest = rest.substr(std::char_traits<char>::length(variant));
        stripped = true;
      }
  }
  return collective_from_c10d_name(rest);
}

bool kernel_names_collective(const std::string& kernel_name, TraceCollectiveKind kind) {
  return lower_without_underscores(kernel_name).find(lower_without_underscores(to_string(kind))) !=
         std::string::npos;
}

std::optional<double> dtype_bytes(const std::string& dtype) {
  std::string d = lower_without_underscores(dtype);
  if (starts_with(d, "c10::")) d = d.substr(5);
  const std::pair<const char*, double> sizes[] = {
      {"float", 4},    {"int", 4},     {"double", 8},  {"long", 8},   {"longint", 8}, {"int64", 8},
      {"bfloat16", 2}, {"half", 2},    {"float16", 2}, {"short", 2},  {"byte", 1},    {"char", 1},
      {"bool", 1},     {"uint8", 1},   {"int8", 1},    {"float8", 1}, {"float32", 4}, {"int32", 4},
  };
  for (const auto& [name, bytes] : sizes)
    if (d == name) return bytes;
  return std::nullopt;
}

}  // namespace dtsim
