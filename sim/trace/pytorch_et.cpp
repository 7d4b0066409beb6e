#include "pytorch_et.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "input_error.hpp"
#include "json_input.hpp"
#include "size_limits.hpp"

namespace dtsim {

namespace {

using json = nlohmann::json;

bool is_tensor(const json& v) {
  return v.is_array() && v.size() == 6 && v[3].is_number() && v[4].is_number() && v[5].is_string();
}

// A tensor's bytes (elements x bytes per element), or a list of tensors' sum.
std::optional<double> tensor_bytes(const json& v) {
  if (is_tensor(v)) return v[3].get<double>() * v[4].get<double>();
  if (!v.is_array() || v.empty()) return std::nullopt;
  double sum = 0;
  for (const json& t : v) {
    if (!is_tensor(t)) return std::nullopt;
    sum += t[3].get<double>() * t[4].get<double>();
  }
  return sum;
}

// Collectives whose record_param_comms "rank" input is this rank's (a broadcast's is its root).
bool names_own_rank(const std::string& name, std::optional<TraceCollectiveKind> kind) {
  if (name == "wait") return true;
  return kind == TraceCollectiveKind::all_reduce || kind == TraceCollectiveKind::all_gather ||
         kind == TraceCollectiveKind::reduce_scatter || kind == TraceCollectiveKind::all_to_all;
}

class EtReader {
 public:
  EtReader(std::filesystem::path file, const json& root) : file_(std::move(file)), root_(root) {}

  PyTorchEt read() {
    if (!is_pytorch_et(root_) || !root_["nodes"].is_array())
      fail("nodes", "a PyTorch execution trace: an object with schema and a nodes list", describe_json(root_));
    PyTorchEt et;
    et.file = file_;
    et.schema = root_["schema"].is_string() ? root_["schema"].get<std::string>() : root_["schema"].dump();
    const json& nodes = root_["nodes"];
    for (size_t i = 0; i < nodes.size(); ++i) read_node(nodes[i], i, et);
    resolve_groups(et);
    split_into_steps(et);
    return et;
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& expected, const std::string& found) const {
    throw InputError({file_.string(), 0, field, expected, found});
  }

  static std::string name_of(const json& node) {
    const auto it = node.find("name");
    return it != node.end() && it->is_string() ? it->get<std::string>() : "";
  }

  long long id_of(const json& node, size_t i) const {
    const auto it = node.find("id");
    if (it == node.end() || !it->is_number_integer())
      fail(fmt::format("nodes[{}].id", i), "an integer node id", it == node.end() ? "nothing" : describe_json(*it));
    return it->get<long long>();
  }

  // The inputs' values: a list in 1.0.1, inputs.values later.
  const json& inputs_of(const json& node, size_t i) const {
    const auto it = node.find("inputs");
    if (it != node.end() && it->is_array()) return *it;
    if (it != node.end() && it->is_object() && it->contains("values") && (*it)["values"].is_array())
      return (*it)["values"];
    fail(fmt::format("nodes[{}].inputs", i), "a list of input values, or an object with a values list",
         it == node.end() ? "nothing" : describe_json(*it));
  }

  // The value of attribute `name` (schemas after 1.0.1), or nullptr.
  static const json* attr_of(const json& node, const char* name) {
    const auto attrs = node.find("attrs");
    if (attrs == node.end() || !attrs->is_array()) return nullptr;
    for (const json& a : *attrs)
      if (a.is_object() && a.contains("name") && a["name"] == name && a.contains("value")) return &a["value"];
    return nullptr;
  }

  void read_node(const json& node, size_t i, PyTorchEt& et) {
    if (!node.is_object()) fail(fmt::format("nodes[{}]", i), "an object", describe_json(node));
    const std::string name = name_of(node);
    if (name.rfind("ProfilerStep#", 0) == 0) step_starts_.emplace_back(id_of(node, i), name);
    else if (name == "record_param_comms") read_collective(node, i, et);
    else if (name == "## process_group:init ##") read_process_groups(node, i);
  }

