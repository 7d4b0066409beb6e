#include "yaml_fields.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "input_file.hpp"

namespace dtsim {

YAML::Node YamlFields::load() const {
  const std::string text = read_input_file(file_);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError({file_.string(), e.mark.line + 1, "", "valid YAML", e.msg});
  }
  check_tree(root);
  return root;
}

void YamlFields::check_tree(const YAML::Node& root) const {
  size_t visited = 0;
  check_node(root, "", visited);
}

// Aliases are references, so a file of a few lines can stand for a tree of billions of values
// (aliases of aliases); `visited` counts values with aliases expanded and stops at
// kMaxYamlValues, far beyond any real input.
void YamlFields::check_node(const YAML::Node& node, const std::string& path, size_t& visited) const {
  if (++visited > kMaxYamlValues)
    fail(node, path.empty() ? "<top>" : path, fmt::format("a file of at most {} values (aliases expanded)", kMaxYamlValues),
         "more");
  if (!node.IsMap() && !node.IsSequence()) return;
  if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      const YAML::Node item = node[i];
      const std::string at = fmt::format("{}[{}]", path.empty() ? "<top>" : path, i);
      if (item.IsNull() && nulls_ == NullValues::rejected) fail(item, at, "a value", "null");
      check_node(item, at, visited);
    }
    return;
  }
  std::set<std::string> keys;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) fail(kv.first, path.empty() ? "<top>" : path, "keys that are plain names", describe(kv.first));
    const std::string at = join(path, kv.first.Scalar());
    if (!keys.insert(kv.first.Scalar()).second)
      fail(kv.first, at, "each key once per mapping", fmt::format("'{}' a second time", kv.first.Scalar()));
    if (kv.second.IsNull() && nulls_ == NullValues::rejected)
      fail(kv.first, at, "a value (leave the key out to use the default)", "null");
    check_node(kv.second, at, visited);
  }
}

void YamlFields::fail(const YAML::Node& at, const std::string& field, const std::string& expected,
                      const std::string& found) const {
  throw InputError({file_.string(), at.IsDefined() ? line_of(at) : 0, field, expected, found});
}

namespace {
// yaml-cpp tags a quoted scalar "!" and a plain one "?".
bool is_plain_scalar(const YAML::Node& n) { return n.IsScalar() && n.Tag() != "!"; }
}  // namespace

std::string YamlFields::describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  return "'" + n.Scalar() + (is_plain_scalar(n) ? "'" : "' (quoted: a string)");
}

bool YamlFields::decode_number(const YAML::Node& n, double& value) {
  return is_plain_scalar(n) && YAML::convert<double>::decode(n, value) && std::isfinite(value);
}

bool YamlFields::decode_integer(const YAML::Node& n, long long& value) {
  return is_plain_scalar(n) && YAML::convert<long long>::decode(n, value);
}

void YamlFields::require_map(const YAML::Node& map, const std::string& path) const {
  if (!map.IsMap()) fail(map, path.empty() ? "<top>" : path, "a mapping", describe(map));
}

void YamlFields::require_list(const YAML::Node& list, const std::string& path, const std::string& expected) const {
  if (!list.IsSequence()) fail(list, path, expected, describe(list));
}

void YamlFields::require_known_keys(const YAML::Node& map, const std::string& path,
                                    const std::set<std::string>& allowed) const {
  require_map(map, path);
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (!allowed.count(key))
      fail(kv.first, join(path, key), fmt::format("one of the keys [{}]", fmt::join(allowed, ", ")),
           fmt::format("unknown key '{}'", key));
  }
}

bool YamlFields::has(const YAML::Node& map, const std::string& key) const {
  return map.IsMap() && map[key].IsDefined() && !map[key].IsNull();
}

const YAML::Node YamlFields::child(const YAML::Node& map, const std::string& path, const std::string& key) const {
  if (!has(map, key)) fail(map, join(path, key), "a value (this field is required)", "nothing");
  return map[key];
}

int YamlFields::positive_int(const YAML::Node& map, const std::string& path, const std::string& key) const {
  return int_in(map, path, key, 1, 1'000'000'000, "a positive integer");
}

int YamlFields::non_negative_int(const YAML::Node& map, const std::string& path, const std::string& key) const {
  return int_in(map, path, key, 0, 1'000'000'000, "an integer >= 0");
}

int YamlFields::positive_int_or(const YAML::Node& map, const std::string& path, const std::string& key,
                                int fallback) const {
  return has(map, key) ? positive_int(map, path, key) : fallback;
}

double YamlFields::positive_number(const YAML::Node& map, const std::string& path, const std::string& key) const {
  const double v = non_negative_number(map, path, key);
  if (v <= 0) fail(map[key], join(path, key), "a number > 0", describe(map[key]));
  return v;
}

double YamlFields::number_in(const YAML::Node& map, const std::string& path, const std::string& key, double low,
                             double high, const std::string& expected) const {
  const YAML::Node n = child(map, path, key);
  double v = 0;
  if (!decode_number(n, v) || v < low || v > high)
    fail(n, join(path, key), expected.empty() ? fmt::format("a number in [{:g}, {:g}]", low, high) : expected,
         describe(n));
  return v;
}

int YamlFields::int_in(const YAML::Node& map, const std::string& path, const std::string& key, int low, int high,
                       const std::string& expected) const {
  const YAML::Node n = child(map, path, key);
  long long v = 0;
  if (!decode_integer(n, v) || v < low || v > high)
    fail(n, join(path, key), expected.empty() ? fmt::format("an integer in [{}, {}]", low, high) : expected,
         describe(n));
  return int(v);
}

double YamlFields::non_negative_number(const YAML::Node& map, const std::string& path,
                                       const std::string& key) const {
  return number_in(map, path, key, 0, std::numeric_limits<double>::max(), "a number >= 0");
}

std::string YamlFields::string(const YAML::Node& map, const std::string& path, const std::string& key) const {
  const YAML::Node n = child(map, path, key);
  if (!n.IsScalar()) fail(n, join(path, key), "a string", describe(n));
  return n.Scalar();
}

bool YamlFields::boolean_or(const YAML::Node& map, const std::string& path, const std::string& key,
                            bool fallback) const {
  if (!has(map, key)) return fallback;
  const YAML::Node n = map[key];
  bool value = false;
  if (!is_plain_scalar(n) || !YAML::convert<bool>::decode(n, value)) fail(n, join(path, key), "true or false", describe(n));
  return value;
}

std::string YamlFields::string_or(const YAML::Node& map, const std::string& path, const std::string& key,
                                  const std::string& fallback) const {
  return has(map, key) ? string(map, path, key) : fallback;
}

std::string YamlFields::choice(const YAML::Node& map, const std::string& path, const std::string& key,
                               const std::vector<std::string>& choices, const std::string& fallback) const {
  if (!has(map, key) && !fallback.empty()) return fallback;
  const std::string v = string(map, path, key);
  for (const auto& c : choices)
    if (c == v) return v;
  fail(map[key], join(path, key), fmt::format("one of [{}]", fmt::join(choices, ", ")), describe(map[key]));
}

}  // namespace dtsim
