// The conformance tensors and variants. No numerics here: the quantizer runs them.
#include "core/quant/conformance.hpp"

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include "core/quant/format_table.hpp"

namespace fp4lab {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> gaussian(int64_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i += 2) {
    const double u1 = (static_cast<double>(gen() >> 11) + 1.0) * 0x1p-53;
    const double u2 = static_cast<double>(gen() >> 11) * 0x1p-53;
    const double r = std::sqrt(-2.0 * std::log(u1));
    v[i] = static_cast<float>(r * std::cos(6.283185307179586 * u2));
    if (i + 1 < n) v[i + 1] = static_cast<float>(r * std::sin(6.283185307179586 * u2));
  }
  return v;
}


}  // namespace

std::vector<ConformanceCase> conformance_cases() {
  std::vector<ConformanceCase> cases;
  {  // E2M1 ties and specials at block scale 1: a tensor amax of 2688 makes NVFP4's S_enc = 1,
     // and the 6 leading each 16-block makes its E4M3 scale 1 (and the MX scale 2^0).
    ConformanceCase c{"ties", 32, 64, std::vector<float>(32 * 64, 0.0f)};
    const float row0[32] = {6, 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5, 5.0001f, -0.0f, -0.1f, 0.5f, 1e-39f, -6,
                            0.2500001f, 3, 6, -0.25f, -0.75f, -1.25f, -1.75f, -2.5f, -3.5f, -5, 0.7499999f, 1.2500001f,
                            -0.2500001f, 4, 2, 1, 1.5f, -0.0f};
    for (int i = 0; i < 32; ++i) c.x[i] = row0[i];
    c.x[31 * 64 + 40] = 2688.0f;
    cases.push_back(std::move(c));
  }
  {  // NaN and infinities among Gaussian values.
    ConformanceCase c{"nonfinite", 32, 64, gaussian(32 * 64, 11)};
    for (int64_t i = 0; i < 32 * 64; i += 97) c.x[i] = (i / 97) % 3 == 0 ? kNan : ((i / 97) % 3 == 1 ? kInf : -kInf);
    cases.push_back(std::move(c));
  }
  {  // Zero blocks, signed zeros, fp32 subnormals, a tiny block next to outliers (NVFP4 scale
     // underflow), a binade sweep, and values near FLT_MAX.
    ConformanceCase c{"hostile", 32, 64, gaussian(32 * 64, 12)};
    for (int64_t i = 0; i < 32 * 64; ++i) {
      const int64_t block = i / 16, j = i % 16;
      switch (block % 7) {
        case 0: c.x[i] = 0.0f; break;
        case 1: c.x[i] = j % 2 ? -0.0f : 0.0f; break;
        case 2: c.x[i] = (j % 2 ? -1.0f : 1.0f) * 1e-39f * static_cast<float>(j + 1); break;
        case 3: c.x[i] = j == 3 ? 1e4f : c.x[i] * 1e-6f; break;
        case 4: c.x[i] = std::ldexp(1.0f + static_cast<float>(j) / 16.0f, static_cast<int>(block % 40) - 20); break;
        case 5: c.x[i] = (j % 3 ? 1.0f : -1.0f) * FLT_MAX / static_cast<float>(2 + j); break;
        default: break;
      }
    }
    cases.push_back(std::move(c));
  }
  cases.push_back(ConformanceCase{"gaussian", 32, 128, gaussian(32 * 128, 13)});
  return cases;
}

std::vector<ConformanceVariant> conformance_variants(const std::string& format) {
  QuantSpec base;
  if (!named_format(format, base)) return {};
  std::vector<ConformanceVariant> v{{"base", {}, 0}};
  if (element_info(base.element).stochastic_rounding) {  // the FP4 formats
    v.push_back({"2d", {{"tile", "2d"}}, 0});
    v.push_back({"sr_seed1", {{"rounding", "sr"}}, 1});
    v.push_back({"rht", {{"rht", "true"}}, 0});
  }
  if (format == "nvfp4") {
    v.push_back({"te_2_13", {{"te_formula", "te_2_13"}}, 0});
    // TE 2.18 dialects: 4over6 in both error modes, both E4M3 maxima, 1D and 2D; row scaling;
    // bf16 operands.
    for (const char* mode : {"mae", "mse"})
      for (const char* q : {"448", "256"})
        for (const char* tile : {"1d", "2d"})
          v.push_back({std::string("4over6_") + mode + "_" + q + "_" + tile,
                       {{"four_over_six", mode}, {"global_e4m3_max", q}, {"tile", tile}},
                       0});
    v.push_back({"row_scaled", {{"row_scaled", "true"}}, 0});
    v.push_back({"bf16_operand", {{"operand_dtype", "bf16"}}, 0});
    // 4over6 with the RHT and with stochastic rounding (fp4lab's own combinations, NUMERICS.md).
    for (const char* q : {"448", "256"}) {
      v.push_back({std::string("4over6_rht_") + q, {{"four_over_six", "mae"}, {"global_e4m3_max", q}, {"rht", "true"}}, 0});
      v.push_back({std::string("4over6_sr_") + q + "_2d",
                   {{"four_over_six", "mse"}, {"global_e4m3_max", q}, {"rounding", "sr"}, {"tile", "2d"}},
                   1});
    }
    v.push_back({"4over6_rht_sr", {{"four_over_six", "mae"}, {"rht", "true"}, {"rounding", "sr"}}, 1});
    // A local encode scale per window: 1 x 32 and 1 x 64 (TE's proposal), 32 x 32 windows of 16 x 16
    // tiles, with SR and the RHT.
    v.push_back({"window32", {{"encode_window", "32"}}, 0});
    v.push_back({"window64", {{"encode_window", "64"}}, 0});
    v.push_back({"window32_2d", {{"encode_window", "32"}, {"tile", "2d"}}, 0});
    v.push_back({"window32_rht_sr", {{"encode_window", "32"}, {"rht", "true"}, {"rounding", "sr"}}, 1});
  }
  if (base.scale == ScaleFormat::e4m3 || base.scale == ScaleFormat::ufloat) {
    // Block-scale rounding, row scaling and, for nvfp4, e4m3 spelled as a ufloat (the same bits).
    for (const char* round : {"up", "down"}) v.push_back({std::string("scale_round_") + round, {{"scale_round", round}}, 0});
    if (base.scale == ScaleFormat::e4m3) v.push_back({"ufloat_e4m3", {{"scale", "ufloat"}}, 0});
    if (base.scale == ScaleFormat::ufloat) v.push_back({"row_scaled", {{"row_scaled", "true"}}, 0});
  }
  if (base.scale == ScaleFormat::ue8m0) {
    const std::string other = base.scale_rule == ScaleRule::floor ? "ceil" : "floor";
    v.push_back({other, {{"scale_rule", other}}, 0});
  }
  return v;
}

}  // namespace fp4lab
