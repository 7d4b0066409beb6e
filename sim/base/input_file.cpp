#include "input_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "input_error.hpp"

// Plain std, no fmt: see json_input.cpp.
namespace dtsim {

namespace fs = std::filesystem;

bool is_existing_file(const fs::path& file) {
  std::error_code ec;
  return fs::is_regular_file(file, ec) && !ec;
}

std::string read_input_file(const fs::path& file, const std::string& field) {
  const auto fail = [&](const std::string& expected, const std::string& found) {
    throw InputError({file.string(), 0, field, expected, found});
  };
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) fail("a readable file", ec.message());
  if (!fs::exists(status)) fail("an existing file", "no such file");
  if (fs::is_directory(status)) fail("a file", "a directory");
  if (!fs::is_regular_file(status)) fail("a regular file", "a device, pipe or socket");
  const std::uintmax_t bytes = fs::file_size(file, ec);
  if (ec) fail("a readable file", ec.message());
  if (bytes > kMaxInputFileBytes)
    fail("a file of at most " + std::to_string(kMaxInputFileBytes >> 20) + " MiB", std::to_string(bytes) + " bytes");
  std::ifstream in(file, std::ios::binary);
  if (!in) fail("a readable file", std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail("a readable file", "a read error");
  return text;
}

}  // namespace dtsim
