#include "recorded_process.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "input_error.hpp"

namespace dtsim::profiler::record {

namespace {

using json = nlohmann::json;
constexpr size_t kMaxLineBytes = 1 << 20;  // a kernel's demangled name is the longest field

std::string describe(const json& v) {
  const std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// One line's object, read strictly: every getter names the line and field when it fails.
class Line {
 public:
  Line(const std::filesystem::path& file, int number, const json& object)
      : file_(file.string()), number_(number), object_(object) {}

  [[noreturn]] void fail(const std::string& field, const std::string& expected, const std::string& found) const {
    throw InputError({file_, number_, field, expected, found});
  }

  const json& at(const char* key) const {
    const auto it = object_.find(key);
    if (it == object_.end()) fail(key, "a value", "nothing");
    return *it;
  }
  std::string text(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) fail(key, "a string", describe(v));
    return v.get<std::string>();
  }
  uint64_t unsigned_number(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
      fail(key, "a whole number >= 0", describe(v));
    return v.get<uint64_t>();
  }
  int64_t integer(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_integer()) fail(key, "a whole number", describe(v));
    return v.get<int64_t>();
  }
  int small_integer(const char* key, int64_t low, int64_t high) const {
    const int64_t v = integer(key);
    if (v < low || v > high) fail(key, "a whole number from " + std::to_string(low) + " to " + std::to_string(high),
                                  std::to_string(v));
    return int(v);
  }
  std::optional<int> optional_rank(const char* key) const {
    const auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return std::nullopt;
    // The launcher's variables are text; a rank is a whole number from 0.
    const std::string s = it->is_string() ? it->get<std::string>() : it->dump();
    if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), ::isdigit))
      fail(key, "a whole number (the launcher's variable) or null", describe(*it));
    return std::stoi(s);
  }
  // start_ns and end_ns, end not before start.
  std::pair<uint64_t, uint64_t> span() const {
    const uint64_t start = unsigned_number("start_ns"), end = unsigned_number("end_ns");
    if (end < start) fail("end_ns", "a time not before start_ns " + std::to_string(start), std::to_string(end));
    return {start, end};
  }

 private:
  std::string file_;
  int number_;
  const json& object_;
};

constexpr int64_t kMaxRanks = 1 << 20;

void read_line(const Line& l, const std::string& type, RecordedProcess& p) {
  if (type == "process") {
    p.pid = long(l.integer("pid"));
    p.host = l.text("host");
    p.rank = l.optional_rank("rank");
    p.world_size = l.optional_rank("world_size");
  } else if (type == "device") {
    RecordedDevice d;
    d.id = l.small_integer("id", 0, 1023);
    d.name = l.text("name");
    d.memory_bytes = double(l.unsigned_number("memory_bytes"));
    p.devices.push_back(d);
  } else if (type == "kernel" || type == "memcpy" || type == "memset") {
    RecordedActivity a;
    a.kind = type == "kernel" ? RecordedActivityKind::kernel
                              : type == "memcpy" ? RecordedActivityKind::memcpy : RecordedActivityKind::memset;
    a.name = l.text("name");
    if (a.kind != RecordedActivityKind::kernel) a.bytes = double(l.unsigned_number("bytes"));
    std::tie(a.start_ns, a.end_ns) = l.span();
    a.device = l.small_integer("device", 0, 1023);
    a.stream = l.integer("stream");
    a.correlation = l.unsigned_number("correlation");
    p.gpu.push_back(a);
  } else if (type == "api") {
    RecordedApiCall c;
    c.name = l.text("name");
    std::tie(c.start_ns, c.end_ns) = l.span();
    c.thread = l.unsigned_number("thread");
    c.correlation = l.unsigned_number("correlation");
    p.api.push_back(c);
  } else if (type == "range") {
    RecordedRange r;
    r.name = l.text("name");
    std::tie(r.start_ns, r.end_ns) = l.span();
    r.thread = l.unsigned_number("thread");
    p.ranges.push_back(r);
  } else if (type == "communicator") {
    RecordedCommunicator c;
    c.comm = l.unsigned_number("comm");
    c.name = l.text("name");
    c.ranks = l.small_integer("ranks", 1, kMaxRanks);
    c.rank = l.small_integer("rank", 0, c.ranks - 1);
    c.nodes = l.small_integer("nodes", 1, kMaxRanks);
    p.communicators.push_back(c);
  } else if (type == "nccl") {
    RecordedNcclCall c;
    c.comm = l.unsigned_number("comm");
    c.group = l.unsigned_number("group");
    c.func = l.text("func");
    c.datatype = l.text("datatype");
    c.count = double(l.unsigned_number("count"));
    c.start_ns = l.unsigned_number("start_ns");
    if (c.func == "Send" || c.func == "Recv") c.peer = l.small_integer("peer", 0, kMaxRanks);
    else c.root = l.small_integer("root", -1, kMaxRanks);
    p.nccl.push_back(c);
  } else if (type == "dropped") {
    p.dropped_records += l.unsigned_number("records");
  } else {
    l.fail("type", "process, device, kernel, memcpy, memset, api, range, communicator, nccl or dropped",
           describe(json(type)));
  }
}

}  // namespace

RecordedProcess read_recorded_process(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError({file.string(), 0, "", "a readable dtsim-profile record process file", "cannot open it"});
  RecordedProcess p;
  p.file = file;
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    if (text.size() > kMaxLineBytes)
      throw InputError({file.string(), number, "", "a line under 1 MiB", std::to_string(text.size()) + " bytes"});
    if (text.empty()) continue;
    const json object = json::parse(text, nullptr, false);
    if (!object.is_object() || !object.contains("type") || !object["type"].is_string())
      throw InputError({file.string(), number, "", "a JSON object with a \"type\" (one record)",
                        object.is_discarded() ? "text that is not JSON (cut off?)" : describe(object)});
    read_line(Line(file, number, object), object["type"].get<std::string>(), p);
  }
  if (number == 0) throw InputError({file.string(), 0, "", "recorded lines", "an empty file"});
  return p;
}

std::vector<std::filesystem::path> recorded_process_files(const std::filesystem::path& recording_dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(recording_dir / "raw", ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.starts_with("process-") && name.ends_with(".jsonl")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace dtsim::profiler::record
