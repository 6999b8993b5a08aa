// The `fp4lab._fp4lab` extension module (pybind11): the quantizer, the recipe presets, the
// conformance vectors and the grid analysis of the C++ library, for fp4lab/__init__.py, which adds
// the NumPy/PyTorch conveniences and the xarray/pandas readers. This is the one file that sees
// pybind11; option names and their checks come from core/quant/quant_options.hpp, so the Python
// keywords and messages are those of `fp4lab quantize`.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "core/config/config.hpp"
#include "core/quant/conformance.hpp"
#include "core/quant/format_table.hpp"
#include "core/quant/quant_options.hpp"
#include "core/quant/quantize.hpp"

namespace py = pybind11;
using namespace fp4lab;

namespace {

template <class T>
py::array_t<T> to_array(const std::vector<T>& v, std::vector<py::ssize_t> shape) {
  py::array_t<T> a(shape);
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
  return a;
}

// A Python option value as the command line would spell it.
std::string option_text(const std::string& name, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(value) || py::isinstance<py::str>(value)) return py::str(value).cast<std::string>();
  throw py::value_error(name + ": expected a str, int or bool, got " + py::str(value.get_type()).cast<std::string>());
}

py::dict spec_dict(const QuantSpec& s) {
  py::dict d;
  for (const SpecField& f : spec_fields()) {
    const std::string v = f.get(s);
    if (f.kind == SpecField::Kind::enumeration) d[f.key.c_str()] = v;
    else if (f.kind == SpecField::Kind::boolean) d[f.key.c_str()] = v == "true";
    else d[f.key.c_str()] = py::int_(py::str(v));
  }
  return d;
}

// Python keyword values as the command line spells them.
std::map<std::string, std::string> as_text(const py::dict& d) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : d) {
    const std::string name = py::str(key).cast<std::string>();
    out[name] = option_text(name, value);
  }
  return out;
}

// quantize(x, format, seed, options, spec) -> dict: x is a C-contiguous float32 [rows, cols]
// array; the quantizer is `spec` (a dict of spec fields) when given, else format + options.
py::dict quantize_py(py::array_t<float, py::array::c_style> x, const std::string& format, uint64_t seed,
                     const py::dict& options, const py::dict& spec_fields_given) {
  QuantSpec spec;
  if (!spec_fields_given.empty() && !options.empty()) throw py::value_error("give either spec or options, not both");
  const std::string problem = spec_fields_given.empty() ? spec_from_options(format, as_text(options), spec)
                                                         : spec_from_fields(as_text(spec_fields_given), spec);
  if (!problem.empty()) throw py::value_error(problem);
  if (x.ndim() != 2) throw py::value_error("x has " + std::to_string(x.ndim()) + " dimensions; expected 2-D");
  const int64_t rows = x.shape(0), cols = x.shape(1);
  const std::string dims = std::to_string(rows) + "x" + std::to_string(cols);
  if (rows * cols == 0) throw py::value_error("x (" + dims + ") is empty");
  if (const std::string problem = validate(spec, rows, cols); !problem.empty())
    throw py::value_error("x (" + dims + "): " + problem);
  std::vector<float> in(x.data(), x.data() + rows * cols);
  bool any_number = false;
  for (float v : in) any_number |= !std::isnan(v);
  if (!any_number) throw py::value_error("x holds only NaN");

  QuantizedTensor q;
  {
    py::gil_scoped_release release;
    q = quantize_tensor(in, rows, cols, spec, QuantRandom{seed, 0, 0});
  }
  py::dict out;
  out["dequant"] = to_array(q.dequant, {rows, cols});
  out["codes"] = q.codes.empty() ? py::object(py::none()) : py::object(to_array(q.codes, {rows, cols}));
  out["scales"] = q.scales.empty() ? py::object(py::none())
                                   : py::object(to_array(q.scales, {rows, py::ssize_t(q.scales.size()) / rows}));
  out["global_amax"] = q.global_amax;
  out["row_amax"] = q.row_amax.empty() ? py::object(py::none())
                                       : py::object(to_array(q.row_amax, {py::ssize_t(q.row_amax.size())}));
  out["window_amax"] = q.window_amax.empty()
                          ? py::object(py::none())
                          : py::object(to_array(q.window_amax, {rows, py::ssize_t(q.window_amax.size()) / rows}));
  out["format"] = describe(spec);
  out["spec"] = spec_dict(spec);
  out["seed"] = seed;
  py::dict stats;
  stats["amax"] = q.stats.amax;
  stats["flushed"] = q.stats.flushed;
  stats["saturated"] = q.stats.saturated;
  stats["nonfinite"] = q.stats.nonfinite;
  stats["sqnr_db"] = q.stats.sqnr_db();
  out["stats"] = stats;
  return out;
}

