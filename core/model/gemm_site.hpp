// Where a GEMM operand runs, typed: an operand of one of a linear layer's three GEMMs, or one side
// of a block's quantized attention products. The use counters (gemm_counters.hpp) count per site
// and the recipe manifest (core/train/manifest.hpp) writes sites by name. Not the formats.
#pragma once
#include <cstdint>
#include <string>

#include "core/formats/enum_names.hpp"
#include "core/model/telemetry.hpp"

namespace fp4lab {

enum class SiteKind : uint8_t { linear, attention };
template <>
struct EnumNames<SiteKind> {
  static constexpr EnumName<SiteKind> names[] = {{SiteKind::linear, "linear"}, {SiteKind::attention, "attention"}};
};

// The two sides of attention's quantized products (AttentionQuant, core/ops/attention.hpp): fwd
// quantizes q, k, v and the probabilities P (operand "qkvp"), bwd the output gradient dO and the
// score gradient dS (operand "dout_ds").
enum class AttentionSide : uint8_t { fwd, bwd };
template <>
struct EnumNames<AttentionSide> {
  static constexpr EnumName<AttentionSide> names[] = {{AttentionSide::fwd, "fwd"}, {AttentionSide::bwd, "bwd"}};
};

struct GemmSite {
  SiteKind kind = SiteKind::linear;
  int layer = -1;  // block index; -1 for lm_head
  // linear: its Llama name ("layers.3.mlp.down_proj", "lm_head"); attention: "layers.3.self_attn.core"
  std::string tensor;
  GemmRole role = GemmRole::fprop;          // linear: which GEMM
  Operand operand = Operand::a;             // linear: which input of it
  AttentionSide side = AttentionSide::fwd;  // attention
  bool operator==(const GemmSite&) const = default;
  std::string role_name() const;     // fprop, dgrad, wgrad; fwd, bwd
  std::string operand_name() const;  // x, w, dy; qkvp, dout_ds
};

GemmSite linear_site(const std::string& tensor, int layer, GemmRole role, Operand operand);
GemmSite attention_site(int layer, AttentionSide side);

// The site named as role_name() and operand_name() write it (a linear's tensor as given); false
// when the names do not fit the kind (or attention has no block).
bool site_from_names(SiteKind kind, int layer, const std::string& tensor, const std::string& role,
                     const std::string& operand, GemmSite& out);

}  // namespace fp4lab
