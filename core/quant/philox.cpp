// Philox4x32-10 streams (Random123's r123::Philox4x32_R<10>, the rounds of TE's default build):
// key derivation, per-group draws, byte fills and sign vectors. The only Random123 includer.
#include "core/quant/philox.hpp"

#include <Random123/philox.h>
#include <immintrin.h>

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

#ifdef __AVX2__
// The ten Philox4x32 rounds of Random123 (philox4x32round, philox4x32bumpkey) on kSets x eight
// lanes, the sets interleaved (independent chains hide the multiplies' latency): counters
// {lo, hi (the 64-bit group), step (64 bits)} in, the four words of each draw out.
template <int kSets>
void rounds8(const uint32_t key[2], const __m256i (&lo)[kSets], const __m256i (&hi)[kSets], const uint32_t step[2],
             __m256i (&words)[kSets][4]) {
  __m256i c0[kSets], c1[kSets], c2[kSets], c3[kSets];
  for (int s = 0; s < kSets; ++s) {
    c0[s] = lo[s];
    c1[s] = hi[s];
    c2[s] = _mm256_set1_epi32(static_cast<int>(step[0]));
    c3[s] = _mm256_set1_epi32(static_cast<int>(step[1]));
  }
  __m256i k0 = _mm256_set1_epi32(static_cast<int>(key[0])), k1 = _mm256_set1_epi32(static_cast<int>(key[1]));
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(0xD2511F53u));  // PHILOX_M4x32_0
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(0xCD9E8D57u));  // PHILOX_M4x32_1
  const __m256i w0 = _mm256_set1_epi32(static_cast<int>(0x9E3779B9u));  // PHILOX_W32_0
  const __m256i w1 = _mm256_set1_epi32(static_cast<int>(0xBB67AE85u));  // PHILOX_W32_1
  // 32x32 -> 64-bit products of the eight lanes: the low words in one multiply; the high words
  // from the 64-bit products of the even lanes and of the odd lanes shifted down.
  auto mulhilo = [](__m256i a, __m256i m, __m256i& low, __m256i& high) {
    low = _mm256_mullo_epi32(a, m);
    const __m256i even = _mm256_mul_epu32(a, m);
    const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
#ifdef __AVX512VL__
    high = _mm256_mask_shuffle_epi32(odd, 0x55, even, _MM_PERM_DDBB);  // even lanes: even's high words
#else
    high = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0b10101010);
#endif
  };
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 = _mm256_add_epi32(k0, w0);
      k1 = _mm256_add_epi32(k1, w1);
    }
#pragma GCC unroll 2
    for (int s = 0; s < kSets; ++s) {
      __m256i lo0, hi0, lo1, hi1;
      mulhilo(c0[s], m0, lo0, hi0);
      mulhilo(c2[s], m1, lo1, hi1);
      c0[s] = _mm256_xor_si256(_mm256_xor_si256(hi1, c1[s]), k0);
      c1[s] = lo1;
      c2[s] = _mm256_xor_si256(_mm256_xor_si256(hi0, c3[s]), k1);
      c3[s] = lo0;
    }
  }
  for (int s = 0; s < kSets; ++s) {
    words[s][0] = c0[s];
    words[s][1] = c1[s];
    words[s][2] = c2[s];
    words[s][3] = c3[s];
  }
}

// The 64-bit groups first + i · stride, i = 0..7, as low and high words on eight lanes.
void groups8(uint64_t first, uint64_t stride, __m256i& lo, __m256i& hi) {
  alignas(32) uint32_t l[8], h[8];
  for (int i = 0; i < 8; ++i) {
    l[i] = lo32(first + uint64_t(i) * stride);
    h[i] = hi32(first + uint64_t(i) * stride);
  }
  lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(l));
  hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(h));
}

// Sixteen draws, of the groups first + j · stride (j = 0..15), as two sets of eight lanes' words.
void words16(const uint32_t key[2], uint64_t first, uint64_t stride, const uint32_t step[2], __m256i (&words)[2][4]) {
  __m256i lo[2], hi[2];
  groups8(first, stride, lo[0], hi[0]);
  groups8(first + 8 * stride, stride, lo[1], hi[1]);
  rounds8<2>(key, lo, hi, step, words);
}

// Sixteen consecutive draws of a stream at once (counters {group + i, step}, i = 0..15; two
// interleaved sets of eight lanes) and their 256 bytes in draw order. Tested against group_bytes.
void draw16(const uint32_t key[2], uint64_t group, const uint32_t step[2], uint8_t* out) {
  __m256i c[2][4];
  words16(key, group, 1, step, c);
  for (int s = 0; s < 2; ++s) {
    // Words (c0, c1, c2, c3) of draw i to bytes 16i .. 16i + 15.
    const __m256i t0 = _mm256_unpacklo_epi32(c[s][0], c[s][1]), t1 = _mm256_unpackhi_epi32(c[s][0], c[s][1]);
    const __m256i t2 = _mm256_unpacklo_epi32(c[s][2], c[s][3]), t3 = _mm256_unpackhi_epi32(c[s][2], c[s][3]);
    const __m256i d04 = _mm256_unpacklo_epi64(t0, t2), d15 = _mm256_unpackhi_epi64(t0, t2);
    const __m256i d26 = _mm256_unpacklo_epi64(t1, t3), d37 = _mm256_unpackhi_epi64(t1, t3);
    __m256i* dst = reinterpret_cast<__m256i*>(out + 128 * s);
    _mm256_storeu_si256(dst, _mm256_permute2x128_si256(d04, d15, 0x20));
    _mm256_storeu_si256(dst + 1, _mm256_permute2x128_si256(d26, d37, 0x20));
    _mm256_storeu_si256(dst + 2, _mm256_permute2x128_si256(d04, d15, 0x31));
    _mm256_storeu_si256(dst + 3, _mm256_permute2x128_si256(d26, d37, 0x31));
  }
}
#endif

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

#ifdef __AVX2__
void PhiloxStream::group_words16(uint64_t first, uint64_t stride, __m256i (&words)[2][4]) const {
  words16(key_, first, stride, step_, words);
}
#endif

void PhiloxStream::fill(uint64_t first, int64_t n, uint8_t* out) const {
#ifdef __AVX2__
  // Batches of sixteen consecutive groups (draw16): straight into `out`, or a partial batch drawn
  // whole.
  constexpr int64_t kBatch = 256;
  for (int64_t done = 0; done < n;) {
    const uint64_t index = first + static_cast<uint64_t>(done);
    const int64_t offset = static_cast<int64_t>(index % 16);
    if (offset == 0 && n - done >= kBatch) {
      draw16(key_, index / 16, step_, out + done);
      done += kBatch;
      continue;
    }
    alignas(64) uint8_t batch[kBatch];
    draw16(key_, index / 16, step_, batch);
    const int64_t part = std::min<int64_t>(kBatch - offset, n - done);
    std::memcpy(out + done, batch + offset, static_cast<size_t>(part));
    done += part;
  }
#else
  uint8_t bytes[16];
  for (int64_t done = 0; done < n;) {
    const uint64_t index = first + static_cast<uint64_t>(done);
    const int offset = static_cast<int>(index % 16);
    const int64_t take = std::min<int64_t>(16 - offset, n - done);
    group_bytes(index / 16, bytes);
    std::memcpy(out + done, bytes + offset, static_cast<size_t>(take));
    done += take;
  }
#endif
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
