#!/usr/bin/env bash
# The findings suite: every grid of ablations/findings/ (one per published claim), then one
# FINDINGS.md. Resumable: rerunning skips finished cells and resumes interrupted ones.
#   run files (HDF5, git-ignored):           results/findings/runs/<grid>/
#   each grid's report (md, csv, json, plots): results/findings/<grid>/
#   the claims table:                         results/findings/FINDINGS.md, findings.json
# Usage: scripts/findings.sh [--jobs N] [--report-only] [GRID.yaml ...]   (default: all, --jobs 2)
#   --report-only regenerates the reports and FINDINGS.md from the run files without training.
set -uo pipefail
cd "$(dirname "$0")/.."
FP4LAB=${FP4LAB:-build/release/fp4lab}
jobs=2
report_only=0
grids=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=$2; shift 2 ;;
    --report-only) report_only=1; shift ;;
    -h|--help) sed -n 2,9p "$0"; exit 0 ;;
    *) grids+=("$1"); shift ;;
  esac
done
[ ${#grids[@]} -eq 0 ] && grids=(ablations/findings/*.yaml)
status=0
for g in "${grids[@]}"; do
  name=$(basename "$g" .yaml)
  runs=results/findings/runs/$name
  if [ $report_only -eq 0 ]; then
    echo "== $name: $("$FP4LAB" plan "$g" | head -1)"
    "$FP4LAB" run "$g" --jobs "$jobs" --out "$runs" || status=1   # a failed cell does not stop the suite
  fi
  [ -d "$runs" ] && "$FP4LAB" report "$runs" --out "results/findings/$name" > /dev/null || status=1
done
dirs=()
for g in ablations/findings/*.yaml; do
  d=results/findings/runs/$(basename "$g" .yaml)
  [ -d "$d" ] && dirs+=("$d")
done
[ ${#dirs[@]} -gt 0 ] && "$FP4LAB" findings "${dirs[@]}" --out results/findings
exit $status
