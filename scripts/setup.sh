#!/usr/bin/env bash
# Installs the Debian packages fp4lab needs and builds the release preset.
# Usage: scripts/setup.sh            build and runtime packages (the main job), plus the
#                                    fortunes text corpus
#        scripts/setup.sh --tests    also what only the test suite needs: PyTorch, h5py, pandas,
#                                    xarray and h5netcdf for the Python module's tests and the
#                                    cross-check against an independent implementation
#        scripts/setup.sh --corpus   also the Debian documentation packages scripts/build_corpus.py
#                                    reads, then builds the English prose corpus (`prose`, about
#                                    100 MB) into ${FP4LAB_DATA:-${XDG_DATA_HOME:-~/.local/share}/fp4lab}/corpora/prose
#                                    (skipped when build_corpus.py --check passes there already)
#        The flags combine, in any order: scripts/setup.sh --tests --corpus
# Needs root or sudo for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
tests=0
corpus=0
for arg in "$@"; do
  case "$arg" in
    --tests) tests=1 ;;
    --corpus) corpus=1 ;;
    *) echo "usage: scripts/setup.sh [--tests] [--corpus]" >&2; exit 2 ;;
  esac
done
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
packages=(
  g++ cmake make pkg-config git
  libeigen3-dev libyaml-cpp-dev libhdf5-dev
  libboost-iostreams-dev libboost-math-dev libboost-mpi-dev libboost-serialization-dev
  libboost-system-dev libboost-filesystem-dev
  libgnuplot-iostream-dev gnuplot-nox
  libcli11-dev librandom123-dev libgtest-dev libbenchmark-dev libsentencepiece-dev
  openmpi-bin libopenmpi-dev libopenblas0-pthread libopenblas-openmp-dev
  python3-dev pybind11-dev python3-numpy
  fortunes
)
[ $tests -eq 1 ] && packages+=(python3 python3-torch python3-h5py python3-pandas python3-xarray python3-h5netcdf)
if [ $corpus -eq 1 ]; then
  command -v python3 >/dev/null || { $SUDO apt-get update; DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends python3; }
  mapfile -t corpus_packages < <(python3 scripts/build_corpus.py --list-packages)
  packages+=("${corpus_packages[@]}")
fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${packages[@]}"
cmake --preset release
cmake --build --preset release -j "$(nproc)"
if [ $corpus -eq 1 ]; then
  if python3 scripts/build_corpus.py --check >/dev/null 2>&1; then
    echo "prose corpus already built and intact (python3 scripts/build_corpus.py --check)"
  else
    python3 scripts/build_corpus.py
  fi
fi
