// The one door to yaml-cpp: YAML text <-> Value, keeping file:line:column on every node.
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "core/config/value.hpp"

namespace fp4lab {

static SourceLoc loc_of(const YAML::Mark& m, const std::string& file) {
  if (m.line < 0) return SourceLoc{file, 0, 0};
  return SourceLoc{file, m.line + 1, m.column + 1};
}

static Value convert(const YAML::Node& n, const std::string& file) {
  const SourceLoc loc = loc_of(n.Mark(), file);
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: {
      Value v;
      v.set_loc(loc);
      return v;
    }
    case YAML::NodeType::Scalar:
      return Value::scalar(n.Scalar(), loc, n.Tag() == "!");
    case YAML::NodeType::Sequence: {
      Value v = Value::list(loc);
      for (const auto& item : n) v.push_back(convert(item, file));
      return v;
    }
    case YAML::NodeType::Map: {
      Value v = Value::map(loc);
      for (const auto& kv : n) {
        const SourceLoc kloc = loc_of(kv.first.Mark(), file);
        if (!kv.first.IsScalar()) throw ConfigError(kloc, "", "map keys must be plain strings");
        const std::string key = kv.first.Scalar();
        if (v.find(key)) throw ConfigError(kloc, key, "duplicate key");
        v.set(key, convert(kv.second, file), kloc);
      }
      return v;
    }
  }
  return Value();
}

Value parse_yaml_string(const std::string& text, const std::string& source_name) {
  try {
    YAML::Node root = YAML::Load(text);
    return convert(root, source_name);
  } catch (const YAML::Exception& e) {
    throw ConfigError(loc_of(e.mark, source_name), "", "YAML syntax error: " + e.msg);
  }
}

Value parse_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(SourceLoc{path, 0, 0}, "", "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_yaml_string(ss.str(), path);
}

static void emit(YAML::Emitter& out, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::null:
      out << YAML::Null;
      break;
    case Value::Kind::scalar:
      if (v.quoted()) out << YAML::DoubleQuoted << v.text();
      else out << v.text();
      break;
    case Value::Kind::list:
      out << YAML::Flow << YAML::BeginSeq;
      for (const auto& item : v.items()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case Value::Kind::map:
      out << YAML::BeginMap;
      for (const auto& e : v.entries()) {
        out << YAML::Key << e.key << YAML::Value;
        emit(out, e.value);
      }
      out << YAML::EndMap;
      break;
  }
}

std::string emit_yaml(const Value& v) {
  YAML::Emitter out;
  emit(out, v);
  return std::string(out.c_str()) + "\n";
}

}  // namespace fp4lab
