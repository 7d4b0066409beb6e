#include "device_spec.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

// Plain std: the profiler compiles this table too (sim/calibration_contract.cmake), so that it
// and the simulator use the same datasheet peaks.
namespace dtsim {

namespace {
constexpr double T = 1e12;
constexpr double GB = 1e9;
// HBM capacity as the driver reports it (nvidia-smi "Total", MiB): the "80GB" parts hold 80 GiB.
constexpr double MiB = 1024.0 * 1024.0;
// FP8 GEMMs against twice the bf16 rate on the H100 SXM (its entry below says how they were measured).
constexpr double kFp8GemmShareTensorwise = 0.834, kFp8GemmShareRowwise = 0.804;

// What each part draws and how it reaches its host.
// Maximum board power (TDP), W, from each part's datasheet: A100 SXM 400 (NVIDIA A100 datasheet,
// 2021), H100 SXM5 and H200 SXM up to 700 (H100 and H200 datasheets), the Grand Teton H100 at its
// 500 W limit (its entry below), B200 1,000 (NVIDIA HGX B200 specifications), V100 SXM2 300, P100
// SXM2 300 and PCIe 250 (Tesla V100 and P100 datasheets), K80 300 per board of two GPUs, 150 each.
// PCIe generation of each part's x16 link to its host: A100 Gen4 (A100 datasheet: "PCIe Gen4
// 64 GB/s"), H100 SXM5 and H200 Gen5 ("PCIe Gen5 128 GB/s"; both bidirectional), B200 Gen5 (its
// Gen6 link runs at the Gen5 of the hosts of HGX B200 servers), V100, P100 and K80 Gen3.
struct HostSide {
  const char* id;
  double board_power_w;
  int pcie_generation;
};
constexpr HostSide kHostSide[] = {{"a100-40gb-sxm", 400, 4},  {"a100-80gb-sxm", 400, 4},  {"h100-sxm", 700, 5},
                                  {"h100-96gb-500w", 500, 5}, {"h200-sxm", 700, 5},       {"b200", 1000, 5},
                                  {"v100-sxm2-16gb", 300, 3}, {"v100-sxm2-32gb", 300, 3}, {"p100-sxm2-16gb", 300, 3},
                                  {"p100-pcie-16gb", 250, 3}, {"k80", 150, 3}};
// One direction of an x16 link: 16 lanes x 8, 16, 32 GT/s x 128/130 (Gen3 and later encode 128b/130b) / 8.
double pcie_x16_Bps(int generation) { return 16 * 8e9 * std::pow(2.0, generation - 3) * 128 / 130 / 8; }

std::vector<DeviceSpec> with_board_power_and_pcie(std::vector<DeviceSpec> devices) {
  for (DeviceSpec& d : devices)
    for (const HostSide& h : kHostSide)
      if (d.id == h.id) {
        d.board_power_w = h.board_power_w;
        d.pcie_Bps = pcie_x16_Bps(h.pcie_generation);
      }
  return devices;
}

const std::vector<DeviceSpec>& all_devices() {
  static const std::vector<DeviceSpec> devices = with_board_power_and_pcie({
      // NVIDIA A100 Tensor Core GPU datasheet (2021, SXM column): BF16/FP16 312 TFLOP/s dense,
      // TF32 156 TFLOP/s dense, FP32 (CUDA cores) 19.5, no FP8; 40GB HBM2 at 1,555 GB/s; NVLink3
      // 600 GB/s bidirectional. 108 SMs (NVIDIA A100 Tensor Core GPU Architecture whitepaper).
      {"a100-40gb-sxm", "NVIDIA A100 40GB SXM", 312 * T, 312 * T, 0, 156 * T, 19.5 * T, 40960 * MiB, 1555 * GB,
       300 * GB, 80, 108},
      // Same datasheet, 80GB SXM column: 80GB HBM2e at 2,039 GB/s.
      {"a100-80gb-sxm", "NVIDIA A100 80GB SXM", 312 * T, 312 * T, 0, 156 * T, 19.5 * T, 81920 * MiB, 2039 * GB,
       300 * GB, 80, 108},
      // NVIDIA H100 Tensor Core GPU datasheet (SXM column; sparse figures halved): BF16/FP16 989.4,
      // FP8 1,978.9, TF32 494.7 TFLOP/s dense, FP32 (CUDA cores) 67; 80GB HBM3 at 3.35 TB/s; NVLink4
      // 900 GB/s bidirectional. 132 SMs (NVIDIA H100 Tensor Core GPU Architecture whitepaper, H100 SXM5).
      // Measured on the H100 SXM lent to this project (2026-11-26, tests/data/h100-2026-11-26): inside
      // the three traced LLM training steps its cuBLAS GEMMs (60.7, 61.2 and 60.7 TFLOP in 75.9, 81.9
      // and 76.8 ms) take what the GEMM model (compute_model.hpp) gives at 0.84 of the peak, where
      // 0.80 (a GEMM back to back) predicts 5% more time; an 8192^3 GEMM run back to back for 8 s
      // settles at 674 TFLOP/s (median of 28 windows; SM clock 1980 -> ~1335 MHz at 700 W), 0.81 of
      // the 831 TFLOP/s the in-step rate gives that shape.
      // FP8 GEMMs (torch._scaled_mm, e4m3, the same machine, tests/data/h100-2026-11-26/
      // microbenchmarks.jsonl, kinds gemm_fp8 and gemm_bf16): at 8 training shapes of 2.4e11 to 8.8e12
      // FLOP, per-tensor scales reached 0.635-0.937 of twice the bf16 rate measured at the same shape,
      // median 0.834 (8192^3: 1298 TFLOP/s against 778 for bf16); per-row scales 0.650-0.867, median
      // 0.804. The medians are kFp8GemmShareTensorwise and kFp8GemmShareRowwise.
      {"h100-sxm", "NVIDIA H100 SXM5 80GB", 989.4 * T, 989.4 * T, 1978.9 * T, 494.7 * T, 67 * T, 81559 * MiB, 3350 * GB,
       450 * GB, 90, 132, 1, 0.84, 0.81, kFp8GemmShareTensorwise, kFp8GemmShareRowwise},
      // Meta's Grand Teton H100 (pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md,
      // Hardware): 96GB HBM2e at 2.4 TB/s peak, run at its default 500 W power limit; the H100 SXM5's
      // tensor cores, CUDA cores and NVLink 4. At 500 W a bf16 8192^3 GEMM runs at 585.23 TFLOP/s
      // (Meta's "H100 500W" benchmark, pytorch/FBGEMM pull request 2546, 2024-04-29) where a 700 W H100
      // SXM5 runs it at 797.5 (zzc0721/torch-performance-test-data issue 79, PyTorch 2.7; the
      // workplace's own H100 measured ~798): 585.23 / 797.5 of the tensor rate. Capacity: the nominal
      // 96 GiB (the driver's figure for this part is not published).
      // The H100 SXM's in-step GEMM rate, its fall under load and its FP8 GEMMs' shares (measured
      // above) apply to its die. FP8 GEMMs lose less to the 500 W limit: the same pull request's
      // 8192^3 FP8 GEMM with per-row scales ("fp8 row gemm only") ran at 1125.51 TFLOP/s, where the
      // H100 SXM lent to this project ran that shape and recipe at 1348.63 (torch._scaled_mm, whose
      // rowwise kernel is CUTLASS's, as FBGEMM's is; microbenchmarks.jsonl above): 1125.51 / 1348.63
      // of the 700 W rate, against 585.23 / 797.5 for bf16.
      {"h100-96gb-500w", "NVIDIA H100 96GB HBM2e at 500 W (Grand Teton)", 989.4 * T, 989.4 * T, 1978.9 * T, 494.7 * T,
       67 * T, 96 * 1024 * MiB, 2400 * GB, 450 * GB, 90, 132, 585.23 / 797.5, 0.84, 0.81, kFp8GemmShareTensorwise,
       kFp8GemmShareRowwise, 1125.51 / 1348.63},
      // NVIDIA H200 Tensor Core GPU datasheet (SXM column): same compute as H100 SXM (FP32 67);
      // 141GB HBM3e at 4.8 TB/s; NVLink 900 GB/s bidirectional. The H100 SXM5's 132 SMs.
      // The H100 SXM's in-step GEMM rate, its fall under load and its FP8 GEMMs' shares (measured
      // above): the same die at the same 700 W.
      {"h200-sxm", "NVIDIA H200 SXM 141GB", 989.4 * T, 989.4 * T, 1978.9 * T, 494.7 * T, 67 * T, 143771 * MiB,
       4800 * GB, 450 * GB, 90, 132, 1, 0.84, 0.81, kFp8GemmShareTensorwise, kFp8GemmShareRowwise},
      // NVIDIA DGX B200 datasheet (per GPU = system / 8; sparse figures halved): FP8 72 PFLOP/s
      // training per system -> 4.5 PFLOP/s dense FP8, 2.25 PFLOP/s dense BF16/FP16, 1.1 PFLOP/s
      // dense TF32; 1,440 GB HBM3e at 64 TB/s -> 180 GB at 8 TB/s; NVLink5 1.8 TB/s bidirectional.
      // FP32 (CUDA cores) 75 TFLOP/s per GPU (NVIDIA's GB200 NVL72 / HGX B200 specification table).
      // 148 SMs (two dies; the count CUDA reports, not a datasheet figure).
      {"b200", "NVIDIA B200 180GB", 2250 * T, 2250 * T, 4500 * T, 1100 * T, 75 * T, 180 * GB, 8000 * GB, 900 * GB, 100,
       148},
      // The GPUs of the data-parallel measurements of 2016-2020 (sim/workload/README.md "Layer graphs"). None
      // has bf16; fp32 is the CUDA cores' single-precision rate (no TF32). Capacities are the
      // nominal GiB (the driver reports a little less). No sustained-clock correction.
      // NVIDIA Tesla V100 GPU Accelerator datasheet (2018, SXM2 column): single precision 15.7,
      // tensor 125 TFLOP/s; 16 or 32 GB HBM2 at 900 GB/s; NVLink 300 GB/s (both directions, six
      // links). 80 SMs (NVIDIA Tesla V100 GPU Architecture whitepaper, 2017).
      {"v100-sxm2-16gb", "NVIDIA Tesla V100 SXM2 16GB", 0, 125 * T, 0, 15.7 * T, 15.7 * T, 16 * 1024 * MiB, 900 * GB,
       150 * GB, 70, 80},
      {"v100-sxm2-32gb", "NVIDIA Tesla V100 SXM2 32GB", 0, 125 * T, 0, 15.7 * T, 15.7 * T, 32 * 1024 * MiB, 900 * GB,
       150 * GB, 70, 80},
      // NVIDIA Tesla P100 datasheet (2016): NVLink (SXM2) part single 10.6, half 21.2 TFLOP/s, NVLink
      // 160 GB/s (both directions, four links); PCIe part single 9.3, half 18.7 TFLOP/s, no NVLink.
      // Both 16 GB HBM2 at 732 GB/s. 56 SMs (NVIDIA Tesla P100 whitepaper, 2016). Half precision
      // runs on the CUDA cores at twice the single rate: no tensor cores.
      {"p100-sxm2-16gb", "NVIDIA Tesla P100 SXM2 16GB", 0, 21.2 * T, 0, 10.6 * T, 10.6 * T, 16 * 1024 * MiB, 732 * GB,
       80 * GB, 60, 56},
      {"p100-pcie-16gb", "NVIDIA Tesla P100 PCIe 16GB", 0, 18.7 * T, 0, 9.3 * T, 9.3 * T, 16 * 1024 * MiB, 732 * GB, 0,
       60, 56},
      // NVIDIA Tesla K80 datasheet (2014), per GPU of the two on a board (board figures halved):
      // single precision 8.73 TFLOP/s with GPU Boost -> 4.37; 24 GB GDDR5 at 480 GB/s -> 12 GB at
      // 240 GB/s; 4,992 CUDA cores -> 2,496 = 13 SMX of 192. No fast half precision.
      {"k80", "NVIDIA Tesla K80 (one of its two GPUs)", 0, 0, 0, 4.37 * T, 4.37 * T, 12 * 1024 * MiB, 240 * GB, 0, 37,
       13},
  });
  return devices;
}
}  // namespace

int DeviceSpec::nvlink_generation() const {
  if (nvlink_bw_Bps <= 0) return 0;
  switch (sm_arch / 10) {
    case 6: return 1;
    case 7: return 2;
    case 8: return 3;
    case 9: return 4;
    case 10: return 5;
    default: return 0;
  }
}

double DeviceSpec::host_copy_Bps() const { return pcie_Bps * kPinnedCopyEfficiency; }

double DeviceSpec::collective_sm_share(int ctas) const {
  return sms > 0 ? double(std::min(ctas, sms)) / sms : 0.0;
}

double DeviceSpec::tensor_clock(double tensor_share) const {
  const double t = std::clamp((tensor_share - kInStepTensorShare) / (1 - kInStepTensorShare), 0.0, 1.0);
  return 1 - t * (1 - tensor_clock_under_load);
}

double DeviceSpec::peak_flops(Precision p) const {
  switch (p) {
    case Precision::bf16: return bf16_flops;
    case Precision::fp16: return fp16_flops;
    case Precision::fp8: return fp8_flops;
    case Precision::fp32: return fp32_flops;
  }
  return 0;
}

const DeviceSpec* find_device(const std::string& id) {
  for (const auto& d : all_devices())
    if (d.id == id) return &d;
  return nullptr;
}

std::vector<std::string> device_ids() {
  std::vector<std::string> ids;
  for (const auto& d : all_devices()) ids.push_back(d.id);
  return ids;
}

std::optional<std::string> device_id_of_name(const std::string& driver_name, double memory_bytes) {
  std::string n = driver_name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  const auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
  // PCIe and NVL cards and Grace-Hopper modules run other clocks and links than the SXM parts.
  if (has("pcie") || has("nvl") || has("gh200") || has("gb200")) return std::nullopt;
  if (has("h100")) return "h100-sxm";
  if (has("h200")) return "h200-sxm";
  if (has("b200")) return "b200";
  if (has("a100")) {
    const bool small = has("40gb") || (!has("80gb") && memory_bytes > 0 && memory_bytes < 60 * std::pow(2.0, 30));
    return small ? "a100-40gb-sxm" : "a100-80gb-sxm";
  }
  if (has("v100") && has("sxm2")) return has("32gb") ? "v100-sxm2-32gb" : "v100-sxm2-16gb";
  if (has("p100") && has("sxm2")) return "p100-sxm2-16gb";
  return std::nullopt;
}

}  // namespace dtsim
