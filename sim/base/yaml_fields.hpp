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

// What a null value (`key: ~`, `key: null`, `key:` with nothing) means in a file.
enum class NullValues {
  rejected,     // an error: a default must be asked for by leaving the key out (scenarios, topologies)
  unpublished,  // "the source does not say" (published-runs files); readers treat the key as absent
};

// More values than any input file holds by far (a scenario has about a hundred).
constexpr size_t kMaxYamlValues = 1'000'000;

class YamlFields {
 public:
  explicit YamlFields(std::filesystem::path file, NullValues nulls = NullValues::rejected)
      : file_(std::move(file)), nulls_(nulls) {}

  // Parses the file and checks the whole tree (check_tree); a missing or unreadable file, a YAML
  // syntax error, a key given twice in one mapping or (NullValues::rejected) a null value becomes
  // an InputError.
  YAML::Node load() const;
  // The checks load() makes, for a tree changed after loading (field overrides).
  void check_tree(const YAML::Node& root) const;

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, const std::string& expected,
                         const std::string& found) const;

  // Every key of `map` must be one of `allowed`; `path` is the map's own dotted path ("" at the top).
  void require_known_keys(const YAML::Node& map, const std::string& path,
                          const std::set<std::string>& allowed) const;
  // `map` must be a mapping; `path` names it.
  void require_map(const YAML::Node& map, const std::string& path) const;
  // `list` must be a sequence; `path` names it, `expected` says of what.
  void require_list(const YAML::Node& list, const std::string& path, const std::string& expected = "a list") const;

  const YAML::Node child(const YAML::Node& map, const std::string& path, const std::string& key) const;
  bool has(const YAML::Node& map, const std::string& key) const;

  int positive_int(const YAML::Node& map, const std::string& path, const std::string& key) const;
  int non_negative_int(const YAML::Node& map, const std::string& path, const std::string& key) const;
  int positive_int_or(const YAML::Node& map, const std::string& path, const std::string& key, int fallback) const;
  double positive_number(const YAML::Node& map, const std::string& path, const std::string& key) const;
  double non_negative_number(const YAML::Node& map, const std::string& path, const std::string& key) const;
  // A number in [low, high]; `expected` replaces the default "a number in [low, high]" in errors
  // (say why the bound is there).
  double number_in(const YAML::Node& map, const std::string& path, const std::string& key, double low, double high,
                   const std::string& expected = "") const;
  int int_in(const YAML::Node& map, const std::string& path, const std::string& key, int low, int high,
             const std::string& expected = "") const;
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
  // A number or integer written as one: a plain scalar. A quoted one ('0x100') is a string.
  static bool decode_number(const YAML::Node& n, double& value);
  static bool decode_integer(const YAML::Node& n, long long& value);
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  void check_node(const YAML::Node& node, const std::string& path, size_t& visited) const;

  std::filesystem::path file_;
  NullValues nulls_;
};

}  // namespace dtsim
