// fp4lab: the command-line entry point. Registers the subcommands and maps errors to exit codes
// (2: usage/config, 1: runtime). The commands themselves live in experiments/cli/cmd_*.cpp.
#include <exception>
#include <iostream>

#include "core/config/value.hpp"
#include "core/ops/fp4_gemm.hpp"
#include "core/ops/matmul.hpp"
#include "experiments/cli/commands.hpp"

int main(int argc, char** argv) {
  using namespace fp4lab::cli;
  CLI::App app{"fp4lab: 4-bit LLM pretraining research harness"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.footer(
      "Environment: FP4LAB_GEMM=eigen|openblas picks the GEMM engine (default: OpenBLAS where it runs "
      "AVX-512 kernels, else Eigen; recorded in run files as gemm_engine); FP4LAB_FP4_KERNEL=scalar|avx2|"
      "avx512_vnni picks the kernel of block_exact FP4 GEMMs (default: the widest the CPU has; recorded as "
      "fp4_kernel; every kernel gives the same bits); FP4LAB_PRESETS=DIR is where presets are looked up.");
  add_quantize_command(app);
  add_gemm_command(app);
  add_formats_command(app);
  add_train_command(app);
  add_eval_command(app);
  add_grid_commands(app);
  add_analysis_commands(app);
  add_pack_command(app);
  try {
    fp4lab::gemm_engine();  // a bad FP4LAB_GEMM or FP4LAB_FP4_KERNEL stops here, before any file is written
    fp4lab::fp4_kernel();
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  } catch (const Exit& e) {
    if (!e.message.empty()) std::cerr << "fp4lab: " << e.message << "\n";
    return e.code;
  } catch (const fp4lab::ConfigError& e) {
    std::cerr << "fp4lab: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "fp4lab: error: " << e.what() << "\n";
    return kExitRuntime;
  }
  return kExitOk;
}
