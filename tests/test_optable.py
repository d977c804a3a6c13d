"""Generic tests driven by the op table (tests/optable/rows_*.py): NumPy reference, float64 finite-difference
gradients, and bad-input cases."""
import inspect
import re

import numpy as np
import pytest

import torchpaddle as paddle
from torchpaddle.ops.registry import REGISTRY
from tests.device_numerics import float32_tolerance
from tests.optable.core import T, rng_for
from tests.optable.runner import call, flatten, load_rows, numpy_args, resolve, samples_of, tensor_args

ROWS = load_rows()


def _compare(case, ours, ref, context, tolerance=None):
    ours = [o.numpy() if isinstance(o, paddle.Tensor) else o for o in flatten(ours)]
    ref = flatten(ref) if isinstance(ref, (list, tuple)) else [ref]
    rtol, atol = tolerance or (case.rtol, case.atol)
    assert len(ours) == len(ref), f"{context}: {len(ours)} outputs, reference has {len(ref)}"
    for i, (a, b) in enumerate(zip(ours, ref)):
        if case.post is not None:
            a, b = case.post(a), case.post(b)
        a, b = np.asarray(a), np.asarray(b)
        assert list(a.shape) == list(b.shape), f"{context} output {i}: shape {a.shape} vs reference {b.shape}"
        if b.dtype == bool or a.dtype == bool:
            np.testing.assert_array_equal(a, b, err_msg=f"{context} output {i}")
        else:
            np.testing.assert_allclose(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64),
                                       b.astype(np.complex128 if b.dtype.kind == "c" else np.float64),
                                       rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=f"{context} output {i}")


@pytest.mark.parametrize("name", sorted(n for n, c in ROWS.items() if c.ref is not None and not c.random))
def test_numpy_reference(name):
    case = ROWS[name]
    for dtype in case.dtypes:
        for i, sample in enumerate(samples_of(case, dtype)):
            ours, _ = call(paddle, case, sample, dtype)
            args = numpy_args(sample.args, dtype)
            kwargs = {k: numpy_args(v, dtype) for k, v in sample.kwargs.items()}
            tolerance = None
            if dtype == "float32" and "conv" in name:   # cuDNN's TF32 on a GPU
                tolerance = float32_tolerance(case.rtol, case.atol, cudnn=True)
            _compare(case, ours, case.ref(*args, **kwargs), f"{name}[{dtype}, sample {i}]", tolerance)


def _loss(case, sample, overrides, weights):
    """Weighted sum of the float outputs, with some T arguments' data replaced."""
    def substitute(value):
        if isinstance(value, T):
            if id(value) not in overrides:
                return value   # keep identity: the caller maps tensors back to these specs by id
            return T(overrides[id(value)], value.dtype, value.stop_gradient, value.grad)
        if isinstance(value, (list, tuple)):
            return type(value)(substitute(v) for v in value)
        return value
    args = substitute(sample.args)
    kwargs = {k: substitute(v) for k, v in sample.kwargs.items()}
    tensors = []
    out = resolve(paddle, case.api)(*tensor_args(paddle, args, "float64", tensors),
                                    **{k: tensor_args(paddle, v, "float64", tensors) for k, v in kwargs.items()})
    outs = [o for o in flatten(out) if isinstance(o, paddle.Tensor) and o.dtype == paddle.float64]
    total = None
    for o, w in zip(outs, weights or [None] * len(outs)):
        if w is None:
            w = np.ones(o.shape)
        term = (o * paddle.to_tensor(w)).sum()
        total = term if total is None else total + term
    return total, tensors, outs


def _grad_specs(value, found):
    if isinstance(value, T):
        if value.grad and (value.dtype is None or value.dtype.startswith("float")):
            found.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _grad_specs(v, found)
    return found


@pytest.mark.parametrize("name", sorted(n for n, c in ROWS.items() if c.grad and "float64" in c.dtypes))
def test_gradient_finite_difference(name):
    case = ROWS[name]
    rng = rng_for(name, "grad")
    checked = 0
    for i, sample in enumerate(samples_of(case, "float64")):
        specs = _grad_specs(list(sample.args) + list(sample.kwargs.values()), [])
        if not specs:
            continue
        loss, tensors, outs = _loss(case, sample, {}, None)
        if loss is None or loss.stop_gradient:
            continue
        weights = [rng.normal(size=o.shape) for o in outs]
        loss, tensors, _ = _loss(case, sample, {}, weights)
        by_spec = {id(spec): t for spec, t in tensors}
        inputs = [by_spec[id(s)] for s in specs]
        grads = paddle.grad(loss, inputs, allow_unused=True)
        for spec, g in zip(specs, grads):
            base = np.asarray(spec.data, dtype=np.float64)
            analytic = np.zeros_like(base) if g is None else g.numpy()
            flat_indices = list(np.ndindex(base.shape))[:24]
            for idx in flat_indices:
                plus, minus = base.copy(), base.copy()
                plus[idx] += case.grad_eps
                minus[idx] -= case.grad_eps
                with paddle.no_grad():
                    fp = float(_loss(case, sample, {id(spec): plus}, weights)[0])
                    fm = float(_loss(case, sample, {id(spec): minus}, weights)[0])
                numeric = (fp - fm) / (2 * case.grad_eps)
                np.testing.assert_allclose(analytic[idx], numeric, rtol=1e-4, atol=1e-5,
                                           err_msg=f"{name} sample {i} d/d{idx}")
            checked += 1
    assert checked, f"{name}: no sample had a differentiable input; set grad=False"


# Words that name what was wrong in an error message besides the API's own parameters and op types.
_ERROR_SUBJECTS = {"index", "indices", "indexing", "dtype", "shape", "axis", "perm"}


def _message_subjects(case, fn):
    """What an error message may name: the API, its op types, its parameters (x and name say nothing)."""
    try:
        params = set(inspect.signature(fn).parameters) - {"x", "name", "self", "args", "kwargs", "out"}
    except (TypeError, ValueError):
        params = set()
    short = case.api.rsplit(".", 1)[-1]
    return params | set(REGISTRY) | _ERROR_SUBJECTS | {short, short.strip("_")}


@pytest.mark.parametrize("name", sorted(n for n, c in ROWS.items() if c.errors))
def test_bad_input(name):
    case = ROWS[name]
    fn = resolve(paddle, case.api)
    subjects = _message_subjects(case, fn)
    for err in case.errors:
        tensors = []
        args = tensor_args(paddle, err.args, None, tensors)
        kwargs = {k: tensor_args(paddle, v, None, tensors) for k, v in err.kwargs.items()}
        with pytest.raises(err.exc) as info:
            fn(*args, **kwargs)
        # the message names the op, the API or the argument at fault
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", str(info.value)))
        assert words & subjects, f"{name}: {err.note or err.args!r}: message names nothing: {info.value}"
