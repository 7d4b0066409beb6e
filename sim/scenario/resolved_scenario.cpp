#include "resolved_scenario.hpp"

#include <fmt/format.h>

#include "calibration.hpp"
#include "collective_model.hpp"
#include "measured_efficiency.hpp"

namespace dtsim {

namespace {

constexpr double kLargeMessageBytes = 8.0 * (1ull << 30);  // where bus bandwidth has levelled off

const MeasuredCollective* node_all_reduce(const Calibration& c, const Scenario& s) {
  if (device_id_of_name(c.device) != s.cluster.gpu) return nullptr;
  for (const MeasuredCollective& m : c.collectives)
    if (m.kind == CollectiveKind::all_reduce && m.gpus == s.cluster.topology.node.gpus && m.gpus > 1) return &m;
  return nullptr;
}

double model_busbw_Bps(const NodeSpec& node) {
  const GroupShape shape{node.gpus, 1, node.gpus};
  const CollectiveEstimate e = choose_collective(CollectiveKind::all_reduce, shape, kLargeMessageBytes, node);
  return kLargeMessageBytes / e.time_s * bus_bandwidth_factor(CollectiveKind::all_reduce, node.gpus);
}

NodeSpec node_with(const Scenario& s, const Calibration& c) {
  NodeSpec node = s.cluster.topology.node;
  if (const MeasuredCollective* m = node_all_reduce(c, s)) node.nvlink_bw_Bps *= m->busbw_Bps / model_busbw_Bps(node);
  return node;
}

// What a default measured on the H100 SXM says on another GPU.
std::string not_measured_note(const Scenario& s) {
  return s.cluster.gpu == "h100-sxm" ? "" : " (not measured on this GPU)";
}

// When training in fp8, the lines saying how FP8 GEMMs without a measured curve are priced: the
// share of twice the bf16 rate measured on the H100, and a power-limited part's FP8 scale.
std::string fp8_gemm_provenance(const Scenario& s, const DeviceSpec& d, const std::string& note) {
  if (s.training.precision != Precision::fp8) return "";
  const double share = d.fp8_gemm_share(s.training.fp8_recipe);
  std::string out = fmt::format(
      "\n  {:<16} {}", "fp8 gemm",
      share < 1 ? fmt::format("{} scales measured on an H100 SXM, 2026-11-26: {:.3f} of twice the bf16 rate at the "
                              "same shape{}",
                              s.training.fp8_recipe == Fp8Recipe::rowwise ? "per-row" : "per-tensor", share, note)
                : "not measured: the bf16 share of the FP8 peak" + note);
  if (d.sustained_fp8_tensor_scale > 0)
    out += fmt::format("\n  {:<16} x{:.3f} of the 700 W part's FP8 rate at this part's power limit (bf16 x{:.3f}), "
                       "measured on each",
                       "", d.sustained_fp8_tensor_scale, d.sustained_tensor_scale);
  return out;
}

std::string provenance(const Scenario& s, const Calibration& c, const EfficiencyTable& defaults) {
  const std::optional<std::string> measured_id = device_id_of_name(c.device);
  const bool same_gpu = measured_id == s.cluster.gpu;
  const DeviceSpec& target = *find_device(s.cluster.gpu);
  const DeviceSpec* source = measured_id ? find_device(*measured_id) : nullptr;
  std::string out = fmt::format("{} ({}{})", s.calibration_file->string(), c.device.empty() ? "device not named" : c.device,
                                c.date.empty() ? "" : ", " + c.date);
  const MeasuredEfficiencies m = measured_efficiencies(c, s.training.precision);
  for (int k = 0; k < kOperatorKindCount; ++k) {
    const OperatorKind kind = OperatorKind(k);
    const EfficiencyCurve& curve = m[kind];
    std::string how;
    if (!curve.empty() && same_gpu) {
      how = fmt::format("measured, {} size{} ({})", curve.size(), curve.size() == 1 ? "" : "s",
                        to_string(s.training.precision));
    } else if (!curve.empty()) {
      const bool by_flops = measured_by_flops(kind);
      const double ratio = !source ? 0
                           : by_flops ? target.peak_flops(s.training.precision) / source->peak_flops(s.training.precision)
                                      : target.hbm_bw_Bps / source->hbm_bw_Bps;
      how = fmt::format("scaled from {} measured on {}: {} x{:.3g} {}", curve.size(), c.device,
                        by_flops ? "peak FLOP/s" : "HBM bandwidth", ratio,
                        source ? "(efficiency kept as a fraction of peak)" : "(unknown source GPU: ratio not known)");
    } else if (is_memory_bound(kind) && (c.d2d_Bps > 0 || !probed_accesses(c).empty())) {
      how = "access patterns measured on an H100 SXM";
      if (c.d2d_Bps > 0)
        how += fmt::format(", x{:.3f}: this calibration's copy streamed at {:.0f} GB/s", measured_copy_scale(c),
                           c.d2d_Bps / 1e9);
      const MemoryAccessScales scales = measured_access_scales(c);
      for (MemoryAccess a : probed_accesses(c))
        how += fmt::format("; {} x{:.3f} from this calibration's probes", to_string(a), scales[size_t(a)]);
    } else {
      const bool overridden = c.efficiencies[kind].compute != defaults[kind].compute ||
                              c.efficiencies[kind].memory != defaults[kind].memory;
      how = overridden ? "calibration file's per-kind value" : "default (not measured)";
    }
    out += fmt::format("\n  {:<16} {}", to_string(kind), how);
  }
  // FP8 GEMMs without their own curve run at the device's measured share (compute_model.hpp).
  if (m[OperatorKind::gemm].empty()) out += fp8_gemm_provenance(s, target, not_measured_note(s));
  if (const MeasuredCollective* ar = node_all_reduce(c, s)) {
    out += fmt::format("\n  {:<16} measured all_reduce busbw {:.0f} GB/s over {} GPUs: link {:.0f} -> {:.0f} GB/s",
                       "nvlink", ar->busbw_Bps / 1e9, ar->gpus, s.cluster.topology.node.nvlink_bw_Bps / 1e9,
                       node_with(s, c).nvlink_bw_Bps / 1e9);
  } else {
    out += fmt::format("\n  {:<16} topology file's (no all_reduce measured over {} {} GPUs)", "nvlink",
                       s.cluster.topology.node.gpus, s.cluster.gpu);
  }
  return out;
}

// Without a calibration file: where each kernel class's price comes from on this GPU.
std::string default_provenance(const Scenario& s, const DeviceSpec& d) {
  const bool measured_gpu = has_measured_defaults(d);  // the H100's figures carry to its variants
  const std::string note = not_measured_note(s);
  std::string out = fmt::format("defaults for {} (no calibration file)", s.cluster.gpu);
  auto line = [&](const char* what, const std::string& how) { out += fmt::format("\n  {:<16} {}", what, how); };
  line("gemm", measured_gpu ? fmt::format("measured on an H100 SXM, 2026-11-26: {:.2f} of the peak in a training step, "
                                          "the tensor clock at {:.2f} under sustained load{}",
                                          d.in_step_gemm_efficiency, d.tensor_clock_under_load, note)
                            : fmt::format("datasheet default: {:.2f} of the peak{}",
                                          default_efficiencies()[OperatorKind::gemm].compute, note));
  out += fp8_gemm_provenance(s, d, note);
  line("attention_gemm", d.sm_arch >= 90 ? "cuDNN and FlashAttention curves measured on an H100 SXM, 2026-11-26" + note
                                         : "FlashAttention-2's published A100 curves" + note);
  line("elementwise", fmt::format("access patterns measured on an H100 SXM, as shares of this GPU's {:.0f} GB/s{}",
                                  d.hbm_bw_Bps / 1e9, note));
  line("optimizer", "multi-tensor kernels measured on an H100 SXM, as shares of its HBM" + note);
  line("launches", "measured on an H100 SXM with PyTorch 2.11 (gap between kernels, host per kernel)" + note);
  line("nvlink", "topology file's");
  return out;
}

bool same_resolution(const Scenario& a, const Scenario& b) {
  return a.cluster.gpu == b.cluster.gpu && a.training.precision == b.training.precision &&
         a.training.fp8_recipe == b.training.fp8_recipe &&
         a.calibration_file == b.calibration_file && a.cluster.topology_file == b.cluster.topology_file &&
         a.cluster.topology.name == b.cluster.topology.name && a.cluster.topology.node == b.cluster.topology.node;
}

}  // namespace

ResolvedScenario resolve_scenario(const Scenario& s) {
  const DeviceSpec& device = *find_device(s.cluster.gpu);
  const EfficiencyTable defaults = default_efficiencies(device);
  if (!s.calibration_file)
    return {s,
            ComputeModel(device, s.training.precision, defaults, {}, uniform_access_scales(1), s.training.fp8_recipe),
            s.cluster.topology, default_provenance(s, device)};
  const Calibration c = load_calibration(*s.calibration_file, defaults);
  TopologySpec topology = s.cluster.topology;
  topology.node = node_with(s, c);
  return {s,
          ComputeModel(device, s.training.precision, c.efficiencies, measured_efficiencies(c, s.training.precision),
                       measured_access_scales(c), s.training.fp8_recipe),
          std::move(topology), provenance(s, c, defaults)};
}

ResolvedScenario resolve_variant(const ResolvedScenario& base, Scenario variant) {
  if (!same_resolution(base.scenario, variant)) return resolve_scenario(variant);
  ResolvedScenario r = base;
  r.scenario = std::move(variant);
  return r;
}

}  // namespace dtsim
