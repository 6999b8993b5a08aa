// gnuplot plots of an AnalysisReport; the one file that includes gnuplot-iostream.h. Each plot is
// a self-contained gnuplot script (data as inline datablocks) saved next to its images, then
// rendered by one gnuplot process per plot driven through gnuplot-iostream.
#include "analysis/plot.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gnuplot-iostream.h>
#include <sstream>
#include <stdexcept>

#include "core/io/atomic_file.hpp"

namespace fp4lab::analysis {
namespace fs = std::filesystem;

namespace {

// Okabe–Ito colour-blind-safe palette; the baseline is drawn in black.
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                    "#56B4E9", "#F0E442", "#882255", "#44AA99", "#999933"};
constexpr const char* kBaselineColor = "#000000";

std::string color_of(const GroupResult& g, int slot) {
  return g.is_baseline ? kBaselineColor : kPalette[slot % (sizeof kPalette / sizeof kPalette[0])];
}

// A string literal for gnuplot (single quotes; a quote is doubled).
std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out + "'";
}

// A plot title: double-quoted so that "\n" breaks the line (first line: what, second: how).
std::string title(const std::string& what, const std::string& how = "") {
  std::string out = "\"";
  for (char c : what + (how.empty() ? "" : "\n" + how)) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') out += "\\n";
    else out += c;
  }
  return out + "\"";
}

// A string field inside a datablock (double quotes; none inside).
std::string field(const std::string& s) {
  std::string out = "\"";
  for (char c : s)
    if (c != '"' && c != '\n') out += c;
  return out + "\"";
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

std::string short_num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.3g", x);
  return buf;
}

// "loss3": a datablock or file name (std::string concatenation, avoiding a GCC 12 -Wrestrict
// false positive on literal + to_string).
std::string tag(const char* prefix, long long i) {
  std::string out(prefix);
  out += std::to_string(i);
  return out;
}

std::string signed_pct(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", fraction * 100);
  return buf;
}

std::string group_title(const GroupResult& g) { return g.label + (g.is_baseline ? " (baseline)" : ""); }

// Rows of one band, strided to at most max_points (always keeping the last), log-x safe.
void write_band(std::ostream& os, const std::string& name, const SeriesBand& b, size_t max_points,
                const char* columns = "tokens mean min max step") {
  os << "$" << name << " << EOD\n";
  os << "# " << columns << "\n";
  const size_t n = b.step.size();
  const size_t stride = n > max_points ? (n + max_points - 1) / max_points : 1;
  for (size_t i = 0; i < n; ++i) {
    if (i % stride != 0 && i + 1 != n) continue;
    if (!(b.tokens[i] > 0) || !std::isfinite(b.mean[i])) continue;
    os << num(b.tokens[i]) << ' ' << num(b.mean[i]) << ' ' << num(b.min[i]) << ' ' << num(b.max[i]) << ' '
       << b.step[i] << '\n';
  }
  os << "EOD\n";
}

struct Script {
  std::string name;   // file stem
  std::string body;   // datablocks + settings + plot command
};

std::string header(const Script& s, const PlotOptions& o) {
  std::ostringstream os;
  os << "# fp4lab plot '" << s.name << "' (written by fp4lab; data inline).\n"
     << "# Re-render: gnuplot " << s.name << ".gp   or   gnuplot -e \"fmt='svg'\" " << s.name << ".gp\n"
     << "if (!exists(\"fmt\")) fmt = 'png'\n"
     << "if (!exists(\"out\")) out = '" << s.name << ".' . fmt\n"
     << "if (fmt eq 'svg') {\n"
     << "  set terminal svg noenhanced size " << o.width << "," << o.height
     << " dynamic background rgb 'white' font 'Sans,12'\n"
     << "} else {\n"
     << "  set terminal pngcairo noenhanced size " << o.width << "," << o.height << " font 'Sans,10'\n"
     << "}\n"
     << "set output out\n"
     << "set encoding utf8\n"
     << "set grid lc rgb '#dddddd'\n"
     << "set key below center horizontal Left reverse noautotitle\n"
     << "set offsets 0, 0, graph 0.06, graph 0.06\n";
  return os.str();
}

