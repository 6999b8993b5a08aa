// PyTorch cross-check driver: runs one fp32 forward/backward of a small Llama, writes parameters,
// tokens, logits, loss and gradients as raw binaries to a temporary directory, and runs
// tests/torch_crosscheck.py (PyTorch, float64) on it, which compares every tensor and exits 0 on a match.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/model/model.hpp"

namespace fp4lab {
namespace {

namespace fs = std::filesystem;

template <class T>
void write_raw(const fs::path& path, const T* data, int64_t n) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data), std::streamsize(sizeof(T) * size_t(n)));
  ASSERT_TRUE(out.good()) << path;
}

TEST(TorchCrossCheck, LogitsLossAndGradients) {
  ModelConfig c;  // awkward sizes: 3 heads of 16, d_ff 80, T = 11
  c.vocab = 256;
  c.d_model = 48;
  c.n_layers = 2;
  c.n_heads = 3;
  c.d_ff = 80;
  c.seq_len = 11;
  c.init_std = 0.1;  // larger than default so that attention and the MLP are far from linear
  const int B = 2, T = 11;
  Model m(c, RecipeConfig{});
  m.init_parameters(2024);
  std::mt19937 gen(7);
  std::vector<int32_t> tokens(size_t(B) * (T + 1));
  for (auto& t : tokens) t = int32_t(gen() % uint32_t(c.vocab));
  const double loss = m.forward_backward(tokens.data(), B, T, 0, 0, 0);

  char tmpl[] = "/tmp/fp4lab_torch_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const fs::path dir(tmpl);
  {
    std::ofstream meta(dir / "meta.txt");
    meta.precision(17);
    meta << "vocab " << c.vocab << "\nd_model " << c.d_model << "\nn_layers " << c.n_layers
         << "\nn_heads " << c.n_heads << "\nd_ff " << c.d_ff << "\nnorm_eps " << c.norm_eps
         << "\nrope_theta " << std::scientific << c.rope_theta << std::defaultfloat << "\nB " << B
         << "\nT " << T << "\nloss " << std::scientific << loss << "\n";
    std::ofstream manifest(dir / "manifest.txt");
    for (const auto& p : m.params()) {
      manifest << p.name << ' ' << p.offset << ' ' << p.rows << ' ' << p.cols << '\n';
    }
  }
  write_raw(dir / "params.bin", m.param_data(), m.num_params());
  write_raw(dir / "grads.bin", m.grad_data(), m.num_params());
  write_raw(dir / "logits.bin", m.last_logits(), int64_t(B) * T * c.vocab);
  write_raw(dir / "tokens.bin", tokens.data(), int64_t(tokens.size()));

  const std::string cmd = "/usr/bin/python3 " FP4LAB_SOURCE_DIR "/tests/torch_crosscheck.py " +
                          dir.string();
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(status, 0) << "torch_crosscheck.py failed (see its output above); files kept in " << dir;
  if (status == 0) fs::remove_all(dir);
}

}  // namespace
}  // namespace fp4lab
