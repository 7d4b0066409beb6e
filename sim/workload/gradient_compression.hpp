#pragma once
// What a gradient compression scheme (DataParallelConfig::compression) does to each DDP bucket:
// the kernels that encode and decode it, priced by the compute model as the memory traffic (and,
// for PowerSGD, the products) they perform, and the collectives that carry the compressed data
// (sim/workload/README.md "Gradient compression"). Codec kernels are not scaled by a measured reference: the
// reference timed plain training.
#include <vector>

#include "compute_model.hpp"
#include "scenario.hpp"
#include "workload_builder.hpp"

namespace dtsim {

// Sets the bucket's encode_s and, for the all-reduce strategy, its exchange; leaves both empty
// without compression. `ranks` is the size of the data-parallel group.
void compress_gradient_bucket(const Scenario& s, const ComputeModel& compute, int ranks, GradientBucket& bucket);

// Parameter servers: the share of a gradient's fp32 bytes a compressed push carries, and the
// memory bytes per gradient byte a server streams to decode it before accumulating.
double push_wire_share(const DataParallelConfig& dp);
double server_decode_bytes_per_byte(const DataParallelConfig& dp);

// PowerSGD's view of a layer's weights: a rows x cols matrix with rows = output channels (or
// features) and a bias vector of `rows` elements or none. Derived from the layer's per-sample
// counts: forward MACs = rows x cols x positions, output elements = rows x positions, parameters
// = rows x cols (+ rows with a bias); a bias is assumed where it makes the row count a whole
// number. An embedding table is rows (its entries) x the width it writes per looked-up index.
// {0, 0, 0} for other layers.
struct WeightMatrix {
  double rows = 0, cols = 0, bias = 0;
};
WeightMatrix weight_matrix(const Layer& l);
// PyTorch's _should_compress: a matrix is compressed when rank x (rows + cols) x the minimum
// compression rate is less than rows x cols.
bool powersgd_compresses(WeightMatrix m, int rank);

}  // namespace dtsim