Script loss_plot(const AnalysisReport& r, const PlotOptions& o) {
  std::ostringstream os, plot;
  int slot = 0, curves = 0;
  for (const auto& g : r.groups) {
    if (g.loss.step.empty()) continue;
    write_band(os, tag("loss", g.index), g.loss, o.max_points);
    if (!g.val.step.empty()) write_band(os, tag("val", g.index), g.val, o.max_points);
  }
  for (const auto& g : r.groups) {
    if (g.loss.step.empty()) continue;
    const std::string c = color_of(g, g.is_baseline ? 0 : slot++);
    const std::string d = "$loss" + std::to_string(g.index);
    const bool seeds = g.n_included > 1;
    if (seeds)
      plot << (curves++ ? ", \\\n     " : "") << d << " using 1:3:4 with filledcurves fs transparent solid 0.18 noborder lc rgb '"
           << c << "' notitle";
    plot << (curves++ ? ", \\\n     " : "") << d << " using 1:2 with lines lw 2 lc rgb '" << c << "' title "
         << quote(group_title(g) + (seeds ? " (" + std::to_string(g.n_included) + " seeds)" : ""));
    if (!g.val.step.empty())
      plot << ", \\\n     $val" << g.index << " using 1:2 with points pt 7 ps 0.6 lc rgb '" << c << "' title "
           << quote("  validation");
  }
  if (!curves) return {};
  os << "set title " << title("Training loss vs tokens", "debiased EMA, weight " + num(r.settings.ema) +
                                  "; bands: min..max over seeds; dots: validation loss") << "\n"
     << "set logscale x\nset format x '%.0s%c'\nset autoscale xfix\n"
     << "set xlabel 'tokens (log scale)'\nset ylabel 'loss (nats/token)'\n"
     << "plot " << plot.str() << "\n";
  return {"loss_vs_tokens", os.str()};
}

Script diff_plot(const AnalysisReport& r, const PlotOptions& o) {
  std::ostringstream os, plot;
  int slot = 0, curves = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& g : r.groups) {
    if (g.is_baseline || g.diff.step.empty()) {
      if (!g.is_baseline) ++slot;
      continue;
    }
    write_band(os, tag("diff", g.index), g.diff, o.max_points);
    const std::string c = color_of(g, slot++);
    const std::string d = "$diff" + std::to_string(g.index);
    const bool seeds = g.n_included > 1;
    if (seeds)
      plot << (curves++ ? ", \\\n     " : "") << d << " using 1:3:4 with filledcurves fs transparent solid 0.18 noborder lc rgb '"
           << c << "' notitle";
    plot << (curves++ ? ", \\\n     " : "") << d << " using 1:2 with lines lw 2 lc rgb '" << c << "' title "
         << quote(g.label + " - " + r.groups[g.reference].label);
    if (std::isfinite(g.window_tokens_lo)) lo = std::min(lo, g.window_tokens_lo);
    if (std::isfinite(g.window_tokens_hi)) hi = std::max(hi, g.window_tokens_hi);
  }
  if (!curves) return {};
  os << "set title " << title("Loss difference to the baseline (same seed, matched by step, EMA-smoothed)",
                              "line: mean over seeds; band: min..max; shaded: converged window, " +
                                  r.settings.window_text()) << "\n"
     << "set logscale x\nset format x '%.0s%c'\nset autoscale xfix\n"
     << "set xlabel 'tokens (log scale)'\nset ylabel 'loss - baseline loss (nats/token)'\n"
     << "set xzeroaxis lt 1 lc rgb '#555555'\n";
  if (std::isfinite(lo) && std::isfinite(hi) && hi > lo)
    os << "set object 1 rect from " << num(lo) << ", graph 0 to " << num(hi)
       << ", graph 1 behind fc rgb '#e8e8e8' fs solid 1.0 noborder\n";
  os << "plot " << plot.str() << "\n";
  return {"gap_vs_tokens", os.str()};
}

