#pragma once
// Parsing a user's JSON input file (calibration, Hugging Face config.json) strictly: syntax
// errors with their line, numbers beyond double range, and a key given twice in one object are
// InputErrors naming the file (nlohmann::json alone keeps the last duplicate silently).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace dtsim {

nlohmann::json parse_json_input(const std::filesystem::path& file, const std::string& field = "");

// printf's %g, as fmt's {:g}: "0.0001", "1e+14".
std::string shortest(double value);

// "object", "null", "1e+18", "'abc'" (short): what was found where something else was expected.
std::string describe_json(const nlohmann::json& value);

// Typed fields of a parsed JSON input, every mistake an InputError naming file, dotted field,
// expected and found. Required unless said otherwise; null is never a value here.
class JsonFields {
 public:
  using json = nlohmann::json;
  explicit JsonFields(std::filesystem::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& expected, const std::string& found) const;

  // `value` (named `path`) must be an object whose keys are all in `allowed`.
  void require_object(const json& value, const std::string& path, const std::set<std::string>& allowed) const;
  bool has(const json& object, const std::string& key) const { return object.contains(key); }
  const json& child(const json& object, const std::string& path, const std::string& key) const;
  const json& array(const json& object, const std::string& path, const std::string& key) const;

  // A number in [low, high]; `expected` replaces "a number in [low, high]" in errors.
  double number_in(const json& object, const std::string& path, const std::string& key, double low, double high,
                   const std::string& expected = "") const;
  int int_in(const json& object, const std::string& path, const std::string& key, int low, int high) const;
  std::string string(const json& object, const std::string& path, const std::string& key) const;
  bool boolean(const json& object, const std::string& path, const std::string& key) const;

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::filesystem::path file_;
};

}  // namespace dtsim
