#pragma once
#include <filesystem>
#include <string_view>

namespace dtsim {

// Writes `content` to a temporary file beside `path`, then renames it over `path`, so a reader
// never sees half a file. Returns false (and leaves nothing behind) if it could not.
bool write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace dtsim
