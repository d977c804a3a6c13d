"""Tensor indexing cases (``x[index]``, ``x[index] = value``) run on both torchpaddle and real PaddlePaddle 3.3.1.

Indices and values are written with ``T`` (a Tensor argument) from the op table, so the same case gives NumPy
arguments (the expected values) and Paddle arguments. Imports only NumPy; the reference run is
``python -m tests.tensor.indexing_cases OUT.pkl`` inside the reference virtualenv.
"""
import pickle
import sys
import warnings

import numpy as np

from tests.optable.core import T
from tests.optable.runner import numpy_args, tensor_args

warnings.filterwarnings("ignore")

S = slice
E = Ellipsis


def I(values, dtype="int64"):  # noqa: E743 - an index tensor
    return T(np.asarray(values), dtype=dtype)


def B(values):
    return T(np.asarray(values, dtype=bool), dtype="bool")


# (name, x shape, index); x holds arange values; expected value: NumPy's x[index].
GETITEM = [
    ("int", (2, 3, 4), 1), ("neg_int", (2, 3, 4), -1), ("ints", (2, 3, 4), (1, 2, 3)),
    ("step", (2, 3, 4), (S(None), S(None, None, 2))), ("neg_step", (2, 3, 4), (S(None), S(None, None, -1), 1)),
    ("neg_step2", (2, 3, 4), (E, S(3, 0, -2))), ("neg_step_all", (2, 3, 4), (S(None, None, -1),) * 3),
    ("neg_step_start", (5,), S(-2, None, -2)), ("neg_step_empty", (5,), S(1, 3, -1)),
    ("neg_step_big", (5,), S(100, -100, -3)), ("slice_oob", (2, 3, 4), S(5, 10)),
    ("none", (2, 3, 4), (None, 1, None)), ("ellipsis", (2, 3, 4), (E, 1)), ("ellipsis_only", (2, 3, 4), E),
    ("ellipsis_mid", (2, 3, 4), (1, E, 2)), ("true", (2, 3), True), ("false", (2, 3), False),
    ("list", (2, 3, 4), [1, 0, 1]), ("neg_list", (2, 3, 4), [-1, -2]), ("nested_list", (2, 3, 4), [[0, 1]]),
    ("empty_list", (2, 3, 4), []), ("tensor", (2, 3, 4), I([1, 0])), ("tensor_2d", (2, 3, 4), I([[1, 0], [0, 0]])),
    ("tensor_0d", (2, 3, 4), I(1)), ("tensor_int32", (2, 3, 4), I([1, 0], "int32")),
    ("ndarray", (2, 3, 4), np.array([1, 0])), ("np_int", (2, 3, 4), np.int64(1)),
    ("adv_separated", (2, 3, 4), ([0, 1], S(None), [1, 2])), ("adv_adjacent", (2, 3, 4), (S(None), [0, 1], [1, 2])),
    ("adv_broadcast", (2, 3, 4), ([[0], [1]], [0, 2])), ("int_and_list", (2, 3, 4), (1, [0, 2])),
    ("list_int_list", (2, 3, 4), ([0, 1], 1, [1, 2])), ("tuple_of_lists", (2, 3, 4), ([0, 1], [1, 2])),
    ("tensor_and_slice", (2, 3, 4), (S(None), I([0, 2]), S(1, None))),
    ("mask", (2, 3, 4), B(np.arange(24).reshape(2, 3, 4) > 20)),
    ("mask_2d", (2, 3, 4), B([[True, False, True], [False, False, True]])), ("mask_1d", (2, 3, 4), B([True, False])),
    ("bool_list", (2, 3, 4), [True, False]), ("bool_ndarray", (2, 3, 4), np.array([True, False])),
    ("mask_and_slice", (2, 3, 4), (B([True, False]), S(1, None))), ("mask_and_int", (2, 3, 4), (S(None), B([True, False, True]), 0)),
    ("zero_size", (0, 3), (S(None), 1)), ("scalar_none", (), None), ("scalar_ellipsis", (), E),
]

# Checked against NumPy only: Paddle 3.3.1 crashes (segfault) on these.
GETITEM_OURS_ONLY = [("adv_and_neg_step", (2, 3, 4), ([0, 1], S(None, None, -1)))]

