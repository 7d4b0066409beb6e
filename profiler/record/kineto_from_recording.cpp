#include "kineto_from_recording.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <utility>

namespace dtsim::profiler::record {

namespace {

using json = nlohmann::json;

double us(uint64_t ns) { return double(ns) * 1e-3; }
double duration_us(uint64_t start_ns, uint64_t end_ns) { return double(end_ns - start_ns) * 1e-3; }

// The NCCL calls of one group on one communicator: NCCL runs them in one kernel.
struct Launch {
  uint64_t comm = 0;
  std::string func;             // of the first call
  std::vector<const RecordedNcclCall*> calls;
  uint64_t start_ns = 0;        // the first call's
  nlohmann::json args;          // collective_args(): what its kernel is given
};

const std::pair<const char*, double> kNcclTypes[] = {
    {"ncclInt8", 1},    {"ncclChar", 1},     {"ncclUint8", 1},   {"ncclInt32", 4},        {"ncclInt", 4},
    {"ncclUint32", 4},  {"ncclInt64", 8},    {"ncclUint64", 8},  {"ncclFloat16", 2},      {"ncclHalf", 2},
    {"ncclFloat32", 4}, {"ncclFloat", 4},    {"ncclFloat64", 8}, {"ncclDouble", 8},       {"ncclBfloat16", 2},
    {"ncclFloat8e4m3", 1}, {"ncclFloat8e5m2", 1}};

// A PyTorch scalar type name of the same element size, for the trace's "dtype".
const char* torch_dtype(double element_bytes) {
  if (element_bytes == 1) return "Byte";
  if (element_bytes == 2) return "BFloat16";
  if (element_bytes == 8) return "Double";
  return "Float";
}

// c10d's name of an NCCL collective, as record_param_comms writes it.
std::string c10d_name(const std::string& func) {
  if (func == "AllReduce") return "allreduce";
  if (func == "AllGather") return "allgather";
  if (func == "ReduceScatter") return "reduce_scatter";
  if (func == "Broadcast") return "broadcast";
  if (func == "Reduce") return "reduce";
  return func;
}

bool is_p2p(const std::string& func) { return func == "Send" || func == "Recv"; }

std::map<uint64_t, const RecordedCommunicator*> communicators_by_hash(const RecordedProcess& p) {
  std::map<uint64_t, const RecordedCommunicator*> out;
  for (const RecordedCommunicator& c : p.communicators) out[c.comm] = &c;
  return out;
}

std::vector<Launch> launches_of(const RecordedProcess& p) {
  std::vector<const RecordedNcclCall*> calls;
  for (const RecordedNcclCall& c : p.nccl) calls.push_back(&c);
  std::stable_sort(calls.begin(), calls.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
  std::vector<Launch> launches;
  std::map<std::pair<uint64_t, uint64_t>, size_t> open;  // (group, comm) -> launch
  for (const RecordedNcclCall* c : calls) {
    const auto key = std::make_pair(c->group, c->comm);
    const auto it = c->group != 0 ? open.find(key) : open.end();
    if (it != open.end()) {
      launches[it->second].calls.push_back(c);
      continue;
    }
    open[key] = launches.size();
    launches.push_back({c->comm, c->func, {c}, c->start_ns, {}});
  }
  return launches;
}

// The collective's fields for the kernel's args (PyTorch's record_param_comms names).
json collective_args(const Launch& l, const RecordedCommunicator* comm) {
  const int ranks = comm ? comm->ranks : 1;
  double send_bytes = 0, recv_bytes = 0, bytes = 0;
  std::set<int> send_peers;
  for (const RecordedNcclCall* c : l.calls) {
    const double b = c->count * nccl_datatype_bytes(c->datatype);
    if (c->func == "Send") send_bytes += b, send_peers.insert(c->peer);
    else if (c->func == "Recv") recv_bytes += b;
    else if (c->func == l.func) bytes += c->func == "ReduceScatter" ? b * ranks : b;  // input: every rank's part
  }
  std::string name = c10d_name(l.func);
  if (is_p2p(l.func)) {
    const bool all_peers = ranks > 1 && int(send_peers.size()) == ranks;
    name = all_peers ? "all_to_all" : send_bytes > 0 ? "send" : "recv";
    bytes = send_bytes > 0 ? send_bytes : recv_bytes;
  }
  const double element = nccl_datatype_bytes(l.calls.front()->datatype);
  json args = {{"Collective name", name}, {"Group size", ranks}, {"dtsim_nccl_calls", l.calls.size()}};
  if (element > 0) {
    args["In msg nelems"] = bytes / element;
    args["dtype"] = torch_dtype(element);
  }
  char hash[24];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(l.comm));
  args["Process Group Name"] = comm && !comm->name.empty() ? comm->name : hash;
  return args;
}

// CUPTI gives a kernel's mangled name ("_Z39ncclDevKernel_AllReduce_..."); Kineto writes it
// demangled, and so do these traces.
std::string demangled(const std::string& name) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                     std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

bool is_nccl_kernel(const std::string& name) {
  return name.starts_with("nccl") && name.find("Kernel_") != std::string::npos;
}

// "AllReduce" of "ncclDevKernel_AllReduce_Sum_f32_RING_LL": the word after the first '_'.
std::string kernel_func(const std::string& name) {
  const size_t start = name.find('_') + 1;
  const size_t end = name.find_first_of("_(", start);
  return name.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

bool fits(const std::string& kernel_word, const Launch& l) {
  static const std::set<std::string> known = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast",
                                              "Reduce",    "SendRecv",  "Send",          "Recv"};
  if (!known.count(kernel_word)) return true;  // a kernel naming this converter does not know: order alone
  if (is_p2p(l.func)) return kernel_word == "SendRecv" || kernel_word == "Send" || kernel_word == "Recv";
  return kernel_word == l.func;
}

// NCCL kernels in launch (correlation) order against the launches in call order: each kernel
// takes the next launch of its kind within a few, so that a call the plugin missed (or a kernel
// CUPTI dropped) costs one pairing, not every later one.
std::map<const RecordedActivity*, const Launch*> pair_kernels(
    const std::vector<const RecordedActivity*>& kernels, const std::vector<Launch>& launches,
    const std::map<const RecordedActivity*, std::string>& names) {
  constexpr size_t kWindow = 4;
  std::map<const RecordedActivity*, const Launch*> out;
  size_t next = 0;
  for (const RecordedActivity* k : kernels) {
    const std::string word = kernel_func(names.at(k));
    for (size_t j = next; j < launches.size() && j < next + kWindow; ++j) {
      if (!fits(word, launches[j])) continue;
      out[k] = &launches[j];
      next = j + 1;
      break;
    }
  }
  return out;
}

struct Step {
  std::string name;
  uint64_t start_ns = 0, end_ns = 0;
};

std::vector<Step> steps_from_ranges(const RecordedProcess& p, const std::string& step_range) {
  std::vector<const RecordedRange*> marked;
  for (const RecordedRange& r : p.ranges)
    if (step_range.empty() ? r.name.starts_with("ProfilerStep#") : r.name == step_range) marked.push_back(&r);
  std::sort(marked.begin(), marked.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
  std::vector<Step> steps;
  for (const RecordedRange* r : marked)
    steps.push_back({step_range.empty() ? r->name : "ProfilerStep#" + std::to_string(steps.size()), r->start_ns,
                     r->end_ns});
  return steps;
}

// The steps of a job that marks none: the run of launches (communicator, collective, bytes) that
// repeats over the most of the end of the recording (the shortest such run on a tie, so neither a
// bucket size that happens to recur nor twice the period is taken); a step runs from the first
// call of one repetition to the first call of the next. Steps are numbered by launch index over
// the period: the same on every rank of an SPMD job. Only the last kMaxLaunches launches are
// searched (the search is quadratic).
std::vector<Step> steps_from_period(const std::vector<Launch>& launches, size_t& period) {
  constexpr size_t kMaxLaunches = 4096;
  const size_t n = launches.size(), low = n > kMaxLaunches ? n - kMaxLaunches : 0;
  auto same = [&](size_t a, size_t b, size_t len) {
    for (size_t i = 0; i < len; ++i) {
      const Launch &x = launches[a + i], &y = launches[b + i];
      if (x.comm != y.comm || x.args != y.args) return false;
    }
    return true;
  };
  period = 0;
  size_t first = n;  // the first launch of the earliest repetition of the chosen period
  for (size_t p = 1; low + 2 * p <= n; ++p) {
    if (!same(n - 2 * p, n - p, p)) continue;
    size_t f = n - 2 * p;
    while (f >= low + p && same(f - p, n - p, p)) f -= p;
    if (f < first) first = f, period = p;
  }
  std::vector<Step> steps;
  for (size_t s = first; period > 0 && s + period < n; s += period)
    steps.push_back({"ProfilerStep#" + std::to_string(s / period), launches[s].start_ns,
                     launches[s + period].start_ns});
  return steps;
}

std::pair<uint64_t, uint64_t> recording_span(const RecordedProcess& p) {
  uint64_t first = std::numeric_limits<uint64_t>::max(), last = 0;
  for (const RecordedActivity& a : p.gpu) first = std::min(first, a.start_ns), last = std::max(last, a.end_ns);
  for (const RecordedApiCall& c : p.api) first = std::min(first, c.start_ns), last = std::max(last, c.end_ns);
  return {first, std::max(first, last)};
}

const char* category(RecordedActivityKind k) {
  return k == RecordedActivityKind::kernel ? "kernel" : k == RecordedActivityKind::memcpy ? "gpu_memcpy" : "gpu_memset";
}

}  // namespace

double nccl_datatype_bytes(const std::string& datatype) {
  for (const auto& [name, bytes] : kNcclTypes)
    if (datatype == name) return bytes;
  return 0;
}

ConvertedRecording kineto_from_recording(const RecordedProcess& p, const ConversionOptions& options) {
  ConvertedRecording out;
  const auto comms = communicators_by_hash(p);
  const RecordedCommunicator* world = nullptr;  // the largest communicator: the job's world
  for (const RecordedCommunicator& c : p.communicators)
    if (!world || c.ranks > world->ranks) world = &c;
  out.rank = p.rank ? *p.rank : world ? world->rank : 0;
  out.world_size = p.world_size ? *p.world_size : world ? world->ranks : 1;

  std::vector<Launch> launches = launches_of(p);
  for (Launch& l : launches) {
    const auto comm = comms.find(l.comm);
    l.args = collective_args(l, comm == comms.end() ? nullptr : comm->second);
  }
  out.nccl_launches = launches.size();
  std::map<const RecordedActivity*, std::string> names;  // kernels' demangled names
  std::vector<const RecordedActivity*> nccl_kernels;
  for (const RecordedActivity& a : p.gpu) {
    if (a.kind != RecordedActivityKind::kernel) continue;
    const std::string& name = names[&a] = demangled(a.name);
    if (is_nccl_kernel(name)) nccl_kernels.push_back(&a);
  }
  std::stable_sort(nccl_kernels.begin(), nccl_kernels.end(),
                   [](auto* a, auto* b) { return a->correlation < b->correlation; });
  out.nccl_kernels = nccl_kernels.size();
  const auto paired = pair_kernels(nccl_kernels, launches, names);
  out.matched = paired.size();

  json events = json::array();
  std::set<uint64_t> launched;  // correlation ids of recorded GPU activities
  for (const RecordedActivity& a : p.gpu) {
    json args = {{"device", a.device}, {"stream", a.stream}, {"correlation", a.correlation}};
    if (a.kind != RecordedActivityKind::kernel) args["bytes"] = a.bytes;
    if (const auto it = paired.find(&a); it != paired.end()) args.update(it->second->args);
    const auto name = names.find(&a);
    events.push_back({{"ph", "X"}, {"cat", category(a.kind)}, {"name", name != names.end() ? name->second : a.name},
                      {"pid", a.device}, {"tid", a.stream}, {"ts", us(a.start_ns)},
                      {"dur", duration_us(a.start_ns, a.end_ns)}, {"args", args}});
    launched.insert(a.correlation);
  }
  out.gpu_activities = p.gpu.size();
  for (const RecordedApiCall& c : p.api) {
    if (!launched.count(c.correlation)) continue;
    const bool runtime = c.name.starts_with("cuda");
    events.push_back({{"ph", "X"}, {"cat", runtime ? "cuda_runtime" : "cuda_driver"}, {"name", c.name},
                      {"pid", p.pid}, {"tid", c.thread}, {"ts", us(c.start_ns)},
                      {"dur", duration_us(c.start_ns, c.end_ns)}, {"args", {{"correlation", c.correlation}}}});
  }

  std::vector<Step> steps = steps_from_ranges(p, options.step_range);
  if (!steps.empty()) {
    out.steps_from = options.step_range.empty() ? "NVTX ranges ProfilerStep#N"
                                                : "NVTX ranges '" + options.step_range + "'";
  } else {
    size_t period = 0;
    steps = steps_from_period(launches, period);
    if (!steps.empty()) out.steps_from = "the NCCL calls, which repeat every " + std::to_string(period) + " launches";
  }
  if (steps.empty() && !p.gpu.empty()) {
    const auto [first, last] = recording_span(p);
    steps.push_back({"ProfilerStep#0", first, last});
    out.steps_from = "the whole recording (no step ranges, no repeating NCCL calls)";
  }
  for (const RecordedRange& r : p.ranges)
    if (!r.name.starts_with("ProfilerStep#"))  // the steps are written below, under their step names
      events.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", r.name}, {"pid", p.pid},
                        {"tid", r.thread}, {"ts", us(r.start_ns)}, {"dur", duration_us(r.start_ns, r.end_ns)}});
  for (const Step& s : steps)
    events.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", s.name}, {"pid", p.pid}, {"tid", 0},
                      {"ts", us(s.start_ns)}, {"dur", duration_us(s.start_ns, s.end_ns)}});
  out.steps = steps.size();

  json devices = json::array();
  for (const RecordedDevice& d : p.devices)
    devices.push_back({{"id", d.id}, {"name", d.name}, {"totalGlobalMem", d.memory_bytes}});
  out.trace = {{"schemaVersion", 1},
               {"distributedInfo", {{"backend", "nccl"}, {"rank", out.rank}, {"world_size", out.world_size}}},
               {"deviceProperties", devices},
               {"dtsim_recording",
                {{"source", p.file.string()}, {"host", p.host}, {"pid", p.pid}, {"steps_from", out.steps_from},
                 {"nccl_launches", out.nccl_launches}, {"nccl_kernels", out.nccl_kernels},
                 {"nccl_kernels_sized", out.matched}, {"dropped_records", p.dropped_records}}},
               {"traceEvents", events}};
  return out;
}

}  // namespace dtsim::profiler::record
