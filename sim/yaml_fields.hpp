#pragma once
// Reads typed fields out of a yaml-cpp tree and turns every mistake into an InputError
// naming file, line, dotted field path, what was expected and what was found.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "input_error.hpp"

namespace dtsim {

class YamlFields {
 public:
  explicit YamlFields(std::filesystem::path file) : file_(std::move(file)) {}

  // Parses the file; a missing file or a YAML syntax error becomes an InputError.
  YAML::Node load() const;

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, const std::string& expected,
                         const std::string& found) const;

  // Every key of `map` must be one of `allowed`; `path` is the map's own dotted path ("" at the top).
  void require_known_keys(const YAML::Node& map, const std::string& path,
                          const std::set<std::string>& allowed) const;
  // `map` must be a mapping; `path` names it.
  void require_map(const YAML::Node& map, const std::string& path) const;

  const YAML::Node child(const YAML::Node& map, const std::string& path, const std::string& key) const;
  bool has(const YAML::Node& map, const std::string& key) const;

  int positive_int(const YAML::Node& map, const std::string& path, const std::string& key) const;
  int positive_int_or(const YAML::Node& map, const std::string& path, const std::string& key, int fallback) const;
  double positive_number(const YAML::Node& map, const std::string& path, const std::string& key) const;
  double non_negative_number(const YAML::Node& map, const std::string& path, const std::string& key) const;
  bool boolean_or(const YAML::Node& map, const std::string& path, const std::string& key, bool fallback) const;
  std::string string(const YAML::Node& map, const std::string& path, const std::string& key) const;
  std::string string_or(const YAML::Node& map, const std::string& path, const std::string& key,
                        const std::string& fallback) const;
  // A string that must be one of `choices`.
  std::string choice(const YAML::Node& map, const std::string& path, const std::string& key,
                     const std::vector<std::string>& choices, const std::string& fallback = "") const;

  const std::filesystem::path& file() const { return file_; }
  static int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }
  static std::string describe(const YAML::Node& n);  // "a mapping", "'abc'", "nothing"
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::filesystem::path file_;
};

}  // namespace dtsim
