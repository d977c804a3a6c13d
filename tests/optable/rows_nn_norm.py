"""Rows for nn.functional normalisation: normalize, batch_norm (inference and training outputs; the running
statistics' update is tested in tests/nn/test_functional_norm.py), layer_norm, instance_norm, group_norm and
local_response_norm."""
import numpy as np

from .core import FLOATS, Err, OpCase, Sample, T

_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def _f(name):
    return "nn.functional." + name


def _u(rng, *shape, low=-2.0, high=2.0, **kw):
    return T(rng.uniform(low, high, size=shape), **kw)


def _ones(*shape):
    return T(np.ones(shape))


def _channel_first(x, data_format):
    return np.moveaxis(x, -1, 1) if data_format in _CHANNEL_LAST and x.ndim > 2 else x


def _channel_restore(y, data_format):
    return np.moveaxis(y, 1, -1) if data_format in _CHANNEL_LAST and y.ndim > 2 else y


def _per_channel(v, ndim):
    return v.reshape([1, -1] + [1] * (ndim - 2))


def _normalize(x, p=2, axis=1, epsilon=1e-12):
    norm = (np.abs(x) ** p).sum(axis=axis, keepdims=True) ** (1.0 / p)
    return x / np.maximum(norm, epsilon)


def _batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.9, epsilon=1e-5,
                data_format="NCHW", use_global_stats=None):
    xc = _channel_first(x, data_format)
    if use_global_stats is None:
        use_global_stats = not training
    axes = tuple(i for i in range(xc.ndim) if i != 1)
    mean, var = (running_mean, running_var) if use_global_stats else (xc.mean(axes), xc.var(axes))
    y = (xc - _per_channel(mean, xc.ndim)) / np.sqrt(_per_channel(var, xc.ndim) + epsilon)
    if weight is not None:
        y = y * _per_channel(weight, xc.ndim)
    if bias is not None:
        y = y + _per_channel(bias, xc.ndim)
    return _channel_restore(y, data_format)


def _stats(rng, channels):
    return (T(rng.uniform(-0.5, 0.5, size=channels), grad=False), T(rng.uniform(0.5, 2.0, size=channels), grad=False))


def _bn_samples(rng, dtype):
    out = []
    for shape, fmt in (((4, 3, 2, 2), "NCHW"), ((4, 3), "NC"), ((2, 3, 5), "NCL"), ((2, 2, 2, 3), "NHWC"),
                       ((2, 5, 3), "NLC"), ((2, 3, 2, 2, 2), "NCDHW")):
        channels = shape[-1] if fmt in _CHANNEL_LAST else shape[1]
        for training in (False, True):
            out.append(Sample((_u(rng, *shape),) + _stats(rng, channels),
                              {"weight": _u(rng, channels, low=0.5, high=1.5),
                               "bias": _u(rng, channels), "training": training, "data_format": fmt}))
    out.append(Sample((_u(rng, 4, 3),) + _stats(rng, 3), {"training": True, "use_global_stats": True}))
    out.append(Sample((_u(rng, 4, 3),) + _stats(rng, 3), {"training": False, "use_global_stats": False}))
    out.append(Sample((_u(rng, 4, 3, 2),) + _stats(rng, 3), {"epsilon": 0.1, "momentum": 0.5, "training": True}))
    return out


def _layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-5):
    count = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    axes = tuple(range(x.ndim - count, x.ndim))
    y = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + epsilon)
    shape = x.shape[x.ndim - count:]
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def _ln_samples(rng, dtype):
    return [Sample((_u(rng, 2, 3, 4), 4)),
            Sample((_u(rng, 2, 3, 4), [3, 4]), {"weight": _u(rng, 12), "bias": _u(rng, 12)}),
            Sample((_u(rng, 2, 3, 4), (3, 4)), {"weight": _u(rng, 12), "epsilon": 0.001}),
            Sample((_u(rng, 5, 6), 6), {"bias": _u(rng, 6)})]


