#pragma once
// What every operator implementation shares: its shape, the shape's description (the context of
// every error message), input validation and the storage type of its activations.
#include <cstdint>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "host_values.hpp"
#include "operator.hpp"

namespace dtsim::kernels {

// OpWork convention (as sim/framework/transformer_ops.cpp): only GEMMs count FLOPs; elementwise and
// optimizer operators report 0 FLOPs and the bytes they must move, being memory-bound.
class OperatorBase : public Operator {
 public:
  explicit OperatorBase(const OpShape& s) : shape_(s), context_(describe(s)) {}
  const OpShape& shape() const override { return shape_; }

 protected:
  // One run on the legacy default stream, then a device-wide wait: check()'s first step.
  void run_and_wait();

  OpShape shape_;
  std::string context_;
};

// Throws std::runtime_error("<describe(s)>: <what>") unless `ok`.
void require(bool ok, const OpShape& s, const std::string& what);

// Activations of elementwise operators and attention: fp32 (and tf32, the same storage), fp16,
// bf16. fp8 is rejected: fp8 training keeps bf16 activations and runs only GEMMs in fp8.
Storage activation_storage(const OpShape& s);

// Compute capability of the current device as 10 * major + minor (89 for Ada, 90 for Hopper).
int device_compute_capability(const std::string& context);

// A device buffer holding random_values(n, seed, s, scale): an operator's input.
DeviceBuffer random_device_buffer(std::size_t n, std::uint64_t seed, Storage s, const std::string& context,
                                  float scale = 1.0f);
// All of a buffer's elements of storage s, copied back and decoded.
std::vector<double> download_values(const DeviceBuffer& buffer, Storage s, const std::string& context);
// Element `index` of a buffer of storage s (GEMM checks read a sample of a large output).
double download_value(const DeviceBuffer& buffer, std::size_t index, Storage s, const std::string& context);

// Seeds of the random inputs, one per operand role, so that check() can regenerate them.
inline constexpr unsigned long long kSeedInput = 0x1001, kSeedWeight = 0x2002, kSeedExtra = 0x3003,
                                    kSeedState = 0x4004, kSeedIndices = 0x5005;

}  // namespace dtsim::kernels