// Points with CI bars per non-baseline group: converged-window gap and final-loss gap.
Script gaps_plot(const AnalysisReport& r) {
  std::ostringstream os;
  int x = 0;
  os << "$gaps << EOD\n# x conv conv_lo conv_hi final final_lo final_hi label\n";
  for (const auto& g : r.groups) {
    if (g.is_baseline || (g.converged_gap.n == 0 && g.final_gap.n == 0)) continue;
    auto bar = [](const SeedStats& s, double& lo, double& hi) {
      lo = s.has_ci ? s.ci_low : s.mean;
      hi = s.has_ci ? s.ci_high : s.mean;
    };
    double cl, ch, fl, fh;
    bar(g.converged_gap, cl, ch);
    bar(g.final_gap, fl, fh);
    os << x++ << ' ' << num(g.converged_gap.mean) << ' ' << num(cl) << ' ' << num(ch) << ' ' << num(g.final_gap.mean)
       << ' ' << num(fl) << ' ' << num(fh) << ' ' << field(g.label) << '\n';
  }
  os << "EOD\n";
  if (x == 0) return {};
  os << "set title " << title("Loss gap to the baseline per config",
                              "mean over seeds; bars: " + num(r.settings.confidence * 100) +
                                  "% CI (Student t; none with one seed)") << "\n"
     << "set xrange [-0.6:" << x - 0.4 << "]\n"
     << "set xtics rotate by -25 left\n"
     << "set bmargin 8\n"
     << "set xzeroaxis lt 1 lc rgb '#555555'\n"
     << "set ylabel 'gap to baseline (nats/token)'\nset xlabel 'config'\n"
     << "plot $gaps using ($1-0.08):2:3:4:xtic(8) with yerrorbars pt 7 ps 1.2 lc rgb '" << kPalette[0]
     << "' title " << quote("converged window: " + r.settings.window_text() + " (train loss)") << ", \\\n"
     << "     $gaps using ($1+0.08):5:6:7 with yerrorbars pt 5 ps 1.1 lc rgb '" << kPalette[1]
     << "' title 'final loss (validation if logged, else smoothed train)'\n";
  return {"gaps", os.str()};
}

Script token_gap_plot(const AnalysisReport& r) {
  std::ostringstream os;
  int x = 0, exact = 0, censored = 0;
  os << "$tok << EOD\n# x gap_pct lo hi censored label\n";
  for (const auto& g : r.groups) {
    if (g.is_baseline || g.token_gap.n == 0) continue;
    const SeedStats& s = g.token_gap;
    const double lo = s.has_ci ? s.ci_low : s.mean, hi = s.has_ci ? s.ci_high : s.mean;
    os << x++ << ' ' << num(s.mean * 100) << ' ' << num(lo * 100) << ' ' << num(hi * 100) << ' '
       << (g.token_gap_censored ? 1 : 0) << ' ' << field(g.label) << '\n';
    (g.token_gap_censored ? censored : exact)++;
  }
  os << "EOD\n";
  if (x == 0) return {};
  os << "set title " << title("Extra tokens to reach the target loss (target: " + r.settings.target_text() + ")",
                              "T_config / T_baseline - 1, mean over seeds; bars: " +
                                  num(r.settings.confidence * 100) + "% CI") << "\n"
     << "set xrange [-0.6:" << x - 0.4 << "]\n"
     << "set xtics rotate by -25 left\nset bmargin 8\n"
     << "set xzeroaxis lt 1 lc rgb '#555555'\n"
     << "set ylabel 'token gap (%)'\nset xlabel 'config'\n"
     << "plot $tok using 1:($5 == 0 ? $2 : NaN):($5 == 0 ? $3 : NaN):($5 == 0 ? $4 : NaN):xtic(6) with yerrorbars pt 7 ps 1.2 lc rgb '"
     << kPalette[0] << "' title 'reached the target'";
  if (censored)
    os << ", \\\n     $tok using 1:($5 == 1 ? $2 : NaN) with points pt 9 ps 1.6 lc rgb '" << kPalette[1]
       << "' title 'never reached within budget (lower bound)', \\\n"
       << "     $tok using 1:($5 == 1 ? $2 : NaN):(sprintf('> %.1f%%', $2)) with labels offset 0,1.2 notitle";
  os << "\n";
  return {"token_gap", os.str()};
}

