#include "byte_size.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dtsim::profiler {

std::optional<uint64_t> parse_byte_size(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15) return std::nullopt;
  uint64_t value = std::stoull(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  if (suffix.empty()) return value;
  if (suffix.size() != 1) return std::nullopt;
  switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
    case 'K': return value << 10;
    case 'M': return value << 20;
    case 'G': return value << 30;
    default: return std::nullopt;
  }
}

std::vector<uint64_t> byte_sweep(uint64_t min_bytes, uint64_t max_bytes, double factor) {
  if (min_bytes == 0) throw std::invalid_argument("the smallest size must be at least 1 byte");
  if (max_bytes < min_bytes) throw std::invalid_argument("the largest size is below the smallest");
  if (!(factor > 1)) throw std::invalid_argument("the size factor must be > 1");
  std::vector<uint64_t> sizes;
  for (uint64_t s = min_bytes; s <= max_bytes;) {
    sizes.push_back(s);
    const double next = std::ceil(double(s) * factor);
    if (next > double(std::numeric_limits<uint64_t>::max() / 2)) break;
    s = std::max(s + 1, uint64_t(next));
  }
  return sizes;
}

}  // namespace dtsim::profiler
