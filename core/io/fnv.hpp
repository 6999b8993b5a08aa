// 64-bit FNV-1a: the one hash behind config ids, numerics fingerprints and corpus hashes.
// Stable across machines and builds (byte order of the input is the caller's).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace fp4lab {

struct Fnv64 {
  uint64_t h = 1469598103934665603ull;
  void add(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  std::string hex() const {  // 16 lower-case hex digits
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
  }
};

}  // namespace fp4lab
