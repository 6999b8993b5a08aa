"""Tests of the fp4lab Python module (ctest: python_module).

Usage: python3 tests/python_module.py FP4LAB_BINARY  (with the build's python/ on PYTHONPATH)

- CLI parity: every conformance variant of every format, quantized by fp4lab.quantize, equals
  `fp4lab formats --vectors` bit for bit (codes, scales, dequant, global amax, spec attributes);
- errors: bad options and shapes raise ValueError with the command's own message;
- the GIL is released while the quantizer runs (another Python thread runs meanwhile);
- recipes, formats, the grid loader and the README's Python example;
- PyTorch: an independent PyTorch NVFP4 fake-quant of a torch.nn.Linear's weight and input, the way
  te_nvfp4 quantizes them (bf16 operands, 16-blocks, 2D weight tiles), equals fp4lab's bit for bit.
Missing Python packages fail the tests: they are part of the test setup (scripts/setup.sh --tests).
"""
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import h5py
import numpy as np

import fp4lab

BINARY = None
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint32) if a.dtype == np.float32 else a


def run_cli(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True)


class CliParity(unittest.TestCase):
    def test_conformance_variants_equal_the_command(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "vectors.h5")
            r = run_cli("formats", "--vectors", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            checked = 0
            with h5py.File(path, "r") as f:
                self.assertEqual(sorted(f.keys()), sorted(fp4lab.formats.keys()))
                for fmt, info in fp4lab.formats.items():
                    self.assertEqual(sorted(f[fmt].keys()), sorted(info["variants"].keys()))
                for fmt, variant, case, x, q in fp4lab.conformance_vectors():
                    g = f[f"{fmt}/{variant}/{case}"]
                    where = f"{fmt}/{variant}/{case}"
                    np.testing.assert_array_equal(bits(g["input"][()]), bits(x), where)
                    np.testing.assert_array_equal(bits(q.dequant), bits(g["dequant"][()]), where)
                    for name in ("codes", "scales", "window_amax"):
                        got = getattr(q, name)
                        self.assertEqual(got is None, name not in g, where + " " + name)
                        if got is not None:
                            np.testing.assert_array_equal(got, g[name][()], where + " " + name)
                    self.assertEqual(np.float32(q.global_amax).view(np.uint32),
                                     np.float32(g.attrs["global_amax"]).view(np.uint32), where)
                    self.assertEqual(q.format, g.attrs["format"].decode() if isinstance(g.attrs["format"], bytes)
                                     else g.attrs["format"], where)
                    for key, value in q.spec.items():
                        attr = g.attrs[key]
                        attr = attr.decode() if isinstance(attr, bytes) else attr
                        if key == "operand_dtype" and value == "inherit":
                            value = "fp32"
                        self.assertEqual(attr, int(value) if isinstance(value, bool) else value, where + " " + key)
                    # The same quantizer given as a spec dict.
                    again = fp4lab.quantize(x, spec=q.spec, seed=q.seed)
                    np.testing.assert_array_equal(bits(again.dequant), bits(q.dequant), where)
                    checked += 1
            self.assertGreater(checked, 100)

    def test_torch_tensor_through_the_array_protocol(self):
        import torch

        x = fp4lab.conformance_cases()["gaussian"]
        a = fp4lab.quantize(torch.from_numpy(x.copy()), "nvfp4", rht=True)
        b = fp4lab.quantize(x, "nvfp4", rht=True)
        np.testing.assert_array_equal(bits(a.dequant), bits(b.dequant))


class Errors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.inp = os.path.join(self.tmp.name, "in.h5")
        self.x = np.random.default_rng(0).standard_normal((32, 64)).astype(np.float32)
        with h5py.File(self.inp, "w") as f:
            f["x"] = self.x

    def tearDown(self):
        self.tmp.cleanup()

    def cli_message(self, *options):
        r = run_cli("quantize", self.inp, os.path.join(self.tmp.name, "out.h5"), "--dataset", "x", *options)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        return (r.stdout + r.stderr).strip()

    def test_bad_values_raise_the_commands_message(self):
        cases = [
            (["--format", "nvfp4", "--tile", "3d"], dict(format="nvfp4", tile="3d")),
            (["--format", "nvfp4", "--four-over-six", "always"], dict(format="nvfp4", four_over_six="always")),
            (["--format", "mxfp4", "--block", "x"], dict(format="mxfp4", block="x")),
            (["--format", "nvfp4", "--block", "7"], dict(format="nvfp4", block=7)),
            (["--format", "mxfp8", "--rounding", "sr"], dict(format="mxfp8", rounding="sr")),
            (["--format", "nvfp4", "--encode-window", "48"], dict(format="nvfp4", encode_window=48)),
            (["--format", "nvfp4", "--global-e4m3-max", "256"], dict(format="nvfp4", global_e4m3_max=256)),
        ]
        for cli, kwargs in cases:
            with self.subTest(cli=cli):
                message = self.cli_message(*cli)
                with self.assertRaises(ValueError) as e:
                    fp4lab.quantize(self.x, **kwargs)
                # The command prefixes the file and dataset; the problem text is the same.
                self.assertTrue(message.endswith(str(e.exception).split(": ", 1)[-1]), f"{message!r} vs {e.exception}")

    def test_other_errors(self):
        for kwargs, text in [(dict(format="nvfp9"), "unknown format 'nvfp9'"),
                             (dict(format="nvfp4", tiles="2d"), "unknown option 'tiles'"),
                             (dict(format="nvfp4", tile=2.5), "expected a str, int or bool")]:
            with self.assertRaisesRegex(ValueError, re.escape(text)):
                fp4lab.quantize(self.x, **kwargs)
        with self.assertRaisesRegex(ValueError, "float64; expected float32"):
            fp4lab.quantize(self.x.astype(np.float64))
        with self.assertRaisesRegex(ValueError, "1 dimensions; expected 2-D"):
            fp4lab.quantize(self.x[0])
        with self.assertRaisesRegex(ValueError, "holds only NaN"):
            fp4lab.quantize(np.full((16, 16), np.nan, np.float32))
        with self.assertRaisesRegex(ValueError, "recipe"):
            fp4lab.recipe("no_such_recipe")


class Gil(unittest.TestCase):
    def test_another_thread_runs_while_the_quantizer_does(self):
        x = np.random.default_rng(1).standard_normal((2048, 2048)).astype(np.float32)
        window = {}

        def work():
            window["start"] = time.perf_counter()
            fp4lab._fp4lab.quantize(x, "nvfp4", 7, {"rht": True, "rounding": "sr"}, {})
            window["end"] = time.perf_counter()

        ticks = []
        t = threading.Thread(target=work)
        t.start()
        while t.is_alive():
            ticks.append(time.perf_counter())
        t.join()
        start, end = window["start"], window["end"]
        margin = 0.1 * (end - start)
        inside = [s for s in ticks if start + margin < s < end - margin]
        # With the GIL held during the call, no tick could land in its middle.
        self.assertGreater(len(inside), 10, f"call took {end - start:.3f} s; {len(ticks)} ticks in all")

    def test_two_threads_give_the_serial_results(self):
        xs = [np.random.default_rng(s).standard_normal((256, 512)).astype(np.float32) for s in (2, 3)]
        serial = [fp4lab.quantize(x, "nvfp4", seed=5, rounding="sr").dequant for x in xs]
        out = [None, None]

        def work(i):
            out[i] = fp4lab.quantize(xs[i], "nvfp4", seed=5, rounding="sr").dequant

        threads = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for a, b in zip(out, serial):
            np.testing.assert_array_equal(bits(a), bits(b))


class Recipes(unittest.TestCase):
    def test_te_nvfp4(self):
        r = fp4lab.recipe("te_nvfp4")
        q = r["quantized"]
        self.assertEqual(r["gemm_numerics"], "block_exact")
        self.assertEqual(q["fprop_w"]["tile"], "2d")
        self.assertEqual(q["fprop_x"]["tile"], "1d")
        self.assertEqual(q["wgrad_dy"]["rounding"], "sr")
        self.assertTrue(q["wgrad_x"]["rht"])
        self.assertFalse(q["fprop_x"]["rht"])
        self.assertEqual(q["fprop_x"]["operand_dtype"], "bf16")  # resolved from the recipe's
        self.assertEqual(q["fprop_x"]["block"], 16)
        self.assertIn("te_nvfp4", fp4lab.recipe_names())
        self.assertIn("four_over_six", fp4lab.options())

    def test_docstring_names_every_format_and_option(self):
        doc = fp4lab.quantize.__doc__
        self.assertIn("nvfp4_ue5m3", fp4lab.formats)
        for name in fp4lab.formats:
            self.assertIn(name, doc)
            self.assertTrue(fp4lab.formats[name]["source"])
        for option in fp4lab.options():
            self.assertIn(option, doc)
        for option in ("scale_exp_bits", "scale_man_bits", "scale_bias", "scale_specials", "scale_round"):
            self.assertIn(option, doc)


class RunFiles(unittest.TestCase):
    def test_open_run_gives_every_group_with_step_as_index(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "run.yaml"), "w") as f:
                f.write(f"base: {SOURCE_DIR}/experiments/base/default.yaml\nrecipe: nvfp4\nmodel.seq_len: 32\n"
                        "train: {batch_size: 4, tokens: 1024, checkpoint_interval: 0, val_interval_tokens: 256, "
                        "val_tokens: 256, telemetry_interval: 4}\ndata: {synthetic_tokens: 65536, synthetic_vocab: 8}\n")
            run = os.path.join(tmp, "run.h5")
            r = run_cli("train", os.path.join(tmp, "run.yaml"), "--threads", "1", "--out", run)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            ds = fp4lab.open_run(run)
            self.assertTrue({"/", "steps", "val", "quant"} <= set(ds), sorted(ds))
            self.assertEqual(ds["/"].attrs["status"], "done")
            steps = ds["steps"]
            self.assertIn("step", steps.indexes)
            self.assertIn("tokens", steps.coords)
            self.assertEqual(int(steps.tokens.sel(step=8)), 8 * 4 * 32)
            self.assertEqual(float(steps.train_loss.sel(step=8)), float(steps.train_loss.values[7]))
            self.assertIn("step", ds["val"].indexes)


