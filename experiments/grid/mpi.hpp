// Scale-out over MPI ranks (`mpirun -np K fp4lab run GRID`): rank 0 hands out cells on request,
// the other ranks run them with the local pool (runner.hpp). mpi.cpp is the only file that
// includes Boost.MPI. Also the Collective of a data-parallel training run (core/model/parallel.hpp).
#pragma once
#include <memory>

#include "core/model/parallel.hpp"
#include "experiments/grid/runner.hpp"

namespace fp4lab::grid {

// True when launched by mpirun or srun with more than one rank (OMPI_COMM_WORLD_SIZE, PMI_SIZE or
// SLURM_STEP_NUM_TASKS > 1).
bool under_mpirun();

// Runs every cell across the ranks; returns this rank's exit status (see run_grid).
int run_grid_mpi(const Grid& g, const RunSettings& settings);

// `mpirun -np K fp4lab run GRID --cell I` (or srun in a Slurm allocation): the K ranks train cell I
// together, data parallel, into the grid's output folder (no lock: the caller, the local runner or a
// Slurm array task, owns the cell). Returns the exit status: 0 done, 1 failed/diverged, 128 + signal
// when stopped.
int run_cell_data_parallel(const Grid& g, const RunSettings& settings);

// The ranks of one data-parallel training run (`mpirun -np K fp4lab train`), over MPI_COMM_WORLD.
// Every collective waits at most `timeout_seconds`: past it the rank says which collective
// timed out (another rank died or hangs) and aborts the whole job (exit 1), so no rank hangs.
std::unique_ptr<Collective> mpi_collective(double timeout_seconds);

}  // namespace fp4lab::grid
