// Checkpoint files through the HDF5 wrapper.
#include "core/train/checkpoint.hpp"

#include <filesystem>
#include <stdexcept>

#include "core/io/h5.hpp"

namespace fp4lab {

std::string checkpoint_path_for(const std::string& run_path) {
  std::string base = run_path;
  if (base.size() > 3 && base.compare(base.size() - 3, 3, ".h5") == 0) base.resize(base.size() - 3);
  return base + ".ckpt.h5";
}

void save_checkpoint(const std::string& path, const CheckpointState& s, Model& model, AdamW* opt) {
  h5::write_file_atomically(path, [&](h5::File& f) {
    const float* p = model.param_data();
    for (const auto& pi : model.params()) {
      const std::vector<uint64_t> shape = {uint64_t(pi.rows), uint64_t(pi.cols)};
      f.write("params/" + pi.name, p + pi.offset, shape);
      if (opt) {
        f.write("adam_m/" + pi.name, opt->m().data() + pi.offset, shape);
        f.write("adam_v/" + pi.name, opt->v().data() + pi.offset, shape);
      }
    }
    if (const std::vector<float> ds = model.delayed_scaling_state(); !ds.empty())
      f.write("delayed_scaling", ds, {uint64_t(ds.size())});
    f.set_attr("/", "format", std::string("fp4lab-checkpoint"));
    f.set_attr("/", "config", s.config_yaml);
    f.set_attr("/", "cell_id", s.cell_id);
    f.set_attr("/", "step", s.step);
    f.set_attr("/", "tokens", s.tokens);
    f.set_attr("/", "adam_t", opt ? opt->t() : int64_t(0));
    f.set_attr("/", "initial_loss", s.initial_loss);
    f.set_attr("/", "rng_seed", static_cast<int64_t>(s.seed));
    f.set_attr("/", "rng_counter", s.step);
    f.set_attr("/", "gemm_uses", s.gemm_uses);
  });
}

static CheckpointState read_state(const h5::File& f, const std::string& path) {
  if (!f.has_attr("/", "format") || f.attr_string("/", "format") != "fp4lab-checkpoint")
    throw std::runtime_error(path + ": not an fp4lab checkpoint");
  CheckpointState s;
  s.config_yaml = f.attr_string("/", "config");
  s.cell_id = f.attr_string("/", "cell_id");
  s.step = f.attr_int("/", "step");
  s.tokens = f.attr_int("/", "tokens");
  s.initial_loss = f.attr_double("/", "initial_loss");
  s.seed = static_cast<uint64_t>(f.attr_int("/", "rng_seed"));
  if (f.has_attr("/", "gemm_uses")) s.gemm_uses = f.attr_string("/", "gemm_uses");
  return s;
}

std::string final_checkpoint_path_for(const std::string& run_path) {
  std::string ckpt = checkpoint_path_for(run_path);
  return ckpt.substr(0, ckpt.size() - std::string(".ckpt.h5").size()) + ".final.ckpt.h5";
}

CheckpointState read_checkpoint_state(const std::string& path) {
  return read_state(h5::File::open_ro(path), path);
}

CheckpointState load_checkpoint(const std::string& path, Model& model, AdamW* opt) {
  h5::File f = h5::File::open_ro(path);
  CheckpointState s = read_state(f, path);
  float* p = model.param_data();
  auto load = [&](const std::string& ds, const ParamInfo& pi, float* dst) {
    std::vector<uint64_t> shape;
    std::vector<float> data = f.read<float>(ds, &shape);
    if (shape.size() != 2 || int64_t(shape[0]) != pi.rows || int64_t(shape[1]) != pi.cols)
      throw std::runtime_error(path + ": " + ds + " has the wrong shape for this model");
    std::copy(data.begin(), data.end(), dst);
  };
  for (const auto& pi : model.params()) {
    load("params/" + pi.name, pi, p + pi.offset);
    if (opt) {
      load("adam_m/" + pi.name, pi, opt->m().data() + pi.offset);
      load("adam_v/" + pi.name, pi, opt->v().data() + pi.offset);
    }
  }
  if (opt) opt->set_t(f.attr_int("/", "adam_t"));
  if (f.has("delayed_scaling")) model.set_delayed_scaling_state(f.read<float>("delayed_scaling"));
  return s;
}

}  // namespace fp4lab
