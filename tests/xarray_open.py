"""Opens every group of fp4lab run files with xarray as a user would, xr.open_dataset(path, group=G,
engine="h5netcdf") with no options, and checks the netCDF-4 layout of results/SCHEMA.md: in every
table `step` is the index and .sel(step=...) picks that step's rows, `tokens` (steps/, val/) and
`tensor`/`role`/`operand` (telemetry) are coordinates along it, every variable has units and
long_name and holds what h5py reads, and sentinel/ has the dimensions row and col.

Usage: xarray_open.py RUN.h5 [RUN.h5 ...] (run by RunFileTest.EveryGroupOpensInXarray).
Exit status 0 when every file passes; a missing xarray / h5netcdf is a failure, not a skip.
"""
import sys

try:
    import h5netcdf  # noqa: F401  (xarray's engine="h5netcdf")
    import h5py
    import numpy as np
    import xarray as xr
except ImportError as e:
    sys.exit(f"FAIL: {e}. Reading run files with xarray needs python3-xarray, python3-h5netcdf, "
             "python3-h5py and python3-pandas (scripts/setup.sh --tests installs them)")

COORDS = {"steps": {"tokens"}, "val": {"tokens"}, "quant": {"tensor", "role", "operand"},
          "layers": {"tensor"}, "gnr": {"tensor"}, "fidelity": {"tensor", "role"}}


def fail(path, group, what):
    sys.exit(f"FAIL: {path} group {group}: {what}")


def check_table(path, group, ds, raw):
    name = group.strip("/")
    if list(ds.dims) != ["step"] or "step" not in ds.indexes:
        fail(path, group, f"dims {dict(ds.dims)}, indexes {list(ds.indexes)}: step should be the index")
    if set(ds.coords) != {"step"} | COORDS[name]:
        fail(path, group, f"coordinates {sorted(ds.coords)}")
    if set(ds.variables) != set(raw):
        fail(path, group, f"variables {sorted(ds.variables)} != datasets {sorted(raw)}")
    for k, v in ds.variables.items():
        if v.dims != ("step",) or not v.attrs.get("units") or not v.attrs.get("long_name"):
            fail(path, group, f"{k}: dims {v.dims}, attributes {dict(v.attrs)}")
        if not np.array_equal(v.values, raw[k][:], equal_nan=v.dtype.kind == "f"):
            fail(path, group, f"{k} differs from what h5py reads")
    if ds.sizes["step"] == 0:
        return
    steps = ds["step"].values
    s = int(steps[len(steps) // 2])
    rows = ds.sel(step=s)  # one row in steps/ and val/, every row of that step in the telemetry tables
    want = raw["step"][:] == s
    for k in ds.data_vars:
        if not np.array_equal(np.atleast_1d(rows[k].values), raw[k][:][want], equal_nan=rows[k].dtype.kind == "f"):
            fail(path, group, f"{k}.sel(step={s}) is not the rows of step {s}")
    if name == "steps":
        i = int(np.flatnonzero(want)[0])
        loss = ds.train_loss.sel(step=s)
        if float(loss) != raw["train_loss"][i] or int(loss.tokens) != raw["tokens"][i]:
            fail(path, group, f"train_loss.sel(step={s}) = {loss.values} at {loss.tokens.values} tokens")
        by_tokens = ds.swap_dims(step="tokens").train_loss.sel(tokens=raw["tokens"][i])
        if float(by_tokens) != raw["train_loss"][i]:
            fail(path, group, "train_loss by tokens")


def check_sentinel(path, group, ds, raw):
    if ds["input"].dims != ("row", "col") or "row" in ds.variables or "col" in ds.variables:
        fail(path, group, f"input dims {ds['input'].dims}, variables {sorted(ds.variables)}")
    if not np.array_equal(ds["input"].values, raw["input"][:], equal_nan=True):
        fail(path, group, "input differs from what h5py reads")
    if np.isfinite(ds["input"].isel(row=int(ds.attrs["row"]), col=int(ds.attrs["col"]))):
        fail(path, group, "input at @row, @col is finite")


def check(path):
    with h5py.File(path, "r") as f:
        groups = ["/"]
        f.visit(lambda n: groups.append("/" + n) if isinstance(f[n], h5py.Group) else None)
        for group in groups:
            with xr.open_dataset(path, group=group, engine="h5netcdf") as ds:
                if group == "/":
                    if ds.variables or ds.attrs.get("schema_version") != f.attrs["schema_version"]:
                        fail(path, group, f"variables {list(ds.variables)}, attributes {list(ds.attrs)}")
                elif group == "/sentinel":
                    check_sentinel(path, group, ds, f[group])
                else:
                    check_table(path, group, ds, f[group])
    return groups


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        print(p, "opens in xarray:", " ".join(check(p)))