Script budget_plot(const AnalysisReport& r) {
  if (!r.multi_budget) return {};
  std::ostringstream os, plot;
  int curves = 0;
  for (size_t f = 0; f < r.budget_families.size(); ++f) {
    const BudgetFamily& fam = r.budget_families[f];
    if (fam.budgets.empty()) continue;
    os << "$b" << f << " << EOD\n";
    for (size_t i = 0; i < fam.budgets.size(); ++i) os << num(fam.budgets[i]) << ' ' << num(fam.final_loss[i]) << '\n';
    os << "EOD\n";
    const char* c = fam.is_baseline ? kBaselineColor : kPalette[f % (sizeof kPalette / sizeof kPalette[0])];
    plot << (curves++ ? ", \\\n     " : "") << "$b" << f << " using 1:2 with linespoints lw 2 pt 7 lc rgb '" << c
         << "' title " << quote(fam.label + (fam.is_baseline ? " (baseline)" : ""));
  }
  if (!curves) return {};
  int obj = 1;
  for (const auto& fam : r.budget_families) {
    if (fam.is_baseline || !std::isfinite(fam.reference_loss)) continue;
    os << "set arrow " << obj++ << " from graph 0, first " << num(fam.reference_loss) << " to graph 1, first "
       << num(fam.reference_loss) << " nohead dt 2 lc rgb '#555555'\n";
    if (fam.crossing.match == BudgetMatch::inside)
      os << "set label " << obj++ << " " << quote(signed_pct(fam.token_gap)) << " at " << num(fam.crossing.budget)
         << ", " << num(fam.reference_loss) << " point pt 6 ps 2 offset 1,1\n";
  }
  os << "set title " << title("Final " + std::string(r.budget_families.front().final_loss_kind == "val" ? "validation" : "smoothed train") +
                                  " loss vs token budget",
                              "mean over seeds; dashed: the baseline's final loss at its base budget; circle: matched budget") << "\n"
     << "set format x '%.3s%c'\nset offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06\n"
     << "set xlabel 'token budget (" << r.settings.budget_key << ", tokens)'\n"
     << "set ylabel 'final loss (nats/token)'\n"
     << "plot " << plot.str() << "\n";
  return {"budget", os.str()};
}

std::vector<Script> quant_plots(const AnalysisReport& r, const PlotOptions& o) {
  std::vector<Script> out;
  for (const auto& g : r.groups) {
    if (g.quant.empty()) continue;
    std::ostringstream os, plot;
    int curves = 0;
    for (size_t q = 0; q < g.quant.size(); ++q) {
      const QuantSeries& s = g.quant[q];
      SeriesBand b;
      b.step = s.step;
      b.tokens = s.tokens;
      b.mean = s.sqnr_db;
      b.min = s.frac_flushed;
      b.max = s.frac_saturated;
      write_band(os, tag("q", q), b, o.max_points, "tokens sqnr_db frac_flushed frac_saturated step");
      plot << (curves++ ? ", \\\n     " : "") << "$q" << q << " using 1:2 with linespoints lw 1.5 pt " << (q % 6) + 4
           << " ps 0.6 lc rgb '" << kPalette[q % (sizeof kPalette / sizeof kPalette[0])] << "' title " << quote(s.label);
    }
    os << "set title " << title("Quantization SQNR over training: " + g.label, "mean over tensors and seeds, per GEMM operand") << "\n"
       << "set logscale x\nset format x '%.0s%c'\nset autoscale xfix\n"
       << "set xlabel 'tokens (log scale)'\nset ylabel 'SQNR (dB)'\n"
       << "plot " << plot.str() << "\n";
    out.push_back({tag("quant_sqnr_g", g.index), os.str()});
  }
  return out;
}

// Per group, the wgrad gain of each linear layer against the fp32 replay over training.
std::vector<Script> fidelity_plots(const AnalysisReport& r, const PlotOptions& o) {
  std::vector<Script> out;
  for (const auto& g : r.groups) {
    if (g.wgrad_gain.empty()) continue;
    std::ostringstream os, plot;
    for (size_t l = 0; l < g.wgrad_gain.size(); ++l) {
      const LayerSeries& s = g.wgrad_gain[l];
      SeriesBand b;
      b.step = s.step;
      b.tokens = s.tokens;
      b.mean = b.min = b.max = s.values;
      write_band(os, tag("l", int64_t(l)), b, o.max_points, "tokens gain gain gain step");
      plot << (l ? ", \\\n     " : "") << "$l" << l << " using 1:2 with linespoints lw 1.2 pt " << (l % 6) + 4
           << " ps 0.5 lc rgb '" << kPalette[l % (sizeof kPalette / sizeof kPalette[0])] << "' title " << quote(s.layer);
    }
    os << "set title " << title("Weight-gradient gain against fp32 over training: " + g.label,
                                "<dW, dW_fp32> / <dW_fp32, dW_fp32> per linear layer, mean over seeds") << "\n"
       << "set logscale x\nset format x '%.0s%c'\nset autoscale xfix\nset key outside right font ',7'\n"
       << "set xlabel 'tokens (log scale)'\nset ylabel 'wgrad gain'\n"
       << "plot " << plot.str() << ", 1 with lines dt 2 lc rgb 'gray' notitle\n";
    out.push_back({tag("fidelity_wgrad_g", g.index), os.str()});
  }
  return out;
}

