// Counter-based random bits for the quantizer: Philox4x32-10 (Random123) streams for stochastic
// rounding, and the seeded random sign vector of the Hadamard transform. philox.cpp is the only
// file that includes Random123. No rounding logic here.
#pragma once
#include <immintrin.h>

#include <cstdint>
#include <vector>

#include "core/quant/quantize.hpp"

namespace fp4lab {

// The SR byte stream of one (seed, tensor_id, step). The 64-bit Philox key is derived from
// (seed, tensor_id) by one Philox draw (key = seed, counter = {tensor_id, 0, tag}); draw g uses
// counter {g (64 bits), step (64 bits)} and its 16 bytes (word 0 low byte first) go to the
// elements 16g .. 16g+15 of the row-major tensor.
class PhiloxStream {
 public:
  explicit PhiloxStream(const QuantRandom& rnd);
  void group_bytes(uint64_t group, uint8_t out[16]) const;
  // Bytes for the elements [first, first + n).
  void fill(uint64_t first, int64_t n, uint8_t* out) const;
#ifdef __AVX2__
  // Sixteen draws at once, of the groups first + j · stride (j = 0..15): words[j / 8][w] lane j % 8
  // = word w of draw j, so element byte b of group j is byte b % 4 of words[j / 8][b / 4] lane j % 8.
  void group_words16(uint64_t first, uint64_t stride, __m256i (&words)[2][4]) const;
#endif

 private:
  uint32_t key_[2];
  uint32_t step_[2];
};

// n signs (+1.0f or -1.0f) for a random Hadamard transform, from Philox with key = seed:
// sign i is -1 when bit i%32 of word (i/32)%4 of draw i/128 is set.
std::vector<float> philox_sign_vector(uint64_t seed, int n);

}  // namespace fp4lab
