"""Rows for reductions, statistics, cumulative ops and order statistics."""
import numpy as np

from .core import ALL, FLOATS, INTS, NUMERIC, Err, OpCase, Sample, T, data, fixed, reduction


def _axes(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _np_reduce(fn, **fixed_kwargs):
    def ref(x, axis=None, keepdim=False, **kwargs):
        dtype = kwargs.pop("dtype", None)
        x = x if dtype is None else x.astype(dtype)   # Paddle casts before reducing
        return np.asarray(fn(x, axis=_axes(axis), keepdims=keepdim, **fixed_kwargs, **kwargs))
    return ref


def _np_mean(x, axis=None, keepdim=False):
    if x.dtype.kind in "iu":
        # Paddle's integer mean truncates toward zero and keeps the dtype.
        total = np.sum(x.astype(np.int64), axis=_axes(axis), keepdims=keepdim)
        n = x.size // max(np.asarray(total).size, 1) if x.size else 1
        return np.trunc(total / n).astype(x.dtype)
    return np.mean(x, axis=_axes(axis), keepdims=keepdim)


def _np_var(x, axis=None, unbiased=True, keepdim=False, correction=None):
    ddof = (1 if unbiased else 0) if correction is None else correction
    if x.dtype.kind in "iu":
        mean = np.trunc(_np_mean(x.astype(np.int64), axis, True))
        squares = np.sum((x - mean) ** 2, axis=_axes(axis), keepdims=keepdim)
        n = x.size // max(np.asarray(squares).size, 1)
        return np.trunc(squares / (n - ddof)).astype(x.dtype)
    return np.var(x, axis=_axes(axis), ddof=ddof, keepdims=keepdim)


def _np_std(x, axis=None, unbiased=True, keepdim=False):
    return np.sqrt(_np_var(x, axis, unbiased, keepdim).astype(np.float64))


def _lower_median(x, axis):
    order = np.argsort(x, axis=axis, kind="stable")
    k = (x.shape[axis] - 1) // 2
    index = np.take(order, [k], axis=axis)
    return np.take_along_axis(x, index, axis=axis), index


def _np_median(x, axis=None, keepdim=False, mode="avg"):
    if mode == "avg":
        out = np.median(x.astype(np.float64), axis=axis, keepdims=keepdim)
        return out.astype(np.float32) if x.dtype.kind in "iu" else out
    if axis is None:
        values, _ = _lower_median(x.reshape(-1), 0)
        return values.reshape([1] * x.ndim if keepdim else [])
    values, index = _lower_median(x, axis)
    return (values, index) if keepdim else (np.squeeze(values, axis), np.squeeze(index, axis))


def _np_quantile(fn):
    def ref(x, q, axis=None, keepdim=False, interpolation="linear"):
        if isinstance(q, list) and len(q) == 1:
            q = q[0]   # Paddle treats a one-element q list like a scalar
        return fn(x, q, axis=_axes(axis), keepdims=keepdim, method=interpolation)
    return ref


def _np_cumulative(fn):
    def ref(x, axis=None, dtype=None, **kwargs):
        out = fn(x.reshape(-1) if axis is None else x, axis=0 if axis is None else axis)
        return out if dtype is None else out.astype(dtype)
    return ref


def _np_cumextreme(better):
    def ref(x, axis=None, dtype="int64"):
        if axis is None:
            x, axis = x.reshape(-1), 0
        moved = np.moveaxis(x, axis, -1)
        values, indices = moved.copy(), np.zeros(moved.shape, dtype=np.int64)
        for i in range(1, moved.shape[-1]):
            # ties move the index forward, as in Paddle
            take = ~better(values[..., i - 1], moved[..., i])
            values[..., i] = np.where(take, moved[..., i], values[..., i - 1])
            indices[..., i] = np.where(take, i, indices[..., i - 1])
        return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis).astype(dtype)
    return ref


def _np_kthvalue(x, k, axis=None, keepdim=False):
    axis = -1 if axis is None else axis
    order = np.argsort(x, axis=axis, kind="stable")
    index = np.take(order, [k - 1], axis=axis)
    values = np.take_along_axis(x, index, axis=axis)
    return (values, index) if keepdim else (np.squeeze(values, axis), np.squeeze(index, axis))


