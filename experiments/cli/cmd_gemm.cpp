// `fp4lab gemm A.h5 B.h5 OUT.h5 --a-dataset X --b-dataset W --a-format F --b-format F [options]`:
// the conformance command for a quantized product. A [m, k] and B [n, k] are stored with the
// contraction axis last (as a GEMM's quantized copies are), each is quantized with its own options
// (quantize's names with an a- or b- prefix), and C [m, n] = Q(A) · Q(B)ᵀ is computed with
// --numerics: block_exact (core/ops/fp4_gemm.hpp; both operands FP4 blocks of one size) or
// dequant_fp32 (the fp32 product of the dequantized operands). OUT.h5 holds `c` and the groups
// `a` and `b` as `quantize` writes them; it is written atomically (a temporary file, then renamed).
#include <cstdio>
#include <filesystem>
#include <memory>

#include "core/io/h5.hpp"
#include "core/ops/fp4_gemm.hpp"
#include "core/ops/matmul.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/cli/quant_h5.hpp"

namespace fp4lab::cli {
namespace {

struct GemmOptions {
  QuantizeOptions a, b;
  std::string out, numerics = "block_exact";
};

[[noreturn]] void usage_error(const std::string& message) { throw Exit{kExitUsage, message}; }

void run_gemm(const GemmOptions& o) {
  const QuantSpec sa = build_spec(o.a), sb = build_spec(o.b);
  GemmNumerics numerics{};
  if (!parse(o.numerics, numerics)) usage_error("unknown numerics '" + o.numerics + "' (" + enum_choices<GemmNumerics>() + ")");
  namespace fs = std::filesystem;
  for (const std::string& in : {o.a.in, o.b.in})
    if (fs::exists(o.out) && fs::exists(in) && fs::equivalent(in, o.out)) usage_error(o.out + ": OUT must differ from A and B");
  int64_t m = 0, ka = 0, n = 0, kb = 0;
  const std::vector<float> xa = read_operand(o.a.in, o.a.dataset, sa, m, ka);
  const std::vector<float> xb = read_operand(o.b.in, o.b.dataset, sb, n, kb);
  if (ka != kb)
    usage_error("A is " + std::to_string(m) + "x" + std::to_string(ka) + " and B " + std::to_string(n) + "x" +
                std::to_string(kb) + ": the contraction axes (the last) differ");
  if (numerics == GemmNumerics::block_exact && !(fp4_blockable(sa) && fp4_blockable(sb) && sa.block == sb.block))
    usage_error("block_exact needs both operands FP4 (E2M1) with E4M3 or UE8M0 block scales of one block size and no "
                "encode window; got " +
                describe(sa) + " and " + describe(sb) + " (use --numerics dequant_fp32)");

  const QuantizedTensor qa = quantize_tensor(xa, m, ka, sa, QuantRandom{o.a.seed, 0, 0});
  const QuantizedTensor qb = quantize_tensor(xb, n, kb, sb, QuantRandom{o.b.seed, 0, 0});
  std::vector<float> c(size_t(m * n));
  std::string kernel = gemm_engine_name(gemm_engine());
  if (numerics == GemmNumerics::block_exact) {
    Fp4Operand fa, fb;
    fp4_operand_from_codes(fa, sa, m, ka, qa.codes, qa.scales, qa.global_amax, qa.row_amax);
    fp4_operand_from_codes(fb, sb, n, kb, qb.codes, qb.scales, qb.global_amax, qb.row_amax);
    fp4_matmul(c.data(), whole(fa), whole(fb), false);
    kernel = to_string(fp4_kernel());
  } else {
    matmul(c.data(), qa.dequant.data(), Trans::n, qb.dequant.data(), Trans::t, m, n, ka, false);
  }

  h5::write_file_atomically(o.out, [&](h5::File& out) {
    out.write("c", c, {uint64_t(m), uint64_t(n)});
    write_quantized(out, "a", qa);
    write_quantized(out, "b", qb);
    out.set_attr("/", "numerics", to_string(numerics));
    out.set_attr("/", "kernel", kernel);
    out.set_attr("/", "source_a", o.a.in + ":" + o.a.dataset);
    out.set_attr("/", "source_b", o.b.in + ":" + o.b.dataset);
  });
  std::printf("C [%lld, %lld] = Q(A) Q(B)^T over k = %lld -> %s: %s (%s); A as %s, B as %s\n", (long long)m, (long long)n,
              (long long)ka, o.out.c_str(), to_string(numerics).c_str(), kernel.c_str(), describe(sa).c_str(),
              describe(sb).c_str());
}

}  // namespace

void add_gemm_command(CLI::App& app) {
  auto o = std::make_shared<GemmOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gemm", "Quantize A [m, k] and B [n, k] and multiply C = Q(A) Q(B)^T (block_exact or dequant_fp32)");
  cmd->add_option("A", o->a.in, "HDF5 file of operand A")->required();
  cmd->add_option("B", o->b.in, "HDF5 file of operand B")->required();
  cmd->add_option("OUT", o->out, "output HDF5 file (created only on success): c, a/, b/")->required();
  cmd->add_option("--a-dataset", o->a.dataset, "A's 2-D float32 dataset [m, k]")->required();
  cmd->add_option("--b-dataset", o->b.dataset, "B's 2-D float32 dataset [n, k]")->required();
  cmd->add_option("--numerics", o->numerics, enum_choices<GemmNumerics>() + " (block_exact: FP4 x FP4 only)");
  add_quantize_options(cmd, o->a, "a-");
  add_quantize_options(cmd, o->b, "b-");
  cmd->callback([o] { run_gemm(*o); });
}

}  // namespace fp4lab::cli