# (name, x shape, dtype, index, value): expected is NumPy's assignment into a copy.
SETITEM = [
    ("scalar", (3, 4), "float32", 1, 5.0), ("int_value", (3, 4), "float32", 1, 5),
    ("bool_value", (3, 4), "float32", 1, True), ("np_scalar", (3, 4), "float32", 1, np.float64(3.5)),
    ("row_broadcast", (3, 4), "float32", S(None), T(np.array([1.0, 2.0, 3.0, 4.0]))),
    ("col", (3, 4), "float32", (S(None), 1), T(np.array([7.0, 8.0, 9.0]))),
    ("ndarray_value", (3, 4), "float32", 1, np.array([1.0, 2.0, 3.0, 4.0])),
    ("float64_into_float32", (3, 4), "float32", 1, T(np.array([1.5, 2.5, 3.5, 4.5]), dtype="float64")),
    ("int_tensor_into_float", (3, 4), "float32", 1, I([1, 2, 3, 4])),
    ("float_into_int", (3, 4), "int64", 1, 2.7),
    ("float_tensor_into_int", (3, 4), "int64", 1, T(np.array([1.5, 2.5, 3.5, -4.5]), dtype="float32")),
    ("mask_scalar", (3, 4), "float32", B(np.arange(12).reshape(3, 4) > 5), 0.0),
    ("mask_tensor", (3, 4), "float32", B(np.arange(12).reshape(3, 4) > 8), T(np.array([1.0, 2.0, 3.0]))),
    ("neg_step", (3, 4), "float32", (S(None), S(None, None, -2)), T(np.array([1.0, 2.0]))),
    ("neg_step_rows", (3, 4), "int32", S(None, None, -1), T(np.arange(12).reshape(3, 4), dtype="int32")),
    ("advanced", (3, 4), "float32", ([0, 2], [1, 3]), T(np.array([100.0, 200.0]))),
    ("advanced_tensor", (3, 4), "float32", I([2, 0]), 1.0),
    ("none", (3, 4), "float32", (None, 1), 1.0), ("ellipsis", (3, 4), "float32", (E, 1), 1.0),
    ("scalar_tensor_value", (3, 4), "float32", 1, T(np.array(3.5))),
    ("one_element_value", (3, 4), "float32", (S(None), 1), T(np.array([3.5]))),
    ("leading_one_value", (3, 4), "float32", 1, T(np.ones((1, 4)))),
    ("bool_list", (3, 4), "float32", [True, False, True], 0.0), ("zero_d", (), "float32", E, 5.0),
    ("bool_tensor", (3, 4), "bool", (S(None), 0), True),
]

# (name, x shape, index, exception type name) for getitem; value added for setitem.
GETITEM_ERRORS = [
    ("int_oob", (2, 3), 2, "IndexError"), ("neg_int_oob", (2, 3), -3, "IndexError"),
    ("too_many", (2, 3), (1, 2, 0), "IndexError"), ("step_zero", (2, 3), S(None, None, 0), "ValueError"),
    ("two_ellipses", (2, 3), (E, 1, E), "ValueError"), ("float", (2, 3), 1.0, "ValueError"),
    ("str", (2, 3), "a", "ValueError"), ("float_tensor", (2, 3), T(np.array([1.0]), dtype="float32"), "ValueError"),
    ("uint8_tensor", (2, 3), I([1, 0], "uint8"), "ValueError"), ("scalar_int", (), 0, "IndexError"),
    ("mask_mismatch", (2, 3), B([True, False, True]), "IndexError"),
]
# Paddle reads out of bounds for these (garbage or heap corruption); torchpaddle raises IndexError.
GETITEM_ERRORS_OURS_ONLY = [
    ("list_oob", (2, 3), [1, 2], "IndexError"), ("tensor_oob", (2, 3), I([1, 5]), "IndexError"),
    ("tensor_neg_oob", (2, 3), (S(None), I([-4])), "IndexError"),
]
SETITEM_ERRORS = [
    ("shape_mismatch", (3, 4), 1, T(np.ones(3)), "ValueError"), ("bigger_value", (3, 4), 1, T(np.ones((2, 4))), "ValueError"),
    ("list_value", (3, 4), 1, [1.0, 2.0, 3.0, 4.0], "ValueError"), ("str_value", (3, 4), 1, "abc", "ValueError"),
    ("int_oob", (3, 4), 3, 1.0, "IndexError"),
    ("mask_value_mismatch", (3, 4), B(np.arange(12).reshape(3, 4) > 8), T(np.ones(2)), "ValueError"),
]
# Paddle aborts the process for these; torchpaddle raises.
SETITEM_ERRORS_OURS_ONLY = [
    ("advanced_oob", (3, 4), [0, 3], 1.0, "IndexError"), ("complex_into_real", (3, 4), 1, 1 + 2j, "TypeError"),
]


def base(shape, dtype="float32"):
    return np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)


def _tensor_record(t):
    return ("T", np.array(t.numpy()), str(t.dtype).replace("paddle.", ""), bool(t.stop_gradient))


def _grad_record(t):
    # NOTE: Paddle reports x.grad.stop_gradient as False; that belongs to Tensor.grad, not to indexing.
    return ("T", np.array(t.numpy()), str(t.dtype).replace("paddle.", ""))


def _error_record(exc):
    return ("E", [c.__name__ for c in type(exc).__mro__])


def do_getitem(paddle, shape, index, dtype="float32"):
    x = paddle.to_tensor(base(shape, dtype))
    return x[tensor_args(paddle, index, None, [])]


