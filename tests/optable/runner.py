"""Runs op-table rows against a ``paddle`` module (torchpaddle or the real one) and records results.
Imports only NumPy so the same code runs inside the reference virtualenv."""
import importlib
import pkgutil

import numpy as np

from .core import T, rng_for


def row_modules():
    """Names of the ``rows_*.py`` modules beside this file."""
    from . import __path__ as here
    return [m.name for m in sorted(pkgutil.iter_modules(here), key=lambda m: m.name) if m.name.startswith("rows_")]


def load_rows(only=None):
    """Every OpCase of every ``rows_*.py`` module beside this file (or of module ``only``), by name."""
    rows = {}
    for module_name in row_modules():
        if only is not None and module_name != only:
            continue
        module = importlib.import_module(f"{__package__}.{module_name}")
        for case in module.OPS:
            if case.name in rows:
                raise ValueError(f"op table: duplicate row name {case.name}")
            case.module = module_name
            rows[case.name] = case
    return rows


def resolve(paddle, api):
    obj = paddle
    parts = api.split(".")
    if parts[0] == "Tensor":
        method = parts[1]
        return lambda x, *a, **k: getattr(x, method)(*a, **k)
    for part in parts:
        obj = getattr(obj, part)
    return obj


def cast(array, dtype):
    if dtype is None:
        return np.asarray(array)
    return np.asarray(array).astype(dtype)


def numpy_args(value, dtype):
    if isinstance(value, T):
        return cast(value.data, value.dtype or dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(numpy_args(v, dtype) for v in value)
    return value


def tensor_args(paddle, value, dtype, tensors):
    if isinstance(value, T):
        d = value.dtype or dtype
        array = cast(value.data, d)
        floating = np.issubdtype(array.dtype, np.floating)
        stop = value.stop_gradient if not floating else False
        t = paddle.to_tensor(array, dtype=d, stop_gradient=stop)
        tensors.append((value, t))
        return t
    if isinstance(value, list):
        return [tensor_args(paddle, v, dtype, tensors) for v in value]
    if isinstance(value, tuple):
        return tuple(tensor_args(paddle, v, dtype, tensors) for v in value)
    return value


def flatten(out):
    if isinstance(out, (list, tuple)):
        result = []
        for o in out:
            result.extend(flatten(o))
        return result
    return [out]


def record(paddle, out):
    """Outputs -> list of dicts with value, dtype, shape, stop_gradient (or a plain Python value)."""
    result = []
    for o in flatten(out):
        if isinstance(o, paddle.Tensor):
            result.append({"value": np.array(o.numpy()), "dtype": str(o.dtype).replace("paddle.", ""),
                           "shape": list(o.shape), "stop_gradient": bool(o.stop_gradient)})
        else:
            result.append({"value": o})
    return result


def call(paddle, case, sample, dtype):
    fn = resolve(paddle, case.api)
    tensors = []
    args = tensor_args(paddle, sample.args, dtype, tensors)
    kwargs = {k: tensor_args(paddle, v, dtype, tensors) for k, v in sample.kwargs.items()}
    return fn(*args, **kwargs), tensors


def samples_of(case, dtype):
    return case.samples(rng_for(case.name, dtype), dtype) if case.samples else []


def run_case(paddle, case):
    """{(dtype, sample index): record or {"exc": name}}; errors under ("error", index)."""
    results = {}
    for dtype in case.dtypes:
        for i, sample in enumerate(samples_of(case, dtype)):
            try:
                out, _ = call(paddle, case, sample, dtype)
                results[(dtype, i)] = record(paddle, out)
            except Exception as exc:  # noqa: BLE001 - the exception type is what is compared
                results[(dtype, i)] = {"exc": type(exc).__name__, "msg": str(exc)[:300]}
    for i, err in enumerate(case.errors):
        try:
            fn = resolve(paddle, case.api)
            tensors = []
            args = tensor_args(paddle, err.args, None, tensors)
            kwargs = {k: tensor_args(paddle, v, None, tensors) for k, v in err.kwargs.items()}
            fn(*args, **kwargs)
            results[("error", i)] = {"exc": None}
        except Exception as exc:  # noqa: BLE001
            results[("error", i)] = {"exc": type(exc).__name__, "mro": [c.__name__ for c in type(exc).__mro__],
                                     "msg": str(exc)[:300]}
    return results
