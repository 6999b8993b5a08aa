// Names of GEMM sites (see gemm_site.hpp).
#include "core/model/gemm_site.hpp"

namespace fp4lab {
namespace {

constexpr const char* kAttentionOperand[] = {"qkvp", "dout_ds"};  // by AttentionSide

}  // namespace

std::string GemmSite::role_name() const {
  return kind == SiteKind::linear ? to_string(role) : to_string(side);
}

std::string GemmSite::operand_name() const {
  return kind == SiteKind::linear ? fp4lab::operand_name(role, operand) : kAttentionOperand[int(side)];
}

GemmSite linear_site(const std::string& tensor, int layer, GemmRole role, Operand operand) {
  GemmSite s;
  s.layer = layer;
  s.tensor = tensor;
  s.role = role;
  s.operand = operand;
  return s;
}

GemmSite attention_site(int layer, AttentionSide side) {
  GemmSite s;
  s.kind = SiteKind::attention;
  s.layer = layer;
  s.tensor = "layers." + std::to_string(layer) + ".self_attn.core";
  s.side = side;
  return s;
}

bool site_from_names(SiteKind kind, int layer, const std::string& tensor, const std::string& role,
                     const std::string& operand, GemmSite& out) {
  if (kind == SiteKind::attention) {
    AttentionSide side{};
    if (layer < 0 || !parse(role, side) || operand != kAttentionOperand[int(side)]) return false;
    out = attention_site(layer, side);
    return true;
  }
  GemmRole r{};
  if (!parse(role, r)) return false;
  for (Operand o : {Operand::a, Operand::b})
    if (fp4lab::operand_name(r, o) == operand) return out = linear_site(tensor, layer, r, o), true;
  return false;
}

}  // namespace fp4lab