// The resolved config keys under recipe.* of a preset, as nested dicts with typed values.
py::dict recipe_py(const std::string& name) {
  Config c;
  try {
    ConfigBuilder b;
    b.add_override("recipe=" + name, "fp4lab.recipe");
    c = b.build();
  } catch (const std::exception& e) {
    throw py::value_error(e.what());
  }
  py::dict root;
  for (const ConfigField& f : config_fields()) {
    if (f.path.rfind("recipe.", 0) != 0) continue;
    py::dict node = root;
    std::string rest = f.path.substr(7);
    for (size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1)) {
      const std::string part = rest.substr(0, dot);
      if (!node.contains(part.c_str())) node[part.c_str()] = py::dict();
      node = node[part.c_str()].cast<py::dict>();
    }
    const std::string v = f.get(c);
    if (f.type == "int") node[rest.c_str()] = py::int_(py::str(v));
    else if (f.type == "float") node[rest.c_str()] = py::float_(py::str(v));
    else if (f.type == "bool") node[rest.c_str()] = v == "true";
    else node[rest.c_str()] = v;
  }
  // As the trainer resolves them (resolve_linear): an operand's "inherit" dtype is the recipe's.
  for (const char* linear : {"quantized", "high_precision"})
    for (auto [op, spec] : root[linear].cast<py::dict>())
      if (py::isinstance<py::dict>(spec) && spec["operand_dtype"].cast<std::string>() == "inherit")
        spec["operand_dtype"] = root["operand_dtype"];
  root["name"] = name;
  return root;
}

// {format: {"description", "source", "variants": {variant: {"options": {...}, "seed": n}}}}
py::dict formats_py() {
  py::dict formats;
  for (const NamedFormat& named : named_formats()) {
    py::dict variants;
    for (const ConformanceVariant& v : conformance_variants(named.name)) {
      py::dict d;
      d["options"] = v.options;
      d["seed"] = v.seed;
      variants[v.name.c_str()] = d;
    }
    py::dict f;
    f["description"] = describe(named.spec);
    f["source"] = named.source;
    f["variants"] = variants;
    formats[named.name.c_str()] = f;
  }
  return formats;
}

py::dict conformance_cases_py() {
  py::dict cases;
  for (const ConformanceCase& c : conformance_cases()) cases[c.name.c_str()] = to_array(c.x, {c.rows, c.cols});
  return cases;
}

// The grid analysis of a directory or curves pack as `fp4lab analyze` writes it (analysis.json).
std::string analyze_py(const std::string& dir) {
  py::gil_scoped_release release;
  return analysis::to_json(analysis::analyze_dir(dir));
}

}  // namespace

PYBIND11_MODULE(_fp4lab, m) {
  m.doc() = "fp4lab's C++ core (use the fp4lab package, not this module)";
  m.def("quantize", &quantize_py, py::arg("x"), py::arg("format"), py::arg("seed"), py::arg("options"),
        py::arg("spec"));
  m.def("recipe", &recipe_py, py::arg("name"));
  m.def("recipe_names", [] { return preset_names("recipe"); });
  m.def("formats", &formats_py);
  m.def("conformance_cases", &conformance_cases_py);
  m.def("option_names", &option_names);
  m.def("option_help", [] {
    py::dict d;
    for (const SpecField& f : spec_fields())
      if (!f.option.empty()) d[f.option.c_str()] = f.help + " (" + value_type(f) + ")";
    return d;
  });
  m.def("analyze", &analyze_py, py::arg("path"));
}
