#include "operator_base.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "cuda_check.hpp"

namespace dtsim::kernels {

void OperatorBase::run_and_wait() {
  run(nullptr);
  DTSIM_CHECK(cudaDeviceSynchronize(), context_);
}

void require(bool ok, const OpShape& s, const std::string& what) {
  if (!ok) throw std::runtime_error(describe(s) + ": " + what);
}

Storage activation_storage(const OpShape& s) {
  switch (s.dtype) {
    case DType::fp32:
    case DType::tf32: return Storage::f32;
    case DType::fp16: return Storage::f16;
    case DType::bf16: return Storage::bf16;
    case DType::fp8: break;
  }
  throw std::runtime_error(describe(s) + ": " + s.op + " does not run in fp8 (fp8 training keeps bf16 activations)");
}

DeviceBuffer random_device_buffer(std::size_t n, std::uint64_t seed, Storage s, const std::string& context,
                                  float scale) {
  const std::vector<unsigned char> bytes = random_encoded(n, seed, s, scale);
  DeviceBuffer buffer(bytes.size(), context);
  buffer.upload(bytes.data(), bytes.size(), context);
  return buffer;
}

std::vector<double> download_values(const DeviceBuffer& buffer, Storage s, const std::string& context) {
  std::vector<unsigned char> bytes(buffer.size_bytes());
  buffer.download(bytes.data(), bytes.size(), context);
  const std::vector<float> values = decode(bytes, s);  // every storage type is exact in float
  return {values.begin(), values.end()};
}

double download_value(const DeviceBuffer& buffer, std::size_t index, Storage s, const std::string& context) {
  unsigned char element[8];
  buffer.download_part(element, index * storage_bytes(s), storage_bytes(s), context);
  return decode_one(element, s);
}

int device_compute_capability(const std::string& context) {
  int device = 0, major = 0, minor = 0;
  DTSIM_CHECK(cudaGetDevice(&device), context);
  DTSIM_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), context);
  DTSIM_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), context);
  return 10 * major + minor;
}

}  // namespace dtsim::kernels
