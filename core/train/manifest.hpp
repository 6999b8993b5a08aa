// The recipe manifest: which format each GEMM operand actually ran in and how many times, per typed
// site (an operand of a linear layer's GEMM, or one side of a block's attention products;
// core/model/gemm_site.hpp), summed over a whole run (carried across resumes by the checkpoint),
// and the one-line coverage summary drawn from it. Built from the GemmUse counters
// (core/model/gemm_counters.hpp), so it records what ran, not what the config asked for. Not the
// numerics fingerprint (fingerprint.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/gemm_counters.hpp"

namespace fp4lab {

struct ManifestEntry {
  GemmSite site;
  ElementFormat element = ElementFormat::none;
  std::string format;  // describe() of the QuantSpec
  int64_t count = 0;   // operand uses (training and validation passes)
  GemmNumerics numerics = GemmNumerics::dequant_fp32;  // what the GEMM computed (block_exact: FP4 pairs)
};

// The counters' uses, added to `carried` (a resumed run's earlier uses).
std::vector<ManifestEntry> manifest_entries(const GemmCounters& counters, const std::vector<ManifestEntry>& carried = {});

// Checkpoint form: one tab-separated line per entry, every field by name:
//   kind  layer  tensor  role  operand  format  count  numerics
//   linear  1  layers.1.mlp.down_proj  wgrad  dy  fp4_e2m1/16 e4m3 1d sr rht16  10  dequant_fp32
//   attention  0  layers.0.self_attn.core  fwd  qkvp  fp8_e4m3/tensor fp32 1d rne  10  dequant_fp32
// parse_manifest also reads the lines of older checkpoints: tensor, role (0 fprop, 1 dgrad, 2 wgrad),
// operand (0 a, 1 b), format, count and, from when GEMM numerics existed, numerics (else
// dequant_fp32); the layer comes from the name ("layers.N.…"; -1 otherwise) and attention products
// are tensor "layers.N.self_attn.core", role 0 (fwd) or 1 (bwd), operand 0.
std::string serialize_manifest(const std::vector<ManifestEntry>& entries);
std::vector<ManifestEntry> parse_manifest(const std::string& text);  // throws std::runtime_error

// How much of the model ran quantized. A linear layer (or one of its 6 GEMM operands) counts as
// quantized when it ran at least once in an 8-bit or 4-bit element format (fp8_*, fp4_e2m1); bf16
// and fp32 are high precision. Block linears are the n_layers·7 projections; the LM head is apart.
struct RecipeCoverage {
  int block_linears = 0, quantized_linears = 0;
  int operand_slots = 0, quantized_slots = 0;  // block_linears × 3 GEMMs × 2 operands
  int switched_slots = 0;  // quantized slots that also ran in high precision (a precision switch)
  std::vector<std::string> quantized_formats;  // low-precision formats of block linears, first use first
  std::vector<std::string> other_formats;      // high-precision formats of block linears
  std::vector<std::string> lm_head_formats;
  int64_t block_exact_uses = 0;  // operand uses whose GEMM ran block_exact
  std::vector<std::string> attention_formats;  // quantized attention products: "fwd FORMAT", "bwd FORMAT"
  // "14/14 linear layers quantized (84/84 GEMM operands): fp4_e2m1/16 e4m3 1d rne, ...; lm_head bf16 rne"
  // followed by "; FP4 x FP4 GEMMs block_exact" when any GEMM ran block_exact and by
  // "; attention products fwd fp8_e4m3/tensor fp32 1d rne, bwd ..." when attention was quantized
  std::string summary() const;
};
RecipeCoverage recipe_coverage(const std::vector<ManifestEntry>& entries, const std::vector<std::string>& linear_names);

// The run file's recipe_manifest attribute: YAML with the coverage line, totals and every entry
// (results/SCHEMA.md).
std::string manifest_yaml(const std::vector<ManifestEntry>& entries, const RecipeCoverage& coverage);

}  // namespace fp4lab
