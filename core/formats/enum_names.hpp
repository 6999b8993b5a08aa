// Names of enum values, declared once per enum: a table next to the enum gives to_string, parse,
// the list of values and the "a|b|c" choices used in configs, CLI flags, run files and reports.
// Standard library only, so that any layer (core/quant included) can use it.
//
//   enum class Tile : uint8_t { d1, d2 };
//   template <>
//   struct EnumNames<Tile> {  // EnumName<Tile> = std::pair<Tile, const char*>
//     static constexpr EnumName<Tile> names[] = {{Tile::d1, "1d"}, {Tile::d2, "2d"}};
//     // Optional: other spellings parse accepts, e.g. ScaleFormat's "e8m0" (to_string never writes them).
//     static constexpr EnumName<Tile> aliases[] = {...};
//     // Optional: what to_string gives a value not in names (default "?").
//     static constexpr const char* unknown = "?";
//   };
//
// The specialization belongs to namespace fp4lab: an enum of a nested namespace (fp4lab::analysis)
// closes that namespace for its table (`template <> struct fp4lab::EnumNames<analysis::Verdict>`),
// and the nested namespace says `using fp4lab::to_string; using fp4lab::parse;` so that
// argument-dependent lookup (calls from other namespaces) and qualified calls (analysis::to_string(v))
// find the templates below.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace fp4lab {

template <class E>
struct EnumNames {};  // specialized per enum, see above

template <class E>
using EnumName = std::pair<E, const char*>;  // a value and its name

// An enum with a table.
template <class E>
concept NamedEnum = std::is_enum_v<E> && requires { EnumNames<E>::names; };

template <NamedEnum E>
std::string to_string(E value) {
  for (const auto& [v, name] : EnumNames<E>::names)
    if (v == value) return name;
  if constexpr (requires { EnumNames<E>::unknown; }) return EnumNames<E>::unknown;
  else return "?";
}

// The value named `text` (a name, else an alias); false (out unchanged) when there is none.
template <NamedEnum E>
bool parse(const std::string& text, E& out) {
  for (const auto& [v, name] : EnumNames<E>::names)
    if (text == name) return out = v, true;
  if constexpr (requires { EnumNames<E>::aliases; })
    for (const auto& [v, name] : EnumNames<E>::aliases)
      if (text == name) return out = v, true;
  return false;
}

// Every named value, in table order.
template <NamedEnum E>
constexpr auto enum_values() {
  constexpr auto& names = EnumNames<E>::names;
  std::array<E, std::size(names)> values{};
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = names[i].first;
  return values;
}

// The names joined by `separator`, in table order: "cosine|wsd|constant".
template <NamedEnum E>
std::string enum_choices(const std::string& separator = "|") {
  std::string out;
  for (const auto& [v, name] : EnumNames<E>::names) {
    if (!out.empty()) out += separator;
    out += name;
  }
  return out;
}

}  // namespace fp4lab
