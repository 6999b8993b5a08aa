// Curves, bands and telemetry series (curves.hpp).
#include "analysis/curves.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "core/config/value.hpp"

namespace fp4lab::analysis {

Curves build_curves(const RunData& run, double ema) {
  Curves c;
  c.steps = clean_steps(run.steps);
  for (const auto& s : c.steps) {
    c.tokens.push_back(static_cast<double>(s.tokens));
    c.loss.push_back(s.train_loss);
  }
  c.ema = ema_smooth(c.loss, ema);
  std::vector<ValRecord> val = run.val;
  std::stable_sort(val.begin(), val.end(), [](const ValRecord& a, const ValRecord& b) { return a.step < b.step; });
  for (const auto& v : val) {
    if (!c.val_step.empty() && c.val_step.back() == v.step) {
      c.val_tokens.back() = static_cast<double>(v.tokens);
      c.val_loss.back() = v.loss;
      continue;
    }
    c.val_step.push_back(v.step);
    c.val_tokens.push_back(static_cast<double>(v.tokens));
    c.val_loss.push_back(v.loss);
  }
  return c;
}

double last_finite(const std::vector<double>& v) {
  for (size_t i = v.size(); i-- > 0;)
    if (std::isfinite(v[i])) return v[i];
  return kNaN;
}

SeriesBand make_band(const std::vector<Series>& series) {
  SeriesBand b;
  if (series.empty()) return b;
  struct Acc {
    size_t n = 0;
    double tokens = 0, sum = 0, min = INFINITY, max = -INFINITY;
  };
  std::map<int64_t, Acc> acc;
  for (const auto& s : series)
    for (size_t i = 0; i < s.steps.size(); ++i) {
      if (!std::isfinite(s.values[i])) continue;
      Acc& a = acc[s.steps[i]];
      ++a.n;
      a.tokens += s.tokens[i];
      a.sum += s.values[i];
      a.min = std::min(a.min, s.values[i]);
      a.max = std::max(a.max, s.values[i]);
    }
  for (const auto& [step, a] : acc) {
    if (a.n != series.size()) continue;
    b.step.push_back(step);
    b.tokens.push_back(a.tokens / a.n);
    b.mean.push_back(a.sum / a.n);
    b.min.push_back(a.min);
    b.max.push_back(a.max);
  }
  return b;
}

Series diff_series(const Curves& c, const Curves& r) {
  Series s;
  for (size_t i = 0, j = 0; i < c.steps.size() && j < r.steps.size();) {
    if (c.steps[i].step < r.steps[j].step) ++i;
    else if (r.steps[j].step < c.steps[i].step) ++j;
    else {
      s.steps.push_back(c.steps[i].step);
      s.tokens.push_back(c.tokens[i]);
      s.values.push_back(c.ema[i] - r.ema[j]);
      ++i, ++j;
    }
  }
  return s;
}

namespace {

double tokens_at_step(const Curves& c, int64_t step) {
  auto it = std::lower_bound(c.steps.begin(), c.steps.end(), step,
                             [](const StepRecord& r, int64_t s) { return r.step < s; });
  if (it == c.steps.end()) return c.steps.empty() ? kNaN : static_cast<double>(c.steps.back().tokens);
  return static_cast<double>(it->tokens);
}

// Key of one GEMM operand of one tensor: (tensor name, role, operand).
using OperandUse = std::tuple<std::string, int, int>;

// The format each operand use of a run ran in most often, from its recipe manifest (run file
// attribute, YAML `uses:` list). Empty for a file without one or with one that does not parse.
std::map<OperandUse, std::string> manifest_formats(const std::string& manifest) {
  std::map<OperandUse, std::string> format;
  if (manifest.empty()) return format;
  Value doc;
  try {
    doc = parse_yaml_string(manifest, "recipe_manifest");
  } catch (const std::exception&) {
    return format;
  }
  const Value* uses = doc.is_map() ? doc.find("uses") : nullptr;
  if (!uses || !uses->is_list()) return format;
  std::map<OperandUse, long long> most;
  for (const Value& u : uses->items()) {
    const Value *tensor = u.find("tensor"), *gemm = u.find("gemm"), *operand = u.find("operand"),
                *fmt = u.find("format"), *count = u.find("count");
    if (!tensor || !gemm || !operand || !fmt || !count) continue;
    for (int role = 0; role < 3; ++role)
      for (int op = 0; op < 2; ++op) {
        if (to_string(GemmRole(role)) != gemm->text() || operand_name(GemmRole(role), Operand(op)) != operand->text())
          continue;
        const OperandUse key{tensor->text(), role, op};
        const long long n = count->as_int("count");
        if (n > most[key]) most[key] = n, format[key] = fmt->text();
      }
  }
  return format;
}

struct FiniteMean {  // of the finite values added (NaN: not applicable, or an older file)
  double n = 0, sum = 0;
  void add(double v) {
    if (std::isfinite(v)) n += 1, sum += v;
  }
  double mean() const { return n > 0 ? sum / n : kNaN; }
};

std::string tensor_name(const RunData& run, int32_t t) {
  return t >= 0 && size_t(t) < run.meta.tensor_names.size() ? run.meta.tensor_names[size_t(t)]
                                                            : std::string("#") + std::to_string(t);
}

}  // namespace

std::vector<QuantSeries> quant_series(const std::vector<const RunData*>& runs, const std::vector<const Curves*>& curves) {
  // key = (role*2 + operand, format); per key: step -> sums over tensors and seeds. Tensors that ran
  // in different formats (a bf16 LM head, blocks kept in bf16) are separate series.
  struct Acc {
    double n = 0, sqnr = 0, flushed = 0, saturated = 0;
    FiniteMean nv, mx, shrinkage, sr_k1, sr_k64;
  };
  std::map<std::pair<int, std::string>, std::map<int64_t, Acc>> acc;
  std::map<int64_t, std::pair<double, int>> step_tokens;  // step -> (sum over runs, runs)
  for (size_t r = 0; r < runs.size(); ++r) {
    std::set<int64_t> seen;
    const auto formats = manifest_formats(runs[r]->meta.recipe_manifest);
    const auto& names = runs[r]->meta.tensor_names;
    for (const auto& q : runs[r]->quant) {
      if (seen.insert(q.step).second) {
        const double t = tokens_at_step(*curves[r], q.step);
        if (std::isfinite(t)) {
          step_tokens[q.step].first += t;
          step_tokens[q.step].second += 1;
        }
      }
      if (!std::isfinite(q.sqnr_db)) continue;
      std::string format;
      if (q.tensor >= 0 && size_t(q.tensor) < names.size()) {
        const auto it = formats.find({names[size_t(q.tensor)], int(q.role), int(q.operand)});
        if (it != formats.end()) format = it->second;
      }
      Acc& a = acc[{static_cast<int>(q.role) * 2 + static_cast<int>(q.operand), format}][q.step];
      a.n += 1;
      a.sqnr += q.sqnr_db;
      a.flushed += q.frac_flushed;
      a.saturated += q.frac_saturated;
      a.nv.add(q.whatif_nvfp4_sqnr_db);
      a.mx.add(q.whatif_mxfp4_sqnr_db);
      a.shrinkage.add(q.bias_shrinkage);
      a.sr_k1.add(q.sr_rms_k1);
      a.sr_k64.add(q.sr_rms_k64);
    }
  }
  std::vector<QuantSeries> out;
  for (const auto& [key, by_step] : acc) {
    QuantSeries s;
    s.role = static_cast<GemmRole>(key.first / 2);
    s.operand = static_cast<Operand>(key.first % 2);
    s.format = key.second;
    s.label = to_string(s.role) + " " + operand_name(s.role, s.operand) + (s.format.empty() ? "" : " [" + s.format + "]");
    for (const auto& [step, a] : by_step) {
      const auto it = step_tokens.find(step);
      s.step.push_back(step);
      s.tokens.push_back(it != step_tokens.end() ? it->second.first / it->second.second : kNaN);
      s.sqnr_db.push_back(a.sqnr / a.n);
      s.frac_flushed.push_back(a.flushed / a.n);
      s.frac_saturated.push_back(a.saturated / a.n);
      s.whatif_nvfp4_sqnr_db.push_back(a.nv.mean());
      s.whatif_mxfp4_sqnr_db.push_back(a.mx.mean());
      s.bias_shrinkage.push_back(a.shrinkage.mean());
      s.sr_rms_k1.push_back(a.sr_k1.mean());
      s.sr_rms_k64.push_back(a.sr_k64.mean());
    }
    out.push_back(std::move(s));
  }
  return out;
}

RunFidelity last_fidelity(const RunData& run) {
  RunFidelity f;
  for (const auto& r : run.fidelity) f.step = std::max(f.step, r.step);
  for (int role = 0; role < 3; ++role) {
    RunFidelity::Role& out = f.role[role];
    FiniteMean gain, rel_err, cosine, sr_bias, sr_rel_std;
    for (const auto& r : run.fidelity) {
      if (r.step != f.step || int(r.role) != role) continue;
      gain.add(r.gain);
      rel_err.add(r.rel_err);
      cosine.add(r.cosine);
      sr_bias.add(r.sr_bias);
      sr_rel_std.add(r.sr_rel_std);
      if (std::isfinite(r.gain) && !(r.gain >= out.lowest_gain)) out.lowest_gain = r.gain, out.lowest_layer = tensor_name(run, r.tensor);
    }
    if (role == int(GemmRole::wgrad)) f.n_layers = int(gain.n);
    out.gain = gain.mean();
    out.rel_err = rel_err.mean();
    out.cosine = cosine.mean();
    out.sr_bias = sr_bias.mean();
    out.sr_rel_std = sr_rel_std.mean();
  }
  return f;
}

std::vector<LayerSeries> wgrad_gain_series(const std::vector<const RunData*>& runs) {
  std::map<std::string, std::map<int64_t, std::pair<FiniteMean, int>>> by_layer;  // layer -> step -> (gain, runs)
  for (const RunData* run : runs)
    for (const auto& r : run->fidelity) {
      if (r.role != GemmRole::wgrad) continue;
      auto& [acc, n] = by_layer[tensor_name(*run, r.tensor)][r.step];
      acc.add(r.gain);
      ++n;
    }
  std::vector<LayerSeries> out;
  if (runs.empty()) return out;
  for (const auto& [layer, steps] : by_layer) {
    LayerSeries s;
    s.layer = layer;
    for (const auto& [step, value] : steps) {
      if (value.second != int(runs.size())) continue;  // a step some run lacks
      s.step.push_back(step);
      double tokens = kNaN;
      for (const auto& st : runs.front()->steps)
        if (st.step == step) tokens = double(st.tokens);
      s.tokens.push_back(tokens);
      s.values.push_back(value.first.mean());
    }
    if (!s.step.empty()) out.push_back(std::move(s));
  }
  return out;
}

RunGnr last_gnr(const RunData& run) {
  RunGnr g;
  for (const auto& r : run.gnr) g.step = std::max(g.step, r.step);
  std::vector<std::pair<double, int32_t>> values;
  for (const auto& r : run.gnr)
    if (r.step == g.step && !std::isnan(r.gnr)) values.emplace_back(r.gnr, r.tensor);
  if (values.empty()) return g;
  std::sort(values.begin(), values.end());
  g.n_layers = int(values.size());
  g.min_gnr = values.front().first;
  std::vector<double> sorted;
  for (const auto& [v, t] : values) sorted.push_back(v);
  g.median_gnr = median(sorted);
  for (const auto& [v, t] : values) g.n_below += v < kGnrThreshold;
  g.lowest_layer = tensor_name(run, values.front().second);
  return g;
}

}  // namespace fp4lab::analysis
