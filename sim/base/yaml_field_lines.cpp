#include "yaml_field_lines.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "yaml_fields.hpp"

namespace dtsim {

namespace {

// The node a path step names and the line of its key (or list item); nullopt if absent.
std::optional<std::pair<YAML::Node, int>> step_into(const YAML::Node& node, const std::string& step) {
  const size_t bracket = step.find('[');
  const std::string key = step.substr(0, bracket);
  if (!node.IsMap()) return std::nullopt;
  for (const auto& kv : node) {
    if (kv.first.Scalar() != key) continue;
    if (bracket == std::string::npos) return std::make_pair(kv.second, YamlFields::line_of(kv.first));
    const size_t index = std::stoul(step.substr(bracket + 1));
    if (!kv.second.IsSequence() || index >= kv.second.size()) return std::nullopt;
    const YAML::Node item = kv.second[index];
    return std::make_pair(item, YamlFields::line_of(item));
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> exact_line_of_field(const YAML::Node& root, const std::string& field) {
  YAML::Node node = root;
  int line = 0;
  size_t start = 0;
  while (start <= field.size()) {
    const size_t dot = std::min(field.find('.', start), field.size());
    const auto next = step_into(node, field.substr(start, dot - start));
    if (!next) return std::nullopt;
    node.reset(next->first);  // rebinds; operator= would overwrite the tree's node
    line = next->second;
    start = dot + 1;
  }
  return line;
}

int line_of_field(const YAML::Node& root, const std::string& field) {
  if (const auto line = exact_line_of_field(root, field)) return *line;
  const size_t dot = field.rfind('.');
  return dot == std::string::npos ? 0 : line_of_field(root, field.substr(0, dot));
}

}  // namespace dtsim
