#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
// counter-based generator of cuRAND and PyTorch dropout, written once for host and device so that
// the CPU reference reproduces the dropout mask bit for bit.
#include <cstdint>

#ifdef __CUDACC__
#define DTSIM_HOST_DEVICE __host__ __device__
#else
#define DTSIM_HOST_DEVICE
#endif

namespace dtsim::kernels {

struct Philox4 {
  std::uint32_t word[4];
};

// Four random 32-bit words for a 64-bit counter under a 64-bit key.
DTSIM_HOST_DEVICE inline Philox4 philox4x32_10(std::uint64_t counter, std::uint64_t key) {
  std::uint32_t c0 = static_cast<std::uint32_t>(counter), c1 = static_cast<std::uint32_t>(counter >> 32), c2 = 0, c3 = 0;
  std::uint32_t k0 = static_cast<std::uint32_t>(key), k1 = static_cast<std::uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t(0xD2511F53u) * c0, p1 = std::uint64_t(0xCD9E8D57u) * c2;
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;  // Weyl key schedule
    k1 += 0xBB67AE85u;
  }
  return {{c0, c1, c2, c3}};
}

// Dropout keeps element i iff word (i % 4) of philox4x32_10(i / 4, seed) >= threshold, where
// threshold = round_down(p * 2^32): drop probability p (to 2^-32).
DTSIM_HOST_DEVICE inline std::uint32_t dropout_threshold(double p) {
  return static_cast<std::uint32_t>(p * 4294967296.0);
}

}  // namespace dtsim::kernels
