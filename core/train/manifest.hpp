// The recipe manifest: which format each operand of each GEMM of each linear layer actually ran in
// and how many times, summed over a whole run (carried across resumes by the checkpoint), and the
// one-line coverage summary drawn from it. Built from the GemmUse counters (gemm_counters.hpp), so it records
// what ran, not what the config asked for. Not the numerics fingerprint (fingerprint.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/gemm_counters.hpp"

namespace fp4lab {

struct ManifestEntry {
  std::string tensor;  // Llama name of the linear layer
  GemmRole role = GemmRole::fprop;
  Operand operand = Operand::a;
  ElementFormat element = ElementFormat::none;
  std::string format;  // describe() of the QuantSpec
  int64_t count = 0;   // operand uses (training and validation passes)
  GemmNumerics numerics = GemmNumerics::dequant_fp32;  // what the GEMM computed (block_exact: FP4 pairs)
};

// The counters' uses, added to `carried` (a resumed run's earlier uses).
std::vector<ManifestEntry> manifest_entries(const GemmCounters& counters, const std::vector<ManifestEntry>& carried = {});

// Checkpoint form: one tab-separated line per entry (tensor, role, operand, format, count, numerics);
// lines of five fields (checkpoints written before GEMM numerics existed) read as dequant_fp32.
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
  // Quantized attention products (entries of tensor "layers.N.self_attn.core"): "fwd FORMAT", "bwd FORMAT".
  std::vector<std::string> attention_formats;
  // "14/14 linear layers quantized (84/84 GEMM operands): fp4_e2m1/16 e4m3 1d rne, ...; lm_head bf16 rne"
  // followed by "; FP4 x FP4 GEMMs block_exact" when any GEMM ran block_exact and by
  // "; attention products fwd fp8_e4m3/tensor fp32 1d rne, bwd ..." when attention was quantized
  std::string summary() const;
};
RecipeCoverage recipe_coverage(const std::vector<ManifestEntry>& entries, const std::vector<std::string>& linear_names);

// The run file's recipe_manifest attribute: YAML with the coverage line, totals and every entry.
std::string manifest_yaml(const std::vector<ManifestEntry>& entries, const RecipeCoverage& coverage);

}  // namespace fp4lab
