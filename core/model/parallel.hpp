// Data parallelism of one training run (DESIGN.md "scale-out"; `mpirun -np K fp4lab train`): how the
// ranks of a run talk. The model and the trainer use only this interface; the default is one rank
// without communication, and experiments/grid/mpi.cpp implements it over MPI (with timeouts, so a
// dead rank never leaves the others waiting).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

namespace fp4lab {

class Collective {
 public:
  virtual ~Collective() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  // The largest value over the ranks, NaN ignored (fmax).
  virtual float max(float local) { return local; }
  // all [size * n] = every rank's local [n], in rank order.
  virtual void allgather(const float* local, int64_t n, float* all) { std::copy(local, local + n, all); }
  // Rank 0's value on every rank.
  virtual int64_t broadcast(int64_t value) { return value; }
  // Whether any rank passes true.
  virtual bool any(bool local) { return local; }
  // Ends every rank of the run now (a rank that cannot go on): prints `why` and exits with `code`.
  [[noreturn]] virtual void abort(int code, const std::string& why);
};

}  // namespace fp4lab
