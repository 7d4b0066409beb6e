#include "kineto_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "input_error.hpp"
#include "json_input.hpp"
#include "size_limits.hpp"
#include "trace_json.hpp"

namespace dtsim {

namespace {

using json = nlohmann::json;

// A CPU-side op that may launch a collective: record_param_comms, a "nccl:*" annotation or a
// "c10d::*" op, on one thread.
struct CommOp {
  double start_us = 0, duration_us = 0;
  const json* event = nullptr;
  bool contains(double t) const { return t >= start_us && t <= start_us + duration_us; }
};

using ThreadKey = std::pair<std::string, std::string>;  // pid, tid as written (numbers or strings)

// A kernel's name without its parameter list, the parenthesized group it ends with
// ("void (anonymous namespace)::f<int>(float*, int)" -> "void (anonymous namespace)::f<int>").
std::string without_parameters(const std::string& name) {
  if (name.empty() || name.back() != ')') return name;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    else if (name[i] == '(' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

// A trace without ProfilerStep annotations is one step: from its first launch to the end of its
// last GPU work.
TraceStep whole_trace_step(const std::vector<GpuActivity>& gpu) {
  double first = gpu.front().launch_us, last = gpu.front().end_us();
  for (const GpuActivity& a : gpu) {
    first = std::min(first, a.launch_us);
    last = std::max({last, a.end_us(), a.launch_us});
  }
  return {kWholeTraceStep, first, last - first};
}

class Reader {
 public:
  explicit Reader(std::filesystem::path file) : file_(std::move(file)) {}

  KinetoTrace read() {
    return read(read_trace_json(file_, "Kineto trace JSON"));
  }

  KinetoTrace read(const json& root) {
    if (!root.is_object() || !root.contains("traceEvents") || !root["traceEvents"].is_array()) {
      const bool has_field = root.is_object() && root.contains("traceEvents");
      fail("traceEvents", "a JSON object with a traceEvents list (a PyTorch profiler trace)",
           has_field ? describe_json(root["traceEvents"]) : describe_json(root));
    }
    KinetoTrace trace;
    trace.file = file_;
    read_distributed_info(root, trace);
    const json& events = root["traceEvents"];
    for (size_t i = 0; i < events.size(); ++i) collect(events[i], i, trace);
    for (size_t i = 0; i < gpu_events_.size(); ++i) trace.gpu.push_back(activity_of(*gpu_events_[i], gpu_index_[i]));
    std::sort(trace.steps.begin(), trace.steps.end(),
              [](const TraceStep& a, const TraceStep& b) { return a.start_us < b.start_us; });
    std::stable_sort(trace.gpu.begin(), trace.gpu.end(),
                     [](const GpuActivity& a, const GpuActivity& b) { return a.start_us < b.start_us; });
    if (trace.steps.empty() && !trace.gpu.empty()) trace.steps.push_back(whole_trace_step(trace.gpu));
    if (const json* device = device_properties(root)) {
      trace.gpu_name = text_of(*device, "name");
      if (device->contains("totalGlobalMem") && (*device)["totalGlobalMem"].is_number())
        trace.gpu_memory_bytes = (*device)["totalGlobalMem"].get<double>();
    }
    return trace;
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& expected, const std::string& found) const {
    throw InputError({file_.string(), 0, field, expected, found});
  }

  double number(const json& e, size_t i, const char* key) const {
    const auto it = e.find(key);
    if (it == e.end() || !it->is_number())
      fail(fmt::format("traceEvents[{}].{}", i, key), "a number of microseconds",
           it == e.end() ? "nothing" : describe_json(*it));
    return it->get<double>();
  }

  // An event's args, or an empty object when it has none (or they are not an object).
  const json& args_of(const json& e) const {
    const auto it = e.find("args");
    return it != e.end() && it->is_object() ? *it : empty_;
  }

  // The launch (time, thread) of the GPU event with these args, through its correlation id.
  const std::pair<double, ThreadKey>* launch_of(const json& args) const {
    if (!args.contains("correlation")) return nullptr;
    const auto launch = launches_.find(args["correlation"].dump());
    return launch == launches_.end() ? nullptr : &launch->second;
  }

  static std::string text_of(const json& e, const char* key) {
    const auto it = e.find(key);
    if (it == e.end()) return "";
    return it->is_string() ? it->get<std::string>() : it->dump();
  }

  void read_distributed_info(const json& root, KinetoTrace& trace) const {
    const auto info = root.find("distributedInfo");
    if (info == root.end() || !info->is_object()) return;
    if (info->contains("rank") && (*info)["rank"].is_number_integer()) trace.rank = (*info)["rank"].get<int>();
    if (info->contains("world_size") && (*info)["world_size"].is_number_integer()) {
      // A replay simulates every rank of the world: bounded as any scenario's GPU count.
      const long long world = (*info)["world_size"].get<long long>();
      if (world < 1 || world > kMaxGpus)
        fail("distributedInfo.world_size", fmt::format("1 to {} ranks", kMaxGpus), std::to_string(world));
      trace.world_size = int(world);
    }
  }

  void collect(const json& e, size_t i, KinetoTrace& trace) {
    if (!e.is_object() || text_of(e, "ph") != "X") return;
    const std::string cat = text_of(e, "cat"), name = text_of(e, "name");
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      gpu_events_.push_back(&e);
      gpu_index_.push_back(i);
      return;
    }
    if ((cat == "user_annotation" || cat == "cpu_instant_event") && name.rfind("ProfilerStep#", 0) == 0) {
      trace.steps.push_back({name, number(e, i, "ts"), number(e, i, "dur")});
      return;
    }
    const json& args = args_of(e);
    if ((cat == "cuda_runtime" || cat == "cuda_driver") && args.contains("correlation")) {
      launches_[args["correlation"].dump()] = {number(e, i, "ts"), {text_of(e, "pid"), text_of(e, "tid")}};
      return;
    }
    const bool symmetric_memory = collective_from_symmetric_memory_op(name).has_value();
    const bool comm = name == "record_param_comms" || name.rfind("nccl:", 0) == 0 || name.rfind("c10d::", 0) == 0 ||
                      symmetric_memory;
    if (comm && (cat == "cpu_op" || cat == "user_annotation")) {
      comm_ops_[{text_of(e, "pid"), text_of(e, "tid")}].push_back({number(e, i, "ts"), number(e, i, "dur"), &e});
      has_symmetric_memory_ops_ = has_symmetric_memory_ops_ || symmetric_memory;
    }
  }

  // The kernel's collective from its own args, else from the ops around its launch.
  std::optional<TraceCollective> collective_of(const std::string& name, const json& args) const {
    const std::optional<TraceCollectiveKind> from_name = collective_from_nccl_kernel(name);
    if (!from_name) return symmetric_memory_collective(name, args);
    TraceCollective c;
    c.kind = *from_name;
    if (args.contains("Collective name")) {
      fill_from_comms_args(args, c, SizeSource::kernel_args);
      if (c.process_group.empty()) add_group_from_launch(args, c);
      return c;
    }
    const std::vector<const CommOp*> around = ops_around_launch(args);
    for (const CommOp* op : around) {  // innermost first
      const std::string op_name = text_of(*op->event, "name");
      const json& op_args = args_of(*op->event);
      if (op_name == "record_param_comms") {
        if (op_args.contains("Collective name")) fill_from_comms_args(op_args, c, SizeSource::launching_op);
        else fill_from_input_dims(op_args, c);
      } else if (const auto kind = collective_from_c10d_name(op_name.substr(op_name.find(':') + 1))) {
        if (c.kind == TraceCollectiveKind::send_recv) c.kind = *kind;  // SendRecv kernels run all-to-alls
        // A "nccl:*" annotation records the flattened size where record_param_comms has a TensorList.
        if (c.size_source == SizeSource::unknown) fill_from_input_dims(op_args, c);
      }
    }
    return c;
  }

  // A kernel launched inside a symmetric-memory collective op, when its name says that collective:
  // the op's first input is the tensor reduced or gathered.
  std::optional<TraceCollective> symmetric_memory_collective(const std::string& kernel, const json& args) const {
    if (!has_symmetric_memory_ops_) return std::nullopt;
    for (const CommOp* op : ops_around_launch(args)) {
      const auto kind = collective_from_symmetric_memory_op(text_of(*op->event, "name"));
      if (!kind || !kernel_names_collective(kernel, *kind)) continue;
      TraceCollective c;
      c.kind = *kind;
      fill_from_input_dims(args_of(*op->event), c);
      return c;
    }
    return std::nullopt;
  }

  void fill_from_comms_args(const json& args, TraceCollective& c, SizeSource source) const {
    if (const auto kind = collective_from_c10d_name(text_of(args, "Collective name"))) c.kind = *kind;
    const std::optional<double> element = dtype_bytes(text_of(args, "dtype"));
    if (element && args.contains("In msg nelems") && args["In msg nelems"].is_number()) {
      c.bytes = args["In msg nelems"].get<double>() * *element;
      c.size_source = source;
    }
    if (args.contains("Group size") && args["Group size"].is_number_integer())
      c.group_size = args["Group size"].get<int>();
    if (args.contains("Process Group Name")) set_group(args, c);
  }

  static void set_group(const json& args, TraceCollective& c) {
    c.process_group = text_of(args, "Process Group Name");
    c.default_group = is_default_process_group(c.process_group, text_of(args, "Process Group Description"));
  }

  // Up to 2023: the op's first input's dims and type, unless it is a TensorList (not recorded).
  static void fill_from_input_dims(const json& args, TraceCollective& c) {
    if (!args.contains("Input Dims") || !args["Input Dims"].is_array() || args["Input Dims"].empty()) return;
    const json& dims = args["Input Dims"][0];
    const std::string type =
        args.contains("Input type") && args["Input type"].is_array() && !args["Input type"].empty() &&
                args["Input type"][0].is_string()
            ? args["Input type"][0].get<std::string>()
            : "";
    const std::optional<double> element = dtype_bytes(type);
    if (!dims.is_array() || dims.empty() || !element) return;
    double elements = 1;
    for (const json& d : dims) {
      if (!d.is_number()) return;
      elements *= d.get<double>();
    }
    c.bytes = elements * *element;
    c.size_source = SizeSource::launching_op;
  }

  void add_group_from_launch(const json& args, TraceCollective& c) const {
    for (const CommOp* op : ops_around_launch(args)) {
      const json& op_args = args_of(*op->event);
      if (op_args.contains("Process Group Name")) {
        set_group(op_args, c);
        if (c.group_size == 0 && op_args.contains("Group size") && op_args["Group size"].is_number_integer())
          c.group_size = op_args["Group size"].get<int>();
        return;
      }
    }
  }

  // The comm ops on the launching thread that contain the launch, innermost (shortest) first.
  std::vector<const CommOp*> ops_around_launch(const json& args) const {
    std::vector<const CommOp*> out;
    const auto* launch = launch_of(args);
    if (!launch) return out;
    const auto ops = comm_ops_.find(launch->second);
    if (ops == comm_ops_.end()) return out;
    for (const CommOp& op : ops->second)
      if (op.contains(launch->first)) out.push_back(&op);
    std::sort(out.begin(), out.end(), [](const CommOp* a, const CommOp* b) { return a->duration_us < b->duration_us; });
    return out;
  }

  GpuActivity activity_of(const json& e, size_t i) const {
    GpuActivity a;
    const std::string full = text_of(e, "name");
    a.name = without_parameters(full);
    const std::string cat = text_of(e, "cat");
    a.kind = cat == "kernel" ? GpuActivityKind::kernel : cat == "gpu_memcpy" ? GpuActivityKind::memcpy
                                                                            : GpuActivityKind::memset;
    a.start_us = number(e, i, "ts");
    a.duration_us = number(e, i, "dur");
    const json& args = args_of(e);
    if (args.contains("stream") && args["stream"].is_number_integer()) a.stream = args["stream"].get<long>();
    else if (e.contains("tid") && e["tid"].is_number_integer()) a.stream = e["tid"].get<long>();
    if (a.kind == GpuActivityKind::kernel) a.collective = collective_of(a.name, args);
    const auto* launch = launch_of(args);
    a.launch_us = launch ? launch->first : a.start_us;
    return a;
  }

  // The deviceProperties entry of the device the GPU events ran on, or nullptr.
  const json* device_properties(const json& root) const {
    const auto props = root.find("deviceProperties");
    if (props == root.end() || !props->is_array() || gpu_events_.empty()) return nullptr;
    const json& args = args_of(*gpu_events_.front());
    const long device = args.contains("device") && args["device"].is_number_integer() ? args["device"].get<long>() : 0;
    for (const json& p : *props)
      if (p.is_object() && p.contains("id") && p["id"].is_number_integer() && p["id"].get<long>() == device)
        return &p;
    return nullptr;
  }

  std::filesystem::path file_;
  const json empty_ = json::object();
  std::vector<const json*> gpu_events_;
  std::vector<size_t> gpu_index_;
  std::map<std::string, std::pair<double, ThreadKey>> launches_;  // correlation -> launch time, thread
  std::map<ThreadKey, std::vector<CommOp>> comm_ops_;
  bool has_symmetric_memory_ops_ = false;
};

}  // namespace

const char* to_string(SizeSource s) {
  switch (s) {
    case SizeSource::kernel_args: return "kernel args";
    case SizeSource::launching_op: return "launching op";
    case SizeSource::execution_trace: return "PyTorch ET";
    case SizeSource::chakra_node: return "Chakra node";
    case SizeSource::unknown: return "unknown";
  }
  return "?";
}

bool is_default_process_group(const std::string& name, const std::string& description) {
  if (!description.empty() && description != "undefined") return description == "default_pg";
  return name == "0";
}

KinetoTrace read_kineto_trace(const std::filesystem::path& file) { return Reader(file).read(); }

bool is_kineto_trace(const nlohmann::json& root) { return root.is_object() && root.contains("traceEvents"); }

KinetoTrace kineto_trace_from_json(const std::filesystem::path& file, const nlohmann::json& root) {
  return Reader(file).read(root);
}

}  // namespace dtsim
