// `fp4lab formats [NAME] [--vectors OUT.h5]`: list the named formats, or print one format's
// parameters and its rounding/edge-case tables (computed live by the scalar codecs, so they cannot
// drift from the code), and optionally write conformance vectors (inputs -> codes, scales, dequant
// for a set of awkward tensors, per format variant) to HDF5 for checking other tools.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/formats/bf16.hpp"
#include "core/formats/fp4_e2m1.hpp"
#include "core/formats/fp8.hpp"
#include "core/formats/ue8m0.hpp"
#include "core/io/h5.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/conformance.hpp"
#include "core/quant/quant_options.hpp"
#include "core/quant/quantize.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/cli/quant_h5.hpp"

namespace fp4lab::cli {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct FormatsOptions {
  std::string name;
  std::string vectors;
};

QuantSpec spec_of(const std::string& name) {
  QuantSpec s;
  if (!named_format(name, s)) throw Exit{kExitUsage, "unknown format '" + name + "' (run `fp4lab formats` for the list)"};
  return s;
}

// ---- parameters ----

std::string element_summary(ElementFormat e) {
  switch (e) {
    case ElementFormat::fp4_e2m1:
      return "fp4_e2m1: 1 sign, 2 exponent (bias 1), 1 mantissa bit; values 0 0.5 1 1.5 2 3 4 6; max 6; "
             "no Inf/NaN codes (NaN -> +6, +-Inf -> +-6); sign of zero kept";
    case ElementFormat::fp8_e4m3:
      return "fp8_e4m3 (fn): 1 sign, 4 exponent (bias 7), 3 mantissa bits; max 448; min normal 2^-6; "
             "subnormals down to 2^-9; NaN 0x7F/0xFF; no Inf (encoder saturates)";
    case ElementFormat::fp8_e5m2:
      return "fp8_e5m2: 1 sign, 5 exponent (bias 15), 2 mantissa bits; max 57344; min normal 2^-14; "
             "subnormals down to 2^-16; Inf 0x7C; NaN 0x7D-0x7F (encoder saturates Inf, NaN -> 0x7F)";
    case ElementFormat::bf16:
      return "bf16: 1 sign, 8 exponent, 7 mantissa bits; max 3.3895e38; RNE, overflow -> Inf";
    case ElementFormat::none:
      return "fp32 pass-through (no quantization)";
  }
  return "";
}

std::string scale_summary(const QuantSpec& s) {
  switch (s.scale) {
    case ScaleFormat::none:
      return "none (elements are cast directly)";
    case ScaleFormat::fp32:
      return s.block == 0 ? "fp32 per tensor (TE current scaling): x * RN(max/amax), dequant value * RN(1/scale)"
                          : "fp32 per block: x * RN(max/block_amax), dequant value * RN(1/scale)";
    case ScaleFormat::e4m3:
      return "e4m3 per block (RNE, satfinite, max 448) under an fp32 tensor scale S_enc = RN(2688/amax):\n"
             "             s_b = E4M3(RN(block_amax * RN(S_enc * RN(1/6))))   [TE >= 2.14; --te-formula 2.13:"
             " RN(RN(block_amax/6) * S_enc)]\n"
             "             encode x * min(RN(1/RN(s_b * RN(1/S_enc))), FLT_MAX); dequant code * RN(RN(s_b * amax) * "
             "RN(1/2688))";
    case ScaleFormat::ufloat: {
      const Ufloat g = block_scale_grid(s);
      char text[512];
      std::snprintf(text, sizeof text,
                    "%s per block: unsigned, %d exponent (bias %d), %d mantissa bits, %s specials; max %.9g; "
                    "subnormals down to %.9g\n"
                    "             (rounded %s, satfinite) under an fp32 tensor scale S_enc = RN(RN(6 * %.9g)/amax); "
                    "otherwise as e4m3 with 448 replaced by %.9g",
                    ufloat_name(g).c_str(), g.exp_bits, g.bias, g.man_bits, to_string(g.specials).c_str(),
                    g.max_value(), g.decode(1), to_string(s.scale_round).c_str(), g.max_value(), g.max_value());
      return text;
    }
    case ScaleFormat::ue8m0:
      return s.scale_rule == ScaleRule::floor
                 ? "ue8m0 per block, floor rule (OCP MX): 2^(floor(log2 block_amax) - emax_elem); largest values "
                   "may clip"
                 : "ue8m0 per block, ceil rule (TE): 2^ceil(log2(block_amax / max_elem)); never clips";
  }
  return "";
}

void print_parameters(const std::string& name, const QuantSpec& s) {
  std::printf("%s: %s\n", name.c_str(), describe(s).c_str());
  std::printf("  element    %s\n", element_summary(s.element).c_str());
  if (s.block > 0)
    std::printf("  block      %d elements along the last axis (--tile 2d: %dx%d tiles share one scale)\n", s.block,
                s.block, s.block);
  std::printf("  scale      %s\n", scale_summary(s).c_str());
  std::printf("  rounding   rne%s\n", s.element == ElementFormat::fp4_e2m1
                                          ? "; sr: 8 random bits per element, P(away from zero) = floor(256 f)/256"
                                          : "");
  if (s.element == ElementFormat::fp4_e2m1) std::printf("  rht        optional 16-point Hadamard (TE signs 0xD7E8), output rounded to bf16\n");
}

// ---- edge-case tables ----

struct Edge {
  float x;
  const char* note;
};

void print_edge_table(const char* title, const std::vector<Edge>& edges, uint32_t (*encode)(float),
                      float (*decode)(uint32_t), int code_digits) {
  std::printf("\n%s\n  %-16s %-8s %-14s %s\n", title, "input", "code", "value", "note");
  for (const Edge& e : edges) {
    const uint32_t code = encode(e.x);
    char code_text[16];
    std::snprintf(code_text, sizeof code_text, "0x%0*X", code_digits, code);
    std::printf("  %-16.9g %-8s %-14.9g %s\n", e.x, code_text, decode(code), e.note);
  }
}

void print_element_edges(ElementFormat element) {
  switch (element) {
    case ElementFormat::fp4_e2m1:
      print_edge_table("fp4_e2m1, round to nearest even (satfinite):",
                       {{0.25f, "tie -> 0 (even)"}, {0.2500001f, "just above the tie"}, {0.5f, "subnormal"},
                        {0.75f, "tie -> 1"}, {1.25f, "tie -> 1"}, {1.75f, "tie -> 2"}, {2.5f, "tie -> 2"},
                        {3.5f, "tie -> 4"}, {5.0f, "tie -> 4"}, {5.0001f, "above the tie -> 6"},
                        {6.5f, "saturates"}, {kInf, "saturates"}, {-kInf, "saturates, sign kept"},
                        {kNan, "NaN -> +6"}, {-0.0f, "sign of zero kept"}, {-0.1f, "rounds to -0"}},
                       [](float x) -> uint32_t { return fp4_e2m1_encode_rne(x); },
                       [](uint32_t c) { return fp4_e2m1_decode(static_cast<uint8_t>(c)); }, 1);
      {
        const float x = 0.3f;  // f = 0.6 of the step 0.5 above 0
        int away = 0;
        for (int r = 0; r < 256; ++r) away += fp4_e2m1_encode_sr(x, static_cast<uint8_t>(r)) == 0x1;
        std::printf("  sr: %.9g rounds away from zero (to 0.5) for %d of 256 random bytes = floor(256 * 0.6)\n", x,
                    away);
      }
      break;
    case ElementFormat::fp8_e4m3:
      print_edge_table("fp8_e4m3, round to nearest even (satfinite):",
                       {{0x1p-10f, "tie -> 0 (even)"}, {0x1.8p-10f, "tie -> 2^-9"}, {0x1p-9f, "min subnormal"},
                        {0x1p-6f, "min normal"}, {1.0625f, "tie -> 1.0"}, {1.1875f, "tie -> 1.25"},
                        {448.0f, "max"}, {464.0f, "tie -> 448"}, {500.0f, "saturates"}, {kInf, "saturates"},
                        {kNan, "NaN -> 0x7F"}, {-0.0f, "sign of zero kept"}},
                       [](float x) -> uint32_t { return fp8_e4m3_encode_rne(x); },
                       [](uint32_t c) { return fp8_e4m3_decode(static_cast<uint8_t>(c)); }, 2);
      break;
    case ElementFormat::fp8_e5m2:
      print_edge_table("fp8_e5m2, round to nearest even (satfinite):",
                       {{0x1p-17f, "tie -> 0 (even)"}, {0x1p-16f, "min subnormal"}, {0x1p-14f, "min normal"},
                        {1.125f, "tie -> 1.0"}, {1.375f, "tie -> 1.5"}, {57344.0f, "max"}, {61440.0f, "saturates"},
                        {kInf, "saturates"}, {kNan, "NaN -> 0x7F"}, {-0.0f, "sign of zero kept"}},
                       [](float x) -> uint32_t { return fp8_e5m2_encode_rne(x); },
                       [](uint32_t c) { return fp8_e5m2_decode(static_cast<uint8_t>(c)); }, 2);
      break;
    case ElementFormat::bf16:
      print_edge_table("bf16, round to nearest even:",
                       {{1.0f + 0x1p-8f, "tie -> 1"}, {1.0f + 0x3p-8f, "tie -> 1 + 2^-6"}, {0x1p-133f, "min subnormal"},
                        {kBf16Max, "max"}, {FLT_MAX, "overflows to Inf"}, {kNan, "stays NaN"}, {-0.0f, "sign kept"}},
                       [](float x) -> uint32_t { return bf16_encode_rne(x); },
                       [](uint32_t c) { return bf16_decode(static_cast<uint16_t>(c)); }, 4);
      break;
    case ElementFormat::none:
      break;
  }
}

void print_scale_edges(const QuantSpec& s) {
  if (s.scale == ScaleFormat::e4m3) {
    print_element_edges(ElementFormat::fp8_e4m3);
    std::printf("  e4m3 block scales are never stochastically rounded; a block whose scale rounds to 0 (underflow)\n"
                "  encodes x * FLT_MAX (codes +-6 or other nonzero codes) and dequantizes to 0.\n");
  } else if (s.scale == ScaleFormat::ufloat) {
    const Ufloat g = block_scale_grid(s);
    const float min_sub = g.decode(1), max = g.max_value(), below_max = g.decode(g.max_code() - 1);
    std::printf("\n%s, rounded to nearest (even) / up / down (satfinite):\n  %-16s %-8s %-8s %-8s %s\n",
                ufloat_name(g).c_str(), "input", "nearest", "up", "down", "note");
    const Edge edges[] = {{min_sub / 2, "tie -> 0 (even)"}, {min_sub, "min subnormal"},
                          {min_sub * 1.5f, "tie between the first two subnormals"},
                          {(below_max + max) / 2, "tie below max"}, {max, "max"}, {max * 1.0625f, "saturates"},
                          {kInf, "saturates"}, {kNan, "NaN"}, {-1.0f, "negative -> 0"}};
    for (const Edge& e : edges)
      std::printf("  %-16.9g 0x%02X     0x%02X     0x%02X     %s\n", e.x, g.encode(e.x, UfloatRounding::nearest),
                  g.encode(e.x, UfloatRounding::up), g.encode(e.x, UfloatRounding::down), e.note);
  } else if (s.scale == ScaleFormat::ue8m0) {
    std::printf("\nue8m0 (2^(code-127), 0xFF = NaN), codes of a power of two rounded down / up:\n  %-16s %-8s %-8s %s\n",
                "input", "floor", "ceil", "note");
    const Edge edges[] = {{1.0f, "exact"}, {1.5f, "between 1 and 2"}, {0.75f, "between 0.5 and 1"},
                          {0.0f, "clamps to 2^-127"}, {0x1p-130f, "clamps to 2^-127"},
                          {FLT_MAX, "2^127"}, {kInf, "saturates to 2^127"}, {kNan, "NaN"}};
    for (const Edge& e : edges)
      std::printf("  %-16.9g 0x%02X     0x%02X     %s\n", e.x, ue8m0_encode_floor(e.x), ue8m0_encode_ceil(e.x), e.note);
    std::printf("  MX block scale (%s rule): block_amax 7.5 -> code 0x%02X; block_amax 0 -> 0x%02X; an Inf element -> "
                "0x%02X\n",
                to_string(s.scale_rule).c_str(), mx_block_scale_code(7.5f, s.element, s.scale_rule),
                mx_block_scale_code(0.0f, s.element, s.scale_rule), mx_block_scale_code(kInf, s.element, s.scale_rule));
  }
}

void list_formats() {
  std::printf("%-12s %s\n", "name", "format");
  for (const std::string& name : conformance_formats())
    std::printf("%-12s %s\n", name.c_str(), describe(spec_of(name)).c_str());
  std::printf("\nfp4lab formats NAME           parameters and edge cases of one format\n"
              "fp4lab formats [NAME] --vectors OUT.h5   conformance vectors (all formats without NAME)\n");
}

// ---- conformance vectors ----

void write_vectors(const std::vector<std::string>& formats, const std::string& path) {
  int64_t written = 0;
  h5::write_file_atomically(path, [&](h5::File& file) {
    file.set_attr("/", "description",
                  "fp4lab conformance vectors: /<format>/<variant>/<case>/{input, codes, scales, dequant, window_amax "
                  "(encode_window variants)}; "
                  "each case group carries the spec and SR stream as attributes");
    const std::vector<ConformanceCase> cases = conformance_cases();
    for (const std::string& format : formats)
      for (const ConformanceVariant& variant : conformance_variants(format)) {
        QuantSpec spec;
        if (const std::string problem = spec_from_options(format, variant.options, spec); !problem.empty())
          throw std::logic_error("conformance variant " + format + "/" + variant.name + ": " + problem);
        for (const ConformanceCase& c : cases) {
          const std::string group = "/" + format + "/" + variant.name + "/" + c.name;
          file.create_group(group);
          file.write(group + "/input", c.x, {static_cast<uint64_t>(c.rows), static_cast<uint64_t>(c.cols)});
          write_quantized(file, group, quantize_tensor(c.x, c.rows, c.cols, spec, QuantRandom{variant.seed, 0, 0}));
          ++written;
        }
      }
  });
  std::printf("\nwrote %lld vector sets to %s\n", static_cast<long long>(written), path.c_str());
}

void run_formats(const FormatsOptions& o) {
  if (o.name.empty()) {
    if (o.vectors.empty()) {
      list_formats();
      return;
    }
    write_vectors(conformance_formats(), o.vectors);
    return;
  }
  const QuantSpec s = spec_of(o.name);
  print_parameters(o.name, s);
  print_element_edges(s.element);
  print_scale_edges(s);
  if (!o.vectors.empty()) write_vectors({o.name}, o.vectors);
}

}  // namespace

void add_formats_command(CLI::App& app) {
  auto o = std::make_shared<FormatsOptions>();
  CLI::App* cmd = app.add_subcommand("formats", "Number formats: parameters, edge cases, conformance vectors");
  cmd->add_option("NAME", o->name, "nvfp4, nvfp4_ue5m3, mxfp4, mxfp8, fp8_e4m3, fp8_e5m2, bf16 or fp32 (omit to list)");
  cmd->add_option("--vectors", o->vectors, "write conformance vectors to this HDF5 file");
  cmd->callback([o] { run_formats(*o); });
}

}  // namespace fp4lab::cli