def _group_norm(x, num_groups, epsilon=1e-5, weight=None, bias=None, data_format="NCHW"):
    xc = _channel_first(x, data_format)
    grouped = xc.reshape(xc.shape[0], num_groups, -1)
    y = ((grouped - grouped.mean(-1, keepdims=True)) / np.sqrt(grouped.var(-1, keepdims=True) + epsilon))
    y = y.reshape(xc.shape)
    if weight is not None:
        y = y * _per_channel(weight, xc.ndim)
    if bias is not None:
        y = y + _per_channel(bias, xc.ndim)
    return _channel_restore(y, data_format)


def _gn_samples(rng, dtype):
    return [Sample((_u(rng, 2, 4, 3, 3), 2)),
            Sample((_u(rng, 2, 6, 5), 3), {"weight": _u(rng, 6), "bias": _u(rng, 6)}),
            Sample((_u(rng, 2, 3, 3, 4), 2), {"weight": _u(rng, 4), "data_format": "NHWC"}),
            Sample((_u(rng, 2, 4), 4), {"epsilon": 0.1}),
            Sample((_u(rng, 2, 4, 3), 1), {"bias": _u(rng, 4)})]


def _instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                   momentum=0.9, eps=1e-5, data_format="NCHW"):
    return _group_norm(x, x.shape[1], eps, weight, bias)


def _in_samples(rng, dtype):
    return [Sample((_u(rng, 2, 3, 4, 4),)),
            Sample((_u(rng, 2, 3, 5),), {"weight": _u(rng, 3), "bias": _u(rng, 3)}),
            Sample((_u(rng, 2, 3, 2, 2, 2),), {"eps": 0.01}),
            Sample((_u(rng, 2, 3),)),
            Sample((_u(rng, 2, 3, 4),), {"running_mean": T(np.zeros(3), grad=False),
                                         "running_var": T(np.ones(3), grad=False), "use_input_stats": False})]


