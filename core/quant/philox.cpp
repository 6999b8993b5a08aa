// Philox4x32-10 streams (Random123's r123::Philox4x32_R<10>, the rounds of TE's default build):
// key derivation, per-group draws, byte fills and sign vectors. The only Random123 includer.
#include "core/quant/philox.hpp"

#include <Random123/philox.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace fp4lab {
namespace {

using Philox = r123::Philox4x32_R<10>;
constexpr uint32_t kSrKeyTag = 0x53520000u;     // "SR": derives the SR key from (seed, tensor_id)
constexpr uint32_t kRhtSignTag = 0x52485400u;   // "RHT": the random sign vector

uint32_t lo32(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

Philox::ctr_type draw(const Philox::key_type& key, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3) {
  Philox::ctr_type ctr = {{c0, c1, c2, c3}};
  return Philox()(ctr, key);
}

}  // namespace

PhiloxStream::PhiloxStream(const QuantRandom& rnd) {
  const Philox::key_type seed_key = {{lo32(rnd.seed), hi32(rnd.seed)}};
  const auto words = draw(seed_key, lo32(rnd.tensor_id), hi32(rnd.tensor_id), 0, kSrKeyTag);
  key_[0] = words[0];
  key_[1] = words[1];
  step_[0] = lo32(rnd.step);
  step_[1] = hi32(rnd.step);
}

void PhiloxStream::group_bytes(uint64_t group, uint8_t out[16]) const {
  static_assert(std::endian::native == std::endian::little, "byte j of a draw is byte j%4 of word j/4");
  const Philox::key_type key = {{key_[0], key_[1]}};
  const auto words = draw(key, lo32(group), hi32(group), step_[0], step_[1]);
  std::memcpy(out, words.data(), 16);
}

void PhiloxStream::fill(uint64_t first, int64_t n, uint8_t* out) const {
  uint8_t bytes[16];
  int64_t done = 0;
  while (done < n) {
    const uint64_t index = first + static_cast<uint64_t>(done);
    const int offset = static_cast<int>(index % 16);
    const int64_t take = std::min<int64_t>(16 - offset, n - done);
    if (take == 16) {
      group_bytes(index / 16, out + done);
    } else {
      group_bytes(index / 16, bytes);
      std::memcpy(out + done, bytes + offset, static_cast<size_t>(take));
    }
    done += take;
  }
}

std::vector<float> philox_sign_vector(uint64_t seed, int n) {
  const Philox::key_type key = {{lo32(seed), hi32(seed)}};
  std::vector<float> signs(static_cast<size_t>(n));
  for (int i = 0; i < n; i += 128) {
    const auto words = draw(key, static_cast<uint32_t>(i / 128), 0, 0, kRhtSignTag);
    for (int k = i; k < std::min(n, i + 128); ++k)
      signs[static_cast<size_t>(k)] = (words[(k / 32) % 4] >> (k % 32)) & 1u ? -1.0f : 1.0f;
  }
  return signs;
}

}  // namespace fp4lab
