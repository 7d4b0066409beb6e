#include "input_error.hpp"

#include <fmt/format.h>

namespace dtsim {

std::string format_input_error(const InputErrorInfo& info) {
  std::string where = info.file.empty() ? std::string("<input>") : info.file;
  if (info.line > 0) where += fmt::format(":{}", info.line);
  std::string what = info.field.empty() ? std::string() : fmt::format(" field '{}':", info.field);
  return fmt::format("{}:{} expected {}, found {}", where, what, info.expected, info.found);
}

InputError::InputError(InputErrorInfo info)
    : std::runtime_error(format_input_error(info)), info_(std::move(info)) {}

}  // namespace dtsim
