// Philox4x32-10 (Random123) behind the trainer's counter-based random interface.
#include "core/train/random.hpp"

#include <Random123/philox.h>

#include <cmath>

namespace fp4lab {

uint64_t random_u64(uint64_t seed, RandomStream stream, uint64_t counter) {
  r123::Philox4x32 rng;
  r123::Philox4x32::key_type key = {{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}};
  r123::Philox4x32::ctr_type ctr = {{static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32),
                                     static_cast<uint32_t>(stream), 0x66703461u /* "fp4a" */}};
  const auto r = rng(ctr, key);
  return (static_cast<uint64_t>(r[1]) << 32) | r[0];
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
