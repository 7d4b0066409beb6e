#pragma once
// Reading a user's input file (scenario, topology, calibration, config.json, published runs)
// whole, with every way it can fail (missing, a directory, unreadable, a name the system refuses,
// absurdly large) turned into an InputError that names it.
#include <cstdint>
#include <filesystem>
#include <string>

namespace dtsim {

// Larger than any input dtsim reads by a factor of a thousand; a bigger file is a mistake, and
// reading it would only fill memory.
constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t(64) << 20;

// The file's bytes. `field` names where the path came from ("cluster.topology", "--calibration"),
// or is empty when the file itself was named on the command line.
std::string read_input_file(const std::filesystem::path& file, const std::string& field = "");

// True for an existing regular file; never throws (a name too long for the system is not one).
bool is_existing_file(const std::filesystem::path& file);

}  // namespace dtsim
