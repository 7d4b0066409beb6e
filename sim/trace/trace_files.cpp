#include "trace_files.hpp"

#include "chakra_trace.hpp"
#include "input_error.hpp"
#include "json_input.hpp"
#include "trace_json.hpp"

namespace dtsim {

bool is_trace_file_name(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  return name.ends_with(".json") || name.ends_with(".json.gz") || is_chakra_file_name(file);
}

TraceFiles read_trace_files(const std::vector<std::filesystem::path>& files) {
  TraceFiles out;
  for (const std::filesystem::path& file : files) {
    if (is_chakra_file_name(file)) {
      out.timed.push_back(read_chakra_trace(file));
      continue;
    }
    const nlohmann::json root = read_trace_json(file, "a PyTorch profiler trace or execution trace (JSON)");
    if (is_kineto_trace(root)) out.timed.push_back(kineto_trace_from_json(file, root));
    else if (is_pytorch_et(root)) out.execution_traces.push_back(pytorch_et_from_json(file, root));
    else
      throw InputError({file.string(), 0, "traceEvents",
                        "a PyTorch profiler trace (an object with traceEvents) or a PyTorch execution trace (an "
                        "object with schema and nodes)",
                        describe_json(root)});
  }
  return out;
}

}  // namespace dtsim
