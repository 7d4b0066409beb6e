#include "device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <utility>

#include "cuda_check.hpp"

namespace dtsim::kernels {

DeviceBuffer::DeviceBuffer(std::size_t size_bytes, const std::string& context) : size_bytes_(size_bytes) {
  DTSIM_CHECK(cudaMalloc(&data_, size_bytes == 0 ? 1 : size_bytes), context + ", " + std::to_string(size_bytes) + " bytes");
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_bytes_(std::exchange(other.size_bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_bytes_ = std::exchange(other.size_bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (data_ != nullptr) cudaFree(data_);  // a destructor must not throw; cudaFree only fails on a dead context
  data_ = nullptr;
  size_bytes_ = 0;
}

void DeviceBuffer::upload(const void* host, std::size_t size_bytes, const std::string& context) {
  if (size_bytes != size_bytes_) throw std::logic_error("DeviceBuffer::upload: size mismatch [" + context + "]");
  DTSIM_CHECK(cudaMemcpy(data_, host, size_bytes, cudaMemcpyHostToDevice), context);
}

void DeviceBuffer::download(void* host, std::size_t size_bytes, const std::string& context) const {
  if (size_bytes != size_bytes_) throw std::logic_error("DeviceBuffer::download: size mismatch [" + context + "]");
  DTSIM_CHECK(cudaMemcpy(host, data_, size_bytes, cudaMemcpyDeviceToHost), context);
}

void DeviceBuffer::download_part(void* host, std::size_t offset_bytes, std::size_t size_bytes,
                                 const std::string& context) const {
  if (offset_bytes > size_bytes_ || size_bytes > size_bytes_ - offset_bytes)
    throw std::logic_error("DeviceBuffer::download_part: out of range [" + context + "]");
  DTSIM_CHECK(cudaMemcpy(host, static_cast<const unsigned char*>(data_) + offset_bytes, size_bytes, cudaMemcpyDeviceToHost),
              context);
}

}  // namespace dtsim::kernels
