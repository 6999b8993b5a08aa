// Scale-out over MPI ranks (`mpirun -np K fp4lab run GRID`): rank 0 hands out cells on request,
// the other ranks run them with the local pool (runner.hpp). mpi.cpp is the only file that
// includes Boost.MPI. Not data-parallel training inside a cell.
#pragma once
#include "experiments/grid/runner.hpp"

namespace fp4lab::grid {

// True when launched by mpirun with more than one rank (OMPI_COMM_WORLD_SIZE or PMI_SIZE > 1).
bool under_mpirun();

// Runs every cell across the ranks; returns this rank's exit status (see run_grid).
int run_grid_mpi(const Grid& g, const RunSettings& settings);

}  // namespace fp4lab::grid
