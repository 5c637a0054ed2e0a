"""One process drives two GPUs from Python: an Executor per device, each on its own CuPy stream. A correlator's
channels split over the two GPUs (the spec of half the channels on each) give bit for bit the visibilities of the
whole spec on one GPU, which the CPU reference checks. Skipped with fewer than two GPUs or without CuPy."""
import random
import unittest

import numpy as np

import warpforge

try:
    import cupy
except ImportError:  # pragma: no cover
    cupy = None


def correlator(name, channels):
    # TCC's layout is channel-major: half the channels are half the bytes of each array.
    return {"name": name, "family": "correlator", "receivers": 96, "polarizations": 2, "channels": channels,
            "samples_per_call": 512, "sample_type": "ci8", "input": {"layout": "tcc"}}


@unittest.skipIf(cupy is None, "CuPy is not installed")
@unittest.skipUnless(warpforge.device_count() >= 2, "needs two GPUs")
class MultiGpuTest(unittest.TestCase):
    def test_correlator_channels_split_over_two_gpus_are_bit_exact(self):
        seed = random.randrange(1 << 30)
        print("seed", seed)
        whole = warpforge.Spec(correlator("py_split_whole", 16))
        half = warpforge.Spec(correlator("py_split_half", 8))
        inputs = whole.random_inputs(1, seed)
        host = {k: np.frombuffer(v, dtype=np.uint8) for k, v in inputs.arrays.items()}

        def run(spec, device, arrays_in):
            with cupy.cuda.Device(device):
                exe = warpforge.Executor(spec.plan(), device=device)
                stream = cupy.cuda.Stream(non_blocking=True)
                with stream:
                    arrays = {}
                    for name, role in exe.plan.arrays.items():
                        n = exe.array_bytes(name, 1)
                        arrays[name] = cupy.asarray(arrays_in[name][:n]) if role == "input" else cupy.full(n, 0xFF, dtype=cupy.uint8)
                    exe.run(arrays, 1, stream=stream)
                return exe, stream, arrays

        one = run(whole, 0, host)
        parts = []
        for d in range(2):  # both enqueued before either is waited for
            h = {k: np.array_split(v, 2)[d] if k in ("input", "accumulators") else v for k, v in host.items()}
            parts.append(run(half, d, h))

        def fetch(part, name):
            exe, stream, arrays = part
            with cupy.cuda.Device(exe.device["ordinal"]):
                stream.synchronize()
                return cupy.asnumpy(arrays[name])

        outputs = {"visibilities": fetch(one, "visibilities"), "saturated": fetch(one, "saturated"),
                   "accumulators_out": fetch(one, "accumulators")}
        r = whole.check(inputs, outputs, 1)
        self.assertTrue(r["ok"], "seed %d: %s" % (seed, r))
        split = np.concatenate([fetch(p, "visibilities") for p in parts])
        self.assertTrue(np.array_equal(split, outputs["visibilities"]), "seed %d: the split differs from the whole" % seed)
        sat = sum(int(fetch(p, "saturated").view(np.uint64)[0]) for p in parts)
        self.assertEqual(sat, int(outputs["saturated"].view(np.uint64)[0]))
        self.assertEqual([p[0].device["ordinal"] for p in parts], [0, 1])


if __name__ == "__main__":
    unittest.main()