// One of the scaling plots: per series, points with CI bars against N and the fitted curve over the
// fitted sizes. `token`: the token multiplier 1 + gap (log y), else the loss gap in nats.
Script scaling_plot(const ScalingReport& r, bool token) {
  std::ostringstream os, plot;
  int k = 0;
  double lo = INFINITY, hi = 0;
  for (size_t si = 0; si < r.series.size(); ++si) {
    const ScalingSeries& s = r.series[si];
    const ScalingFit& f = token ? s.token_fit : s.loss_fit;
    std::ostringstream rows;
    int n = 0;
    for (const auto& p : s.points) {
      const GapStats& g = token ? p.token_gap : p.loss_gap;
      if (g.stats.n == 0 || !std::isfinite(g.stats.mean)) continue;
      const bool bound = token && std::any_of(p.token_gap_bound.begin(), p.token_gap_bound.end(), [](int b) { return b != 0; });
      const double off = token ? 1 : 0;
      const double m = g.stats.mean + off;
      const double l = (g.stats.has_ci ? g.stats.ci_low : g.stats.mean) + off;
      const double h = (g.stats.has_ci ? g.stats.ci_high : g.stats.mean) + off;
      rows << num(p.params * std::pow(1.04, double(si))) << ' ' << num(m) << ' ' << num(l) << ' ' << num(h) << ' ' << (bound ? 1 : 0) << '\n';
      lo = std::min(lo, p.params), hi = std::max(hi, p.params);
      ++n;
    }
    if (n == 0) continue;
    const std::string color = kPalette[si % (sizeof kPalette / sizeof kPalette[0])];  // points offset 4% per series
    os << "$s" << si << " << EOD\n# params mean lo hi bound\n" << rows.str() << "EOD\n";
    plot << (k++ ? ", \\\n     " : "plot ") << "$s" << si << " using 1:($5 == 0 ? $2 : NaN):($5 == 0 ? $3 : NaN):($5 == 0 ? $4 : NaN) "
         << "with yerrorbars pt 7 ps 1.2 lc rgb '" << color << "' title " << quote(s.label);
    if (token)
      plot << ", \\\n     $s" << si << " using 1:($5 == 1 ? $2 : NaN) with points pt 9 ps 1.6 lc rgb '" << color
           << "' title " << quote(s.label + ": censored (bound)");
    if (!f.form.empty()) {
      // power: gap = c N^b; multiplier_power: 1 + gap = c N^b (what the token plot shows); log_linear
      const std::string fn = tag("f", static_cast<long long>(si));
      if (f.form == "log_linear") os << fn << "(x) = " << num(f.intercept) << " + " << num(f.slope) << " * log10(x)\n";
      else os << fn << "(x) = exp(" << num(f.intercept) << ") * x**(" << num(f.slope) << ")\n";
      plot << ", \\\n     [" << num(f.params.front()) << ":" << num(f.params.back()) << "] " << fn << "(x) with lines lw 2 dt 2 lc rgb '" << color
           << "' title " << quote("fit: b = " + short_num(f.slope) + " [" + short_num(f.slope_lo) + ", " + short_num(f.slope_hi) + "]");
    }
  }
  if (k == 0) return {};
  os << "set title " << title(token ? "Token multiplier against model size" : "Loss gap against model size",
                              token ? "tokens A needs to reach B's final loss / B's tokens; bars: CI over seeds; dashed: fit"
                                    : "final loss A - B (nats); bars: CI over seeds; dashed: fit") << "\n"
     << "set logscale x\nset format x '%.0e'\n"
     << "set xrange [" << num(lo / 1.5) << ":" << num(hi * 1.5) << "]\n"
     << "set samples 200\n"
     << "set xlabel 'non-embedding parameters N'\n"
     << (token ? "set logscale y\nset ylabel '1 + token gap'\nset arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#555555'\n"
               : "set ylabel 'loss gap A - B (nats/token)'\nset xzeroaxis lt 1 lc rgb '#555555'\n")
     << plot.str() << "\n";
  return {token ? "scaling_token_multiplier" : "scaling_loss_gap", os.str()};
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Renders one script into the requested formats; returns the image paths.
std::vector<std::string> render(const Script& s, const fs::path& dir, const PlotOptions& o) {
  const fs::path script = dir / (s.name + ".gp");
  io::write_file_atomically(script.string(), header(s, o) + s.body + "unset output\n");
  std::vector<std::pair<std::string, fs::path>> wanted;  // format, final path
  if (o.png) wanted.emplace_back("png", dir / (s.name + ".png"));
  if (o.svg) wanted.emplace_back("svg", dir / (s.name + ".svg"));
  const std::string pid = std::to_string(::getpid());
  const fs::path log = dir / ("." + s.name + ".gnuplot.log." + pid);
  std::vector<fs::path> tmps;
  {
    // If gnuplot dies early, a write to its pipe must fail instead of killing this process.
    struct IgnoreSigpipe {
      void (*old)(int) = std::signal(SIGPIPE, SIG_IGN);
      ~IgnoreSigpipe() { std::signal(SIGPIPE, old); }
    } ignore_sigpipe;
    Gnuplot gp(o.gnuplot + " > '" + log.string() + "' 2>&1");
    for (const auto& [fmt, final_path] : wanted) {
      const fs::path tmp = io::temporary_path(final_path.string());  // gnuplot writes it; renamed below
      tmps.push_back(tmp);
      gp << "reset\nfmt = " << quote(fmt) << "\nout = " << quote(tmp.string()) << "\nload " << quote(script.string())
         << "\n";
    }
    gp << "exit\n";
  }  // closing waits for gnuplot to finish
  const std::string messages = read_text(log);
  std::vector<std::string> out;
  for (size_t i = 0; i < wanted.size(); ++i) {
    std::error_code ec;
    if (!fs::exists(tmps[i]) || fs::file_size(tmps[i], ec) == 0) {
      for (const auto& t : tmps) fs::remove(t, ec);
      throw std::runtime_error("gnuplot did not produce " + wanted[i].second.string() + " (script " + script.string() +
                               "): " + (messages.empty() ? "no output; is gnuplot installed?" : messages));
    }
    fs::rename(tmps[i], wanted[i].second);
    out.push_back(wanted[i].second.string());
  }
  fs::remove(log);
  return out;
}

}  // namespace

