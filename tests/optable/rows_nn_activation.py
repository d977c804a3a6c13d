"""Rows for nn.functional activations (relu, gelu, softmax, prelu, maxout, glu...)."""
import math

import numpy as np

from .core import FLOATS, Err, OpCase, Sample, T, fixed, unary

_erf = np.vectorize(math.erf)
_SHAPES = ((3, 4), (2, 3, 4), (), (5,))


def _f(name):
    return "nn.functional." + name


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def _softmax(x, axis=-1, dtype=None):
    x = x.astype(dtype) if dtype else x
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis=-1, dtype=None):
    x = x.astype(dtype) if dtype else x
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _gelu(x, approximate=False):
    if approximate in (True, "tanh"):
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2))).astype(x.dtype)


def _celu(x, alpha=1.0):
    return np.maximum(x, 0) + np.minimum(0, alpha * (np.exp(x / alpha) - 1))


def _selu(x, scale=1.0507009873554805, alpha=1.6732632423543772):
    return scale * np.where(x > 0, x, alpha * (np.exp(x) - 1))


def _maxout(x, groups, axis=1):
    axis = axis % 4
    shape = list(x.shape)
    shape[axis:axis + 1] = [shape[axis] // groups, groups]
    return x.reshape(shape).max(axis=axis + 1)


def _prelu(x, w, data_format="NCHW"):
    if w.size > 1:
        shape = [1] * x.ndim
        shape[-1 if data_format in ("NHWC", "NLC", "NDHWC") else 1] = -1
        w = w.reshape(shape)
    else:
        w = w.reshape([])
    return np.where(x > 0, x, w * x)


def _glu(x, axis=-1):
    a, b = np.split(x, 2, axis=axis)
    return a * _sigmoid(b)


# Errors every float-only activation shares.
_INT = Err((T(np.array([1, 2]), dtype="int32"),), exc=RuntimeError, note="no integer kernel")
_BOOL = Err((T(np.array([True, False])),), exc=RuntimeError, note="no bool kernel")
_LIST = Err(([1.0, -2.0],), exc=ValueError, note="a list is not a Tensor")
_COMMON = (_INT, _BOOL, _LIST)

# (api, NumPy reference, kwargs, extra errors)
_ELEMENTWISE = [
    ("relu", lambda x: np.maximum(x, 0), {}, ()),
    ("relu6", lambda x: np.clip(x, 0, 6), {}, ()),
    ("elu", lambda x, alpha=1.0: np.where(x > 0, x, alpha * (np.exp(x) - 1)), {"alpha": 0.7}, ()),
    ("celu", _celu, {"alpha": 1.5}, (Err((T(np.ones(3)),), {"alpha": 0}, exc=ZeroDivisionError),)),
    ("selu", _selu, {}, (Err((T(np.ones(3)),), {"scale": 0.5}, exc=ValueError, note="scale <= 1"),
                         Err((T(np.ones(3)),), {"alpha": -1.0}, exc=ValueError))),
    ("gelu", _gelu, {}, (Err((T(np.ones(3)),), {"approximate": "bad"}, exc=ValueError),)),
    ("hardshrink", lambda x, threshold=0.5: np.where(np.abs(x) > threshold, x, 0), {"threshold": 0.7}, ()),
    ("softshrink", lambda x, threshold=0.5: np.where(x > threshold, x - threshold,
                                                     np.where(x < -threshold, x + threshold, 0)),
     {"threshold": 0.4}, (Err((T(np.ones(3)),), {"threshold": -1.0}, exc=ValueError),)),
    ("hardsigmoid", lambda x, slope=0.1666667, offset=0.5: np.clip(x * slope + offset, 0, 1), {}, ()),
    ("hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6, {}, ()),
    ("hardtanh", lambda x, min=-1.0, max=1.0: np.clip(x, min, max), {"min": -0.5, "max": 1.2}, ()),
    ("leaky_relu", lambda x, negative_slope=0.01: np.where(x > 0, x, negative_slope * x), {"negative_slope": 0.2},
     ()),
    ("log_sigmoid", lambda x: -np.log1p(np.exp(-x)), {}, ()),
    ("silu", lambda x: x * _sigmoid(x), {}, ()),
    ("swish", lambda x: x * _sigmoid(x), {}, ()),
    ("mish", lambda x: x * np.tanh(_softplus(x)), {}, ()),
    ("softsign", lambda x: x / (1 + np.abs(x)), {}, ()),
    ("softplus", _softplus, {"beta": 2.0, "threshold": 3.0}, ()),
    ("tanhshrink", lambda x: x - np.tanh(x), {}, ()),
    ("thresholded_relu", lambda x, threshold=1.0, value=0.0: np.where(x > threshold, x, value),
     {"threshold": 0.3, "value": -0.5}, ()),
]


def _elementwise_samples(kwargs, scale=1.0):
    def make(rng, dtype):
        return [Sample((T(rng.uniform(-2, 2, size=s) * scale),), dict(kwargs)) for s in _SHAPES]
    return make


def _rows():
    rows = []
    for api, ref, kwargs, errors in _ELEMENTWISE:
        # relu6's inputs are scaled so that both clip bounds are reached.
        samples = _elementwise_samples(kwargs, 4.0 if api == "relu6" else 1.0)
        rows.append(OpCase(api, _f(api), ref, samples, FLOATS, errors=_COMMON + errors))
        if kwargs:   # the defaults too
            rows.append(OpCase(api + "_defaults", _f(api), ref, _elementwise_samples({}), ("float64",), grad=False))
    return rows


def _softmax_samples(rng, dtype):
    return [Sample((T(rng.uniform(-3, 3, size=(3, 4))),)),
            Sample((T(rng.uniform(-3, 3, size=(2, 3, 4))),), {"axis": 1}),
            Sample((T(rng.uniform(-3, 3, size=(2, 3, 4))),), {"axis": -3}),
            Sample((T(rng.uniform(-3, 3, size=(5,))),)),
            Sample((T(np.array(1.5)),))]


_AXIS_ERRORS = (_INT, _LIST, Err((T(np.ones((2, 3))),), {"axis": 2}, exc=ValueError, note="axis out of range"),
                Err((T(np.ones((2, 3))),), {"axis": -3}, exc=ValueError))

OPS = _rows() + [
    OpCase("gelu_tanh", _f("gelu"), _gelu, unary(_SHAPES, approximate=True), FLOATS),
    OpCase("gelu_tanh_str", _f("gelu"), _gelu, unary(((3, 4),), approximate="tanh"), FLOATS, grad=False),
    OpCase("sigmoid", _f("sigmoid"), _sigmoid, unary(_SHAPES), FLOATS, errors=(_BOOL, _LIST)),
    OpCase("sigmoid_int", _f("sigmoid"), lambda x: _sigmoid(x.astype(np.float32)), unary(((3, 4),)),
           ("int32", "int64"), grad=False),
    OpCase("tanh_functional", _f("tanh"), np.tanh, unary(_SHAPES), FLOATS),
    OpCase("softmax", _f("softmax"), _softmax, _softmax_samples, FLOATS, errors=_AXIS_ERRORS),
    OpCase("softmax_dtype", _f("softmax"), lambda x, dtype=None: _softmax(x, dtype=dtype),
           fixed(Sample((T(np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])),), {"dtype": "float64"})), FLOATS,
           errors=(Err((T(np.ones((2, 3))),), {"dtype": "int32"}, exc=RuntimeError, note="no integer kernel"),)),
    OpCase("softmax_int_to_float", _f("softmax"), lambda x, dtype=None: _softmax(x, dtype=dtype),
           fixed(Sample((T(np.array([[1, 2, 0], [3, -1, 2]])),), {"dtype": "float32"})), ("int64",), grad=False),
    OpCase("log_softmax", _f("log_softmax"), _log_softmax, _softmax_samples, FLOATS, errors=_AXIS_ERRORS),
    OpCase("log_softmax_dtype", _f("log_softmax"), lambda x, dtype=None: _log_softmax(x, dtype=dtype),
           fixed(Sample((T(np.array([[1.0, 2.0, 0.5]])),), {"dtype": "float64"})), ("float32",)),
    OpCase("maxout", _f("maxout"), _maxout,
           lambda rng, dtype: [Sample((T(rng.uniform(-2, 2, size=(2, 4, 3, 3))),), {"groups": 2}),
                               Sample((T(rng.uniform(-2, 2, size=(2, 3, 3, 6))),), {"groups": 3, "axis": -1}),
                               Sample((T(rng.uniform(-2, 2, size=(1, 3, 2, 4))),), {"groups": 2, "axis": 3})],
           FLOATS,
           errors=(Err((T(np.ones((2, 4, 3, 3))),), {"groups": 3}, exc=ValueError, note="channels % groups"),
                   Err((T(np.ones((2, 4, 3, 3))),), {"groups": 2, "axis": 2}, exc=ValueError, note="axis 2"),
                   Err((T(np.ones((2, 4, 3))),), {"groups": 2}, exc=ValueError, note="3-D input"),
                   Err((T(np.ones((2, 4, 3, 3)), dtype="int64"),), {"groups": 2}, exc=RuntimeError))),
    OpCase("prelu", _f("prelu"), _prelu,
           lambda rng, dtype: [Sample((T(rng.uniform(-2, 2, size=(2, 3, 4))), T(np.array([0.25])))),
                               Sample((T(rng.uniform(-2, 2, size=(2, 3, 4))), T(rng.uniform(0, 1, size=(3,))))),
                               Sample((T(rng.uniform(-2, 2, size=(2, 4, 3))), T(rng.uniform(0, 1, size=(3,)))),
                                      {"data_format": "NLC"}),
                               Sample((T(rng.uniform(-2, 2, size=(2, 3))), T(np.array(0.1))))],
           FLOATS,
           errors=(Err((T(np.ones((2, 3, 4))), T(np.ones(2))), exc=AssertionError, note="channels mismatch"),
                   Err((T(np.ones((2, 3, 4))), T(np.ones((1, 1)))), exc=AssertionError, note="2-D weight"),
                   Err((T(np.ones((2, 3, 4))), T(np.ones(3))), {"data_format": "XX"}, exc=ValueError),
                   Err((T(np.ones(3)), T(np.ones(3))), exc=AssertionError, note="1-D x, per-channel weight"))),
    OpCase("rrelu_eval", _f("rrelu"), lambda x, training=True: np.where(x >= 0, x, x * (1 / 8 + 1 / 3) / 2),
           unary(((3, 4), (5,)), training=False), FLOATS,
           errors=(Err((T(np.ones(3)),), {"lower": 0, "upper": 1}, exc=TypeError, note="int bounds"),
                   Err((T(np.ones(3)),), {"lower": 0.5, "upper": 0.2}, exc=ValueError),
                   Err((T(np.ones(3)),), {"lower": -0.5, "upper": 0.2}, exc=ValueError),
                   Err((T(np.ones(3)),), {"lower": 0.5, "upper": 1.5}, exc=ValueError))),
    OpCase("rrelu_train", _f("rrelu"), None, unary(((3, 4),)), FLOATS, grad=False, random=True),
    OpCase("rrelu_train_positive", _f("rrelu"), lambda x: x, unary(((3, 4),), low=0.1, high=2.0), FLOATS),
    OpCase("glu", _f("glu"), _glu,
           lambda rng, dtype: [Sample((T(rng.uniform(-2, 2, size=(2, 4))),)),
                               Sample((T(rng.uniform(-2, 2, size=(4, 3))),), {"axis": 0})],
           FLOATS,
           errors=(Err((T(np.ones((2, 3))),), exc=ValueError, note="odd size"),
                   Err((T(np.ones((2, 4))),), {"axis": 3}, exc=ValueError, note="axis out of range"),
                   _LIST)),
    OpCase("gumbel_softmax", _f("gumbel_softmax"), None,
           fixed(Sample((T(np.ones((2, 4))),)), Sample((T(np.ones((2, 4))),), {"hard": True}),
                 Sample((T(np.ones((3, 2))),), {"temperature": 0.5, "axis": 0})),
           FLOATS, grad=False, random=True,
           errors=(Err((T(np.ones((2, 4))),), {"temperature": 0}, exc=ValueError),
                   Err((T(np.ones((2, 4))),), {"axis": 2}, exc=ValueError),
                   Err((T(np.ones((2, 4)), dtype="int64"),), exc=RuntimeError))),
    # A hard sample is one-hot whatever the draw: sorted along the axis it is [0, 0, 0, 1].
    OpCase("gumbel_softmax_hard_one_hot", _f("gumbel_softmax"), lambda x, hard=True: np.eye(4)[[3, 3]],
           fixed(Sample((T(np.ones((2, 4))),), {"hard": True})), FLOATS, grad=False,
           post=lambda a: np.sort(np.asarray(a), axis=-1)),
]
