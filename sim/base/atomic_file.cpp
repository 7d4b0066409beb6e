#include "atomic_file.hpp"

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <fstream>

namespace dtsim {

namespace {
// The temporary file being written, for remove_unfinished_output(), which a signal handler
// calls: a fixed buffer and a flag, set around the write.
char pending_path[4096];
volatile std::sig_atomic_t has_pending = 0;

void set_pending(const std::filesystem::path& tmp) {
  const std::string& s = tmp.native();
  if (s.size() >= sizeof pending_path) return;  // the write would fail anyway (name too long)
  std::memcpy(pending_path, s.c_str(), s.size() + 1);
  has_pending = 1;
}
}  // namespace

bool write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  set_pending(tmp);
  bool written = false;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) {
      out.write(content.data(), std::streamsize(content.size()));
      written = bool(out.flush());
    }
  }
  std::error_code ec;
  if (written) std::filesystem::rename(tmp, path, ec);
  if (!written || ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
  }
  has_pending = 0;
  return written && !ec;
}

void remove_unfinished_output() noexcept {
  if (has_pending) unlink(pending_path);
}

}  // namespace dtsim
