// Value: the location-carrying YAML tree (no yaml-cpp here; see yaml_io.cpp for parsing).
#include "core/config/value.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace fp4lab {

std::string SourceLoc::str() const {
  if (line <= 0) return file.empty() ? "<unknown>" : file;
  std::string s = file + ":" + std::to_string(line);
  if (column > 0) s += ":" + std::to_string(column);
  return s;
}

static std::string format_error(const SourceLoc& loc, const std::string& key, const std::string& msg) {
  std::string s = loc.str() + ": ";
  if (!key.empty()) s += "key '" + key + "': ";
  return s + msg;
}

ConfigError::ConfigError(const SourceLoc& l, const std::string& k, const std::string& message)
    : std::runtime_error(format_error(l, k, message)), loc(l), key(k) {}

Value Value::scalar(std::string text, SourceLoc loc, bool quoted) {
  Value v;
  v.kind_ = Kind::scalar;
  v.text_ = std::move(text);
  v.loc_ = std::move(loc);
  v.quoted_ = quoted;
  return v;
}

Value Value::list(SourceLoc loc) {
  Value v;
  v.kind_ = Kind::list;
  v.loc_ = std::move(loc);
  return v;
}

Value Value::map(SourceLoc loc) {
  Value v;
  v.kind_ = Kind::map;
  v.loc_ = std::move(loc);
  return v;
}

const Value* Value::find(const std::string& key) const {
  for (const auto& e : entries_)
    if (e.key == key) return &e.value;
  return nullptr;
}

void Value::set(const std::string& key, Value v, SourceLoc key_loc) {
  kind_ = Kind::map;
  for (auto& e : entries_)
    if (e.key == key) {
      e.value = std::move(v);
      e.key_loc = std::move(key_loc);
      return;
    }
  entries_.push_back(ValueEntry{key, std::move(key_loc), std::move(v)});
}

static void require_scalar(const Value& v, const std::string& key, const char* what) {
  if (!v.is_scalar()) throw ConfigError(v.loc(), key, std::string("expected ") + what);
}

long long Value::as_int(const std::string& key) const {
  require_scalar(*this, key, "an integer");
  std::string t = text_;
  t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
  // Allow exact integers written in float/scientific form (e.g. 1e6, 2.5e5).
  errno = 0;
  char* end = nullptr;
  long long i = std::strtoll(t.c_str(), &end, 10);
  if (!quoted_ && !t.empty() && *end == '\0' && errno == 0) return i;
  double d = std::strtod(t.c_str(), &end);
  if (!quoted_ && !t.empty() && *end == '\0' && d == static_cast<double>(static_cast<long long>(d)) &&
      std::abs(d) < 9.2e18)
    return static_cast<long long>(d);
  throw ConfigError(loc_, key, "expected an integer, got '" + text_ + "'");
}

double Value::as_double(const std::string& key) const {
  require_scalar(*this, key, "a number");
  std::string t = text_;
  t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(t.c_str(), &end);
  if (quoted_ || t.empty() || *end != '\0' || errno == ERANGE)
    throw ConfigError(loc_, key, "expected a number, got '" + text_ + "'");
  return d;
}

bool Value::as_bool(const std::string& key) const {
  require_scalar(*this, key, "true or false");
  if (!quoted_) {
    if (text_ == "true" || text_ == "True" || text_ == "yes" || text_ == "on") return true;
    if (text_ == "false" || text_ == "False" || text_ == "no" || text_ == "off") return false;
  }
  throw ConfigError(loc_, key, "expected true or false, got '" + text_ + "'");
}

const std::string& Value::as_string(const std::string& key) const {
  require_scalar(*this, key, "a string");
  return text_;
}

}  // namespace fp4lab
