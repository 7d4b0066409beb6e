#include "json_input.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <vector>

#include "input_error.hpp"
#include "input_file.hpp"

// Plain std, no fmt: the profiler reads calibrations with this file on a GPU machine that has only
// the CUDA toolkit (sim/calibration_contract.cmake).
namespace dtsim {

namespace {

using json = nlohmann::json;

int line_of_byte(const std::string& text, size_t byte_offset) {
  const size_t end = std::min(byte_offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

// Thrown by the parser callback, out of nlohmann's parser; caught below as an InputError.
struct DuplicateKey {
  std::string key;
};

}  // namespace

std::string shortest(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

json parse_json_input(const std::filesystem::path& file, const std::string& field) {
  const std::string text = read_input_file(file, field);
  // Keys seen so far in each object being parsed, innermost last.
  std::vector<std::set<std::string>> open_objects;
  const json::parser_callback_t on_event = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open_objects.emplace_back();
    else if (event == json::parse_event_t::object_end && !open_objects.empty()) open_objects.pop_back();
    else if (event == json::parse_event_t::key && !open_objects.empty() &&
             !open_objects.back().insert(parsed.get<std::string>()).second)
      throw DuplicateKey{parsed.get<std::string>()};
    return true;
  };
  try {
    return json::parse(text, on_event);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    throw InputError({file.string(), line_of_byte(text, e.byte > 0 ? e.byte - 1 : 0), "", "valid JSON", e.what()});
  } catch (const json::exception& e) {  // e.g. out_of_range.406: a number beyond double range
    throw InputError({file.string(), 0, "", "valid JSON with numbers a double holds", e.what()});
  } catch (const DuplicateKey& d) {
    throw InputError({file.string(), 0, d.key, "each key once per object", "'" + d.key + "' twice"});
  }
}

std::string describe_json(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

void JsonFields::fail(const std::string& field, const std::string& expected, const std::string& found) const {
  throw InputError({file_.string(), 0, field, expected, found});
}

void JsonFields::require_object(const json& value, const std::string& path, const std::set<std::string>& allowed) const {
  if (!value.is_object()) fail(path.empty() ? "<top>" : path, "an object", describe_json(value));
  for (const auto& [key, v] : value.items()) {
    if (allowed.count(key)) continue;
    std::string keys;
    for (const std::string& k : allowed) keys += (keys.empty() ? "" : ", ") + k;
    fail(join(path, key), "one of the keys [" + keys + "]", "unknown key '" + key + "'");
  }
}

const nlohmann::json& JsonFields::child(const json& object, const std::string& path, const std::string& key) const {
  if (!object.contains(key)) fail(join(path, key), "a value (this field is required)", "nothing");
  const json& value = object[key];
  if (value.is_null()) fail(join(path, key), "a value", "null");
  return value;
}

const nlohmann::json& JsonFields::array(const json& object, const std::string& path, const std::string& key) const {
  const json& value = child(object, path, key);
  if (!value.is_array()) fail(join(path, key), "an array", describe_json(value));
  return value;
}

double JsonFields::number_in(const json& object, const std::string& path, const std::string& key, double low,
                             double high, const std::string& expected) const {
  const json& value = child(object, path, key);
  if (!value.is_number() || !(value.get<double>() >= low && value.get<double>() <= high))
    fail(join(path, key), expected.empty() ? "a number in [" + shortest(low) + ", " + shortest(high) + "]" : expected,
         describe_json(value));
  return value.get<double>();
}

int JsonFields::int_in(const json& object, const std::string& path, const std::string& key, int low, int high) const {
  const json& value = child(object, path, key);
  if (!value.is_number_integer() || value.get<long long>() < low || value.get<long long>() > high)
    fail(join(path, key), "an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "]", describe_json(value));
  return int(value.get<long long>());
}

std::string JsonFields::string(const json& object, const std::string& path, const std::string& key) const {
  const json& value = child(object, path, key);
  if (!value.is_string()) fail(join(path, key), "a string", describe_json(value));
  return value.get<std::string>();
}

bool JsonFields::boolean(const json& object, const std::string& path, const std::string& key) const {
  const json& value = child(object, path, key);
  if (!value.is_boolean()) fail(join(path, key), "true or false", describe_json(value));
  return value.get<bool>();
}

}  // namespace dtsim