def _lrn(x, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW"):
    xc = _channel_first(x, data_format)
    channels = xc.shape[1]
    square = np.concatenate([np.zeros((xc.shape[0], size // 2) + xc.shape[2:]), xc ** 2,
                             np.zeros((xc.shape[0], (size - 1) // 2) + xc.shape[2:])], axis=1)
    window = np.stack([square[:, c:c + size].sum(1) for c in range(channels)], axis=1) / size
    return _channel_restore(xc / (k + alpha * window) ** beta, data_format)


def _lrn_samples(rng, dtype):
    return [Sample((_u(rng, 2, 5, 3, 3), 3)),
            Sample((_u(rng, 2, 4, 6), 2), {"alpha": 0.5, "beta": 0.6, "k": 2.0, "data_format": "NCL"}),
            Sample((_u(rng, 2, 3, 3, 6), 4), {"alpha": 0.2, "data_format": "NHWC"}),
            Sample((_u(rng, 1, 4, 2, 2, 2), 3), {"alpha": 0.3, "data_format": "NCDHW"}),
            Sample((_u(rng, 1, 2, 2, 2, 5), 5), {"alpha": 0.3, "data_format": "NDHWC"})]


_X = _ones(4, 3, 2, 2)
_ONES3, _ZEROS3 = T(np.ones(3)), T(np.zeros(3))

OPS = [
    OpCase("normalize", _f("normalize"), _normalize,
           lambda rng, dtype: [Sample((_u(rng, 3, 4),)), Sample((_u(rng, 3, 4),), {"p": 1, "axis": 0}),
                               Sample((_u(rng, 2, 3, 4),), {"axis": -1, "p": 3}), Sample((_u(rng, 5),), {"axis": 0}),
                               Sample((T(np.array([[3.0, 4.0], [0.0, 0.0]]), grad=False),), {"axis": 1},
                                      note="zero row: the norm is floored at epsilon")],
           FLOATS,
           errors=(Err((T(np.array([3.0, 4.0])),), {"axis": 1}, exc=ValueError, note="axis out of range"),
                   Err((T(np.array([[3.0, 4.0]])),), {"axis": 5}, exc=ValueError),
                   Err((T(np.array([[3, 4]]), dtype="int64"),), exc=RuntimeError, note="integer input"))),
    OpCase("batch_norm", _f("batch_norm"), _batch_norm, _bn_samples, FLOATS, atol=1e-5,
           errors=(Err((T(np.ones(3)), _ZEROS3, _ONES3), exc=AssertionError, note="1-D input"),
                   Err((_X, T(np.zeros(4)), T(np.ones(4))), exc=ValueError, note="running stats size"),
                   Err((_X, _ZEROS3, _ONES3), {"data_format": "XX"}, exc=ValueError),
                   Err((T(np.ones((2, 3)), dtype="int64"), _ZEROS3, _ONES3), exc=RuntimeError))),
    # NOTE: Paddle does not check the weight's size (it reads the first C values); it is an error here.
    OpCase("batch_norm_weight_size", _f("batch_norm"), None, None, FLOATS, grad=False, conformance=False,
           errors=(Err((_X, _ZEROS3, _ONES3), {"weight": T(np.ones(4))}, exc=ValueError),
                   Err((_X, _ZEROS3, _ONES3), {"bias": T(np.ones(2))}, exc=ValueError),
                   Err((_X, _ZEROS3, _ONES3), {"weight": T(np.ones((3, 1)))}, exc=ValueError))),
    OpCase("layer_norm", _f("layer_norm"), _layer_norm, _ln_samples, FLOATS, atol=1e-5,
           errors=(Err((_X, [3, 2]), exc=ValueError, note="normalized_shape mismatch"),
                   Err((_X, "a"), exc=ValueError, note="normalized_shape type"),
                   Err((_X, [2, 2]), {"weight": T(np.ones(3))}, exc=ValueError, note="weight size"),
                   Err((_X, [2, 2]), {"weight": T(np.ones((2, 2)))}, exc=ValueError, note="2-D weight"),
                   Err((T(np.ones((2, 2)), dtype="int64"), 2), exc=RuntimeError),
                   Err((_X, [4, 3, 2, 2]), exc=ValueError, note="Paddle refuses to normalise over every dim"),
                   Err((_X, [2, 2]), {"epsilon": 0.01}, exc=ValueError, note="Paddle caps epsilon at 0.001"))),
    OpCase("instance_norm", _f("instance_norm"), _instance_norm, _in_samples, FLOATS, atol=1e-5,
           errors=(Err((_X,), {"weight": T(np.ones(4)), "bias": T(np.ones(4))}, exc=ValueError),
                   Err((T(np.ones((2, 3)), dtype="int64"),), exc=RuntimeError),
                   Err(([1.0, 2.0],), exc=ValueError, note="a list is not a Tensor"))),
    OpCase("group_norm", _f("group_norm"), _group_norm, _gn_samples, FLOATS, atol=1e-5,
           errors=(Err((_X, 2), exc=ValueError, note="channels % groups"),
                   Err((_X, 1), {"weight": T(np.ones(2))}, exc=ValueError, note="weight size"),
                   Err((_X, 3), {"data_format": "NC"}, exc=ValueError),
                   Err((T(np.ones((2, 4)), dtype="int64"), 2), exc=RuntimeError))),
    OpCase("local_response_norm", _f("local_response_norm"), _lrn, _lrn_samples, FLOATS,
           errors=(Err((_ones(2, 3), 2), exc=ValueError, note="2-D input"),
                   Err((_X, 2), {"data_format": "NC"}, exc=ValueError),
                   Err((_ones(2, 0, 3), 2), exc=ValueError, note="empty channel dim"))),
]
