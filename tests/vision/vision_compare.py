"""Comparing normalised results (see tests/fixtures/vision/vision_cases.py) from torchpaddle and Paddle."""
import numpy as np

# Where Paddle 3.3.1 fails inside its own kernels we return a result (or fail later, differently):
_PADDLE_INTERNAL_FAILURES = (
    "is not registered",  # no uint8 kernel for flip, pad3d, lerp, multiply, grid_sample, bicubic_interp...
    "does not match the type of data",  # rotate/affine of float64 tensors: float32 matrix meets float64 grid
    "isn't consistent",  # perspective of float64 tensors: float32 coefficients concatenated with float64
    "expand_as_v2",  # affine of 1-channel tensors: the 3-value default fill cannot expand to 1 channel
)


def mismatch(ours, ref, where="", atol=1e-5):
    """None if ``ours`` matches Paddle's ``ref``; else a description of the first difference."""
    if ref[0] == "error":
        if any(marker in ref[2] for marker in _PADDLE_INTERNAL_FAILURES):
            return None
        if ours[0] == "error":
            return None if ref[1][0] in ours[1] else f"{where}: raised {ours[1][0]}, Paddle raised {ref[1][0]}"
        return f"{where}: returned {ours[0]}, Paddle raised {ref[1][0]}: {ref[2]}"
    if ours[0] == "error":
        return f"{where}: raised {ours[1][0]}: {ours[2]}; Paddle returned {ref[0]}"
    if ours[0] != ref[0]:
        return f"{where}: kind {ours[0]} vs Paddle's {ref[0]}"
    kind = ref[0]
    if kind == "seq":
        if ours[1] != ref[1] or len(ours[2]) != len(ref[2]):
            return f"{where}: {ours[1]} of {len(ours[2])} vs Paddle's {ref[1]} of {len(ref[2])}"
        for i, (o, r) in enumerate(zip(ours[2], ref[2])):
            found = mismatch(o, r, f"{where}[{i}]", atol)
            if found:
                return found
        return None
    if kind in ("tensor", "pil", "ndarray"):
        a, b = ours[1], ref[1]
        if ours[2] != ref[2]:
            return f"{where}: dtype/mode {ours[2]} vs Paddle's {ref[2]}"
        if a.shape != b.shape:
            return f"{where}: shape {a.shape} vs Paddle's {b.shape}"
        if a.dtype.kind == "f":
            if not np.allclose(a, b, rtol=1e-5, atol=atol, equal_nan=True):
                return f"{where}: max |diff| {np.nanmax(np.abs(a - b))}"
        elif not np.array_equal(a, b):
            diff = np.abs(a.astype(np.int64) - b.astype(np.int64))
            return f"{where}: {int((diff > 0).sum())} values differ, max |diff| {diff.max()}"
        return None
    return None if ours == ref else f"{where}: {ours!r} vs Paddle's {ref!r}"


# -- shared by the vision test modules: computed once per process ----------------------------------------
_CACHE = {}


def data_dir():
    """A temporary folder holding the fake dataset files (removed at exit)."""
    if "data_dir" not in _CACHE:
        import atexit
        import shutil
        import tempfile
        from tests.fixtures.vision import vision_cases
        path = tempfile.mkdtemp(prefix="torchpaddle_vision_")
        atexit.register(shutil.rmtree, path, True)
        vision_cases.write_dataset_files(path)
        _CACHE["data_dir"] = path
    return _CACHE["data_dir"]


def paddle_reference():
    """{'cv2': bool, 'transforms': {...}, 'datasets': {...}} from one run of real Paddle (skips without it)."""
    if "ref" not in _CACHE:
        import os
        import pickle
        import paddle_ref
        out = os.path.join(data_dir(), "paddle_ref.pkl")
        paddle_ref.run_module("tests.fixtures.vision.vision_cases", "paddle", out, data_dir(), timeout=600)
        with open(out, "rb") as f:
            _CACHE["ref"] = pickle.load(f)  # written just now by our own script
    return _CACHE["ref"]