class Grid(unittest.TestCase):
    def test_load_grid_from_the_committed_quickstart_pack(self):
        pack = os.path.join(SOURCE_DIR, "results", "reference", "quickstart", "curves.h5")
        df = fp4lab.load_grid(pack)
        self.assertEqual(len(df), 30)
        for column in ("recipe", "budget", "seed", "state", "final_val_loss", "tokens_per_second"):
            self.assertIn(column, df.columns)
        self.assertEqual(sorted(df.recipe.unique()), ["bf16", "mxfp4", "nvfp4"])
        comparison = df.attrs["analysis"]["comparisons"][0]
        self.assertAlmostEqual(comparison["token_gap"]["mean"], 0.14921433939028392, places=12)


# ---- an independent PyTorch NVFP4 fake-quant, as a GPU researcher would write one ----
def torch_nvfp4_fake_quant(x, tile_2d):
    """NVFP4 (TE >= 2.14) fake quantization of a 2-D tensor in plain PyTorch: bf16 operand, E4M3
    block scales (16 elements, or 16x16 tiles) under an fp32 tensor scale, E2M1 with RNE."""
    import torch

    f32 = torch.float32
    x = x.detach().to(torch.bfloat16).to(f32)
    rows, cols = x.shape
    amax = x.abs().max()
    s_enc = torch.tensor(2688.0, dtype=f32) / amax if amax > 0 else torch.tensor(1.0, dtype=f32)
    s_dec = torch.tensor(1.0, dtype=f32) / s_enc
    blocks = x.abs().reshape(rows, cols // 16, 16).amax(dim=2)
    if tile_2d:
        blocks = blocks.reshape(rows // 16, 16, cols // 16).amax(dim=1).repeat_interleave(16, dim=0)

    def e4m3(v):  # RNE, satfinite (v >= 0)
        v = v.clamp(max=448.0)
        _, e = torch.frexp(v)
        step = torch.ldexp(torch.ones_like(v), (e - 1).clamp(min=-6) - 3)
        return (torch.round(v / step) * step).clamp(max=448.0)

    def e2m1(v):  # RNE on the grid 0, 0.5, 1, 1.5, 2, 3, 4, 6; saturating; sign kept
        a = v.abs().clamp(max=6.0)
        step = torch.where(a < 2, 0.5, torch.where(a < 4, 1.0, 2.0)).to(f32)
        return torch.copysign(torch.round(a / step) * step, v)

    s_b = e4m3(blocks * (s_enc * torch.tensor(1 / 6, dtype=f32)))
    inv_b = (torch.tensor(1.0, dtype=f32) / (s_b * s_dec)).clamp(max=torch.finfo(f32).max)
    inv_b = inv_b.repeat_interleave(16, dim=1)
    y = e2m1(x * inv_b)
    decode = (s_b * amax) * torch.tensor(1 / 2688, dtype=f32)
    return y * decode.repeat_interleave(16, dim=1)


class TorchReference(unittest.TestCase):
    def test_linear_weight_and_input_as_te_nvfp4(self):
        import torch

        torch.manual_seed(0)
        linear = torch.nn.Linear(256, 128)
        x = torch.randn(64, 256) * 3
        recipe = fp4lab.recipe("te_nvfp4")["quantized"]
        w_q = torch.from_numpy(fp4lab.quantize(linear.weight, spec=recipe["fprop_w"]).dequant)
        x_q = torch.from_numpy(fp4lab.quantize(x, spec=recipe["fprop_x"]).dequant)
        for mine, theirs, what in [(torch_nvfp4_fake_quant(linear.weight, True), w_q, "weight"),
                                   (torch_nvfp4_fake_quant(x, False), x_q, "input")]:
            self.assertTrue(torch.equal(mine.view(torch.int32), theirs.view(torch.int32)), what)
        y = torch.nn.functional.linear(x_q, w_q, linear.bias)
        self.assertEqual(tuple(y.shape), (64, 128))


class ReadmeExample(unittest.TestCase):
    def test_the_readme_python_example_prints_what_the_readme_shows(self):
        with open(os.path.join(SOURCE_DIR, "README.md"), encoding="utf-8") as f:
            text = f.read()
        m = re.search(r"<!-- python-example -->\s*```python\n(.*?)```\s*```text\n(.*?)```", text, re.S)
        self.assertIsNotNone(m, "README.md has no <!-- python-example --> block")
        r = subprocess.run([sys.executable, "-c", m.group(1)], capture_output=True, text=True, cwd=SOURCE_DIR)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), m.group(2).strip())


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
