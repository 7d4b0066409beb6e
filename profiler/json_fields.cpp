#include "json_fields.hpp"

#include <cmath>
#include <fstream>

#include "input_error.hpp"

namespace dtsim::profiler {

json read_json_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError({file.string(), 0, "", "a readable JSON file", "no such file or no permission"});
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError({file.string(), 0, "", "valid JSON", e.what()});
  }
}

std::string field_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string describe_found(const json* value) {
  if (value == nullptr) return "nothing";
  std::string text = value->dump();
  constexpr size_t kMaxChars = 80;
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars) + "...";
  return std::string(value->type_name()) + " " + text;
}

void FieldReader::fail(const std::string& field, const std::string& expected, const std::string& found) const {
  throw InputError({file_, 0, field, expected, found});
}

const json& FieldReader::require(const json& parent, const std::string& path, const std::string& key,
                                 const std::string& expected) const {
  const auto it = parent.find(key);
  if (it == parent.end()) fail(field_path(path, key), expected, "nothing");
  return *it;
}

const json& FieldReader::object(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = require(parent, path, key, "an object");
  if (!v.is_object()) fail(field_path(path, key), "an object", describe_found(&v));
  return v;
}

const json& FieldReader::array(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = require(parent, path, key, "an array");
  if (!v.is_array()) fail(field_path(path, key), "an array", describe_found(&v));
  return v;
}

std::string FieldReader::string(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = require(parent, path, key, "a string");
  if (!v.is_string()) fail(field_path(path, key), "a string", describe_found(&v));
  return v.get<std::string>();
}

bool FieldReader::boolean(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = require(parent, path, key, "true or false");
  if (!v.is_boolean()) fail(field_path(path, key), "true or false", describe_found(&v));
  return v.get<bool>();
}

double FieldReader::number(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = require(parent, path, key, "a number");
  if (!v.is_number() || !std::isfinite(v.get<double>())) fail(field_path(path, key), "a number", describe_found(&v));
  return v.get<double>();
}

double FieldReader::non_negative(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = require(parent, path, key, "a number >= 0");
  if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>()))
    fail(field_path(path, key), "a number >= 0", describe_found(&v));
  return v.get<double>();
}

double FieldReader::positive(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = require(parent, path, key, "a number > 0");
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
    fail(field_path(path, key), "a number > 0", describe_found(&v));
  return v.get<double>();
}

uint64_t FieldReader::unsigned_integer(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = require(parent, path, key, "an integer >= 0");
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return uint64_t(v.get<int64_t>());
  fail(field_path(path, key), "an integer >= 0", describe_found(&v));
}

int64_t FieldReader::integer(const json& parent, const std::string& path, const std::string& key) const {
  const json& v = require(parent, path, key, "an integer");
  if (!v.is_number_integer()) fail(field_path(path, key), "an integer", describe_found(&v));
  return v.get<int64_t>();
}

const json& FieldReader::object_at(const json& array, const std::string& path, size_t index) const {
  const json& v = array.at(index);
  if (!v.is_object()) fail(index_path(path, index), "an object", describe_found(&v));
  return v;
}

}  // namespace dtsim::profiler
