#include "input_error.hpp"

// Plain std, no fmt: the profiler links this file on a GPU machine that has only the CUDA toolkit.
namespace dtsim {

namespace {
// Control bytes of the input shown, not sent to the terminal: a NUL ended the message where it
// was printed, and an escape sequence would act on the terminal.
std::string printable(const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) out += c;
    else if (c == '\0') out += "\\0";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else out.append("\\x").append(1, kHex[byte >> 4]).append(1, kHex[byte & 15]);
  }
  return out;
}

// A message stays readable when the input is a 5,000-character path or a megabyte of YAML.
std::string shortened(const std::string& raw) {
  constexpr size_t kMax = 240, kEnd = 100;
  const std::string text = printable(raw);
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
