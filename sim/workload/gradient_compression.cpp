#include "gradient_compression.hpp"

#include <algorithm>
#include <cmath>

#include "kernel_builders.hpp"
#include "layer_model_costs.hpp"

namespace dtsim {

namespace {

constexpr double kFp32 = kLayerModelGradientBytes;
constexpr double kIndex = 4;  // bytes of a sparse gradient's int32 index
// Radix selection over fp32 keys with 8-bit digits reads the buffer once per digit.
constexpr double kTopkSelectionReads = 4;

// Bytes per element a quantiser sends.
double quantised_bytes(GradientCompression c) {
  switch (c) {
    case GradientCompression::fp16:
    case GradientCompression::bf16: return 2;
    case GradientCompression::int8: return 1;
    case GradientCompression::onebit: return 1.0 / 8;
    default: return kFp32;
  }
}

class BucketCodec {
 public:
  BucketCodec(const Scenario& s, const ComputeModel& compute, int ranks, GradientBucket& b)
      : s_(s), compute_(compute), ranks_(std::max(1, ranks)), b_(b), n_(b.bytes / kFp32) {}

  void price() {
    const DataParallelConfig& dp = s_.data_parallel;
    const double k = dp.compression_density * n_;
    const bool allreduce = !dp.uses_servers();
    switch (dp.compression) {
      case GradientCompression::none: return;
      case GradientCompression::fp16:
      case GradientCompression::bf16: {
        const double wire = quantised_bytes(dp.compression) * n_;
        b_.encode_s = streamed_s(b_.bytes + wire);  // read fp32, write the cast
        if (allreduce) exchange({CollectiveKind::all_reduce, wire}, streamed_s(wire + b_.bytes));
        return;
      }
      case GradientCompression::int8:
      case GradientCompression::onebit: {
        // Error feedback: read the gradient and the error, write the new error and the code.
        const double wire = quantised_bytes(dp.compression) * n_;
        b_.encode_s = streamed_s(3 * b_.bytes + wire);
        if (!allreduce) return;
        // Each rank decodes the p codes of its chunk, sums them and re-encodes the sum with its
        // own error feedback; after the all-gather every rank decodes the whole buffer.
        exchange({CollectiveKind::all_to_all, wire}, streamed_s(wire + (3 * b_.bytes + wire) / ranks_));
        exchange({CollectiveKind::all_gather, wire}, streamed_s(wire + b_.bytes));
        return;
      }
      case GradientCompression::topk: {
        const double pairs = k * (kFp32 + kIndex);
        b_.encode_s = streamed_s(3 * b_.bytes + kTopkSelectionReads * b_.bytes + pairs);
        // Zero the dense buffer, then scatter-add every rank's pairs (read, read-modify-write).
        if (allreduce)
          exchange({CollectiveKind::all_gather, pairs * ranks_}, streamed_s(b_.bytes + 2 * pairs * ranks_));
        return;
      }
      case GradientCompression::randomk: {
        const double values = k * kFp32;
        b_.encode_s = streamed_s(3 * b_.bytes + 2 * values);  // error feedback, gather the chosen values
        if (allreduce) exchange({CollectiveKind::all_reduce, values}, streamed_s(b_.bytes + 2 * values));
        return;
      }
      case GradientCompression::powersgd: return powersgd(dp.powersgd_rank);
    }
  }

 private:
  double streamed_s(double bytes) const {
    return compute_.time_s(Operator{"gradient_codec", OperatorKind::elementwise, 0, bytes});
  }

  // An fp32 [m x k] x [k x n] product of PowerSGD.
  double product_s(double m, double n, double k) const {
    Operator op = gemm("powersgd_product", m, k, n, kFp32);
    op.working_precision_gemm = true;
    return compute_.time_s(op);
  }

  void exchange(ExchangeStep collective, double decode_s) {
    b_.exchange.push_back(collective);
    b_.exchange.push_back({.compute_s = decode_s});
  }