def do_setitem(paddle, shape, dtype, index, value):
    x = paddle.to_tensor(base(shape, dtype))
    x[tensor_args(paddle, index, None, [])] = tensor_args(paddle, value, None, [])
    return x


def expected_getitem(shape, index, dtype="float32"):
    return base(shape, dtype)[numpy_args(index, None)]


def expected_setitem(shape, dtype, index, value):
    x = base(shape, dtype)
    x[numpy_args(index, None)] = numpy_args(value, None)
    return x


def _grad_getitem(paddle):
    out = {}
    for name, index in [("neg_step", (S(None), S(None, None, -1), 1)), ("advanced", ([0, 1, 0], S(None), [1, 2, 1])),
                        ("mask", B(np.arange(24).reshape(2, 3, 4) % 3 == 0)), ("none_ellipsis", (None, E, S(1, 3)))]:
        x = paddle.to_tensor(base((2, 3, 4), "float64"), stop_gradient=False)
        y = x[tensor_args(paddle, index, None, [])]
        weights = paddle.to_tensor(np.arange(int(np.prod(y.shape))).reshape(y.shape).astype("float64") + 1)
        (y * weights).sum().backward()
        out[name] = (_tensor_record(y), _grad_record(x.grad))
    return out


def _grad_setitem(paddle):
    out = {}
    for name, index, value_shape in [("row", 1, (4,)), ("neg_step", (S(None), S(None, None, -2)), (2,)),
                                     ("mask", B(np.arange(12).reshape(3, 4) > 7), (4,)), ("broadcast", S(0, 2), (1, 4))]:
        x = paddle.to_tensor(base((3, 4), "float64"), stop_gradient=False)
        v = paddle.to_tensor(np.full(value_shape, 0.5), stop_gradient=False)
        y = x * 2
        y[tensor_args(paddle, index, None, [])] = v
        weights = paddle.to_tensor(np.arange(12.0).reshape(3, 4) + 1)
        (y * weights).sum().backward()
        # NOTE: Paddle's value gradient for a bool-mask setitem is uninitialised memory; not compared
        out[name] = (_tensor_record(y), _grad_record(x.grad)) + ((_grad_record(v.grad),) if name != "mask" else ())
    # a stop_gradient tensor receiving a differentiable value starts requiring grad
    z = paddle.zeros([3, 4], dtype="float64")
    v = paddle.to_tensor(np.array([1.0, 2.0, 3.0, 4.0]), stop_gradient=False)
    z[1] = v
    (z * 2).sum().backward()
    out["into_constant"] = (_tensor_record(z), _grad_record(v.grad))
    return out


def _views(paddle):
    out = {}
    for name, index in [("int", 0), ("column", (S(None), 1)), ("advanced", [0])]:
        x = paddle.zeros([2, 3])
        y = x[index]
        y[0] = 9.0
        out[name] = _tensor_record(x)
    return out


def _leaf(paddle):
    x = paddle.ones([3])
    x.stop_gradient = False
    try:
        x[1] = 5.0
        first = ("ok",)
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        first = _error_record(exc)
    with paddle.no_grad():
        x[1] = 5.0
    return {"grad_enabled": first, "no_grad": _tensor_record(x)}


def run_all(paddle):
    results = {}
    for name, shape, index in GETITEM:
        try:
            results[f"getitem_{name}"] = _tensor_record(do_getitem(paddle, shape, index))
        except Exception as exc:  # noqa: BLE001
            results[f"getitem_{name}"] = _error_record(exc)
    for name, shape, dtype, index, value in SETITEM:
        try:
            results[f"setitem_{name}"] = _tensor_record(do_setitem(paddle, shape, dtype, index, value))
        except Exception as exc:  # noqa: BLE001
            results[f"setitem_{name}"] = _error_record(exc)
    for name, shape, index, _ in GETITEM_ERRORS:
        try:
            do_getitem(paddle, shape, index)
            results[f"getitem_error_{name}"] = ("ok",)
        except Exception as exc:  # noqa: BLE001
            results[f"getitem_error_{name}"] = _error_record(exc)
    for name, shape, index, value, _ in SETITEM_ERRORS:
        try:
            do_setitem(paddle, shape, "float32", index, value)
            results[f"setitem_error_{name}"] = ("ok",)
        except Exception as exc:  # noqa: BLE001
            results[f"setitem_error_{name}"] = _error_record(exc)
    results["grad_getitem"] = _grad_getitem(paddle)
    results["grad_setitem"] = _grad_setitem(paddle)
    results["views"] = _views(paddle)
    results["leaf"] = _leaf(paddle)
    return results


def main(path):
    import paddle
    with open(path, "wb") as f:
        pickle.dump({"version": paddle.__version__, "results": run_all(paddle)}, f)


if __name__ == "__main__":
    main(sys.argv[1])