def _np_mode(x, axis=-1, keepdim=False):
    moved = np.moveaxis(x, axis, -1)
    values = np.empty(moved.shape[:-1], dtype=x.dtype)
    indices = np.empty(moved.shape[:-1], dtype=np.int64)
    for pos in np.ndindex(moved.shape[:-1]):
        row = moved[pos]
        uniq, counts = np.unique(row, return_counts=True)
        best = uniq[np.argmax(counts)]           # np.unique sorts, so the smallest among ties
        values[pos] = best
        indices[pos] = np.nonzero(row == best)[0][-1]
    if keepdim:
        return np.expand_dims(values, axis), np.expand_dims(indices, axis)
    return values, indices


def _np_histogram(input, bins=100, min=0.0, max=0.0, weight=None, density=False):
    x = input.reshape(-1).astype(np.float64)
    if min == max:
        min, max = float(x.min()), float(x.max())
        if min == max:
            min, max = min - 1, max + 1
    counts, _ = np.histogram(x, bins, (min, max), weights=None if weight is None else weight.reshape(-1),
                             density=density)
    return counts


def _np_diff(x, n=1, axis=-1, prepend=None, append=None):
    parts = [p for p in (prepend, x, append) if p is not None]
    return np.diff(np.concatenate(parts, axis), n, axis)


def _with_nans(shape=(3, 4, 5), axes=(None, 0, -1, (0, 2)), **extra):
    """NaNs where the index sum is a multiple of 5: never a whole slice along any axis."""
    mask = np.indices(shape).sum(0) % 5 == 0

    def make(rng, dtype):
        out = []
        for axis in axes:
            for keep in (False, True):
                x = data(rng, shape, dtype)
                if dtype.startswith("float"):
                    x[mask] = np.nan
                kwargs = {"axis": list(axis) if isinstance(axis, tuple) else axis, "keepdim": keep}
                out.append(Sample((T(x),), dict(kwargs, **extra)))
        return out
    return make


def _samples(*specs):
    """Samples from (shape, kwargs) pairs, with data drawn per dtype."""
    def make(rng, dtype):
        return [Sample((T(data(rng, shape, dtype)),), dict(kwargs)) for shape, kwargs in specs]
    return make


_X = T(np.arange(24.0).reshape(2, 3, 4))
_AXIS_OUT = Err((_X,), {"axis": 3}, exc=ValueError, note="axis out of range")
_AXIS_DUP = Err((_X,), {"axis": [0, 0]}, exc=ValueError, note="axis repeated")
_AXIS_TYPE = Err((_X,), {"axis": 1.5}, exc=TypeError, note="axis is a float")
_NOT_TENSOR = Err(([1.0, 2.0],), exc=ValueError, note="a list is not a Tensor")
_BOOL = Err((T(np.array([True, False])),), exc=RuntimeError, note="no bool kernel")
_EMPTY = Err((T(np.zeros((0, 3))),), exc=ValueError, note="reducing an empty axis")
_SUM_DTYPES = _samples(((3, 4), {"dtype": "float64"}), ((3, 4), {"axis": 1, "dtype": "int64"}),
                       ((), {"axis": 0}), ((), {"axis": -1, "keepdim": True}), ((0, 3), {"axis": 0}))
_RED = reduction()
_REDUCTION_ERRORS = (_AXIS_OUT, _AXIS_DUP, _AXIS_TYPE, _NOT_TENSOR)


def _both(*makers):
    def make(rng, dtype):
        return [s for m in makers for s in m(rng, dtype)]
    return make


def _add_n_samples(rng, dtype):
    return [Sample(([T(data(rng, (3, 4), dtype)) for _ in range(n)],)) for n in (1, 2, 3)] + \
        [Sample((T(data(rng, (2, 3), dtype)),))]


_CUM = _samples(((3, 4), {}), ((3, 4), {"axis": 0}), ((2, 3, 4), {"axis": -1}), ((5,), {"axis": 0}), ((), {}))
_MEDIAN = _samples(((3, 4), {}), ((3, 5), {"axis": 1}), ((4, 3), {"axis": 0, "keepdim": True}),
                   ((2, 3, 4), {"axis": -1}), ((3, 4), {"keepdim": True}), ((5,), {}))
_MEDIAN_MIN = _samples(((3, 4), {"mode": "min"}), ((3, 4), {"axis": 1, "mode": "min"}),
                       ((4, 5), {"axis": 0, "keepdim": True, "mode": "min"}))
_QUANTILE = _samples(((3, 4), {"q": 0.5}), ((3, 4, 5), {"q": 0.3, "axis": 1}),
                     ((3, 4, 5), {"q": [0.25, 0.75], "axis": -1}),
                     ((3, 4, 5), {"q": 0.3, "axis": [0, 2], "keepdim": True}),
                     ((6,), {"q": 0.4, "interpolation": "lower"}), ((6,), {"q": 0.4, "interpolation": "higher"}),
                     ((6,), {"q": 0.3, "interpolation": "midpoint"}), ((7,), {"q": 0.55, "interpolation": "nearest"}),
                     ((2, 5), {"q": [0.1], "axis": 1, "keepdim": True}))
