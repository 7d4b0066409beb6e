#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <random>

namespace dtsim {

namespace fs = std::filesystem;

namespace {
// The named temporary file, for remove_unfinished_output(), which a signal handler calls: a
// fixed buffer and a flag, set around the time the name exists.
char pending_path[4096];
volatile std::sig_atomic_t has_pending = 0;

void set_pending(const std::string& tmp) {
  if (tmp.size() >= sizeof pending_path) return;  // the write fails anyway (name too long)
  std::memcpy(pending_path, tmp.c_str(), tmp.size() + 1);
  has_pending = 1;
}

std::string system_error(int error) { return std::strerror(error); }

std::string write_all(int fd, std::string_view content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t wrote = write(fd, content.data() + done, content.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) return system_error(errno);
    done += std::size_t(wrote);
  }
  return "";
}

// Names of open descriptors: opening one opens what the descriptor has open, which may be a
// regular file the shell redirected to; renaming over it would not write there.
bool names_a_descriptor(const std::string& p) {
  if (p == "/dev/stdout" || p == "/dev/stderr" || p.rfind("/dev/fd/", 0) == 0) return true;
  if (p.rfind("/proc/", 0) != 0) return false;
  const std::size_t fd_part = p.find("/fd/", 6);
  return fd_part != std::string::npos && p.find('/', fd_part + 4) == std::string::npos;
}

std::string write_in_place(const fs::path& path, std::string_view content) {
  // O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of waiting for one.
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return errno == ENXIO ? "a FIFO that no process reads" : system_error(errno);
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  const std::string error = write_all(fd, content);
  close(fd);
  return error;
}

// A name beside the target that no file has: "FILE.dtsim-PID-RANDOM".
std::string unique_name(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  static thread_local std::mt19937_64 random{std::random_device{}() ^ (std::uint64_t(getpid()) << 32)};
  return target.string() + ".dtsim-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(random() % 1000000000);
}

// The unnamed file, linked under a unique name; "" if the file system has no O_TMPFILE, so that
// the caller falls back to mkstemp.
std::string write_unnamed_then_link(const fs::path& folder, const fs::path& target, std::string_view content,
                                    mode_t mode, std::string& linked, bool& unsupported) {
  const int fd = open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
  if (fd < 0) {
    unsupported = errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL;
    return unsupported ? "" : system_error(errno);
  }
  std::string error = write_all(fd, content);
  if (error.empty() && fchmod(fd, mode) != 0) error = system_error(errno);
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  for (int attempt = 0; error.empty() && attempt < 100; ++attempt) {
    const std::string name = unique_name(target);
    set_pending(name);
    if (linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      linked = name;
      break;
    }
    has_pending = 0;
    if (errno == EEXIST) continue;  // another writer's name: draw again
    unsupported = errno == ENOENT || errno == EPERM || errno == EOPNOTSUPP;  // no /proc, or no links
    if (!unsupported) error = system_error(errno);
    break;
  }
  close(fd);
  return error;
}

std::string write_named_temporary(const fs::path& target, std::string_view content, mode_t mode,
                                  std::string& linked) {
  std::string name = target.string() + ".dtsim-XXXXXX";
  const int fd = mkstemp(name.data());
  if (fd < 0) return system_error(errno);
  set_pending(name);
  linked = name;
  std::string error = write_all(fd, content);
  if (error.empty() && fchmod(fd, mode) != 0) error = system_error(errno);
  close(fd);
  return error;
}
}  // namespace

std::string write_file_atomically(const fs::path& path, std::string_view content) {
  if (path.empty()) return "an empty path";
  struct stat st {};
  const bool exists = stat(path.c_str(), &st) == 0;
  if (names_a_descriptor(path.string()) || (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
    return write_in_place(path, content);
  if (exists && S_ISDIR(st.st_mode)) return "a folder";

  // Through symlinks to the file they name, so that a link stays a link.
  struct stat link {};
  std::error_code ec;
  const bool symlink = lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  const fs::path target = symlink ? fs::weakly_canonical(path, ec) : path;
  if (ec) return ec.message();
  mode_t mode = exists ? (st.st_mode & 07777) : 0;
  if (!exists) {
    mode = umask(0);  // the permissions a plain create would give: 0666 less the umask
    umask(mode);
    mode = 0666 & ~mode;
  }
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();

  std::string linked;
  bool unsupported = false;
  std::string error = write_unnamed_then_link(folder, target, content, mode, linked, unsupported);
  if (unsupported) error = write_named_temporary(target, content, mode, linked);
  if (error.empty() && rename(linked.c_str(), target.c_str()) != 0) error = system_error(errno);
  if (!error.empty() && !linked.empty()) unlink(linked.c_str());
  has_pending = 0;
  return error;
}

void remove_unfinished_output() noexcept {
  if (has_pending) unlink(pending_path);
}

}  // namespace dtsim
