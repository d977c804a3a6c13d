"""paddle.to_tensor data/dtype combinations, run on real Paddle 3.3.1 and on torchpaddle, then compared exactly:
the dtype and every element's value at full precision. Run inside the reference virtualenv:
``python -m tests.framework.to_tensor_cases OUT.pkl``.
"""
import pickle
import sys

import numpy as np

_BIG = 2 ** 53 + 1   # the first integer float64 cannot hold

# name -> (data, dtype); data is built lazily so NumPy scalars and arrays are fresh per run
CASES = {
    "list_f64": (lambda: [0.1, 0.9], "float64"),
    "nested_f64": (lambda: [[0.1, 0.2], [0.3, 1e-300]], "float64"),
    "tuple_f64": (lambda: (0.1, 1 / 3), "float64"),
    "mixed_int_float_f64": (lambda: [1, 0.1, 2 ** 40], "float64"),
    "scalar_f64": (lambda: 0.1, "float64"),
    "numpy_scalar_f64": (lambda: np.float64(0.1), "float64"),
    "numpy_array_f64": (lambda: np.array([0.1, 1 / 3]), "float64"),
    "numpy_array_f64_to_f32": (lambda: np.array([0.1, 1 / 3]), "float32"),
    "list_f16_single_rounding": (lambda: [0.1, 1 / 3, 65519.0, 2049.0001], "float16"),
    "list_bf16": (lambda: [0.1, 1 / 3, 1.00390625, 1.00390625 + 2 ** -30], "bfloat16"),
    "numpy_f64_to_f16": (lambda: np.array([0.1, 2049.0001]), "float16"),
    "numpy_f64_to_bf16": (lambda: np.array([1.00390625 + 2 ** -30]), "bfloat16"),
    "scalar_f16_double_rounding": (lambda: 2049.0001, "float16"),
    "tensor_f64_to_f16": (lambda: _tensor_f64(), "float16"),
    "scalar_f16": (lambda: 0.1, "float16"),
    "list_complex128": (lambda: [0.1 + 0.2j, 1 / 3], "complex128"),
    "scalar_complex128": (lambda: 0.1 + 1j / 3, "complex128"),
    "list_complex_default": (lambda: [0.1 + 0.2j, 1], None),
    "list_default": (lambda: [0.1, 1], None),
    "nested_default": (lambda: [[0.1], [1]], None),
    "scalar_default": (lambda: 0.1, None),
    "int_list_to_f64": (lambda: [_BIG, 1], "float64"),
    "big_int_list_int64": (lambda: [_BIG, 2 ** 62 + 1], "int64"),
    "big_int_scalar_int64": (lambda: 2 ** 62 + 1, "int64"),
    "float_list_to_int32": (lambda: [1.7, -1.7, 2.5], "int32"),
    "float_scalar_to_int64": (lambda: 1.7, "int64"),
    "bool_list_to_f64": (lambda: [True, False], "float64"),
    "bool_scalar_to_f32": (lambda: True, "float32"),
    "int_list_to_bool": (lambda: [0, 2, -1], "bool"),
    "ints_default": (lambda: [1, 2], None),
    "bools_default": (lambda: [True, False], None),
    "int_scalar_to_f32": (lambda: 16777217, "float32"),
    "mixed_int_float_default": (lambda: [1, 2.5], None),
}
# Same data with the default dtype set to float64 (Paddle then keeps Python floats at full precision).
DEFAULT_F64 = ["list_default", "nested_default", "scalar_default", "list_complex_default",
               "mixed_int_float_default"]


_PADDLE = []


def _tensor_f64():
    return _PADDLE[0].to_tensor(np.array([2049.0001]), dtype="float64")


def _outcome(paddle, data, dtype):
    try:
        t = paddle.to_tensor(data(), dtype=dtype)
    except Exception as exc:  # noqa: BLE001 - the error class is the outcome
        return "ERR:" + type(exc).__name__
    values = t.numpy()
    if str(t.dtype) == "paddle.bfloat16":   # NumPy has no bfloat16: compare the bit patterns
        values = values.view(np.uint16)
    return str(t.dtype), [repr(v) for v in values.reshape(-1).tolist()], list(t.shape)


def run(paddle):
    _PADDLE[:] = [paddle]
    out = {name: _outcome(paddle, data, dtype) for name, (data, dtype) in CASES.items()}
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    try:
        for name in DEFAULT_F64:
            data, dtype = CASES[name]
            out["default_f64:" + name] = _outcome(paddle, data, dtype)
    finally:
        paddle.set_default_dtype(old)
    return out


if __name__ == "__main__":
    import paddle as _paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(_paddle)}, f)
