#pragma once
// A JSON trace file (Kineto, PyTorch ET), gzipped or not, parsed: a syntax error is an InputError
// naming the file and the byte where it is.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace dtsim {

// `what`: the document expected, for the error ("Kineto trace JSON").
nlohmann::json read_trace_json(const std::filesystem::path& file, const std::string& what);

}  // namespace dtsim
