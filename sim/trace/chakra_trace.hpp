#pragma once
// One rank's MLCommons Chakra execution trace (a .et protobuf file, gzipped or not), read into the
// per-rank shape a Kineto trace has (kineto_trace.hpp), so that it is summarized and replayed the
// same way. Schema: chakra_et.proto (the fields dtsim reads of Chakra's et_def.proto).
//
// A .et converted from a PyTorch ET and its Kineto trace (Chakra's converter) has one iteration;
// its GPU nodes (attr is_cpu_op = false, tid = the CUDA stream) carry duration_micros, and its
// collectives are GPU COMM_COLL_NODEs with comm_type and comm_size in bytes. It records no start
// times: the GPU nodes are then laid end to end in id order (the order their CPU ops launched
// them), one step "iteration" spanning them, and times_recorded is false (the step's length is the
// GPU work's, not a measurement). Where every GPU node has a start time, those are used. Dependency
// lists (ctrl_deps, data_deps) are not read; rank, world size and GPU are not in the file.
#include <filesystem>

#include "kineto_trace.hpp"

namespace dtsim {

// Whether a file's name is a Chakra trace's: *.et or *.et.gz.
bool is_chakra_file_name(const std::filesystem::path& file);

// Throws InputError naming the file for a stream that is not Chakra's (a message that does not
// parse, a length past the end) or has no GPU node.
KinetoTrace read_chakra_trace(const std::filesystem::path& file);

}  // namespace dtsim
