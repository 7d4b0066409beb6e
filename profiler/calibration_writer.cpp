#include "calibration_writer.hpp"

#include <stdexcept>

#include "atomic_file.hpp"

namespace dtsim::profiler {

using ojson = nlohmann::ordered_json;

namespace {

ojson peaks_to_json(const Peaks& p) {
  return ojson{{"fp32_flops", p.fp32_flops}, {"tf32_flops", p.tf32_flops}, {"fp16_flops", p.fp16_flops},
               {"bf16_flops", p.bf16_flops}, {"fp8_flops", p.fp8_flops},   {"hbm_Bps", p.hbm_Bps}};
}

ojson operator_to_json(const CalibratedOperator& o) {
  ojson shape = ojson::object();
  for (const auto& [name, value] : o.shape) shape[name] = value;
  ojson j{{"op", o.op},
               {"kind", o.kind},
               {"dtype", o.dtype},
               {"shape", shape},
               {"flops", o.flops},
               {"bytes", o.bytes},
               {"time_s", o.time_s},
               {"runs", o.runs},
               {"compute_efficiency", o.compute_efficiency},
               {"memory_efficiency", o.memory_efficiency},
               {"kernels", o.kernels}};
  if (!o.access.empty()) j["access"] = o.access;
  return j;
}

ojson collective_to_json(const CalibratedCollective& c) {
  ojson points = ojson::array();
  for (const CollectivePoint& p : c.points)
    points.push_back(
        ojson{{"bytes", p.bytes}, {"time_s", p.time_s}, {"algbw_Bps", p.algbw_Bps}, {"busbw_Bps", p.busbw_Bps}});
  return ojson{{"op", c.op},
               {"gpus", c.gpus},
               {"dtype", c.dtype},
               {"points", points},
               {"fit", ojson{{"latency_s", c.fit.latency_s}, {"busbw_Bps", c.fit.busbw_Bps}}}};
}

}  // namespace

// What the profiler measured is always written; what a calibration read from a hand-written file
// lacks (no GPU count, no peaks, no profiler settings: the reader's defaults, 0) is left out, so
// that the one reader reads back what this wrote.
ojson calibration_to_json(const Calibration& c) {
  ojson j;
  j["format"] = kCalibrationFormat;  // what this writer writes, whatever a file read in said (format 1: none)
  j["device"] = c.device;
  j["compute_capability"] = c.compute_capability;
  if (c.gpus > 0) j["gpus"] = c.gpus;
  j["driver"] = c.driver;
  j["cuda_runtime"] = c.cuda_runtime;
  if (!c.cudnn.empty()) j["cudnn"] = c.cudnn;  // the machine had one (the profiler does not use it)
  j["nccl"] = c.nccl;
  j["date"] = c.date;
  if (c.peaks.hbm_Bps > 0) j["peaks"] = peaks_to_json(c.peaks);
  if (!c.efficiency.empty()) {  // format 1's per-kind values: the profiler writes none, a round trip keeps them
    j["efficiency"] = ojson::object();
    for (const calib::KindEfficiency& k : c.efficiency) {
      ojson e = ojson::object();
      if (k.compute) e["compute"] = *k.compute;
      if (k.memory) e["memory"] = *k.memory;
      j["efficiency"][k.kind] = e;
    }
  }
  j["operators"] = ojson::array();
  for (const CalibratedOperator& o : c.operators) j["operators"].push_back(operator_to_json(o));
  j["collectives"] = ojson::array();
  for (const CalibratedCollective& k : c.collectives) j["collectives"].push_back(collective_to_json(k));
  j["copies"] = ojson{{"d2d_Bps", c.copies.d2d_Bps}, {"h2d_Bps", c.copies.h2d_Bps}, {"d2h_Bps", c.copies.d2h_Bps}};
  if (c.profiler.iterations > 0)
    j["profiler"] = ojson{{"cupti", c.profiler.cupti},
                          {"iterations", c.profiler.iterations},
                          {"warmup", c.profiler.warmup},
                          {"overhead_percent", c.profiler.overhead_percent ? ojson(*c.profiler.overhead_percent)
                                                                           : ojson(nullptr)}};
  return j;
}

void write_text_atomically(const std::filesystem::path& file, const std::string& text) {
  const std::string error = write_file_atomically(file, text);
  if (!error.empty()) throw std::runtime_error(file.string() + ": cannot write it: " + error);
}

void write_calibration(const std::filesystem::path& file, const Calibration& c) {
  write_text_atomically(file, calibration_to_json(c).dump(2) + "\n");
}

}  // namespace dtsim::profiler
