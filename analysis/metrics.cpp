// analyze(): loaded runs -> AnalysisReport, as a sequence of stages (see analyze() at the end),
// each a function of the report built so far: cells -> config groups -> baselines -> per-cell gaps
// -> per-config summaries -> multi-budget token gaps -> precision switches -> paired comparisons
// -> notes. The statistics are stats.hpp's, the curves curves.hpp's. Reads only RunData; no I/O
// besides load_grid in analyze_dir.
#include "analysis/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <utility>

#include "analysis/curves.hpp"
#include "core/config/config.hpp"
#include "core/config/value.hpp"
#include "core/train/throughput.hpp"

namespace fp4lab::analysis {

namespace {

// ---------------------------------------------------------------------------- helpers

WindowRule window_rule(const ResolvedSettings& set) {
  return {set.window_fraction, set.window_by_tokens, set.window_tokens_min, set.window_tokens_max};
}

std::string fmt_count(int n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

int agreement(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
  int n = 0;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it != b.end() && values_equal(it->second, v)) ++n;
  }
  return n;
}

// The baseline candidate agreeing with `vary` on the most keys (ties: the first).
int best_reference(const std::map<std::string, std::string>& vary, const std::vector<int>& candidates,
                   const std::vector<std::map<std::string, std::string>>& candidate_vary) {
  int best = -1, best_score = -1;
  for (int c : candidates) {
    const int score = agreement(vary, candidate_vary[c]);
    if (score > best_score) best = c, best_score = score;
  }
  return best;
}

// The run's non-embedding parameter count, from its resolved config (NaN if that does not parse).
double model_params_of(const RunData& run) {
  if (run.meta.config_yaml.empty()) return kNaN;
  try {
    ConfigBuilder b;
    b.add_tree(parse_yaml_string(run.meta.config_yaml, run.path + ": config"));
    return double(non_embedding_params(b.build().model));
  } catch (const std::exception&) {
    return kNaN;
  }
}

// Throughput of one run from its steps (the median step time after the first step) and its
// accounting attributes (flops_per_token, gemm_peak_gflops).
void set_throughput(CellResult& c, const RunData& run) {
  std::vector<double> secs;
  for (size_t i = 1; i < run.steps.size(); ++i)
    if (std::isfinite(run.steps[i].step_seconds) && run.steps[i].step_seconds > 0) secs.push_back(run.steps[i].step_seconds);
  if (secs.empty() || run.steps.size() < 2) return;
  c.step_seconds = median(secs);
  const double tokens_per_step = double(run.steps[1].tokens - run.steps[0].tokens);
  c.tokens_per_second = tokens_per_step / c.step_seconds;
  if (run.meta.flops_per_token > 0) c.model_tflops = run.meta.flops_per_token * c.tokens_per_second / 1e12;
  if (run.meta.gemm_peak_gflops > 0) c.gemm_peak_gflops = run.meta.gemm_peak_gflops;
  c.mfu = c.model_tflops * 1e3 / c.gemm_peak_gflops;
  c.threads = run.meta.threads;
}

// ---------------------------------------------------------------------------- stage 1: cells

// A cell's identity, state and what its own run says: final losses, entropy gap, coverage, model
// size, throughput, and whether it counts in the gap statistics. Fills `curves` for a readable run.
CellResult read_cell(const CellRun& cr, const ResolvedSettings& set, Curves& curves) {
  CellResult c;
  c.index = cr.info.index;
  c.id = cr.info.id;
  c.file = cr.path.empty() ? (cr.info.file.empty() ? cr.info.id + ".h5" : cr.info.file)
                           : std::filesystem::path(cr.path).filename().string();
  c.seed = cr.info.seed;
  c.vary = cr.info.vary;
  if (cr.path.empty()) {
    c.state = "pending";
    return c;
  }
  if (!cr.run) {
    c.state = "unreadable";
    c.message = cr.error;
    return c;
  }
  const RunData& run = *cr.run;
  c.state = to_string(run.status);
  c.status_step = run.status_step;
  c.message = run.status_message;
  curves = build_curves(run, set.ema);
  c.steps = static_cast<int64_t>(curves.steps.size());
  if (!curves.steps.empty()) {
    c.last_step = curves.steps.back().step;
    c.tokens = static_cast<double>(curves.steps.back().tokens);
    c.last_train_loss = curves.steps.back().train_loss;
  }
  c.final_train_ema = last_finite(curves.ema);
  c.final_val_loss = last_finite(curves.val_loss);
  c.final_loss_kind = std::isfinite(c.final_val_loss) ? "val" : "train_ema";
  c.final_loss = std::isfinite(c.final_val_loss) ? c.final_val_loss : c.final_train_ema;
  c.entropy_rate = run.meta.entropy_rate;
  c.coverage = run.meta.coverage;
  c.model_params = model_params_of(run);
  c.tokenizer = run.meta.tokenizer;
  c.data_epochs = run.meta.data_epochs;
  const double bpt = c.final_loss_kind == "val" ? run.meta.val_bytes_per_token : run.meta.train_bytes_per_token;
  if (!c.tokenizer.empty() && bpt > 0) c.final_bpb = c.final_loss / std::log(2.0) / bpt;
  if (c.entropy_rate >= 0) c.entropy_gap = c.final_loss - c.entropy_rate;
  set_throughput(c, run);
  c.included = (run.status == RunStatus::done || run.status == RunStatus::running) && !curves.steps.empty() &&
               std::isfinite(c.final_train_ema);
  if (run.status == RunStatus::running) c.note = "still running at step " + std::to_string(c.last_step) + "; ";
  return c;
}

// ---------------------------------------------------------------------------- stage 2: config groups

// Groups the cells by config (seeds set aside), in order of first cell, and lists the keys that
// vary across the groups.
void group_cells(const GridRuns& runs, AnalysisReport& rep) {
  std::map<std::map<std::string, std::string>, int> group_of;
  for (size_t i = 0; i < runs.cells.size(); ++i) {
    const auto key = config_key(runs.cells[i].info);
    auto [it, fresh] = group_of.emplace(key, static_cast<int>(rep.groups.size()));
    if (fresh) {
      GroupResult g;
      g.index = it->second;
      g.vary = key;
      g.label = config_label(key);
      rep.groups.push_back(g);
    }
    rep.cells[i].group = it->second;
    rep.groups[it->second].cells.push_back(static_cast<int>(i));
  }
  std::map<std::string, std::set<std::string>> values;
  for (const auto& g : rep.groups)
    for (const auto& [k, v] : g.vary) values[k].insert(v);
  for (const auto& [k, vs] : values)
    if (vs.size() > 1 || rep.groups.size() == 1) rep.vary_keys.push_back(k);
}

// ---------------------------------------------------------------------------- stage 3: baselines

// Marks the groups the baseline selector picks (none: the first group, with a note) and gives
// every group the baseline group agreeing with it on the most keys as its reference.
void assign_baselines(AnalysisReport& rep) {
  std::vector<int> baseline_groups;
  std::vector<std::map<std::string, std::string>> group_vary;
  for (const auto& g : rep.groups) group_vary.push_back(g.vary);
  if (!rep.baseline.empty())
    for (const auto& g : rep.groups)
      if (selects(rep.baseline, g.vary)) baseline_groups.push_back(g.index);
  if (baseline_groups.empty() && !rep.groups.empty()) {
    baseline_groups.push_back(0);
    rep.notes.push_back((rep.baseline.empty() ? std::string("no baseline given")
                                              : "baseline " + config_label(rep.baseline) + " matches no cell") +
                        ": comparing with the first config group, " + rep.groups[0].label);
  }
  for (int b : baseline_groups) rep.groups[b].is_baseline = true;
  for (auto& g : rep.groups) g.reference = g.is_baseline ? g.index : best_reference(g.vary, baseline_groups, group_vary);
  for (auto& c : rep.cells) c.is_baseline = rep.groups[c.group].is_baseline;
}

// ---------------------------------------------------------------------------- stage 4: per-cell gaps

// One included cell against the same-seed run of its group's reference: tokens to target, the
// converged-regime paired gap and the final-loss gap.
void cell_gaps(AnalysisReport& rep, int i, const std::vector<Curves>& curves) {
  const ResolvedSettings& set = rep.settings;
  CellResult& c = rep.cells[i];
  const GroupResult& ref_group = rep.groups[rep.groups[c.group].reference];
  for (int j : ref_group.cells)
    if (rep.cells[j].included && rep.cells[j].seed == c.seed) c.reference = j;
  if (c.reference < 0) {
    c.note += "no same-seed baseline run (seed " + std::to_string(c.seed) + "); ";
    return;
  }
  const CellResult& r = rep.cells[c.reference];
  const Curves& cc = curves[i];
  const Curves& rc = curves[c.reference];
  // Tokens to target.
  switch (set.target_rule) {
    case TargetRule::baseline_final: c.target = r.final_train_ema; break;
    case TargetRule::baseline_final_val: c.target = r.final_val_loss; break;
    case TargetRule::fixed: c.target = set.target_value; break;
  }
  const bool on_val = set.target_curve == TargetCurve::val;
  if (!std::isfinite(c.target)) {
    c.note += "no target (the baseline run has no validation loss); ";
  } else {
    c.crossing = on_val ? first_crossing(cc.val_tokens, cc.val_loss, c.target) : first_crossing(cc.tokens, cc.ema, c.target);
    c.ref_crossing = on_val ? first_crossing(rc.val_tokens, rc.val_loss, c.target) : first_crossing(rc.tokens, rc.ema, c.target);
    if (!c.ref_crossing.reached) {
      c.note += "the baseline never reaches the target; ";
    } else if (!c.is_baseline) {
      c.token_gap = c.crossing.tokens / c.ref_crossing.tokens - 1;
      c.token_gap_censored = !c.crossing.reached;
    }
  }
  if (c.is_baseline) return;
  // Converged regime.
  c.converged = paired_window_gap(cc.steps, rc.steps, window_rule(set));
  if (c.converged.n_steps == 0) c.note += "no paired steps in the converged window; ";
  // Final loss.
  const bool both_val = std::isfinite(c.final_val_loss) && std::isfinite(r.final_val_loss);
  c.final_gap_kind = both_val ? "val" : "train_ema";
  const double lc = both_val ? c.final_val_loss : c.final_train_ema;
  const double lr = both_val ? r.final_val_loss : r.final_train_ema;
  c.final_gap = lc - lr;
  c.final_rel_pct = (lr - lc) / lr * 100;
}

// ---------------------------------------------------------------------------- stage 5: per-config summaries

// A group's statistics over its included cells (seeds): gaps, losses, tokens to target,
// throughput, the converged window's extent, coverage, and notes on what was left out.
void summarize_group(const AnalysisReport& rep, GroupResult& g) {
  const ResolvedSettings& set = rep.settings;
  const double conf = set.confidence;
  std::vector<double> conv, conv_rel, conv_sd, fin, fin_rel, fin_loss, fin_bpb, tok, target, ent, reached;
  std::vector<double> secs, tps, tflops, mfu;
  std::map<std::string, int> excluded;
  g.n_cells = static_cast<int>(g.cells.size());
  for (int ci : g.cells) {
    const CellResult& c = rep.cells[ci];
    if (!c.coverage.empty() && g.coverage.find(c.coverage) == std::string::npos)
      g.coverage += (g.coverage.empty() ? "" : " | ") + c.coverage;
    if (!c.included) {
      ++excluded[c.state];
      continue;
    }
    ++g.n_included;
    fin_loss.push_back(c.final_loss);
    fin_bpb.push_back(c.final_bpb);
    target.push_back(c.target);
    ent.push_back(c.entropy_gap);
    secs.push_back(c.step_seconds), tps.push_back(c.tokens_per_second), tflops.push_back(c.model_tflops), mfu.push_back(c.mfu);
    if (c.reference < 0) continue;
    if (c.crossing.reached) reached.push_back(c.crossing.tokens);
    if (std::isfinite(c.token_gap)) {
      tok.push_back(c.token_gap);
      if (c.token_gap_censored) ++g.n_censored;
    }
    if (g.is_baseline) continue;
    if (c.converged.n_steps > 0) {
      conv.push_back(c.converged.mean_gap);
      conv_rel.push_back(c.converged.mean_rel_pct);
      conv_sd.push_back(c.converged.sd_gap);
      if (g.window_step_hi == 0 || c.converged.step_lo < g.window_step_lo) {
        g.window_step_lo = c.converged.step_lo;
        g.window_tokens_lo = c.converged.tokens_lo;
      }
      if (c.converged.step_hi > g.window_step_hi) {
        g.window_step_hi = c.converged.step_hi;
        g.window_tokens_hi = c.converged.tokens_hi;
      }
    }
    fin.push_back(c.final_gap);
    fin_rel.push_back(c.final_rel_pct);
  }
  g.step_seconds = seed_stats(secs, conf);
  g.tokens_per_second = seed_stats(tps, conf);
  g.model_tflops = seed_stats(tflops, conf);
  g.mfu = seed_stats(mfu, conf);
  g.converged_gap = seed_stats(conv, conf);
  g.converged_rel_pct = seed_stats(conv_rel, conf);
  g.converged_step_sd = seed_stats(conv_sd, conf);
  g.final_gap = seed_stats(fin, conf);
  g.final_rel_pct = seed_stats(fin_rel, conf);
  g.final_loss = seed_stats(fin_loss, conf);
  g.final_bpb = seed_stats(fin_bpb, conf);
  g.target = seed_stats(target, conf);
  g.tokens_to_target = seed_stats(reached, conf);
  g.entropy_gap = seed_stats(ent, conf);
  if (!g.is_baseline) {
    g.token_gap = seed_stats(tok, conf);
    if (g.n_censored > 0) {
      g.token_gap_censored = true;
      drop_ci(g.token_gap);
      g.note += fmt_count(g.n_censored, "seed") + " never reached the target: token gap is a lower bound; ";
    }
  }
  for (const auto& [state, count] : excluded) g.note += std::to_string(count) + " " + state + " excluded; ";
  if (!g.is_baseline && g.reference >= 0) {
    const auto& rv = rep.groups[g.reference].vary;
    const auto a = std::as_const(g.vary).find(set.budget_key);
    const auto b = rv.find(set.budget_key);
    if (a != g.vary.end() && b != rv.end() && !values_equal(a->second, b->second))
      g.note += "compared with a baseline of another " + set.budget_key +
                ": per-step and final gaps mix two schedules (see the multi-budget table); ";
  }
}

// A group's curves for the plots (smoothed loss, difference to the reference, validation loss,
// quantization series, wgrad gain per layer) and its rows of the quantization, GNR and fidelity
// summaries.
void group_series(const GridRuns& runs, const std::vector<Curves>& curves, AnalysisReport& rep, GroupResult& g) {
  std::vector<Series> loss_series, diff_series_v, val_series;
  std::vector<const RunData*> quant_runs;
  std::vector<const Curves*> quant_curves;
  std::vector<RunGnr> gnrs;
  std::vector<RunFidelity> fidelities;
  std::vector<const RunData*> fidelity_runs;
  for (int ci : g.cells) {
    const CellResult& c = rep.cells[ci];
    if (!c.included) continue;
    const RunData& run = *runs.cells[ci].run;
    if (const RunGnr rg = last_gnr(run); rg.n_layers > 0) gnrs.push_back(rg);
    if (RunFidelity rf = last_fidelity(run); rf.n_layers > 0) {
      fidelities.push_back(std::move(rf));
      fidelity_runs.push_back(&run);
    }
    const Curves& cv = curves[ci];
    Series s;
    for (const auto& st : cv.steps) s.steps.push_back(st.step);
    s.tokens = cv.tokens;
    s.values = cv.ema;
    loss_series.push_back(std::move(s));
    if (!cv.val_step.empty()) val_series.push_back(Series{cv.val_step, cv.val_tokens, cv.val_loss});
    if (!run.quant.empty()) {
      quant_runs.push_back(&run);
      quant_curves.push_back(&cv);
    }
    if (c.reference >= 0 && !g.is_baseline) diff_series_v.push_back(diff_series(cv, curves[c.reference]));
  }
  g.loss = make_band(loss_series);
  g.diff = make_band(diff_series_v);
  g.val = make_band(val_series);
  g.quant = quant_series(quant_runs, quant_curves);
  for (const auto& q : g.quant) {
    if (q.step.empty()) continue;
    rep.quant_summary.push_back(QuantSummary{g.index, q.label, q.step.back(), q.sqnr_db.back(), q.frac_flushed.back(),
                                             q.frac_saturated.back(), q.whatif_nvfp4_sqnr_db.back(),
                                             q.whatif_mxfp4_sqnr_db.back(), q.bias_shrinkage.back(),
                                             q.sr_rms_k1.back(), q.sr_rms_k64.back()});
  }
  if (!gnrs.empty()) {
    GnrSummary s;
    s.group = g.index;
    s.min_gnr = s.median_gnr = s.n_below = 0;
    double lowest = INFINITY;
    for (const RunGnr& rg : gnrs) {
      s.step = std::max(s.step, rg.step);
      s.n_layers = std::max(s.n_layers, rg.n_layers);
      s.min_gnr += rg.min_gnr / double(gnrs.size());
      s.median_gnr += rg.median_gnr / double(gnrs.size());
      s.n_below += double(rg.n_below) / double(gnrs.size());
      if (rg.min_gnr < lowest) lowest = rg.min_gnr, s.lowest_layer = rg.lowest_layer;
    }
    rep.gnr_summary.push_back(s);
  }
  g.wgrad_gain = wgrad_gain_series(fidelity_runs);
  for (const GemmRole role : {GemmRole::fprop, GemmRole::dgrad, GemmRole::wgrad}) {
    if (fidelities.empty()) break;
    // The mean over seeds of one per-run mean, of the runs where it is finite.
    auto seed_mean = [&](double RunFidelity::Role::*member) {
      double n = 0, sum = 0;
      for (const RunFidelity& rf : fidelities)
        if (const double v = rf.role[int(role)].*member; std::isfinite(v)) n += 1, sum += v;
      return n > 0 ? sum / n : kNaN;
    };
    FidelitySummary s;
    s.group = g.index;
    s.role = role;
    for (const RunFidelity& rf : fidelities) {
      const RunFidelity::Role& f = rf.role[int(role)];
      s.step = std::max(s.step, rf.step);
      s.n_layers = std::max(s.n_layers, rf.n_layers);
      if (std::isfinite(f.lowest_gain) && !(f.lowest_gain >= s.lowest_gain))
        s.lowest_gain = f.lowest_gain, s.lowest_layer = f.lowest_layer;
    }
    s.gain = seed_mean(&RunFidelity::Role::gain);
    s.rel_err = seed_mean(&RunFidelity::Role::rel_err);
    s.cosine = seed_mean(&RunFidelity::Role::cosine);
    s.sr_bias = seed_mean(&RunFidelity::Role::sr_bias);
    s.sr_rel_std = seed_mean(&RunFidelity::Role::sr_rel_std);
    rep.fidelity_summary.push_back(s);
  }
}

// ---------------------------------------------------------------------------- stage 5b: baseline spread

// Where each cell's and each group's final loss and tokens to the spread target fall among the
// reference group's seeds (the convergence-gate question: inside the baseline's seed spread?).
void baseline_spread(AnalysisReport& rep, const std::vector<Curves>& curves) {
  const ResolvedSettings& set = rep.settings;
  const bool on_val = set.target_curve == TargetCurve::val;
  auto final_of = [&](const CellResult& c) { return on_val ? c.final_val_loss : c.final_train_ema; };
  auto crossing = [&](int i, double target) {
    const Curves& cc = curves[size_t(i)];
    return on_val ? first_crossing(cc.val_tokens, cc.val_loss, target) : first_crossing(cc.tokens, cc.ema, target);
  };
  for (GroupResult& g : rep.groups) {
    if (g.reference < 0) continue;
    const GroupResult& ref = rep.groups[size_t(g.reference)];
    std::vector<double> ref_loss, ref_tokens;
    double target = set.target_rule == TargetRule::fixed ? set.target_value : -std::numeric_limits<double>::infinity();
    for (int ri : ref.cells)
      if (rep.cells[ri].included) {
        ref_loss.push_back(rep.cells[ri].final_loss);
        if (set.target_rule != TargetRule::fixed) target = std::max(target, final_of(rep.cells[ri]));
      }
    if (!std::isfinite(target)) continue;
    bool ref_all_reach = true;
    for (int ri : ref.cells)
      if (rep.cells[ri].included) {
        const Crossing x = crossing(ri, target);
        ref_all_reach &= x.reached;
        ref_tokens.push_back(x.tokens);
      }
    g.spread_target = target;
    std::vector<double> loss, tokens;
    bool censored = false;
    for (int ci : g.cells) {
      CellResult& c = rep.cells[ci];
      if (!c.included) continue;
      const Crossing x = crossing(ci, target);
      c.loss_spread = spread_position(ref_loss, c.final_loss, set.confidence);
      if (ref_all_reach) c.tokens_spread = spread_position(ref_tokens, x.tokens, set.confidence, !x.reached);
      loss.push_back(c.final_loss);
      tokens.push_back(x.tokens);
      censored |= !x.reached;
      ++g.n_spread;
      g.n_loss_inside += c.loss_spread.where == "inside";
      g.n_tokens_inside += c.tokens_spread.where == "inside";
    }
    g.loss_spread = spread_position(ref_loss, mean_of(loss), set.confidence);
    if (ref_all_reach) g.tokens_spread = spread_position(ref_tokens, mean_of(tokens), set.confidence, censored);
    else g.note += "not every baseline seed reaches the fixed target: no tokens spread; ";
  }
}

// ---------------------------------------------------------------------------- stage 6: multi-budget token gaps

void budget_analysis(AnalysisReport& rep) {
  const std::string& key = rep.settings.budget_key;
  std::set<std::string> values;
  for (const auto& g : rep.groups) {
    auto it = g.vary.find(key);
    if (it != g.vary.end()) values.insert(it->second);
  }
  if (values.size() < 2) return;
  rep.multi_budget = true;

  // Families: groups equal up to the budget key.
  std::map<std::map<std::string, std::string>, int> family_of;
  std::vector<std::vector<int>> family_groups;
  for (const auto& g : rep.groups) {
    auto fam = g.vary;
    fam.erase(key);
    auto [it, fresh] = family_of.emplace(fam, static_cast<int>(rep.budget_families.size()));
    if (fresh) {
      BudgetFamily f;
      f.vary = fam;
      f.label = config_label(fam);
      rep.budget_families.push_back(f);
      family_groups.emplace_back();
    }
    family_groups[it->second].push_back(g.index);
    if (g.is_baseline) rep.budget_families[it->second].is_baseline = true;
  }
  // One kind of final loss for the whole comparison: validation if every finished run has it.
  bool all_val = true;
  for (const auto& c : rep.cells)
    if (c.state == "done" && !std::isfinite(c.final_val_loss)) all_val = false;
  const std::string kind = all_val ? "val" : "train_ema";
  auto final_of = [&](const CellResult& c) { return all_val ? c.final_val_loss : c.final_train_ema; };

  // Per family: budget -> seed -> final loss (finished runs only).
  std::vector<std::map<double, std::map<int64_t, double>>> table(rep.budget_families.size());
  for (size_t f = 0; f < rep.budget_families.size(); ++f) {
    BudgetFamily& fam = rep.budget_families[f];
    fam.final_loss_kind = kind;
    int unfinished = 0;
    for (int gi : family_groups[f]) {
      const GroupResult& g = rep.groups[gi];
      const auto it = g.vary.find(key);
      char* end = nullptr;
      const double budget = it == g.vary.end() ? kNaN : std::strtod(it->second.c_str(), &end);
      if (it == g.vary.end() || *end != '\0' || !std::isfinite(budget)) {
        fam.note += "config '" + g.label + "' has no numeric " + key + "; ";
        continue;
      }
      for (int ci : g.cells) {
        const CellResult& c = rep.cells[ci];
        if (c.state != "done") {
          if (c.included) ++unfinished;
          continue;
        }
        table[f][budget][c.seed] = final_of(c);
      }
    }
    if (unfinished) fam.note += fmt_count(unfinished, "unfinished run") + " left out; ";
    for (const auto& [budget, seeds] : table[f]) {
      std::vector<double> xs;
      for (const auto& [seed, loss] : seeds) xs.push_back(loss);
      const SeedStats s = seed_stats(xs);
      if (s.n == 0) continue;
      fam.budgets.push_back(budget);
      fam.final_loss.push_back(s.mean);
      fam.n_seeds.push_back(s.n);
    }
  }
  std::vector<int> baseline_families;
  std::vector<std::map<std::string, std::string>> fam_vary;
  for (size_t f = 0; f < rep.budget_families.size(); ++f) {
    fam_vary.push_back(rep.budget_families[f].vary);
    if (rep.budget_families[f].is_baseline) baseline_families.push_back(static_cast<int>(f));
  }
  double pinned_base = kNaN;  // the baseline selector may name the base budget
  if (auto it = rep.baseline.find(key); it != rep.baseline.end()) pinned_base = std::strtod(it->second.c_str(), nullptr);

  for (size_t f = 0; f < rep.budget_families.size(); ++f) {
    BudgetFamily& fam = rep.budget_families[f];
    fam.reference = fam.is_baseline ? static_cast<int>(f) : best_reference(fam.vary, baseline_families, fam_vary);
    if (fam.reference < 0) {
      fam.note += "no baseline family; ";
      continue;
    }
    const BudgetFamily& ref = rep.budget_families[fam.reference];
    if (ref.budgets.empty()) {
      fam.note += "the baseline has no finished run; ";
      continue;
    }
    fam.base_budget = std::isfinite(pinned_base) ? pinned_base : ref.budgets.front();
    const auto& ref_table = table[fam.reference];
    auto base_it = ref_table.find(fam.base_budget);
    if (base_it == ref_table.end() || base_it->second.empty()) {
      fam.note += "the baseline has no finished run at its base budget; ";
      continue;
    }
    std::vector<double> base_losses;
    for (const auto& [seed, loss] : base_it->second) base_losses.push_back(loss);
    fam.reference_loss = seed_stats(base_losses).mean;
    if (fam.reference == static_cast<int>(f)) continue;  // a baseline family is the reference itself
    fam.crossing = budget_to_match(fam.budgets, fam.final_loss, fam.reference_loss);
    fam.token_gap = fam.crossing.budget / fam.base_budget - 1;
    if (fam.crossing.match == BudgetMatch::above_all)
      fam.note += "never reaches the reference loss within its budgets (gap is a lower bound); ";
    else if (fam.crossing.match == BudgetMatch::below_all)
      fam.note += "already below the reference loss at its smallest budget (gap is an upper bound); ";
    // Per seed: seeds present at every budget of this family and at the reference's base budget.
    std::vector<double> per_seed;
    bool all_inside = true;
    for (const auto& [seed, ref_loss] : base_it->second) {
      std::vector<double> b, l;
      for (const auto& [budget, seeds] : table[f]) {
        auto it = seeds.find(seed);
        if (it == seeds.end()) break;
        b.push_back(budget);
        l.push_back(it->second);
      }
      if (b.size() != table[f].size() || b.empty()) continue;
      const BudgetCrossing c = budget_to_match(b, l, ref_loss);
      if (c.match != BudgetMatch::inside) all_inside = false;
      per_seed.push_back(c.budget / fam.base_budget - 1);
    }
    if (all_inside && !per_seed.empty()) fam.token_gap_seeds = seed_stats(per_seed, rep.settings.confidence);
  }
}

// ---------------------------------------------------------------------------- stage 7: precision switches

bool is_switch_key(const std::string& key) { return key.rfind("recipe.switch_", 0) == 0; }

// A group's resolved config without seed and precision-switch keys (from its first readable run),
// and whether its recipe switches precision.
std::map<std::string, std::string> config_without_switch(const GridRuns& runs, const GroupResult& g, bool& has_switch) {
  for (int ci : g.cells) {
    if (!runs.cells[size_t(ci)].run) continue;
    std::map<std::string, std::string> flat = flat_config(*runs.cells[size_t(ci)].run);
    if (flat.empty()) continue;
    const auto at = flat.find("recipe.switch_at");
    has_switch = at != flat.end() && at->second != "never";
    for (auto it = flat.begin(); it != flat.end();)
      it = is_switch_key(it->first) || is_seed_key(it->first) ? flat.erase(it) : std::next(it);
    return flat;
  }
  has_switch = false;
  return {};
}

// Pairs each switching config with its unswitched twin and computes the recovered fraction.
void switch_analysis(const GridRuns& runs, AnalysisReport& rep) {
  std::vector<std::map<std::string, std::string>> configs;
  for (auto& g : rep.groups) configs.push_back(config_without_switch(runs, g, g.has_switch));
  for (auto& g : rep.groups) {
    if (!g.has_switch) continue;
    for (const auto& u : rep.groups)
      if (!u.has_switch && !configs[size_t(u.index)].empty() && configs[size_t(u.index)] == configs[size_t(g.index)]) {
        g.switch_reference = u.index;
        break;
      }
    if (g.switch_reference < 0) {
      g.note += "precision switch: no config in this grid equals it without the switch; ";
      continue;
    }
    const GroupResult& u = rep.groups[size_t(g.switch_reference)];
    if (u.final_gap.mean > 0) g.recovered_fraction = 1 - g.final_gap.mean / u.final_gap.mean;
    else if (std::isfinite(u.final_gap.mean)) g.note += "precision switch: the unswitched config has no gap to recover; ";
    std::vector<double> per_seed;
    for (int ci : g.cells)
      for (int ui : u.cells) {
        const CellResult &c = rep.cells[size_t(ci)], &cu = rep.cells[size_t(ui)];
        if (c.seed == cu.seed && std::isfinite(c.final_gap) && cu.final_gap > 0)
          per_seed.push_back(1 - c.final_gap / cu.final_gap);
      }
    g.recovered_fraction_seeds = seed_stats(per_seed, rep.settings.confidence);
  }
}

// ---------------------------------------------------------------------------- stage 8: paired comparisons

// One comparison: A group `ga` against B group `gb`; `family` (budget form) lists A's groups
// across budgets, ascending by budget, or is empty (crossing form).
Comparison compare_groups(const AnalysisReport& rep, const std::vector<Curves>& curves, const Selector& sa,
                          const Selector& sb, int ga, int gb, const std::vector<std::pair<double, int>>& family) {
  const ResolvedSettings& set = rep.settings;
  Comparison cmp;
  cmp.a_selector = sa;
  cmp.b_selector = sb;
  cmp.group_a = ga;
  cmp.group_b = gb;
  cmp.a = rep.groups[size_t(ga)].label;
  cmp.b = rep.groups[size_t(gb)].label;
  cmp.token_gap_form = family.empty() ? "crossing" : "multi_budget";
  auto cell_of = [&](int group, int64_t seed) -> int {
    for (int ci : rep.groups[size_t(group)].cells)
      if (rep.cells[size_t(ci)].included && rep.cells[size_t(ci)].seed == seed) return ci;
    return -1;
  };
  const WindowRule window = window_rule(set);
  const bool on_val = set.target_curve == TargetCurve::val;
  std::vector<double> conv, fin, tok;
  bool all_val = true;
  std::vector<std::pair<int, int>> pairs;
  for (int ci : rep.groups[size_t(ga)].cells) {
    const CellResult& c = rep.cells[size_t(ci)];
    const int ri = c.included ? cell_of(gb, c.seed) : -1;
    if (ri < 0) continue;
    pairs.push_back({ci, ri});
    if (!std::isfinite(c.final_val_loss) || !std::isfinite(rep.cells[size_t(ri)].final_val_loss)) all_val = false;
  }
  cmp.final_gap_kind = all_val ? "val" : "train_ema";
  for (const auto& [ci, ri] : pairs) {
    const CellResult &c = rep.cells[size_t(ci)], &r = rep.cells[size_t(ri)];
    cmp.seeds.push_back(c.seed);
    const PairedGap pg = paired_window_gap(curves[size_t(ci)].steps, curves[size_t(ri)].steps, window);
    conv.push_back(pg.n_steps > 0 ? pg.mean_gap : kNaN);
    if (pg.n_steps > 0) {
      if (cmp.window_step_hi == 0 || pg.step_lo < cmp.window_step_lo) cmp.window_step_lo = pg.step_lo;
      cmp.window_step_hi = std::max(cmp.window_step_hi, pg.step_hi);
    }
    fin.push_back(all_val ? c.final_val_loss - r.final_val_loss : c.final_train_ema - r.final_train_ema);
    double gap = kNaN;
    int bound = 0;
    if (family.empty()) {
      const Curves &cc = curves[size_t(ci)], &rc = curves[size_t(ri)];
      const double target = on_val ? r.final_val_loss : r.final_train_ema;
      const Crossing ca = on_val ? first_crossing(cc.val_tokens, cc.val_loss, target) : first_crossing(cc.tokens, cc.ema, target);
      const Crossing cb = on_val ? first_crossing(rc.val_tokens, rc.val_loss, target) : first_crossing(rc.tokens, rc.ema, target);
      if (std::isfinite(target) && cb.reached && std::isfinite(ca.tokens)) {
        gap = ca.tokens / cb.tokens - 1;
        if (!ca.reached) ++cmp.token_gap_censored, bound = 1;
      }
    } else {  // multi-budget: A's finished runs of this seed at every budget, against B's final loss
      std::vector<double> budgets, losses;
      for (const auto& [key_value, g] : family) {
        const int ai = cell_of(g, c.seed);
        if (ai < 0 || rep.cells[size_t(ai)].state != "done") break;
        budgets.push_back(rep.cells[size_t(ai)].tokens);  // in tokens, whatever the budget key counts
        losses.push_back(all_val ? rep.cells[size_t(ai)].final_val_loss : rep.cells[size_t(ai)].final_train_ema);
      }
      const double base = rep.cells[size_t(ri)].tokens;
      if (budgets.size() == family.size() && r.state == "done" && base > 0) {
        const BudgetCrossing bc = budget_to_match(budgets, losses, all_val ? r.final_val_loss : r.final_train_ema);
        gap = bc.budget / base - 1;
        if (bc.match == BudgetMatch::above_all) ++cmp.token_gap_censored, bound = 1;
        if (bc.match == BudgetMatch::below_all) ++cmp.token_gap_below, bound = -1;
      }
    }
    tok.push_back(gap);
    cmp.token_gap_bound.push_back(bound);
  }
  cmp.converged_gap = gap_stats(conv, set.confidence);
  cmp.final_gap = gap_stats(fin, set.confidence);
  cmp.token_gap = gap_stats(tok, set.confidence);
  if (cmp.token_gap_censored > 0 || cmp.token_gap_below > 0) drop_ci(cmp.token_gap.stats);  // bounds: no CI
  if (pairs.empty()) cmp.note += "no seed has finished runs of both; ";
  if (cmp.token_gap_below > 0)
    cmp.note += fmt_count(cmp.token_gap_below, "seed") + " already below B's loss at A's smallest budget (upper bound); ";
  if (cmp.note.size() >= 2) cmp.note.resize(cmp.note.size() - 2);
  return cmp;
}

// The `compare:` pairs and the claims' pairs. For each A group (or, in the multi-budget form, each
// family of A groups differing only in the budget key), the B group agreeing with it on the most
// keys that neither selector names.
void comparison_analysis(AnalysisReport& rep, const AnalysisSettings& manifest, const AnalysisSettings& overrides,
                         const std::vector<Curves>& curves) {
  const AnalysisSettings s = merge(manifest, overrides);
  rep.claims = s.claims;
  std::vector<std::pair<Selector, Selector>> pairs = s.compare;
  for (const Claim& c : s.claims)
    if (std::find(pairs.begin(), pairs.end(), std::make_pair(c.a, c.b)) == pairs.end()) pairs.push_back({c.a, c.b});
  const std::string& budget_key = rep.settings.budget_key;
  for (const auto& [sa, sb] : pairs) {
    std::vector<int> as, bs;
    std::vector<std::map<std::string, std::string>> vary;
    for (const auto& g : rep.groups) {
      vary.push_back(g.vary);
      if (selects(sa, g.vary)) as.push_back(g.index);
      if (selects(sb, g.vary)) bs.push_back(g.index);
    }
    if (as.empty() || bs.empty()) {
      rep.notes.push_back("compare " + config_label(sa) + " vs " + config_label(sb) + ": " +
                          (as.empty() ? "A" : "B") + " selects no config");
      continue;
    }
    auto partner = [&](int g) {
      std::map<std::string, std::string> rest = rep.groups[size_t(g)].vary;
      for (const auto& [k, v] : sa) rest.erase(k);
      for (const auto& [k, v] : sb) rest.erase(k);
      return best_reference(rest, bs, vary);
    };
    const bool budget_form = rep.multi_budget && !sa.count(budget_key);
    std::set<int> done;
    for (int g : as) {
      if (done.count(g)) continue;
      std::vector<std::pair<double, int>> family;
      int primary = g;
      const int b = partner(g);
      if (budget_form) {  // A's groups equal to g up to the budget key, ascending by budget
        auto fam = rep.groups[size_t(g)].vary;
        fam.erase(budget_key);
        for (int h : as) {
          const auto& vary_h = rep.groups[size_t(h)].vary;
          const auto it = vary_h.find(budget_key);
          if (it == vary_h.end()) continue;
          auto hv = vary_h;
          hv.erase(budget_key);
          if (hv != fam) continue;
          done.insert(h);
          family.push_back({std::strtod(it->second.c_str(), nullptr), h});
        }
        std::sort(family.begin(), family.end());
        const auto bb = rep.groups[size_t(b)].vary.find(budget_key);
        for (const auto& [budget, h] : family)  // the A config at B's budget gives the per-step gaps
          if (bb != rep.groups[size_t(b)].vary.end() && values_equal(rep.groups[size_t(h)].vary.at(budget_key), bb->second))
            primary = h;
        if (family.size() < 2) family.clear();
      }
      done.insert(g);
      rep.comparisons.push_back(compare_groups(rep, curves, sa, sb, primary, b, family));
    }
  }
}

// ---------------------------------------------------------------------------- stage 9: attribution ladders

// Per-seed values of a comparison's gap, by seed.
std::map<int64_t, double> by_seed(const Comparison& c, const GapStats Comparison::*gap) {
  std::map<int64_t, double> m;
  for (size_t i = 0; i < c.seeds.size(); ++i) m[c.seeds[i]] = (c.*gap).per_seed[i];
  return m;
}

// For each combination of the other axes, the arms' groups; each climb's rungs, their sums against
// the total, and each component's order dependence (LadderResult).
void ladder_analysis(AnalysisReport& rep, const AnalysisSettings& manifest, const AnalysisSettings& overrides,
                     const std::vector<Curves>& curves) {
  const std::optional<Ladder> ladder = merge(manifest, overrides).ladder;
  if (!ladder) return;
  const double conf = rep.settings.confidence;
  std::map<std::map<std::string, std::string>, std::map<std::string, int>> contexts;  // rest -> arm -> group
  for (const auto& g : rep.groups) {
    const auto arm = g.vary.find(ladder->axis);
    if (arm == g.vary.end()) continue;
    auto rest = g.vary;
    rest.erase(ladder->axis);
    contexts[rest][arm->second] = g.index;
  }
  for (const auto& [rest, arms] : contexts) {
    LadderResult res;
    res.context = rest.empty() ? "" : config_label(rest);
    res.base = ladder->climbs.front().arms.front();
    res.target = ladder->target;
    auto compare_arms = [&](const std::string& a, const std::string& b) -> std::optional<Comparison> {
      const auto ia = arms.find(a), ib = arms.find(b);
      if (ia == arms.end() || ib == arms.end()) return std::nullopt;
      Selector sa = rest, sb = rest;
      sa[ladder->axis] = a;
      sb[ladder->axis] = b;
      return compare_groups(rep, curves, sa, sb, ia->second, ib->second, {});
    };
    const auto total = compare_arms(res.target, res.base);
    if (!total) {
      rep.notes.push_back("ladder" + (res.context.empty() ? "" : " (" + res.context + ")") + ": no runs of the base or the target arm");
      continue;
    }
    res.total = *total;
    std::vector<std::map<std::string, std::map<int64_t, double>>> marginal_conv, marginal_fin;  // per climb
    for (const auto& climb : ladder->climbs) {
      LadderClimbResult cr;
      cr.steps = climb.steps;
      std::map<int64_t, double> sum_c = by_seed(res.total, &Comparison::converged_gap), sum_f = by_seed(res.total, &Comparison::final_gap);
      for (auto& [seed, x] : sum_c) x = 0;
      for (auto& [seed, x] : sum_f) x = 0;
      std::map<std::string, std::map<int64_t, double>> mc, mf;
      bool complete = true;
      for (size_t k = 0; k < climb.steps.size(); ++k) {
        const auto rung = compare_arms(climb.arms[k + 1], climb.arms[k]);
        if (!rung) {
          complete = false;
          break;
        }
        mc[climb.steps[k]] = by_seed(*rung, &Comparison::converged_gap);
        mf[climb.steps[k]] = by_seed(*rung, &Comparison::final_gap);
        for (auto it = sum_c.begin(); it != sum_c.end();) {  // keep the seeds every rung has
          const auto c = mc[climb.steps[k]].find(it->first);
          const auto f = mf[climb.steps[k]].find(it->first);
          if (c == mc[climb.steps[k]].end()) {
            sum_f.erase(it->first);
            it = sum_c.erase(it);
            continue;
          }
          it->second += c->second;
          sum_f[it->first] += f->second;
          ++it;
        }
        cr.rungs.push_back(*rung);
      }
      if (!complete) {
        res.note += "a climb has an arm without runs; ";
        continue;
      }
      std::vector<double> sc, sf, rc, rf;
      const auto tc = by_seed(res.total, &Comparison::converged_gap), tf = by_seed(res.total, &Comparison::final_gap);
      for (const auto& [seed, x] : sum_c) {
        sc.push_back(x);
        sf.push_back(sum_f[seed]);
        rc.push_back(tc.at(seed) - x);
        rf.push_back(tf.at(seed) - sum_f[seed]);
      }
      cr.sum_converged = gap_stats(sc, conf);
      cr.sum_final = gap_stats(sf, conf);
      cr.residual_converged = gap_stats(rc, conf);
      cr.residual_final = gap_stats(rf, conf);
      marginal_conv.push_back(mc);
      marginal_fin.push_back(mf);
      res.climbs.push_back(std::move(cr));
    }
    // order dependence: each later climb's marginal against the first climb's, seed by seed
    for (size_t k = 1; k < marginal_conv.size(); ++k)
      for (const auto& comp : ladder->components) {
        LadderOrderEffect e;
        e.component = comp;
        e.climb = int(k);
        std::vector<double> dc, df;
        for (const auto& [seed, x] : marginal_conv[k].at(comp)) {
          const auto first = marginal_conv[0].at(comp).find(seed);
          if (first == marginal_conv[0].at(comp).end()) continue;
          dc.push_back(x - first->second);
          df.push_back(marginal_fin[k].at(comp).at(seed) - marginal_fin[0].at(comp).at(seed));
        }
        e.converged_diff = gap_stats(dc, conf);
        e.final_diff = gap_stats(df, conf);
        auto excludes_zero = [](const SeedStats& s) { return s.has_ci && (s.ci_low > 0 || s.ci_high < 0); };
        e.order_dependent = excludes_zero(e.converged_diff.stats) || excludes_zero(e.final_diff.stats);
        res.order.push_back(std::move(e));
      }
    if (res.note.size() >= 2) res.note.resize(res.note.size() - 2);
    rep.ladders.push_back(std::move(res));
  }
}

// ---------------------------------------------------------------------------- stage 10: notes

// Report-level notes on problem cells, so that nobody misses them, and each note's last "; " dropped.
void finish_notes(AnalysisReport& rep) {
  int problems = 0;
  for (const auto& c : rep.cells)
    if (c.state == "failed" || c.state == "diverged" || c.state == "unreadable") ++problems;
  if (problems) rep.notes.push_back(fmt_count(problems, "cell") + " failed, diverged or unreadable (see the cell table)");
  for (auto& c : rep.cells)
    if (c.note.size() >= 2) c.note.resize(c.note.size() - 2);
  for (auto& g : rep.groups)
    if (g.note.size() >= 2) g.note.resize(g.note.size() - 2);
  for (auto& f : rep.budget_families)
    if (f.note.size() >= 2) f.note.resize(f.note.size() - 2);
}

}  // namespace

