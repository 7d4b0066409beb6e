#include "input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "input_error.hpp"

// Plain std and POSIX, no fmt: see json_input.cpp.
namespace dtsim {

namespace fs = std::filesystem;

namespace {
// Every file read so far and every output declared, by device and inode: an output naming an
// input, by any path, would destroy it (`dtsim run s.yaml --json s.yaml`).
struct DeclaredOutput {
  dev_t device;
  ino_t inode;
  std::string flag, path;
};
std::mutex files_mutex;
std::vector<std::pair<dev_t, ino_t>> inputs_read;
std::vector<DeclaredOutput> declared_outputs;

[[noreturn]] void refuse_output(const std::string& flag, const std::string& output, const std::string& input) {
  throw InputError({"<command line>", 0, flag, "an output path that is not one of the command's input files",
                    output == input ? "'" + output + "', read as input"
                                    : "'" + output + "', the file read as input '" + input + "'"});
}

void remember_input(const fs::path& file, const struct stat& st) {
  const std::lock_guard<std::mutex> lock(files_mutex);
  for (const DeclaredOutput& o : declared_outputs)
    if (o.device == st.st_dev && o.inode == st.st_ino) refuse_output(o.flag, o.path, file.string());
  inputs_read.emplace_back(st.st_dev, st.st_ino);
}

// Closes the descriptor however read_input_file leaves.
struct OpenFile {
  int fd;
  ~OpenFile() {
    if (fd >= 0) close(fd);
  }
};
}  // namespace

bool is_existing_file(const fs::path& file) {
  std::error_code ec;
  return fs::is_regular_file(file, ec) && !ec;
}

void declare_output(const std::string& flag, const fs::path& file) {
  struct stat st {};
  if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;  // new, or a device: no input's
  const std::lock_guard<std::mutex> lock(files_mutex);
  for (const auto& [device, inode] : inputs_read)
    if (device == st.st_dev && inode == st.st_ino) refuse_output(flag, file.string(), file.string());
  declared_outputs.push_back({st.st_dev, st.st_ino, flag, file.string()});
}

std::string read_input_file(const fs::path& file, const std::string& field, std::uintmax_t max_bytes) {
  const auto fail = [&](const std::string& expected, const std::string& found) {
    throw InputError({file.string(), 0, field, expected, found});
  };
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) fail("a readable file", ec.message());
  if (!fs::exists(status)) fail("an existing file", "no such file");
  if (fs::is_directory(status)) fail("a file", "a directory");
  if (!fs::is_regular_file(status)) fail("a regular file", "a device, pipe or socket");
  const auto too_large = [&](const std::string& found) {
    fail("a file of at most " + std::to_string(max_bytes >> 20) + " MiB", found);
  };
  const OpenFile in{open(file.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) fail("a readable file", std::strerror(errno));
  struct stat st {};
  if (fstat(in.fd, &st) != 0) fail("a readable file", std::strerror(errno));
  if (std::uintmax_t(st.st_size) > max_bytes) too_large(std::to_string(st.st_size) + " bytes");
  // Read to the end, not to the stated size: files under /proc state 0 and may read an error
  // (/proc/self/mem: EIO), which is the message, not an exception from a stream.
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = read(in.fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("a readable file", std::strerror(errno));
    if (got == 0) break;
    if (text.size() + std::size_t(got) > max_bytes) too_large("more than that");
    text.append(buffer, std::size_t(got));
  }
  remember_input(file, st);
  return text;
}

}  // namespace dtsim
