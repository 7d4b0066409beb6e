#pragma once
#include <filesystem>
#include <string_view>

namespace dtsim {

// Writes `content` to a temporary file beside `path` (path + ".tmp"), then renames it over
// `path`, so a reader never sees half a file. Returns false (and leaves nothing behind) if it
// could not.
bool write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Deletes the temporary file of a write in progress, if any. Async-signal-safe: for a handler of
// SIGTERM or SIGINT, so that a killed run leaves no half-written file.
void remove_unfinished_output() noexcept;

}  // namespace dtsim