AnalysisReport analyze(const GridRuns& runs, const AnalysisSettings& overrides) {
  AnalysisReport rep;
  rep.dir = runs.dir;
  rep.settings = resolve_settings(runs.manifest.settings, overrides);
  rep.manifest_found = runs.manifest_found;
  for (const auto& [k, v] : runs.manifest.baseline)
    if (!is_seed_key(k)) rep.baseline.emplace(k, v);
  rep.notes = runs.notes;

  // 1. Cells: each run's own numbers.
  std::vector<Curves> curves(runs.cells.size());  // per cell; empty for a cell without a readable run
  for (size_t i = 0; i < runs.cells.size(); ++i) rep.cells.push_back(read_cell(runs.cells[i], rep.settings, curves[i]));
  // 2-3. Config groups and the baseline each is compared with.
  group_cells(runs, rep);
  assign_baselines(rep);
  // 4. Per cell, against the same-seed baseline run.
  for (size_t i = 0; i < rep.cells.size(); ++i)
    if (rep.cells[i].included) cell_gaps(rep, static_cast<int>(i), curves);
  // 5. Per config, over seeds.
  for (auto& g : rep.groups) summarize_group(rep, g);
  for (auto& g : rep.groups) group_series(runs, curves, rep, g);
  for (auto& g : rep.groups)
    if (g.reference >= 0) g.step_time_ratio = g.step_seconds.mean / rep.groups[size_t(g.reference)].step_seconds.mean;
  baseline_spread(rep, curves);
  if (std::any_of(rep.groups.begin(), rep.groups.end(), [](const GroupResult& g) { return g.n_included == 1; }))
    rep.notes.push_back("a config group has a single seed: no confidence interval for it");
  // 6-8. Token gaps across budgets, precision switches, the grid's paired comparisons.
  budget_analysis(rep);
  switch_analysis(runs, rep);
  comparison_analysis(rep, runs.manifest.settings, overrides, curves);
  // 9. Attribution ladders.
  ladder_analysis(rep, runs.manifest.settings, overrides, curves);
  // 10. Units and data repetition; notes.
  std::set<std::string> tokenizers;
  for (const auto& c : rep.cells)
    if (c.state != "pending" && c.state != "unreadable") {
      tokenizers.insert(c.tokenizer);
      if (c.data_epochs > 0 && !(c.data_epochs <= rep.max_epochs)) rep.max_epochs = c.data_epochs;
    }
  if (tokenizers.size() == 1)
    rep.units = tokenizers.begin()->empty() ? "nats per token (synthetic data)" : "nats per token of " + *tokenizers.begin();
  else if (tokenizers.size() > 1)
    rep.notes.push_back("cells use different tokenizers: compare their losses in bits per byte, not nats per token");
  if (rep.max_epochs > 1) {
    char times[32];
    std::snprintf(times, sizeof times, "%.2f", rep.max_epochs);
    rep.notes.push_back(std::string("data repeats: a run reads its training stream up to ") + times + " times");
  }
  finish_notes(rep);
  return rep;
}

