#pragma once
// Reading a user's input file (scenario, topology, calibration, config.json, published runs)
// whole, with every way it can fail (missing, a directory, unreadable, a name the system refuses,
// absurdly large, a read error) turned into an InputError that names it.
#include <cstdint>
#include <filesystem>
#include <string>

namespace dtsim {

// Larger than any input dtsim reads by a factor of a thousand; a bigger file is a mistake, and
// reading it would only fill memory.
constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t(64) << 20;

// The file's bytes, at most `max_bytes`. `field` names where the path came from
// ("cluster.topology", "--calibration"), or is empty when the file itself was named on the
// command line.
std::string read_input_file(const std::filesystem::path& file, const std::string& field = "",
                            std::uintmax_t max_bytes = kMaxInputFileBytes);

// True for an existing regular file; never throws (a name too long for the system is not one).
bool is_existing_file(const std::filesystem::path& file);

// Outputs and inputs are never the same file (`dtsim run s.yaml --json s.yaml` would replace the
// scenario), by any path to it (a link). A command declares each output before its work; an input
// read later that is one of them, or an output that names an input read already, is an
// InputError naming the output's flag.
void declare_output(const std::string& flag, const std::filesystem::path& file);

}  // namespace dtsim
