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

#include "core/formats/ue8m0.hpp"
#include "core/io/h5.hpp"
#include "core/quant/block_scale.hpp"
#include "core/quant/conformance.hpp"
#include "core/quant/format_table.hpp"
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
  const ElementFormatInfo& e = element_info(s.element);
  std::printf("  element    %s\n", e.summary);
  if (s.block > 0)
    std::printf("  block      %d elements along the last axis (--tile 2d: %dx%d tiles share one scale)\n", s.block,
                s.block, s.block);
  std::printf("  scale      %s\n", scale_summary(s).c_str());
  std::printf("  rounding   rne%s\n",
              e.stochastic_rounding ? "; sr: 8 random bits per element, P(away from zero) = floor(256 f)/256" : "");
  if (e.stochastic_rounding)
    std::printf("  rht        optional 16-point Hadamard (TE signs 0xD7E8), output rounded to bf16\n");
}

// ---- edge-case tables ----

void print_element_edges(ElementFormat element) {
  const ElementFormatInfo& e = element_info(element);
  if (e.edges.empty()) return;
  const int code_digits = (e.bits + 3) / 4;
  std::printf("\n%s\n  %-16s %-8s %-14s %s\n", e.edge_title, "input", "code", "value", "note");
  for (const EdgeCase& edge : e.edges) {
    const uint32_t code = e.encode(edge.x);
    char code_text[16];
    std::snprintf(code_text, sizeof code_text, "0x%0*X", code_digits, code);
    std::printf("  %-16.9g %-8s %-14.9g %s\n", edge.x, code_text, e.decode(code), edge.note);
  }
  if (e.encode_sr) {
    const float x = 0.3f;  // f = 0.6 of the step 0.5 above 0
    int away = 0;
    float away_value = 0.0f;
    for (int r = 0; r < 256; ++r)
      if (const float v = e.decode(e.encode_sr(x, static_cast<uint8_t>(r))); v != 0.0f) ++away, away_value = v;
    std::printf("  sr: %.9g rounds away from zero (to %.9g) for %d of 256 random bytes = floor(256 * 0.6)\n", x,
                away_value, away);
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
    const EdgeCase edges[] = {{min_sub / 2, "tie -> 0 (even)"}, {min_sub, "min subnormal"},
                          {min_sub * 1.5f, "tie between the first two subnormals"},
                          {(below_max + max) / 2, "tie below max"}, {max, "max"}, {max * 1.0625f, "saturates"},
                          {kInf, "saturates"}, {kNan, "NaN"}, {-1.0f, "negative -> 0"}};
    for (const EdgeCase& e : edges)
      std::printf("  %-16.9g 0x%02X     0x%02X     0x%02X     %s\n", e.x, g.encode(e.x, UfloatRounding::nearest),
                  g.encode(e.x, UfloatRounding::up), g.encode(e.x, UfloatRounding::down), e.note);
  } else if (s.scale == ScaleFormat::ue8m0) {
    std::printf("\nue8m0 (2^(code-127), 0xFF = NaN), codes of a power of two rounded down / up:\n  %-16s %-8s %-8s %s\n",
                "input", "floor", "ceil", "note");
    const EdgeCase edges[] = {{1.0f, "exact"}, {1.5f, "between 1 and 2"}, {0.75f, "between 0.5 and 1"},
                          {0.0f, "clamps to 2^-127"}, {0x1p-130f, "clamps to 2^-127"},
                          {FLT_MAX, "2^127"}, {kInf, "saturates to 2^127"}, {kNan, "NaN"}};
    for (const EdgeCase& e : edges)
      std::printf("  %-16.9g 0x%02X     0x%02X     %s\n", e.x, ue8m0_encode_floor(e.x), ue8m0_encode_ceil(e.x), e.note);
    std::printf("  MX block scale (%s rule): block_amax 7.5 -> code 0x%02X; block_amax 0 -> 0x%02X; an Inf element -> "
                "0x%02X\n",
                to_string(s.scale_rule).c_str(), mx_block_scale_code(7.5f, s.element, s.scale_rule),
                mx_block_scale_code(0.0f, s.element, s.scale_rule), mx_block_scale_code(kInf, s.element, s.scale_rule));
  }
}

void list_formats() {
  std::printf("%-12s %-34s %s\n", "name", "format", "source");
  for (const NamedFormat& f : named_formats())
    std::printf("%-12s %-34s %s\n", f.name.c_str(), describe(f.spec).c_str(), f.source.c_str());
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
    write_vectors(named_format_names(), o.vectors);
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
  cmd->add_option("NAME", o->name, named_format_list() + " (omit to list)");
  cmd->add_option("--vectors", o->vectors, "write conformance vectors to this HDF5 file");
  cmd->callback([o] { run_formats(*o); });
}

}  // namespace fp4lab::cli
