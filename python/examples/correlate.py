"""Correlate chunks held in CuPy arrays, accumulate them, reduce at the end of a dump: a MeerKAT-style X-engine
(katgpucbf's layout and accumulation model) in a few lines. Run: python3 correlate.py (needs a GPU and CuPy)."""
import cupy as cp
import numpy as np

import warpforge

ANTENNAS, CHANNELS, SPECTRA = 80, 64, 256
spec = warpforge.Spec({
    "name": "meerkat_xengine", "family": "correlator",
    "receivers": ANTENNAS, "polarizations": 2, "channels": CHANNELS, "samples_per_call": SPECTRA,
    "sample_type": "ci8", "input": {"layout": "katgpucbf"},   # [antenna][channel][time][pol] (re, im) int8
})
spec.verify()                                   # raises InconsistentSpec / SpecError (with the JSON path)


class XEngine:
    """One GPU's correlator: a chunk of `heaps` heaps per call, int64 accumulators, int32 visibilities per dump."""

    def __init__(self, heaps, device=0):
        self.heaps = heaps
        with cp.cuda.Device(device):
            self.exe = warpforge.Executor(spec.plan(), device=device)   # plan from the on-disk cache after the first start
            self.stream = cp.cuda.Stream(non_blocking=True)
            n = lambda name: self.exe.array_bytes(name, heaps)
            self.acc = cp.zeros(n("accumulators") // 8, dtype=cp.int64)        # one accumulator per heap of the chunk
            self.missing = cp.zeros(ANTENNAS, dtype=cp.uint8)                   # nonzero: antenna flagged for this dump
            self.vis = cp.empty(n("visibilities") // 4, dtype=cp.int32)         # [channel][baseline][pol][pol][re, im]
            self.saturated = cp.zeros(1, dtype=cp.uint64)

    def correlate(self, chunk, dump):
        """Adds the chunk's visibilities to the accumulators; with dump, reduces them into self.vis and resets them."""
        self.exe.run({"input": chunk, "accumulators": self.acc, "missing": self.missing,
                      "visibilities": self.vis, "saturated": self.saturated},
                     self.heaps, stream=self.stream, params={"dump": int(dump)})

    def visibilities(self):
        self.stream.synchronize()
        baselines = ANTENNAS * (ANTENNAS + 1) // 2
        return cp.asnumpy(self.vis).reshape(CHANNELS, baselines, 2, 2, 2), int(self.saturated.get()[0])


if __name__ == "__main__":
    heaps, chunks_per_dump = 4, 8
    engine = XEngine(heaps)
    rng = np.random.default_rng(1)
    chunk = cp.empty(engine.exe.array_bytes("input", heaps), dtype=cp.uint8)
    with engine.stream:                                                             # copies and kernels in one order
        for i in range(chunks_per_dump):
            chunk.set(rng.integers(-20, 21, chunk.size, dtype=np.int8).view(np.uint8))   # a receiver would write here
            engine.correlate(chunk, dump=i == chunks_per_dump - 1)
    vis, saturated = engine.visibilities()
    auto = vis[:, [a * (a + 3) // 2 for a in range(ANTENNAS)], 0, 0, 0]               # XX autocorrelations
    print("visibilities", vis.shape, "saturated", saturated, "mean XX autocorrelation", auto.mean())
