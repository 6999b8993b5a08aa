// A YAML document as plain data with source locations (file:line:column on every node), so that
// every config or grid error can name where it came from. core/config/yaml_io.cpp is the only
// file that includes yaml-cpp; everything else reads and writes `Value`.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fp4lab {

struct SourceLoc {
  std::string file;  // path, or a pseudo-source such as "--set" or "<defaults>"
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
  std::string str() const;  // "file:line:column", "file:line" or "file"
};

// A usage/config error: exit status 2. what() reads "FILE:LINE: key 'a.b': message".
class ConfigError : public std::runtime_error {
 public:
  ConfigError(const SourceLoc& loc, const std::string& key, const std::string& message);
  const SourceLoc loc;
  const std::string key;
};

struct ValueEntry;

class Value {
 public:
  enum class Kind { null, scalar, list, map };

  Value() = default;
  static Value scalar(std::string text, SourceLoc loc = {}, bool quoted = false);
  static Value list(SourceLoc loc = {});
  static Value map(SourceLoc loc = {});

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_scalar() const { return kind_ == Kind::scalar; }
  bool is_list() const { return kind_ == Kind::list; }
  bool is_map() const { return kind_ == Kind::map; }
  const SourceLoc& loc() const { return loc_; }
  void set_loc(SourceLoc loc) { loc_ = std::move(loc); }

  // Scalars. `quoted` is true for a YAML string written in quotes ("16" stays a string).
  const std::string& text() const { return text_; }
  bool quoted() const { return quoted_; }

  // Lists.
  const std::vector<Value>& items() const { return items_; }
  void push_back(Value v) { items_.push_back(std::move(v)); }

  // Maps keep the file's key order; keys carry their own location.
  using Entry = ValueEntry;
  const std::vector<Entry>& entries() const { return entries_; }
  const Value* find(const std::string& key) const;  // nullptr if absent
  void set(const std::string& key, Value v, SourceLoc key_loc = {});  // replace or append

  // Typed reads of a scalar; throw ConfigError naming `key` and this node's location.
  long long as_int(const std::string& key) const;
  double as_double(const std::string& key) const;
  bool as_bool(const std::string& key) const;
  const std::string& as_string(const std::string& key) const;

 private:
  Kind kind_ = Kind::null;
  SourceLoc loc_;
  std::string text_;
  bool quoted_ = false;
  std::vector<Value> items_;
  std::vector<ValueEntry> entries_;
};

struct ValueEntry {
  std::string key;
  SourceLoc key_loc;
  Value value;
};

// Parsing and emitting (yaml_io.cpp). Parse errors are ConfigErrors with the YAML line.
Value parse_yaml_file(const std::string& path);
Value parse_yaml_string(const std::string& text, const std::string& source_name);
std::string emit_yaml(const Value& v);  // block style, keys in stored order

}  // namespace fp4lab
