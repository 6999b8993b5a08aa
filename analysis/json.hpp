// A small indenting JSON writer (analysis.json, findings.json, scaling.json): objects, arrays,
// numbers in their shortest round-trip form, NaN/Inf as null, strings escaped; and the JSON form of
// a statistic over seeds that those files share (stats_fields).
#pragma once
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stats.hpp"

namespace fp4lab::analysis {

class Json {
 public:
  std::string str() const { return out_ + "\n"; }

  Json& begin_object(const char* key = nullptr) { return open(key, '{'); }
  Json& end_object() { return close('}'); }
  Json& begin_array(const char* key = nullptr) { return open(key, '['); }
  Json& end_array() { return close(']'); }

  Json& value(const char* key, double x) {
    item(key);
    if (!std::isfinite(x)) {
      out_ += "null";
    } else {
      char buf[32];
      const auto r = std::to_chars(buf, buf + sizeof buf, x);  // shortest round-trip form
      out_.append(buf, r.ptr);
    }
    return *this;
  }
  Json& value(const char* key, int64_t x) {
    item(key);
    out_ += std::to_string(x);
    return *this;
  }
  Json& value(const char* key, int x) { return value(key, static_cast<int64_t>(x)); }
  Json& value(const char* key, bool b) {
    item(key);
    out_ += b ? "true" : "false";
    return *this;
  }
  Json& value(const char* key, const std::string& s) {
    item(key);
    escape(s);
    return *this;
  }
  Json& value(const char* key, const char* s) { return value(key, std::string(s)); }
  template <class T>
  Json& array(const char* key, const std::vector<T>& v) {  // numbers or strings
    begin_array(key);
    for (const T& x : v) value(nullptr, x);
    return end_array();
  }
  Json& map(const char* key, const std::map<std::string, std::string>& m) {
    begin_object(key);
    for (const auto& [k, v] : m) value(k.c_str(), v);
    return end_object();
  }

 private:
  Json& open(const char* key, char c) {
    item(key);
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  Json& close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ += c;
    return *this;
  }
  void item(const char* key) {
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
      newline();
    }
    if (key) {
      escape(key);
      out_ += ": ";
    }
  }
  void newline() {
    out_ += '\n';
    out_.append(2 * first_.size(), ' ');
  }
  void escape(const std::string& s) {
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }
  std::string out_;
  std::vector<bool> first_;
};

// A statistic over seeds, as fields of the object the caller has open: n, mean, sd, ci_low,
// ci_high; then, given the confidence (analysis.json), `ci_level` (the confidence, null without a
// CI) and, with `with_t`, the t quantile `t`; without it (scaling.json), `has_ci`; last, when
// given, the per-seed values.
inline void stats_fields(Json& j, const SeedStats& s, std::optional<double> confidence, bool with_t = false,
                         const std::vector<double>* per_seed = nullptr) {
  j.value("n", s.n).value("mean", s.mean).value("sd", s.sd).value("ci_low", s.ci_low).value("ci_high", s.ci_high);
  if (confidence) {
    j.value("ci_level", s.has_ci ? *confidence : kNaN);
    if (with_t) j.value("t", s.t);
  } else {
    j.value("has_ci", s.has_ci);
  }
  if (per_seed) {
    j.begin_array("per_seed");
    for (double x : *per_seed) j.value(nullptr, x);
    j.end_array();
  }
}

}  // namespace fp4lab::analysis