  void read_collective(const json& node, size_t i, PyTorchEt& et) {
    const json& values = inputs_of(node, i);
    const auto name_at = std::find_if(values.begin(), values.end(), [](const json& v) { return v.is_string(); });
    if (name_at == values.end())
      fail(fmt::format("nodes[{}].inputs", i), "a collective name (a string) among record_param_comms' inputs",
           describe_json(values));
    const size_t k = size_t(name_at - values.begin());
    const std::string name = name_at->get<std::string>();
    const std::optional<TraceCollectiveKind> kind = collective_from_c10d_name(name);
    if (et.rank < 0 && k >= 1 && values[k - 1].is_number_integer() && names_own_rank(name, kind))
      et.rank = values[k - 1].get<int>();
    if (!kind) return;  // wait, barrier
    TraceCollective c;
    c.kind = *kind;
    if (const std::optional<double> bytes = k >= 4 ? tensor_bytes(values[0]) : std::nullopt) {
      c.bytes = *bytes;
      c.size_source = SizeSource::execution_trace;
    }
    if (const json* pg = attr_of(node, "pg_name"); pg && pg->is_string()) c.process_group = pg->get<std::string>();
    else if (k >= 2 && values[k - 2].is_array() && !values[k - 2].empty() && values[k - 2][0].is_string())
      c.process_group = values[k - 2][0].get<std::string>();
    else if (k >= 2 && values[k - 2].is_number_unsigned())  // 1.0.1: the process group's address
      c.process_group = fmt::format("0x{:x}", values[k - 2].get<unsigned long long>());
    if (const json* size = attr_of(node, "pg_size"); size && size->is_number_integer())
      c.group_size = size->get<int>();
    collectives_.emplace_back(id_of(node, i), c);
  }

  // Its input is a JSON string: [{"pg_name": "0", "pg_desc": "default_pg", "group_size": 2, ...}].
  void read_process_groups(const json& node, size_t i) {
    const json& values = inputs_of(node, i);
    if (values.empty() || !values[0].is_string()) return;
    json groups;
    try {
      groups = json::parse(values[0].get<std::string>());
    } catch (const json::parse_error& e) {
      fail(fmt::format("nodes[{}].inputs[0]", i), "the process groups as a JSON list",
           fmt::format("a JSON syntax error at byte {}", e.byte));
    } catch (const json::exception& e) {  // out_of_range.406: a number beyond a double (1e999)
      fail(fmt::format("nodes[{}].inputs[0]", i), "the process groups as a JSON list with numbers a double holds",
           e.what());
    }
    if (!groups.is_array()) return;
    for (const json& g : groups)
      if (g.is_object() && g.contains("pg_name") && g["pg_name"].is_string() && g.contains("group_size") &&
          g["group_size"].is_number_integer()) {
        group_sizes_[g["pg_name"].get<std::string>()] = g["group_size"].get<int>();
        // Compared as JSON: value("pg_desc", "") would throw a type_error for a pg_desc not a string.
        if (g.contains("pg_desc") && g["pg_desc"] == "default_pg") default_group_ = g["pg_name"].get<std::string>();
      }
  }

  void resolve_groups(PyTorchEt& et) {
    for (auto& [id, c] : collectives_) {
      const auto size = group_sizes_.find(c.process_group);
      if (c.group_size == 0 && size != group_sizes_.end()) c.group_size = size->second;
      c.default_group = default_group_.empty() ? is_default_process_group(c.process_group, "")
                                               : c.process_group == default_group_;
      if (c.process_group == default_group_) et.world_size = std::max(et.world_size, c.group_size);
    }
    if (const auto size = group_sizes_.find(default_group_); size != group_sizes_.end())
      et.world_size = std::max(et.world_size, size->second);
    // A replay simulates every rank of the world: bounded as any scenario's GPU count.
    if (et.world_size > kMaxGpus)
      fail("process group size", fmt::format("1 to {} ranks", kMaxGpus), std::to_string(et.world_size));
  }

  void split_into_steps(PyTorchEt& et) {
    std::sort(step_starts_.begin(), step_starts_.end());
    std::stable_sort(collectives_.begin(), collectives_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (step_starts_.empty()) {
      et.steps.push_back({"", {}});
      for (const auto& [id, c] : collectives_) et.steps.back().collectives.push_back(c);
      return;
    }
    for (const auto& [id, name] : step_starts_) et.steps.push_back({name, {}});
    for (const auto& [id, c] : collectives_) {
      // The last step that began at or before the collective; none before the first step.
      const auto after = std::upper_bound(step_starts_.begin(), step_starts_.end(), std::make_pair(id, std::string()),
                                          [](const auto& a, const auto& b) { return a.first < b.first; });
      if (after != step_starts_.begin()) et.steps[size_t(after - step_starts_.begin()) - 1].collectives.push_back(c);
    }
  }

  std::filesystem::path file_;
  const json& root_;
  std::vector<std::pair<long long, std::string>> step_starts_;    // node id, ProfilerStep#N
  std::vector<std::pair<long long, TraceCollective>> collectives_;  // node id, collective
  std::map<std::string, int> group_sizes_;                          // pg_name -> ranks
  std::string default_group_ = "0";
};

}  // namespace

bool is_pytorch_et(const nlohmann::json& root) {
  return root.is_object() && root.contains("schema") && root.contains("nodes");
}

PyTorchEt pytorch_et_from_json(const std::filesystem::path& file, const nlohmann::json& root) {
  return EtReader(file, root).read();
}

}  // namespace dtsim
