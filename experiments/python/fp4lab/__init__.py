"""fp4lab from Python: the bit-exact quantizer, recipes, conformance vectors and the run files.

    import fp4lab
    q = fp4lab.quantize(x, "nvfp4", tile="2d")   # x: float32 [rows, cols] NumPy array or torch tensor
    q.dequant, q.codes, q.scales, q.global_amax  # NumPy arrays / float
    fp4lab.recipe("te_nvfp4")                    # the preset's resolved recipe keys as a dict
    fp4lab.open_run("results/quickstart/<cell>.h5")["steps"].train_loss.sel(step=100)
    fp4lab.load_grid("results/quickstart")       # pandas DataFrame, one row per cell

The numerics run in fp4lab's C++ core (the extension module fp4lab._fp4lab), the same code as the
`fp4lab` command: `quantize` takes the options of `fp4lab quantize` (with '_' for '-') and gives
bit-identical results. xarray, h5py and pandas are imported only by the functions that need them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Optional

import numpy as np

from . import _fp4lab

__all__ = ["Quantized", "quantize", "recipe", "recipe_names", "formats", "conformance_cases", "conformance_vectors",
           "options",
           "open_run", "load_grid", "analyze"]


@dataclass(frozen=True)
class Quantized:
    """One quantized tensor.

    dequant: float32 [rows, cols], the values a GEMM sees; codes: uint8 [rows, cols], one element
    code per value (E2M1: 0..15, FP8: the raw byte; None for bf16); scales: uint8 [rows, cols/block],
    the raw block-scale bits (E4M3 or UE8M0; None without block scales); global_amax: the tensor's
    amax (after RHT when rht), from which NVFP4's per-tensor scale follows; row_amax: each row's amax
    (row-scaled NVFP4 only); format: a one-line description; spec: every quantizer field; stats:
    amax, flushed, saturated, nonfinite, sqnr_db; window_amax: float32 [rows, cols/encode_window],
    each window's amax (NVFP4 with encode_window only; 2D windows repeat theirs on each row).
    """

    dequant: np.ndarray
    codes: Optional[np.ndarray]
    scales: Optional[np.ndarray]
    global_amax: float
    row_amax: Optional[np.ndarray]
    format: str
    spec: Dict[str, Any] = field(repr=False)
    seed: int = 0
    stats: Dict[str, Any] = field(default_factory=dict, repr=False)
    window_amax: Optional[np.ndarray] = None


def _as_float32_matrix(x) -> np.ndarray:
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch.Tensor: through the array protocol
        x = x.detach().cpu().numpy()
    a = np.asarray(x)
    if a.dtype != np.float32:
        raise ValueError(f"x is {a.dtype}; expected float32")
    return np.ascontiguousarray(a)


def quantize(x, format: str = "nvfp4", seed: int = 0, spec: Optional[Dict[str, Any]] = None, **options) -> Quantized:
    """Quantize a float32 [rows, cols] array as `fp4lab quantize` does, along the last axis.

    format: one of FORMATS. seed: the stochastic rounding seed. options (see fp4lab.options()):
    OPTIONS. Or, instead of format and options, spec: one operand of a recipe (fp4lab.recipe(name)["quantized"]["fprop_x"])
    or a Quantized.spec. Raises ValueError with the command's message for an unknown option or
    value, or a shape the format cannot take. The GIL is released while the quantizer runs.
    """
    return Quantized(**_fp4lab.quantize(_as_float32_matrix(x), format, int(seed), options, spec or {}))


# The lists come from the C++ format table and option list, so the docstring names every one.
quantize.__doc__ = quantize.__doc__.replace("FORMATS", ", ".join(_fp4lab.formats())).replace(
    "OPTIONS", ", ".join(_fp4lab.option_names()))


def options() -> Dict[str, str]:
    """The keyword options of quantize() with their help texts."""
    return dict(_fp4lab.option_help())


def recipe(name: str) -> Dict[str, Any]:
    """The recipe preset `name` (e.g. "te_nvfp4") resolved to every recipe key, as nested dicts:
    quantized / high_precision -> fprop_x, fprop_w, dgrad_dy, dgrad_w, wgrad_dy, wgrad_x -> the
    quantizer fields, plus the recipe-wide keys (gemm_numerics, coverage, ...)."""
    return _fp4lab.recipe(name)


def recipe_names():
    """The recipe presets this installation ships."""
    return list(_fp4lab.recipe_names())


formats: Dict[str, Any] = _fp4lab.formats()
"""The named formats: {name: {"description", "source", "variants": {variant: {"options", "seed"}}}}; the
variants are those of the conformance vectors (`fp4lab formats --vectors`)."""


def conformance_cases() -> Dict[str, np.ndarray]:
    """The conformance tensors (ties, nonfinite, hostile, gaussian) as float32 arrays."""
    return dict(_fp4lab.conformance_cases())


def conformance_vectors():
    """Every conformance vector, as `fp4lab formats --vectors` writes them: yields
    (format, variant, case, input, Quantized) for each format, variant and conformance tensor."""
    cases = conformance_cases()
    for fmt, info in formats.items():
        for variant, v in info["variants"].items():
            for case, x in cases.items():
                yield fmt, variant, case, x, quantize(x, fmt, seed=v["seed"], **v["options"])


def open_run(path: str) -> Dict[str, Any]:
    """A run file as xarray Datasets: {"/": the root (the run's attributes: config, status, ...),
    "steps": ..., "val": ..., "quant": ..., ...}, one per group the file has, each opened with
    xr.open_dataset(path, group=g, engine="h5netcdf") (`step` the index, `tokens` a coordinate)."""
    import h5netcdf
    import xarray as xr

    with h5netcdf.File(path, "r") as f:
        groups = list(f.groups)
    out = {"/": xr.open_dataset(path, engine="h5netcdf")}
    for g in groups:
        out[g] = xr.open_dataset(path, group=g, engine="h5netcdf")
    return out


def analyze(path: str) -> Dict[str, Any]:
    """The grid analysis of a grid directory or curves pack, as `fp4lab analyze` writes it to
    analysis.json (groups, cells, comparisons with CIs, token gaps, ...)."""
    return json.loads(_fp4lab.analyze(str(path)))


def load_grid(path: str):
    """A grid directory or curves pack as a pandas DataFrame with one row per cell: the varying
    config keys (one column each, e.g. recipe, seed), state, steps, tokens, final losses,
    tokens_per_second, ...; the whole analysis (analyze()) is in df.attrs["analysis"]."""
    import pandas as pd

    analysis = analyze(path)
    rows = []
    for cell in analysis["cells"]:
        row = {k: v for k, v in cell.items() if not isinstance(v, (dict, list))}
        for key, value in cell.get("vary", {}).items():
            row[key] = value
        rows.append(row)
    df = pd.DataFrame(rows)
    for key in analysis.get("vary_keys", []) + ["seed"]:  # axis values are text in the manifest
        if key in df:
            df[key] = pd.to_numeric(df[key], errors="ignore")
    df.attrs["analysis"] = analysis
    return df
