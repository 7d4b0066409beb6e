#pragma once
// Owning handle of one device allocation (cudaMalloc / cudaFree), move-only.
#include <cstddef>
#include <string>

namespace dtsim::kernels {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // `context` (the operator's shape) goes into the error message if the allocation fails.
  DeviceBuffer(std::size_t size_bytes, const std::string& context);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return data_; }
  template <class T>
  T* as() const { return static_cast<T*>(data_); }
  std::size_t size_bytes() const { return size_bytes_; }

  // Synchronous copies of the whole buffer; `size_bytes` must equal size_bytes().
  void upload(const void* host, std::size_t size_bytes, const std::string& context);
  void download(void* host, std::size_t size_bytes, const std::string& context) const;
  // Part of the buffer: size_bytes from offset_bytes on.
  void download_part(void* host, std::size_t offset_bytes, std::size_t size_bytes, const std::string& context) const;

 private:
  void release() noexcept;
  void* data_ = nullptr;
  std::size_t size_bytes_ = 0;
};

}  // namespace dtsim::kernels