AnalysisReport analyze_dir(const std::string& dir, const AnalysisSettings& overrides) {
  return analyze(load_grid(dir), overrides);
}

std::string Comparison::token_gap_text() const {
  const SeedStats& t = token_gap.stats;
  if (t.n == 0) return "n/a";
  auto pct = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", x * 100);
    return std::string(buf);
  };
  if (token_gap_censored > 0)
    return std::to_string(token_gap_censored) + " of " + std::to_string(t.n) + " seeds never reached it; lower bound > " + pct(t.mean);
  if (token_gap_below > 0)
    return std::to_string(token_gap_below) + " of " + std::to_string(t.n) + " seeds below at the smallest budget; upper bound < " + pct(t.mean);
  if (!t.has_ci) return pct(t.mean) + " (1 seed)";
  return pct(t.mean) + " [" + pct(t.ci_low) + ", " + pct(t.ci_high) + "]";
}

bool selects(const Selector& sel, const std::map<std::string, std::string>& vary) {
  for (const auto& [k, v] : sel) {
    auto it = vary.find(k);
    if (it == vary.end() || !values_equal(it->second, v)) return false;
  }
  return true;
}

int find_comparison(const AnalysisReport& report, const Selector& a, const Selector& b) {
  for (size_t i = 0; i < report.comparisons.size(); ++i)
    if (report.comparisons[i].a_selector == a && report.comparisons[i].b_selector == b) return static_cast<int>(i);
  return -1;
}

}  // namespace fp4lab::analysis
