#include "plan_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "device_spec.hpp"
#include "flag_values.hpp"
#include "input_error.hpp"
#include "input_file.hpp"
#include "planner.hpp"
#include "topology_spec.hpp"
#include "validation.hpp"

namespace dtsim {

namespace {

const std::filesystem::path kTopologiesDir = std::filesystem::path(DTSIM_SOURCE_DIR) / "topologies";

// Layouts simulated in full after the analytic ranking: each is a whole simulation.
constexpr int kMaxFinalists = 100;

Precision precision_flag(const std::string& text) {
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp32})
    if (text == to_string(p)) return p;
  flag_error("--precision", "one of [bf16, fp16, fp8, fp32]", "'" + text + "'");
}

PlanRequest request_from(const PlanOptions& o) {
  PlanRequest r;
  r.model = resolve_model("--model", o.model);
  if (!o.seq_len.empty()) r.model.seq_len = int(integer_flag("--seq-len", o.seq_len, 1, 10'000'000));
  r.gpu = o.gpu;
  if (!find_device(r.gpu)) {
    flag_error("--gpu", fmt::format("one of [{}]", fmt::join(device_ids(), ", ")), "'" + r.gpu + "'");
  }
  r.topology_file = o.topology.empty() ? default_topology_for(r.gpu, kTopologiesDir) : std::filesystem::path(o.topology);
  if (!is_existing_file(r.topology_file))
    flag_error("--topology", "an existing topology file", r.topology_file.string());
  r.gpu_counts = parse_gpu_counts("--gpus", o.gpus, load_topology(r.topology_file).node.gpus);
  r.global_batch = int(integer_flag("--global-batch", o.global_batch, 1, 1'000'000'000));
  r.precision = precision_flag(o.precision);
  r.finalists = int(integer_flag("--finalists", o.finalists, 0, kMaxFinalists));
  r.extrapolate_micro_batches = !o.full_simulation;
  return r;
}

std::string seconds(double t) { return t > 0 ? fmt::format("{:.3f}", t) : "-"; }

void print_plan(std::ostream& out, const PlanResult& r, int top) {
  const Scenario& s = r.base;
  out << fmt::format("model        {} ({} layers, hidden {}, {} heads, seq {}), global batch {}, {}\n", s.model.name,
                     s.model.layers, s.model.hidden, s.model.heads, s.model.seq_len, s.training.global_batch,
                     to_string(s.training.precision));
  out << fmt::format("cluster      {} ({:.0f} GB HBM), {}\n", s.cluster.gpu, r.memory_capacity_bytes / 1e9,
                     s.cluster.topology_file.filename().string());
  std::string invalid;
  for (const auto& [field, n] : r.invalid_by_field) invalid += fmt::format("{}{} {}", invalid.empty() ? "" : ", ", field, n);
  out << fmt::format("searched     {} layouts: {} invalid{}, {} out of memory, {} estimated, {} simulated\n",
                     r.enumerated, r.invalid, invalid.empty() ? "" : " (" + invalid + ")", r.out_of_memory,
                     r.estimated, r.simulated);
  out << fmt::format("wall time    search {:.3f} s (enumerate, check, memory, analytic, sort), simulations {:.2f} s\n",
                     r.search_wall_s, r.simulation_wall_s);
  if (r.simulated > 0) out << fmt::format("simulation   {}\n", r.simulation_method);
  if (r.rows.empty()) {
    out << "no layout fits\n";
    return;
  }
  out << fmt::format("ranking      {}by analytic s/iter; ties: fewer GPUs, then less memory\n",
                     r.simulated > 0 ? fmt::format("rows 1-{} simulated, by simulated s/iter; the rest ", r.simulated)
                                     : "");
  out << fmt::format("{:>4} {:>5} {:>3} {:>3} {:>3} {:>3} {:>5} {:>3} {:>3}  {:<16} {:<9} {:>4} {:>7} {:>9} {:>9} "
                     "{:>10} {:>6}\n",
                     "rank", "gpus", "tp", "cp", "pp", "v", "dp", "ep", "mb", "schedule", "recompute", "zero", "mem GB",
                     "analytic", "simulated", "tokens/s", "MFU %");
  for (size_t i = 0; i < r.rows.size() && int(i) < top; ++i) {
    const PlanRow& row = r.rows[i];
    const ParallelismConfig& p = row.parallelism;
    out << fmt::format("{:>4} {:>5} {:>3} {:>3} {:>3} {:>3} {:>5} {:>3} {:>3}  {:<16} {:<9} {:>4} {:>7.1f} {:>9} {:>9} "
                       "{:>10} {:>6}\n",
                       i + 1, row.gpus, p.tp, p.cp, p.pp, p.virtual_stages, p.dp, p.ep, row.training.micro_batch,
                       to_string(p.schedule), to_string(row.training.recompute), p.zero_stage, row.memory_bytes / 1e9,
                       seconds(row.analytic_s), row.simulated_s ? seconds(*row.simulated_s) : "-",
                       row.tokens_per_s > 0 ? fmt::format("{:.0f}", row.tokens_per_s) : "-",
                       row.mfu > 0 ? fmt::format("{:.1f}", 100 * row.mfu) : "-");
    if (!row.simulation_error.empty()) out << "     simulation failed: " << row.simulation_error << "\n";
  }
  out << "(s/iter: seconds per iteration; mem GB: peak per GPU, 1e9 bytes; tokens/s and MFU from the simulated time "
         "where there is one)\n";
}

}  // namespace

PlanOptions& add_plan_options(CLI::App& command) {
  static PlanOptions o;
  command.add_option("--model", o.model, "model preset (e.g. gpt3-175b, llama2-70b) or a Hugging Face config.json");
  command.add_option("--seq-len", o.seq_len, "sequence length (default: the model's)");
  command.add_option("--gpu", o.gpu, "GPU type (default a100-80gb-sxm)");
  command.add_option("--gpus", o.gpus, "GPU count: 1024, a list 512,1024, or a range 256-2048 (its powers of two)");
  command.add_option("--topology", o.topology, "topology YAML (default: the stock one for the GPU type)");
  command.add_option("--global-batch", o.global_batch, "sequences per iteration (default 1536)");
  command.add_option("--precision", o.precision, "bf16 | fp16 | fp8 | fp32 (default bf16)");
  command.add_option("--top", o.top, "rows printed (default 10)");
  command.add_option("--finalists", o.finalists, "best analytic layouts re-ranked by simulation (default 2, simulated two at a time; 0: none)");
  command.add_flag("--full-simulation", o.full_simulation,
                   "simulate every micro-batch of the finalists (default: pp and 2 pp micro-batches, extrapolated)");
  command.add_option("--json", o.json_file, "also write every ranked layout as JSON to this file");
  return o;
}

int run_plan_command(const PlanOptions& options) {
  const PlanRequest request = request_from(options);
  const int top = int(integer_flag("--top", options.top, 1, 1'000'000));
  check_output_path("--json", options.json_file);
  const PlanResult result = plan_layouts(request);
  print_plan(std::cout, result, top);
  if (!options.json_file.empty()) {
    write_output_file("--json", options.json_file, plan_to_json(result).dump(2) + "\n");
    std::cout << fmt::format("{} layouts written to {}\n", result.rows.size(), options.json_file);
  }
  return 0;
}

}  // namespace dtsim
