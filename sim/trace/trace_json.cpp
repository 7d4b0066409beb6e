#include "trace_json.hpp"

#include <fmt/format.h>

#include "gzip_input.hpp"
#include "input_error.hpp"

namespace dtsim {

nlohmann::json read_trace_json(const std::filesystem::path& file, const std::string& what) {
  const std::string text = read_maybe_gzipped(file);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError({file.string(), 0, "", what, fmt::format("a JSON syntax error at byte {}", e.byte)});
  } catch (const nlohmann::json::exception& e) {  // out_of_range.406: a number beyond a double (1e999)
    throw InputError({file.string(), 0, "", what + " with numbers a double holds", e.what()});
  }
}

}  // namespace dtsim
