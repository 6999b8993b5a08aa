#!/usr/bin/env bash
# Installs every Debian package fp4lab needs and builds the release preset.
# Usage: scripts/setup.sh            (needs root or sudo for apt-get)
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
  g++ cmake make pkg-config git \
  libeigen3-dev libyaml-cpp-dev libhdf5-dev \
  libboost-iostreams-dev libboost-math-dev libboost-mpi-dev libboost-serialization-dev \
  libboost-system-dev libboost-filesystem-dev \
  libgnuplot-iostream-dev gnuplot-nox \
  libcli11-dev librandom123-dev libgtest-dev libbenchmark-dev \
  openmpi-bin libopenmpi-dev \
  python3 python3-torch python3-h5py python3-numpy libopenblas0-pthread
cmake --preset release
cmake --build --preset release -j "$(nproc)"
