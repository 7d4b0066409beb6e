#include "chakra_trace.hpp"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <string>

#include "chakra_et.pb.h"
#include "gzip_input.hpp"
#include "input_error.hpp"

namespace dtsim {

namespace {

namespace pb = google::protobuf;

// An integer attribute, whichever integer type the converter wrote it as.
std::optional<long long> int_attr(const chakra::Node& node, const std::string& name) {
  for (const chakra::AttributeProto& a : node.attr()) {
    if (a.name() != name) continue;
    switch (a.value_case()) {
      case chakra::AttributeProto::kInt32Val: return a.int32_val();
      case chakra::AttributeProto::kInt64Val: return a.int64_val();
      case chakra::AttributeProto::kUint32Val: return a.uint32_val();
      case chakra::AttributeProto::kUint64Val: return static_cast<long long>(a.uint64_val());
      case chakra::AttributeProto::kSint32Val: return a.sint32_val();
      case chakra::AttributeProto::kSint64Val: return a.sint64_val();
      case chakra::AttributeProto::kBoolVal: return a.bool_val() ? 1 : 0;
      default: return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string string_attr(const pb::RepeatedPtrField<chakra::AttributeProto>& attrs, const std::string& name) {
  for (const chakra::AttributeProto& a : attrs)
    if (a.name() == name && a.value_case() == chakra::AttributeProto::kStringVal) return a.string_val();
  return "";
}

std::optional<TraceCollectiveKind> kind_of_comm_type(long long comm_type) {
  switch (comm_type) {
    case chakra::ALL_REDUCE: return TraceCollectiveKind::all_reduce;
    case chakra::REDUCE: return TraceCollectiveKind::reduce;
    case chakra::ALL_GATHER: return TraceCollectiveKind::all_gather;
    case chakra::BROADCAST: return TraceCollectiveKind::broadcast;
    case chakra::ALL_TO_ALL: return TraceCollectiveKind::all_to_all;
    case chakra::REDUCE_SCATTER:
    case chakra::REDUCE_SCATTER_BLOCK: return TraceCollectiveKind::reduce_scatter;
    default: return std::nullopt;  // gather, scatter, barrier: not replayed as collectives
  }
}

GpuActivityKind activity_kind(const std::string& name) {
  if (name.rfind("Memcpy", 0) == 0) return GpuActivityKind::memcpy;
  if (name.rfind("Memset", 0) == 0) return GpuActivityKind::memset;
  return GpuActivityKind::kernel;
}

class ChakraReader {
 public:
  explicit ChakraReader(std::filesystem::path file) : file_(std::move(file)) {}

  KinetoTrace read() {
    // A message that does not parse is our InputError; libprotobuf's own log line ("String field
    // ... contains invalid UTF-8") would come before it on stderr. Nothing else here logs.
    static const bool silenced = (pb::SetLogHandler(nullptr), true);
    (void)silenced;
    const std::string bytes = read_maybe_gzipped(file_);  // at most kMaxTraceBytes, below INT_MAX
    pb::io::ArrayInputStream raw(bytes.data(), int(bytes.size()));
    pb::io::CodedInputStream in(&raw);
    in.SetTotalBytesLimit(INT_MAX);
    chakra::GlobalMetadata metadata;
    if (!read_message(in, bytes.size(), 0, metadata)) fail("message 0", "a Chakra GlobalMetadata", "no message");
    for (int index = 1;; ++index) {
      chakra::Node node;
      if (!read_message(in, bytes.size(), index, node)) break;
      add_node(node);
    }
    if (gpu_.empty()) fail("", "GPU nodes (attr is_cpu_op = false) with durations", "none: a trace without GPU times");
    return lay_out();
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& expected, const std::string& found) const {
    throw InputError({file_.string(), 0, field, expected, found});
  }

  // The next length-delimited message; false at the end of the file.
  template <typename Message>
  bool read_message(pb::io::CodedInputStream& in, size_t total, int index, Message& message) const {
    if (size_t(in.CurrentPosition()) == total) return false;
    uint32_t length = 0;
    if (!in.ReadVarint32(&length)) fail(fmt::format("message {}", index), "a message length", "the file cut short");
    if (size_t(in.CurrentPosition()) + length > total)
      fail(fmt::format("message {}", index), fmt::format("{} bytes of message", length), "the file cut short");
    const pb::io::CodedInputStream::Limit limit = in.PushLimit(int(length));
    if (!message.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
      fail(fmt::format("message {}", index), fmt::format("a Chakra {}", Message::descriptor()->name()),
           "bytes that do not parse");
    in.PopLimit(limit);
    return true;
  }

  void add_node(const chakra::Node& node) {
    const std::optional<long long> is_cpu = int_attr(node, "is_cpu_op");
    if (!is_cpu || *is_cpu != 0) return;
    GpuActivity a;
    const std::string& full = node.name();
    a.name = full.substr(0, full.find('('));
    a.kind = activity_kind(a.name);
    a.stream = int_attr(node, "tid").value_or(0);
    a.duration_us = double(node.duration_micros());
    a.start_us = double(node.start_time_micros());
    if (node.type() == chakra::COMM_COLL_NODE) a.collective = collective_of(node, a.name);
    gpu_.emplace_back(node.id(), a);
  }

  std::optional<TraceCollective> collective_of(const chakra::Node& node, const std::string& name) const {
    const std::optional<long long> comm_type = int_attr(node, "comm_type");
    std::optional<TraceCollectiveKind> kind = comm_type ? kind_of_comm_type(*comm_type)
                                                        : collective_from_nccl_kernel(name);
    if (!kind) return std::nullopt;
    TraceCollective c;
    c.kind = *kind;
    if (const std::optional<long long> size = int_attr(node, "comm_size"); size && *size >= 0) {
      c.bytes = double(*size);
      c.size_source = SizeSource::chakra_node;
    }
    c.process_group = string_attr(node.attr(), "pg_name");
    c.default_group = is_default_process_group(c.process_group, "");
    return c;
  }

  KinetoTrace lay_out() {
    KinetoTrace out;
    out.file = file_;
    std::stable_sort(gpu_.begin(), gpu_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    out.times_recorded = std::all_of(gpu_.begin(), gpu_.end(), [](const auto& g) { return g.second.start_us > 0; });
    double t = 0;
    for (auto& [id, a] : gpu_) {
      if (!out.times_recorded) a.start_us = t;
      t = a.end_us();
      out.gpu.push_back(a);
    }
    std::stable_sort(out.gpu.begin(), out.gpu.end(),
                     [](const GpuActivity& a, const GpuActivity& b) { return a.start_us < b.start_us; });
    double first = out.gpu.front().start_us, last = first;
    for (GpuActivity& a : out.gpu) {
      last = std::max(last, a.end_us());
      a.launch_us = first;  // every node belongs to the one step
    }
    out.steps.push_back({"iteration", first, last - first});
    return out;
  }

  std::filesystem::path file_;
  std::vector<std::pair<uint64_t, GpuActivity>> gpu_;  // node id, activity
};

}  // namespace

bool is_chakra_file_name(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  return name.ends_with(".et") || name.ends_with(".et.gz");
}

KinetoTrace read_chakra_trace(const std::filesystem::path& file) { return ChakraReader(file).read(); }

}  // namespace dtsim