bool gnuplot_available(const PlotOptions& o) {
  return std::system((o.gnuplot + " --version > /dev/null 2>&1").c_str()) == 0;
}

std::vector<std::string> plot_all(const AnalysisReport& r, const std::string& out_dir, const PlotOptions& o) {
  if (!o.png && !o.svg) return {};
  if (!gnuplot_available(o)) throw std::runtime_error("cannot run '" + o.gnuplot + "': is gnuplot installed?");
  fs::create_directories(out_dir);
  std::vector<Script> scripts = {loss_plot(r, o), diff_plot(r, o), gaps_plot(r), token_gap_plot(r), budget_plot(r)};
  for (auto& q : quant_plots(r, o)) scripts.push_back(std::move(q));
  for (auto& f : fidelity_plots(r, o)) scripts.push_back(std::move(f));
  std::vector<std::string> images;
  for (const auto& s : scripts) {
    if (s.name.empty()) continue;
    for (auto& p : render(s, out_dir, o)) images.push_back(std::move(p));
  }
  return images;
}

}  // namespace fp4lab::analysis

namespace fp4lab::analysis {

std::vector<std::string> plot_scaling(const ScalingReport& r, const std::string& out_dir, const PlotOptions& o) {
  if (!o.png && !o.svg) return {};
  if (!gnuplot_available(o)) throw std::runtime_error("cannot run '" + o.gnuplot + "': is gnuplot installed?");
  fs::create_directories(out_dir);
  std::vector<std::string> images;
  for (const Script& s : {scaling_plot(r, false), scaling_plot(r, true)}) {
    if (s.name.empty()) continue;
    for (auto& p : render(s, out_dir, o)) images.push_back(std::move(p));
  }
  return images;
}

}  // namespace fp4lab::analysis
