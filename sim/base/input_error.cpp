#include "input_error.hpp"

// Plain std, no fmt: the profiler links this file on a GPU machine that has only the CUDA toolkit.
namespace dtsim {

namespace {
// A message stays readable when the input is a 5,000-character path or a megabyte of YAML.
std::string shortened(const std::string& text) {
  constexpr size_t kMax = 240, kEnd = 100;
  if (text.size() <= kMax) return text;
  return text.substr(0, kMax - kEnd - 5) + " ... " + text.substr(text.size() - kEnd);
}
}  // namespace

std::string format_input_error(const InputErrorInfo& info) {
  std::string out = info.file.empty() ? std::string("<input>") : shortened(info.file);
  if (info.line > 0) out.append(":").append(std::to_string(info.line));
  out += ":";
  if (!info.field.empty()) out.append(" field '").append(shortened(info.field)).append("':");
  out.append(" expected ").append(shortened(info.expected));
  out.append(", found ").append(shortened(info.found));
  return out;
}

InputError::InputError(InputErrorInfo info)
    : std::runtime_error(format_input_error(info)), info_(std::move(info)) {}

void flag_error(const std::string& flag, const std::string& expected, const std::string& found) {
  throw InputError({"<command line>", 0, flag, expected, found});
}

}  // namespace dtsim