_HIST = fixed(Sample((T(np.array([1.0, 2.0, 1.0, 4.0, 0.5, 3.0])),), {"bins": 4, "min": 0, "max": 4}),
              Sample((T(np.array([1.0, 2.0, 1.0, 4.0])),), {"bins": 4}),
              Sample((T(np.array([[2.0, 2.0], [2.0, 2.0]])),), {"bins": 3}),
              Sample((T(np.array([-1.0, 2.0, 5.0, 3.0])),), {"bins": 2, "min": 0, "max": 4}),
              Sample((T(np.array([1.0, 2.0, 7.0])),), {"bins": 3, "min": 1, "max": 4, "density": True}))
_HIST_WEIGHT = fixed(Sample((T(np.array([1.0, 2.0, 1.0, 4.0])),),
                            {"bins": 4, "weight": T(np.array([1.0, 2.0, 3.0, 4.0]))}),
                     Sample((T(np.array([1.0, 2.0, 7.0])),),
                            {"bins": 3, "min": 1, "max": 4, "weight": T(np.array([1.0, 2.0, 7.0])), "density": True}))
_MODE_DATA = fixed(Sample((T(np.array([[3, 1, 1, 2, 3, 3, 1], [4, 2, 2, 4, 1, 0, 0]])),)),
                   Sample((T(np.array([[3, 1, 1, 2, 3, 3, 1], [4, 2, 2, 4, 1, 0, 0]])),), {"axis": 0}),
                   Sample((T(np.array([[1, 5], [5, 1], [1, 1]])),), {"axis": 0, "keepdim": True}),
                   Sample((T(np.array([[1, 5, 5], [5, 1, 2]])),), {"axis": -1, "keepdim": True}))
_KTH = _samples(((3, 4), {"k": 1}), ((3, 4), {"k": 4}), ((3, 5), {"k": 2, "axis": 0}),
                ((2, 3, 4), {"k": 3, "axis": 1, "keepdim": True}), ((6,), {"k": 5}))
_KTH_INT = fixed(Sample((T(np.array([[3, 1, 7, 2], [0, -4, 6, 9]])),), {"k": 2}),
                 Sample((T(np.array([[3, 1, 7, 2], [0, -4, 6, 9]])),), {"k": 1, "axis": 0}))
_DIFF = fixed(Sample((T(np.array([1.0, 4.0, 9.0, 16.0, 25.0])),)),
              Sample((T(np.array([1.0, 4.0, 9.0, 16.0, 25.0])),), {"n": 2}),
              Sample((T(np.arange(12.0).reshape(3, 4) ** 2),), {"axis": 0}),
              Sample((T(np.array([1.0, 4.0, 9.0])),), {"prepend": T(np.array([0.0])),
                                                        "append": T(np.array([20.0, 30.0]))}),
              Sample((T(np.arange(6.0).reshape(2, 3)),), {"axis": 0, "prepend": T(np.ones((1, 3)))}),
              Sample((T(np.array([1.0, 4.0, 9.0])),), {"n": 5}))

