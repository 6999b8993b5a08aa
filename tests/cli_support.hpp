// Running the fp4lab binary from a test: exit status and the combined stdout/stderr. Test code only.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace fp4lab::testing_cli {

struct CliResult {
  int code = -1;
  std::string output;  // stdout and stderr
};

inline CliResult run_cli(const std::string& args) {
  CliResult r;
  FILE* pipe = popen((std::string(FP4LAB_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace fp4lab::testing_cli
