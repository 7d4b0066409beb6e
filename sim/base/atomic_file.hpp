#pragma once
// Output files written whole, without ever destroying what a path names: a reader never sees half
// a file, a killed run leaves nothing behind, concurrent writers do not collide, and a device, a
// FIFO or standard output is written in place, never replaced by a regular file. Plain std and
// POSIX (Linux): the profiler writes its files with it too.
#include <filesystem>
#include <string>
#include <string_view>

namespace dtsim {

// Writes `content` to `path`:
// - a regular file, or a path not there yet (through any symlinks to it): into an unnamed
//   temporary file in the same folder (O_TMPFILE; where the file system lacks it, a unique
//   mkstemp name), linked under a unique name and renamed over the file; an existing file keeps
//   its permissions;
// - a character device, FIFO or socket (/dev/null, a pipe of `>(...)`), or an open descriptor's
//   name (/dev/stdout, /dev/fd/N, /proc/self/fd/N): in place, appended, nothing renamed. A FIFO
//   that no process reads is an error, not a wait.
// Returns "" when written, else why not (the system's message); leaves nothing behind either way.
std::string write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Deletes the named temporary file of a write in progress, if any. Async-signal-safe: for a
// handler of SIGTERM or SIGINT, so that a killed run leaves no half-written file. (SIGKILL leaves
// nothing either while the data is written, into an unnamed file; only between the link and the
// rename, a moment, is there a name.)
void remove_unfinished_output() noexcept;

}  // namespace dtsim