OPS = [
    OpCase("sum", "sum", _np_reduce(np.sum), _both(_RED, _SUM_DTYPES), ALL,
           errors=_REDUCTION_ERRORS + (Err((T(np.ones(())),), {"axis": 1}, exc=ValueError),)),
    OpCase("tensor_sum_method", "Tensor.sum", _np_reduce(np.sum), reduction(axes=(None, 1)), NUMERIC),
    OpCase("mean", "mean", _np_mean, _RED, NUMERIC, errors=_REDUCTION_ERRORS),
    OpCase("mean_dtype", "mean", lambda x, dtype: np.mean(x.astype(dtype)),
           fixed(Sample((T(np.array([1, 2, 4, 4])),), {"dtype": "float32"})), INTS, grad=False),
    OpCase("max", "max", _np_reduce(np.max), _RED, NUMERIC, errors=_REDUCTION_ERRORS + (_BOOL, _EMPTY)),
    OpCase("min", "min", _np_reduce(np.min), _RED, NUMERIC, errors=(_AXIS_OUT, _AXIS_DUP, _BOOL, _EMPTY)),
    OpCase("amax", "amax", _np_reduce(np.max), _RED, NUMERIC, errors=(_AXIS_OUT, _BOOL, _NOT_TENSOR)),
    OpCase("amin", "amin", _np_reduce(np.min), _RED, NUMERIC, errors=(_AXIS_OUT, _BOOL, _NOT_TENSOR)),
    # conformance=False: Paddle 3.3.1's amax/amin of an empty axis return uninitialised memory; we raise.
    OpCase("amax_empty", "amax", errors=(_EMPTY,), grad=False, conformance=False),
    OpCase("amin_empty", "amin", errors=(_EMPTY,), grad=False, conformance=False),
    OpCase("prod", "prod", _np_reduce(np.prod), _both(reduction(low=0.5, high=1.5),
                                                       _samples(((2, 3), {"axis": 1, "dtype": "float64"}))),
           NUMERIC, errors=(_AXIS_OUT, _AXIS_DUP, _BOOL, _NOT_TENSOR)),
    OpCase("all", "all", _np_reduce(np.all), reduction(low=0.0, high=1.0), ALL, grad=False,
           errors=(_AXIS_OUT, _AXIS_DUP, _NOT_TENSOR)),
    OpCase("any", "any", _np_reduce(np.any), reduction(low=0.0, high=1.0), ALL, grad=False,
           errors=(_AXIS_OUT, _AXIS_DUP, _NOT_TENSOR)),
    OpCase("logsumexp", "logsumexp",
           lambda x, axis=None, keepdim=False: np.log(np.sum(np.exp(x), axis=_axes(axis), keepdims=keepdim)),
           _RED, NUMERIC, errors=(_AXIS_OUT, _BOOL, _NOT_TENSOR)),
    OpCase("var", "var", _np_var,
           _both(_RED, _samples(((3, 4), {"axis": 1, "unbiased": False}), ((3, 4), {"axis": 0, "correction": 2}))),
           NUMERIC, errors=(_AXIS_OUT, _BOOL, Err((_X,), {"unbiased": False, "correction": 2}, exc=ValueError))),
    OpCase("std", "std", _np_std,
           _both(_RED, _samples(((3, 4), {"axis": 1, "unbiased": False}), ((4,), {"keepdim": True}))),
           NUMERIC, errors=(_AXIS_OUT, _BOOL, _NOT_TENSOR)),
    OpCase("median", "median", _np_median, _MEDIAN, NUMERIC,
           errors=(Err((_X,), {"axis": [0, 1]}, exc=ValueError), Err((_X,), {"mode": "max"}, exc=ValueError),
                   Err((_X,), {"axis": 3}, exc=ValueError), _NOT_TENSOR)),
    OpCase("median_min", "median", _np_median, _MEDIAN_MIN, FLOATS),
    OpCase("nanmedian", "nanmedian",
           lambda x, axis=None, keepdim=False: np.nanmedian(x, axis=_axes(axis), keepdims=keepdim),
           _with_nans(), FLOATS,
           errors=(Err((_X,), {"axis": 3}, exc=ValueError), Err((_X,), {"mode": "max"}, exc=ValueError),
                   _NOT_TENSOR)),
    OpCase("quantile", "quantile", _np_quantile(np.quantile), _QUANTILE, FLOATS,
           errors=(Err((_X, 1.5), exc=ValueError), Err((_X, 0.5), {"interpolation": "cubic"}, exc=ValueError),
                   Err((_X, 0.5), {"axis": 3}, exc=ValueError), Err((_X, []), exc=ValueError),
                   Err((T(np.arange(4)), 0.5), exc=RuntimeError))),
    OpCase("nanquantile", "nanquantile",
           lambda x, q, axis=None, keepdim=False: np.nanquantile(x, q, axis=_axes(axis), keepdims=keepdim),
           _both(_with_nans(axes=(None, 1), q=0.3), _with_nans(axes=(0, (1, 2)), q=[0.2, 0.6])), FLOATS,
           errors=(Err((_X, -0.1), exc=ValueError),)),
    OpCase("nanmean", "nanmean",
           lambda x, axis=None, keepdim=False: np.nanmean(x, axis=_axes(axis), keepdims=keepdim),
           _with_nans(), FLOATS, errors=(_AXIS_OUT, _NOT_TENSOR, _BOOL)),
    OpCase("nansum", "nansum", _np_reduce(np.nansum), _with_nans(), NUMERIC,
           errors=(_AXIS_OUT, _AXIS_TYPE, _NOT_TENSOR)),
    OpCase("count_nonzero", "count_nonzero", _np_reduce(np.count_nonzero), reduction(low=-1.0, high=1.0), ALL,
           grad=False, errors=(_AXIS_OUT, _AXIS_DUP, _NOT_TENSOR)),
    OpCase("numel", "numel", lambda x: np.asarray(x.size, dtype=np.int64),
           _samples(((3, 4), {}), ((), {}), ((0, 2), {})), ALL, grad=False,
           errors=(_NOT_TENSOR, Err((np.ones(3),), exc=ValueError))),
    OpCase("add_n", "add_n", lambda inputs: np.sum(np.stack(inputs), 0) if isinstance(inputs, list) else inputs,
           _add_n_samples, NUMERIC,
           errors=(Err(([T(np.ones((2, 3))), T(np.ones((3, 2)))],), exc=ValueError),
                   Err(([],), exc=ValueError),
                   Err(([T(np.ones((2, 3))), T(np.ones((2, 3)), dtype="float32")],), exc=ValueError))),
    OpCase("cumsum", "cumsum", _np_cumulative(np.cumsum),
           _both(_CUM, _samples(((3, 4), {"axis": 1, "dtype": "float64"}))), NUMERIC,
           errors=(Err((_X,), {"axis": 3}, exc=IndexError), _BOOL, Err((_X,), {"axis": [0]}, exc=TypeError),
                   _NOT_TENSOR)),
    OpCase("cumprod", "cumprod",
           lambda x, dim=None, dtype=None: _np_cumulative(np.cumprod)(x, dim, dtype),
           _samples(((3, 4), {"dim": 0}), ((3, 4), {"dim": -1}), ((2, 3, 4), {"dim": 1}), ((6,), {}),
                    ((2, 3), {"dim": 1, "dtype": "float64"})),
           NUMERIC, errors=(Err((_X,), {"dim": 3}, exc=ValueError), _BOOL, _NOT_TENSOR)),
    OpCase("logcumsumexp", "logcumsumexp", _np_cumulative(np.logaddexp.accumulate), _CUM, FLOATS,
           errors=(Err((_X,), {"axis": 3}, exc=IndexError), _BOOL, _NOT_TENSOR)),
    OpCase("cummax", "cummax", _np_cumextreme(lambda a, b: a > b),
           _both(_CUM, _samples(((3, 4), {"axis": 0, "dtype": "int32"}))), NUMERIC,
           errors=(Err((_X,), {"dtype": "float32"}, exc=ValueError), Err((_X,), {"axis": 3}, exc=IndexError),
                   _BOOL)),
    OpCase("cummin", "cummin", _np_cumextreme(lambda a, b: a < b), _CUM, NUMERIC,
           errors=(Err((_X,), {"axis": -4}, exc=IndexError), _BOOL, _NOT_TENSOR)),
    OpCase("diff", "diff", _np_diff, _DIFF, NUMERIC,
           errors=(Err((_X,), {"axis": 3}, exc=IndexError), Err((T(np.ones(())),), exc=IndexError),
                   Err((T(np.ones(3)),), {"prepend": 1.0}, exc=ValueError),
                   Err((_X,), {"prepend": T(np.ones(5))}, exc=ValueError))),
    OpCase("diff_bool", "diff", lambda x: np.diff(x), fixed(Sample((T(np.array([True, False, False, True])),))),
           ("bool",), grad=False),
    OpCase("kthvalue", "kthvalue", _np_kthvalue, _KTH, FLOATS,
           errors=(Err((_X, 0), exc=ValueError), Err((_X, 5), exc=ValueError),
                   Err((_X, 1), {"axis": 3}, exc=ValueError), Err(([1.0, 2.0], 1), exc=ValueError))),
    OpCase("kthvalue_int", "kthvalue", _np_kthvalue, _KTH_INT, INTS, grad=False),
    # grad=False: a mode is a tied value, so finite differences jump between the tied elements
    OpCase("mode", "mode", _np_mode, _MODE_DATA, NUMERIC, grad=False,
           errors=(Err((_X,), {"axis": 3}, exc=ValueError), _BOOL, _NOT_TENSOR)),
    OpCase("histogram", "histogram", _np_histogram, _HIST, NUMERIC, grad=False,
           errors=(Err((T(np.ones(4)),), {"bins": 0}, exc=ValueError),
                   Err((T(np.ones(4)),), {"bins": 2, "min": 3, "max": 1}, exc=ValueError),
                   Err((T(np.ones(4)),), {"bins": 2.5}, exc=TypeError),
                   Err((T(np.ones(4)),), {"weight": T(np.ones(3))}, exc=ValueError))),
    OpCase("histogram_weight", "histogram", _np_histogram, _HIST_WEIGHT, FLOATS, grad=False,
           rtol=1e-5, atol=1e-6),
]
