// Counter-based random numbers for the trainer's streams (parameter init, data order): a pure
// function of (seed, stream, counter) via Philox4x32-10, so results never depend on call order or
// thread count. Stochastic rounding has its own keyed stream inside the quantizer.
#pragma once
#include <cstdint>

namespace fp4lab {

// Streams of the trainer; each draws from its own key space.
enum class RandomStream : uint32_t { init = 1, data_order = 2, synthetic_corpus = 3, synthetic_chain = 4 };

// 64 random bits for (seed, stream, counter).
uint64_t random_u64(uint64_t seed, RandomStream stream, uint64_t counter);
// Uniform in [0, 1) with 53 bits.
double random_uniform(uint64_t seed, RandomStream stream, uint64_t counter);
// Standard normal (Box-Muller on two draws at 2*counter and 2*counter+1).
double random_normal(uint64_t seed, RandomStream stream, uint64_t counter);

}  // namespace fp4lab
