"""GPU tests of the warpforge Python module: plans run on CuPy arrays, PyTorch tensors and bare DLPack producers,
each checked against the family's CPU reference (outputs poisoned before the run, every element checked written).
Skipped without a device, or without CuPy / PyTorch."""
import os
import random
import unittest

import warpforge

SOURCE = os.environ.get("WARPFORGE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SPECS = os.path.join(SOURCE, "specs")
# One spec per family that runs on any arch from sm_80 (small batches: seconds of CPU reference each).
CASES = [("chime_fft_256_512.json", 64), ("stockham_4096_f32.json", 64), ("stockham_r2c_4096_f32.json", 64),
         ("correlator_meerkat_80_8bit.json", 1), ("beamformer_frb_power.json", 1), ("gridder_s32_4pol_sfu.json", 1)]

try:
    import cupy
except ImportError:  # pragma: no cover - CPU machines
    cupy = None
try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

HAVE_GPU = warpforge.device_count() > 0


class DLPackOnly:
    """Exposes only __dlpack__ (no __cuda_array_interface__), so the executor takes the DLPack path."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def seed():
    s = random.randrange(1 << 30)
    print("seed", s)
    return s


@unittest.skipUnless(HAVE_GPU, "no CUDA device: " + warpforge.device_unavailable_reason())
@unittest.skipIf(cupy is None, "CuPy is not installed")
class CupyTest(unittest.TestCase):
    def run_case(self, name, batch, wrap=lambda a: a):
        spec = warpforge.Spec(os.path.join(SPECS, name))
        exe = warpforge.Executor(spec.plan(), device=0)
        stream = cupy.cuda.Stream(non_blocking=True)
        s = seed()
        with stream:  # uploads, the run and the downloads in one stream's order
            r = warpforge.run_checked(spec, _Wrapped(exe, wrap), batch, s, lambda b: cupy.asarray(bytearray(b), dtype=cupy.uint8),
                                      lambda a: cupy.asnumpy(a).tobytes(), stream=stream, synchronize=stream.synchronize)
        self.assertTrue(r["ok"], "%s seed %d: %s" % (name, s, r))
        return r

    def test_every_family_on_cupy_arrays(self):
        for name, batch in CASES:
            with self.subTest(spec=name):
                self.run_case(name, batch)

    def test_dlpack_producers(self):
        self.run_case("stockham_4096_f32.json", 16, DLPackOnly)

    def test_a_short_array_is_refused_with_its_name(self):
        spec = warpforge.Spec(os.path.join(SPECS, "stockham_4096_f32.json"))
        exe = warpforge.Executor(spec.plan(), device=0)
        small = cupy.zeros(16, dtype=cupy.uint8)
        out = cupy.zeros(exe.array_bytes("output", 4), dtype=cupy.uint8)
        with self.assertRaises(ValueError) as e:
            exe.run({"input": small, "output": out}, 4)
        self.assertIn("'input'", str(e.exception))


class _Wrapped:
    """An executor whose run() wraps each array first (to exercise another array protocol)."""

    def __init__(self, exe, wrap):
        self.exe, self.wrap, self.plan = exe, wrap, exe.plan

    def array_bytes(self, name, batch):
        return self.exe.array_bytes(name, batch)

    def run(self, arrays, batch, stream=None):
        self.exe.run({k: self.wrap(v) for k, v in arrays.items()}, batch, stream=stream)


@unittest.skipUnless(HAVE_GPU, "no CUDA device: " + warpforge.device_unavailable_reason())
@unittest.skipIf(torch is None, "PyTorch is not installed")
class TorchTest(unittest.TestCase):
    def test_every_family_on_torch_tensors(self):
        import numpy as np

        for name, batch in CASES:
            with self.subTest(spec=name):
                spec = warpforge.Spec(os.path.join(SPECS, name))
                exe = warpforge.Executor(spec.plan(), device=0)
                stream = torch.cuda.Stream(device=0)
                s = seed()
                with torch.cuda.stream(stream):  # uploads, the run and the downloads in one stream's order
                    r = warpforge.run_checked(spec, exe, batch, s,
                                              lambda b: torch.from_numpy(np.frombuffer(bytearray(b), dtype=np.uint8).copy()).to("cuda:0"),
                                              lambda t: t.cpu().numpy().tobytes(), stream=stream, synchronize=stream.synchronize)
                self.assertTrue(r["ok"], "%s seed %d: %s" % (name, s, r))


@unittest.skipUnless(HAVE_GPU, "no CUDA device: " + warpforge.device_unavailable_reason())
@unittest.skipIf(cupy is None, "CuPy is not installed")
class ExampleTest(unittest.TestCase):
    """docs/python.md's example (python/examples/correlate.py): one chunk against the CPU reference, and two
    chunks accumulated before the reduction give twice one chunk's visibilities."""

    def test_the_correlate_example(self):
        import importlib.util

        import numpy as np

        path = os.path.join(SOURCE, "python", "examples", "correlate.py")
        module_spec = importlib.util.spec_from_file_location("correlate_example", path)
        example = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(example)
        s = seed()
        inputs = example.spec.random_inputs(1, s)
        engine = example.XEngine(heaps=1)
        host = {k: np.frombuffer(v, dtype=np.uint8) for k, v in inputs.arrays.items()}
        with engine.stream:
            chunk = cupy.asarray(host["input"][: engine.exe.array_bytes("input", 1)])
            engine.acc.set(host["accumulators"][: engine.acc.nbytes].view(np.int64))
            engine.missing.set(host["missing"][:engine.missing.size])
            engine.vis.fill(-1)
            engine.correlate(chunk, dump=True)
            vis, _ = engine.visibilities()
            r = example.spec.check(inputs, {"visibilities": vis, "saturated": cupy.asnumpy(engine.saturated),
                                            "accumulators_out": cupy.asnumpy(engine.acc)}, 1)
            self.assertTrue(r["ok"], "seed %d: %s" % (s, r))
            engine.missing.fill(0)
            engine.correlate(chunk, dump=True)       # the accumulators were reset by the dump
            once, _ = engine.visibilities()
            engine.correlate(chunk, dump=False)
            engine.correlate(chunk, dump=True)
            twice, saturated = engine.visibilities()
        self.assertEqual(saturated, 0)
        self.assertTrue(np.array_equal(twice, 2 * once), "seed %d" % s)


if __name__ == "__main__":
    unittest.main()
