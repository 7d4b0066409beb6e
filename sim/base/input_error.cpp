#include "input_error.hpp"

#include <fmt/format.h>

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
  std::string where = info.file.empty() ? std::string("<input>") : shortened(info.file);
  if (info.line > 0) where += fmt::format(":{}", info.line);
  std::string what = info.field.empty() ? std::string() : fmt::format(" field '{}':", shortened(info.field));
  return fmt::format("{}:{} expected {}, found {}", where, what, shortened(info.expected), shortened(info.found));
}

InputError::InputError(InputErrorInfo info)
    : std::runtime_error(format_input_error(info)), info_(std::move(info)) {}

}  // namespace dtsim
