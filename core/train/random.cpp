// The trainer's counter-based streams, drawn from the quantizer's Philox4x32-10 stream
// (core/quant/philox.*, the one file that includes Random123) under their own tensor ids.
#include "core/train/random.hpp"

#include <cmath>
#include <cstring>

#include "core/quant/philox.hpp"

namespace fp4lab {

// Tensor ids >= 2^63 are reserved for the trainer's streams; the model's SR ids stay below.
constexpr uint64_t kTrainerStreamBase = 1ull << 63;

uint64_t random_u64(uint64_t seed, RandomStream stream, uint64_t counter) {
  const PhiloxStream philox(QuantRandom{seed, kTrainerStreamBase + static_cast<uint64_t>(stream), 0});
  uint8_t bytes[16];
  philox.group_bytes(counter, bytes);
  uint64_t r;
  std::memcpy(&r, bytes, sizeof r);
  return r;
}

double random_uniform(uint64_t seed, RandomStream stream, uint64_t counter) {
  return static_cast<double>(random_u64(seed, stream, counter) >> 11) * 0x1.0p-53;
}

double random_normal(uint64_t seed, RandomStream stream, uint64_t counter) {
  const double u1 = 1.0 - random_uniform(seed, stream, 2 * counter);  // (0, 1]
  const double u2 = random_uniform(seed, stream, 2 * counter + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace fp4lab
