// GEMM use counters (see gemm_counters.hpp).
#include "core/model/gemm_counters.hpp"

#include <algorithm>

namespace fp4lab {
namespace {

const QuantSpec& spec_of(const LinearRecipe& r, GemmRole role, Operand operand) {
  const QuantSpec* specs[kGemmRoles][kGemmOperands] = {
      {&r.fprop_x, &r.fprop_w}, {&r.dgrad_dy, &r.dgrad_w}, {&r.wgrad_dy, &r.wgrad_x}};
  return *specs[int(role)][int(operand)];
}

size_t slot_of(int linear, GemmRole role, Operand operand) {
  return size_t((linear * kGemmRoles + int(role)) * kGemmOperands + int(operand));
}

}  // namespace

GemmCounters::GemmCounters(const Model& model) {
  for (const ParamInfo& p : model.params()) {
    if (!p.is_linear) continue;
    for (int r = 0; r < kGemmRoles; ++r)
      for (int o = 0; o < kGemmOperands; ++o) sites_.push_back(linear_site(p.name, p.block, GemmRole(r), Operand(o)));
  }
  last_use_.assign(sites_.size(), -1);
}

std::vector<GemmUse> GemmCounters::uses() const {
  std::vector<GemmUse> all = linear_uses_;
  all.insert(all.end(), attention_uses_.begin(), attention_uses_.end());
  return all;
}

void GemmCounters::after_forward(const LinearCall& call) { count(call, GemmRole::fprop); }

void GemmCounters::after_backward(const LinearCall& call) {
  count(call, GemmRole::dgrad);
  count(call, GemmRole::wgrad);
}

// One use of each operand of GEMM `role`; the last use of each slot is found without a search.
void GemmCounters::count(const LinearCall& call, GemmRole role) {
  const GemmNumerics numerics = call.state->numerics[int(role)];
  for (Operand op : {Operand::a, Operand::b}) {
    const QuantSpec& spec = spec_of(*call.quant->recipe, role, op);
    const size_t s = slot_of(call.linear, role, op);
    int64_t& last = last_use_[s];
    if (last < 0 || !(linear_uses_[size_t(last)].spec == spec) || linear_uses_[size_t(last)].numerics != numerics) {
      last = -1;
      for (size_t u = 0; u < linear_uses_.size(); ++u) {
        const GemmUse& use = linear_uses_[u];
        if (use.spec == spec && use.numerics == numerics && use.site == sites_[s]) last = int64_t(u);
      }
      if (last < 0) {
        linear_uses_.push_back(GemmUse{sites_[s], spec, numerics, 0});
        last = int64_t(linear_uses_.size()) - 1;
      }
    }
    ++linear_uses_[size_t(last)].count;
  }
}

void GemmCounters::attention(int block, AttentionSide side, const AttentionQuant& quant) {
  const QuantSpec& spec = side == AttentionSide::fwd ? quant.fwd : quant.bwd;
  if (!spec.quantized()) return;
  const GemmSite site = attention_site(block, side);
  auto it = std::find_if(attention_uses_.begin(), attention_uses_.end(),
                         [&](const GemmUse& u) { return u.site == site && u.spec == spec; });
  if (it == attention_uses_.end()) it = attention_uses_.insert(attention_uses_.end(), GemmUse{site, spec});
  ++it->count;
}

}  // namespace fp4lab
