#!/usr/bin/env bash
# Installs the Debian packages fp4lab needs and builds the release preset.
# Usage: scripts/setup.sh            build and runtime packages (the main job), plus the
#                                    fortunes text corpus
#        scripts/setup.sh --tests    also what only the test suite needs: PyTorch, h5py and numpy
#                                    for the cross-check against an independent implementation;
#                                    xarray, h5netcdf and pandas to open run files as netCDF-4
# Needs root or sudo for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
tests=0
[ "${1:-}" = "--tests" ] && tests=1
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
packages=(
  g++ cmake make pkg-config git
  libeigen3-dev libyaml-cpp-dev libhdf5-dev
  libboost-iostreams-dev libboost-math-dev libboost-mpi-dev libboost-serialization-dev
  libboost-system-dev libboost-filesystem-dev
  libgnuplot-iostream-dev gnuplot-nox
  libcli11-dev librandom123-dev libgtest-dev libbenchmark-dev
  openmpi-bin libopenmpi-dev libopenblas0-pthread libopenblas-openmp-dev
  fortunes
)
[ $tests -eq 1 ] && packages+=(python3 python3-torch python3-h5py python3-numpy python3-xarray python3-h5netcdf python3-pandas)
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${packages[@]}"
cmake --preset release
cmake --build --preset release -j "$(nproc)"
