"""CPU tests of the warpforge Python module (no GPU): specs from files and dicts, verify, emit, plans as dicts and
files, the plan cache, the CPU reference check, and errors as Python exceptions carrying the JSON path."""
import os
import random
import tempfile
import unittest

import numpy as np

import warpforge

SOURCE = os.environ.get("WARPFORGE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SPECS = os.path.join(SOURCE, "specs")


def small_fft(length=64, **extra):
    spec = {"name": "py_fft_%d" % length, "family": "stockham", "precision": "f32", "length": length}
    spec.update(extra)
    return spec


class SpecTest(unittest.TestCase):
    def test_families_are_registered(self):
        self.assertIn("stockham", warpforge.families())
        self.assertIn("correlator", warpforge.families())

    def test_spec_from_file_verifies(self):
        spec = warpforge.Spec(os.path.join(SPECS, "chime_fft_256_512.json"))
        self.assertEqual(spec.family, "tc_fft")
        report = spec.verify()
        self.assertIn("chime_fft_256_512", report["text"])
        self.assertIsInstance(report["counts"], dict)

    def test_spec_from_dict_and_text(self):
        a = warpforge.Spec(small_fft())
        b = warpforge.Spec('{"name": "t", "family": "stockham", "precision": "f32", "length": 64}', file="inline.json")
        self.assertEqual(a.name, "py_fft_64")
        self.assertEqual(b.file, "inline.json")
        self.assertEqual(a.to_dict()["length"], 64)

    def test_emit_gives_sources_and_the_plan_as_a_dict(self):
        out = warpforge.Spec(small_fft()).emit("sm_90", probe=False)
        self.assertEqual(out["arch"], "sm_90")
        self.assertTrue(out["sources"] and "__global__" in out["sources"][0]["text"])
        plan = out["plan"]
        self.assertEqual(plan["format"], "warpforge-plan-1")
        self.assertEqual({b["name"] for b in plan["buffers"] if b["role"] in ("input", "output")}, {"input", "output"})
        self.assertTrue(plan["kernels"][0]["name"])
        # the dict loads back as a Plan, and saves as a file the runtime reads
        p = warpforge.Plan.from_dict(plan)
        self.assertEqual(p.spec_name, "py_fft_64")
        self.assertEqual(p.arrays, {"input": "input", "output": "output"})
        with tempfile.TemporaryDirectory() as d:
            path = p.save(d)
            self.assertEqual(warpforge.load_plan(path).to_dict(), p.to_dict())
        self.assertIn("py_fft_64", out["header"])


class ErrorTest(unittest.TestCase):
    def test_spec_error_carries_the_json_path(self):
        with self.assertRaises(warpforge.SpecError) as e:
            warpforge.Spec({"name": "t", "family": "stockham", "precision": "f32", "lengths": [64, 0]})
        self.assertEqual(e.exception.path, "/lengths/1")
        self.assertEqual(e.exception.file, "<dict>")
        self.assertIn("/lengths/1", str(e.exception))
        self.assertIsInstance(e.exception, ValueError)

    def test_unknown_member_and_family(self):
        with self.assertRaises(warpforge.SpecError) as e:
            warpforge.Spec(small_fft(lenght=3))
        self.assertEqual(e.exception.path, "/lenght")
        with self.assertRaises(warpforge.SpecError) as e:
            warpforge.Spec({"name": "t", "family": "nope"})
        self.assertEqual(e.exception.path, "/family")

    def test_missing_file(self):
        with self.assertRaises(warpforge.SpecError) as e:
            warpforge.Spec(os.path.join(SPECS, "no_such_spec.json"))
        self.assertTrue(e.exception.file.endswith("no_such_spec.json"))

    def test_not_json_data(self):
        with self.assertRaises(TypeError):
            warpforge.Spec({"name": object()})

    def test_plan_error_carries_the_json_path(self):
        plan = warpforge.Spec(small_fft()).emit("sm_90", probe=False)["plan"]
        bad = dict(plan)
        bad["kernels"] = [dict(plan["kernels"][0], block=[2048, 1])]
        with self.assertRaises(warpforge.PlanError) as e:
            warpforge.Plan.from_dict(bad)
        self.assertEqual(e.exception.path, "/kernels/0/block")
        bad = dict(plan)
        del bad["buffers"]
        with self.assertRaises(warpforge.PlanError) as e:
            warpforge.Plan.from_dict(bad)
        self.assertEqual(e.exception.path, "/buffers")
        bad = dict(plan, format="warpforge-plan-0")
        with self.assertRaises(warpforge.PlanError) as e:
            warpforge.Plan.from_dict(bad)
        self.assertEqual(e.exception.path, "/format")

    def test_executor_without_a_device_says_why(self):
        if warpforge.device_count() > 0:
            self.skipTest("a GPU is present")
        plan = warpforge.Spec(small_fft()).plan("sm_90", cache=False)
        with self.assertRaises(RuntimeError) as e:
            warpforge.Executor(plan)
        self.assertIn(warpforge.device_unavailable_reason().split(":")[0], str(e.exception))


class ReferenceTest(unittest.TestCase):
    """The family's CPU reference check, fed by numpy: a correct FFT passes, a wrong or unwritten one fails."""

    def run_numpy(self, spec, batch, seed, corrupt=None):
        inputs = spec.random_inputs(batch, seed)
        x = np.frombuffer(inputs.arrays["input"], dtype=np.complex64)[: batch * 64].reshape(batch, 64)
        y = np.fft.fft(x.astype(np.complex128), axis=1).astype(np.complex64)
        if corrupt:
            corrupt(y)
        return spec.check(inputs, {"output": y}, batch)

    def test_numpy_fft_passes_the_check(self):
        seed = random.randrange(1 << 30)
        spec = warpforge.Spec(small_fft())
        r = self.run_numpy(spec, 8, seed)
        self.assertTrue(r["ok"], "seed %d: %s" % (seed, r))
        self.assertEqual(r["checked"], 8)

    def test_a_wrong_or_unwritten_output_fails(self):
        seed = random.randrange(1 << 30)
        spec = warpforge.Spec(small_fft())

        def flip(y):
            y[3, 5] *= -1

        def unwritten(y):
            y.view(np.uint8)[7, :8] = 0xFF

        self.assertFalse(self.run_numpy(spec, 8, seed, flip)["ok"], "seed %d" % seed)
        r = self.run_numpy(spec, 8, seed, unwritten)
        self.assertFalse(r["ok"])
        self.assertGreater(r["unwritten"], 0)


    def test_inputs_of_another_spec_or_batch_are_refused(self):
        spec = warpforge.Spec(small_fft())
        inputs = spec.random_inputs(1, 7)
        y = np.zeros((3, 64), dtype=np.complex64)
        with self.assertRaisesRegex(ValueError, "drawn for batch 1, checked at batch 3"):
            spec.check(inputs, {"output": y}, 3)
        other = warpforge.Spec(small_fft(128))
        with self.assertRaisesRegex(ValueError, "not drawn by this spec"):
            other.check(inputs, {"output": np.zeros((1, 128), dtype=np.complex64)}, 1)
        with self.assertRaisesRegex(ValueError, "batch -1"):
            spec.random_inputs(-1, 0)
        with self.assertRaisesRegex(MemoryError, "batch 1000000000000000 of py_fft_64 does not fit host memory"):
            spec.random_inputs(10**15, 0)

    def test_a_missing_output_is_a_key_error_naming_the_outputs(self):
        spec = warpforge.Spec(os.path.join(SPECS, "chime_fft_256_512.json"))  # its check looks outputs up by name
        inputs = spec.random_inputs(1, 7)
        with self.assertRaisesRegex(KeyError, "needs every output of the plan \\(output\\); given: none"):
            spec.check(inputs, {}, 1)
        with self.assertRaisesRegex(KeyError, "given: outptu"):
            spec.check(inputs, {"outptu": np.zeros((1, 512), dtype=np.complex64)}, 1)

    def test_an_unknown_arch_is_refused(self):
        spec = warpforge.Spec(small_fft())
        for arch in ("bogus", "sm_80x", "sm_10"):
            with self.assertRaisesRegex(ValueError, "arch '%s'" % arch):
                spec.emit(arch)
            with self.assertRaisesRegex(ValueError, "arch"):
                spec.plan(arch)


class PlanCacheTest(unittest.TestCase):
    def test_a_second_plan_comes_from_the_cache_and_is_the_same(self):
        with tempfile.TemporaryDirectory() as d:
            old = os.environ.get("WARPFORGE_CACHE_DIR")
            os.environ["WARPFORGE_CACHE_DIR"] = d
            try:
                spec = warpforge.Spec(small_fft(96))
                cold = spec.plan("sm_90").to_dict()
                self.assertTrue(os.listdir(os.path.join(d, "plans")))
                warm = warpforge.Spec(small_fft(96)).plan("sm_90").to_dict()
                self.assertEqual(cold, warm)
            finally:
                if old is None:
                    del os.environ["WARPFORGE_CACHE_DIR"]
                else:
                    os.environ["WARPFORGE_CACHE_DIR"] = old


if __name__ == "__main__":
    unittest.main()
