#include "gzip_input.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include "input_error.hpp"
#include "input_file.hpp"

namespace dtsim {

namespace {

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

[[noreturn]] void corrupt(const std::filesystem::path& file, const std::string& what) {
  throw InputError({file.string(), 0, "", "a gzip stream that inflates", what});
}

std::string inflate_gzip(const std::filesystem::path& file, const std::string& compressed) {
  z_stream z{};
  // 16 + MAX_WBITS: a gzip header and trailer, not a raw zlib stream.
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) corrupt(file, "zlib could not start");
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  z.avail_in = static_cast<uInt>(compressed.size());
  char chunk[1 << 16];
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    status = inflate(&z, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END) {
      const std::string message = z.msg ? z.msg : fmt::format("zlib status {}", status);
      inflateEnd(&z);
      corrupt(file, status == Z_BUF_ERROR ? "a stream cut short" : message);
    }
    out.append(chunk, sizeof chunk - z.avail_out);
    if (out.size() > kMaxTraceBytes) {
      inflateEnd(&z);
      throw InputError({file.string(), 0, "", fmt::format("at most {} MiB once inflated", kMaxTraceBytes >> 20),
                        "more"});
    }
  }
  // A gzip file may hold several members (`cat a.gz b.gz`); a trace is one document, and bytes
  // after its member are not read silently.
  const uInt trailing_bytes = z.avail_in;
  inflateEnd(&z);
  if (trailing_bytes > 0)
    throw InputError({file.string(), 0, "", "one gzip member holding the trace",
                      fmt::format("{} more bytes after it", trailing_bytes)});
  return out;
}

}  // namespace

std::string read_maybe_gzipped(const std::filesystem::path& file) {
  std::string bytes = read_input_file(file, "", kMaxTraceBytes);  // a plain trace: the same cap
  return is_gzip(bytes) ? inflate_gzip(file, bytes) : bytes;
}

}  // namespace dtsim