  // powerSGD_hook: add the error to each compressed matrix M, P = M Q; all-reduce the tensors left
  // uncompressed, then P; orthogonalise P, Q = M^T P; all-reduce Q; M ~ P Q^T and the new error
  // M - P Q^T.
  void powersgd(int rank) {
    const LayerGraph& g = s_.layer_model->graph;
    double compressed = 0, p_elements = 0, q_elements = 0;
    double first_s = 0, second_s = 0, third_s = 0;
    for (int i = b_.first_layer; i <= b_.last_layer; ++i) {
      const WeightMatrix m = weight_matrix(g.layers[size_t(i)]);
      if (!powersgd_compresses(m, rank)) continue;
      compressed += m.rows * m.cols;
      p_elements += m.rows * rank;
      q_elements += m.cols * rank;
      first_s += product_s(m.rows, rank, m.cols);
      second_s += product_s(m.cols, rank, m.rows);
      third_s += product_s(m.rows, m.cols, rank);
    }
    const double uncompressed_bytes = std::max(0.0, b_.bytes - compressed * kFp32);
    const double matrix_bytes = compressed * kFp32;
    b_.encode_s = streamed_s(3 * matrix_bytes) + first_s;  // M += error
    if (uncompressed_bytes > 0) b_.exchange.push_back({CollectiveKind::all_reduce, uncompressed_bytes});
    if (compressed <= 0) return;
    // Gram-Schmidt reads and writes P once per column.
    exchange({CollectiveKind::all_reduce, p_elements * kFp32}, streamed_s(2 * rank * p_elements * kFp32) + second_s);
    exchange({CollectiveKind::all_reduce, q_elements * kFp32}, third_s + streamed_s(3 * matrix_bytes));
  }

  const Scenario& s_;
  const ComputeModel& compute_;
  const int ranks_;
  GradientBucket& b_;
  const double n_;  // fp32 elements
};

}  // namespace

void compress_gradient_bucket(const Scenario& s, const ComputeModel& compute, int ranks, GradientBucket& bucket) {
  bucket.encode_s = 0;
  bucket.exchange.clear();
  const bool exchanged = ranks > 1 || s.data_parallel.uses_servers();  // one replica all-reduces nothing
  if (bucket.bytes > 0 && exchanged) BucketCodec(s, compute, ranks, bucket).price();
}

double push_wire_share(const DataParallelConfig& dp) {
  switch (dp.compression) {
    case GradientCompression::topk: return dp.compression_density * (kFp32 + kIndex) / kFp32;
    case GradientCompression::randomk: return dp.compression_density;
    default: return quantised_bytes(dp.compression) / kFp32;
  }
}

double server_decode_bytes_per_byte(const DataParallelConfig& dp) {
  if (dp.compression == GradientCompression::none) return 0;
  const bool sparse = dp.compression == GradientCompression::topk || dp.compression == GradientCompression::randomk;
  // Quantised: read the code, write fp32. Sparse: zero the buffer, scatter the pairs.
  return sparse ? 1 + 2 * push_wire_share(dp) : 1 + push_wire_share(dp);
}

WeightMatrix weight_matrix(const Layer& l) {
  if (l.sharded) return {};  // never all-reduced (Layer::sharded)
  if (l.kind == LayerKind::embedding && l.input_elements > 0 && l.output_elements > 0 && l.parameters > 0) {
    const double width = l.output_elements / l.input_elements;  // one row of `width` per looked-up index
    return {std::max(1.0, std::round(l.parameters / width)), width, 0};
  }
  if (!has_weight_products(l.kind) || l.forward_macs <= 0 || l.parameters <= 0 || l.output_elements <= 0) return {};
  // With a bias, parameters x positions = MACs + output elements.
  const double with_bias = l.output_elements * l.parameters / (l.forward_macs + l.output_elements);
  if (with_bias >= 1 && std::abs(with_bias - std::round(with_bias)) < 1e-6 * with_bias) {
    const double rows = std::round(with_bias);
    return {rows, (l.parameters - rows) / rows, rows};
  }
  const double rows = std::clamp(std::round(l.output_elements * l.parameters / l.forward_macs), 1.0, l.parameters);
  return {rows, l.parameters / rows, 0};
}

bool powersgd_compresses(WeightMatrix m, int rank) {
  return m.rows > 0 && rank * (m.rows + m.cols) * kPowerSgdMinCompressionRate < m.rows * m.cols;
}

}  // namespace dtsim
