#include "imported_step.hpp"

#include <algorithm>
#include <system_error>

#include <fmt/format.h>

#include "input_error.hpp"

namespace dtsim {

namespace fs = std::filesystem;

namespace {

// The ET of the step's rank (the only one, when one trace of each was given).
const PyTorchEt* execution_trace_of(const RankStep& step, const std::vector<PyTorchEt>& ets, size_t timed) {
  for (const PyTorchEt& et : ets)
    if (et.rank == step.rank) return &et;
  return ets.size() == 1 && timed == 1 ? &ets.front() : nullptr;
}

}  // namespace

std::vector<fs::path> expand_trace_paths(const std::vector<std::string>& paths) {
  if (paths.empty())
    throw InputError({"<command line>", 0, "paths", "one trace file per rank, or a folder of them", "none"});
  std::vector<fs::path> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      files.emplace_back(p);
      continue;
    }
    std::vector<fs::path> in_folder;
    for (const fs::directory_entry& e : fs::directory_iterator(p, ec))
      if (e.is_regular_file() && is_trace_file_name(e.path())) in_folder.push_back(e.path());
    if (in_folder.empty())
      throw InputError({p, 0, "", "a folder holding traces (*.json, *.json.gz, *.et, *.et.gz)", "none"});
    std::sort(in_folder.begin(), in_folder.end());
    files.insert(files.end(), in_folder.begin(), in_folder.end());
  }
  return files;
}

ImportedStep import_step(const TraceFiles& files, const std::string& step) {
  ImportedStep out;
  out.step = step.empty() ? common_step(files.timed) : step;
  for (const KinetoTrace& t : files.timed) {
    out.ranks.push_back(summarize_step(t, out.step));
    out.world_size = std::max(out.world_size, t.world_size);
  }
  for (const PyTorchEt& et : files.execution_traces) out.world_size = std::max(out.world_size, et.world_size);
  std::stable_sort(out.ranks.begin(), out.ranks.end(),
                   [](const RankStep& a, const RankStep& b) { return a.rank < b.rank; });
  // One trace per rank: copies of a rank's trace would replay it as several ranks.
  for (size_t i = 1; i < out.ranks.size(); ++i)
    if (out.ranks[i].rank >= 0 && out.ranks[i].rank == out.ranks[i - 1].rank)
      throw InputError({out.ranks[i].file, 0, "distributedInfo.rank",
                        "one trace per rank", fmt::format("rank {}, as in {}", out.ranks[i].rank, out.ranks[i - 1].file)});
  if (out.world_size > 0 && int(out.ranks.size()) > out.world_size)
    throw InputError({"<command line>", 0, "paths", fmt::format("at most {} traces (the world size)", out.world_size),
                      fmt::format("{} traces", out.ranks.size())});
  for (RankStep& r : out.ranks)
    if (const PyTorchEt* et = execution_trace_of(r, files.execution_traces, out.ranks.size()))
      out.pairings.push_back({r.rank, et->file, fill_from_execution_trace(r, *et)});
  return out;
}

}  // namespace dtsim
