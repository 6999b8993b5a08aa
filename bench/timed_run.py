"""Timed `fp4lab train` runs for the benchmark scripts (throughput.py, scaling.py, data_parallel.py).

A timed run trains experiments/base/default.yaml with a model and recipe preset for a number of
steps, without telemetry, checkpoints or validation, and is read back from its run file.
"""
import subprocess
import tempfile
from pathlib import Path

import h5py

ROOT = Path(__file__).resolve().parent.parent


def model_config(name):
    """d_model etc. of a preset, read from experiments/models/NAME.yaml (flat key: value lines)."""
    cfg = {"vocab": 256, "rope_theta": 10000.0, "norm_eps": 1e-5}
    for line in (ROOT / "experiments" / "models" / f"{name}.yaml").read_text().splitlines():
        line = line.split("#")[0].strip()
        if ":" in line:
            k, v = (s.strip() for s in line.split(":", 1))
            cfg[k] = int(v)
    return cfg


def train_command(binary, out, model, recipe, threads, batch, steps, *sets):
    """The `fp4lab train` command line of a timed run writing `out`; `sets` are extra --set values."""
    tokens = steps * batch * model_config(model)["seq_len"]
    cmd = [str(binary), "train", str(ROOT / "experiments/base/default.yaml"), "--out", str(out),
           "--threads", str(threads), "--set", f"model={model}", "--set", f"recipe={recipe}",
           "--set", f"train.batch_size={batch}", "--set", f"train.tokens={tokens}",
           "--set", "train.telemetry_interval=0", "--set", "train.checkpoint_interval=0",
           "--set", f"train.val_interval_tokens={10 * tokens}", "--set", "train.val_tokens=1"]
    for s in sets:
        cmd += ["--set", s]
    return cmd


def read_run(path, warmup):
    """(step seconds after the first `warmup` steps, the train losses' bytes, the GEMM engine) of a run file."""
    with h5py.File(path, "r") as f:
        return (list(f["steps/step_seconds"][warmup:]), f["steps/train_loss"][:].tobytes(),
                f.attrs["gemm_engine"])


def timed_run(binary, model, recipe, threads, batch, steps, warmup, *sets, env=None, peak_rss=None):
    """Trains one timed run in a temporary folder and returns read_run's triple; appends the run's
    peak resident memory in MiB (the run file's peak_rss_mib) to the list `peak_rss` when given."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "run.h5"
        subprocess.run(train_command(binary, out, model, recipe, threads, batch, steps, *sets), check=True,
                       stdout=subprocess.DEVNULL, env=env)
        if peak_rss is not None:
            with h5py.File(out, "r") as f:
                peak_rss.append(float(f.attrs["peak_rss_mib"]))
        return read_run(out, warmup)
