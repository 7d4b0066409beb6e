#pragma once
// Strict reading of JSON fields: each getter checks presence and type and throws
// InputError naming the file, the dotted field path, what was expected and what was found.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace dtsim::profiler {

// Ordered, so that objects read back keep the order they were written in (shapes: m, n, k).
using json = nlohmann::ordered_json;

// Parses `file`; a missing file or a syntax error throws InputError naming the file.
json read_json_file(const std::filesystem::path& file);

// "a.b" and "a[3]": the field paths error messages show.
std::string field_path(const std::string& parent, const std::string& key);
std::string index_path(const std::string& parent, size_t index);

class FieldReader {
 public:
  explicit FieldReader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const std::string& field, const std::string& expected, const std::string& found) const;

  // `parent` is an object already known to be one; `path` is its own field path ("" for the root).
  const json& object(const json& parent, const std::string& path, const std::string& key) const;
  const json& array(const json& parent, const std::string& path, const std::string& key) const;
  std::string string(const json& parent, const std::string& path, const std::string& key) const;
  bool boolean(const json& parent, const std::string& path, const std::string& key) const;
  double number(const json& parent, const std::string& path, const std::string& key) const;        // finite
  double non_negative(const json& parent, const std::string& path, const std::string& key) const;  // >= 0
  double positive(const json& parent, const std::string& path, const std::string& key) const;      // > 0
  uint64_t unsigned_integer(const json& parent, const std::string& path, const std::string& key) const;
  int64_t integer(const json& parent, const std::string& path, const std::string& key) const;
  // An element of an array that must be an object.
  const json& object_at(const json& array, const std::string& path, size_t index) const;

 private:
  const json& require(const json& parent, const std::string& path, const std::string& key,
                      const std::string& expected) const;
  std::string file_;
};

// How a value shows in an error: its JSON text, shortened, or "nothing" for a missing one.
std::string describe_found(const json* value);

}  // namespace dtsim::profiler
