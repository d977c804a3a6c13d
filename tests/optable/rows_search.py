"""Rows for search and sort: argmax/argmin, argsort/sort, topk, nonzero, where, searchsorted, bucketize.

Paddle's unstable sort and its top-k order ties in an unspecified way, so rows that rely on the order of
equal values use stable=True or data without ties.
"""
import numpy as np

from .core import ALL, FLOATS, INTS, NUMERIC, Err, OpCase, Sample, T, data, fixed

_NAN = float("nan")


def _unique(rng, shape, dtype):
    """Data without ties: continuous floats, or a permutation for integers."""
    if dtype.startswith("int"):
        return (rng.permutation(int(np.prod(shape))) - 10).reshape(shape).astype(np.int64)
    return rng.uniform(-2, 2, size=shape)


def _index_dtype(out, dtype="int64"):
    return np.asarray(out).astype(np.dtype(str(dtype).replace("paddle.", "")))


# -- NumPy references -----------------------------------------------------------------------------------------

def _arg_reduce(fn, nanfn):
    def ref(x, axis=None, keepdim=False, dtype="int64"):
        f = nanfn if x.dtype.kind == "f" and np.isnan(x).any() else fn
        return _index_dtype(f(x, axis=axis, keepdims=keepdim), dtype)
    return ref


def _argsort(x, axis=-1, descending=False, stable=False):
    if x.ndim == 0:
        return np.array(0, dtype=np.int64)
    return np.argsort(-x if descending else x, axis=axis, kind="stable").astype(np.int64)


def _sort(x, axis=-1, descending=False, stable=False):
    if x.ndim == 0:
        return x
    out = np.sort(x, axis=axis)
    return np.flip(out, axis) if descending else out


def _topk(x, k, axis=None, largest=True, sorted=True):
    k = int(k)
    axis = -1 if axis is None else axis
    if x.ndim == 0:
        return x, np.array(0, dtype=np.int64)
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    index = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, index, axis), index.astype(np.int64)


def _nonzero(x, as_tuple=False):
    if as_tuple:
        return tuple(i.astype(np.int64) for i in np.nonzero(x))
    return np.argwhere(x).astype(np.int64)


def _where(condition, x=None, y=None):
    if x is None:
        return tuple(i.astype(np.int64) for i in np.nonzero(condition))
    return np.where(condition, x, y)


def _searchsorted(seq, values, out_int32=False, right=False, side=None, sorter=None):
    side = "right" if right or side == "right" else "left"
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter, -1)
    if seq.ndim == 1:
        out = np.searchsorted(seq, values, side=side)
    else:
        flat_seq, flat_values = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
        out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(flat_seq, flat_values)]).reshape(values.shape)
    return np.asarray(out).astype(np.int32 if out_int32 else np.int64)


def _bucketize(x, sorted_sequence, out_int32=False, right=False):
    return _searchsorted(sorted_sequence, x, out_int32, right)


# -- samples --------------------------------------------------------------------------------------------------

def _arg_samples(rng, dtype):
    out = [Sample((T(data(rng, (3, 4, 5), dtype)),), {"axis": axis, "keepdim": keep})
           for axis in (None, 0, -1, 1) for keep in (False, True)]
    out += [Sample((T(data(rng, (3, 4), dtype)),), {"axis": 1, "dtype": "int32"}),
            Sample((T(data(rng, (), dtype)),)), Sample((T(data(rng, (6,), dtype)),), {"axis": 0})]
    if dtype.startswith("float"):
        out.append(Sample((T(np.array([[1.0, _NAN, 3.0], [_NAN, 2.0, -1.0]])),), {"axis": 1}))
    return out


def _argsort_samples(rng, dtype):
    if dtype.startswith("int"):  # ties: only the stable order is defined
        return [Sample((T(data(rng, (4, 6), dtype)),), {"axis": axis, "descending": desc, "stable": True})
                for axis in (-1, 0) for desc in (False, True)]
    return [Sample((T(_unique(rng, (3, 4, 5), dtype)),), {"axis": axis, "descending": desc})
            for axis in (-1, 0, 1) for desc in (False, True)] + \
           [Sample((T(data(rng, (), dtype)),)),
            Sample((T(np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 2.0, 0.0])),), {"stable": True, "descending": True})]


def _sort_samples(rng, dtype):
    out = [Sample((T(data(rng, (3, 4, 5), dtype)),), {"axis": axis, "descending": desc})
           for axis in (-1, 0) for desc in (False, True)]
    if dtype.startswith("float"):
        out += [Sample((T(np.array([1.0, _NAN, 0.0, _NAN, -1.0]), grad=False),), {"descending": desc})
                for desc in (False, True)]
    return out


def _topk_samples(rng, dtype):
    out = [Sample((T(_unique(rng, (3, 4, 5), dtype)), k), {"axis": axis}) for k, axis in
           ((1, None), (2, None), (3, 0), (4, 1), (5, -1))]
    out += [Sample((T(_unique(rng, (3, 5), dtype)), 2), {"largest": False}),
            Sample((T(_unique(rng, (3, 5), dtype)), T(np.array(2), dtype="int64"))),
            Sample((T(_unique(rng, (6,), dtype)), 6)), Sample((T(data(rng, (), dtype)), 1))]
    return out


def _nonzero_samples(rng, dtype):
    return [Sample((T(data(rng, s, dtype, -1, 1)),), {"as_tuple": t}) for s in ((3, 4), (5,), (2, 3, 4))
            for t in (False, True)] + [Sample((T(np.zeros((2, 3))),))]


def _where_samples(rng, dtype):
    cond = lambda shape: T(rng.random(shape) > 0.5, dtype="bool")  # noqa: E731
    out = [Sample((cond((3, 4)), T(data(rng, (3, 4), dtype)), T(data(rng, (3, 4), dtype)))),
           Sample((cond((2, 3)), T(data(rng, (1, 3), dtype)), T(data(rng, (2, 1), dtype)))),
           Sample((cond((3,)), T(data(rng, (2, 3), dtype)), T(data(rng, (2, 3), dtype)))),
           Sample((cond((3, 4)),))]
    if dtype.startswith("float"):
        out.append(Sample((cond((3, 4)), T(data(rng, (3, 4), dtype)), 0.5)))
    if dtype == "int64":
        out.append(Sample((cond((3, 4)), 2, T(data(rng, (3, 4), dtype)))))
    return out


def _sorted(rng, shape, dtype):
    return np.sort(data(rng, shape, dtype, -5, 5), axis=-1)


def _searchsorted_samples(rng, dtype):
    seq = lambda *shape: T(_sorted(rng, shape, dtype))  # noqa: E731
    val = lambda *shape: T(data(rng, shape, dtype, -6, 6))  # noqa: E731
    return [Sample((seq(8), val(3, 4))), Sample((seq(8), val(3, 4)), {"right": True}),
            Sample((seq(8), val(5)), {"side": "right"}), Sample((seq(8), val(5)), {"out_int32": True}),
            Sample((seq(2, 6), val(2, 3))), Sample((seq(2, 3, 6), val(2, 3, 4)), {"right": True}),
            Sample((seq(8), T(data(rng, (), dtype, -6, 6)))),
            Sample((seq(8), T(np.array([-3, 0, 2, 7]), dtype="int64"))),
            Sample((T(np.array([5.0, 1.0, 3.0, 2.0])), T(np.array([2.5, 0.0, 4.0]))),
                   {"sorter": T(np.array([1, 3, 2, 0]), dtype="int64")})]


def _bucketize_samples(rng, dtype):
    seq = T(_sorted(rng, (7,), dtype))
    return [Sample((T(data(rng, (3, 4), dtype, -6, 6)), seq)), Sample((T(data(rng, (5,), dtype, -6, 6)), seq),
                                                                   {"right": True}),
            Sample((T(data(rng, (5,), dtype, -6, 6)), seq), {"out_int32": True}),
            Sample((T(data(rng, (), dtype, -6, 6)), seq))]


_BOOL = Err((T(np.array([True, False]), dtype="bool"),), exc=TypeError)
_X = T(np.arange(6.0).reshape(2, 3))

OPS = [
    OpCase("argmax", "argmax", _arg_reduce(np.argmax, np.nanargmax), _arg_samples, NUMERIC, grad=False,
           errors=(Err((_X,), {"axis": 2}), Err((_X,), {"axis": -3}), Err((_X,), {"axis": 0, "dtype": "float32"}),
                   Err((_X,), {"axis": [0]}, exc=TypeError), _BOOL)),
    OpCase("argmin", "argmin", _arg_reduce(np.argmin, np.nanargmin), _arg_samples, NUMERIC, grad=False,
           errors=(Err((_X,), {"axis": 2}), Err((_X,), {"axis": 0, "dtype": "float32"}), _BOOL)),
    OpCase("tensor_argmax", "Tensor.argmax", _arg_reduce(np.argmax, np.nanargmax),
           fixed(Sample((T(np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 7.0]])),), {"axis": 1})), NUMERIC, grad=False),
    OpCase("argsort", "argsort", _argsort, _argsort_samples, NUMERIC, grad=False,
           errors=(Err((_X,), {"axis": 2}), Err((_X,), {"axis": -3}), _BOOL)),
    OpCase("sort", "sort", _sort, _sort_samples, NUMERIC,
           errors=(Err((_X,), {"axis": 2}), Err((_X,), {"axis": -3}), _BOOL)),
    OpCase("tensor_sort", "Tensor.sort", _sort, fixed(Sample((T(np.array([[3.0, 1.0, 2.0]])),), {"descending": True})),
           FLOATS),
    OpCase("topk", "topk", _topk, _topk_samples, NUMERIC,
           errors=(Err((_X, 4)), Err((_X, 0)), Err((_X, -1)), Err((_X, 1), {"axis": 2}),
                   Err((T(np.array([True, False]), dtype="bool"), 1), exc=TypeError))),
    OpCase("topk_unsorted", "topk", _topk,
           lambda rng, d: [Sample((T(_unique(rng, (3, 20), d)), 6), {"sorted": False}),
                           Sample((T(_unique(rng, (20,), d)), 5), {"sorted": False, "largest": False})], NUMERIC,
           post=lambda a: np.sort(a, axis=-1)),
    OpCase("tensor_topk", "Tensor.topk", _topk, fixed(Sample((T(np.array([[3.0, 1.0, 2.0]])), 2))), FLOATS),
    OpCase("nonzero", "nonzero", _nonzero, _nonzero_samples, ALL, grad=False,
           errors=(Err((T(np.array(3.0)),)), Err((T(np.array(3.0)),), {"as_tuple": True}))),
    OpCase("where", "where", _where, _where_samples, NUMERIC,
           errors=(Err((_X, _X, _X)), Err((T(np.array([True, False]), dtype="bool"), T(np.ones(3)), T(np.ones(2)))),
                   Err((T(np.array([True, False]), dtype="bool"), T(np.ones(2)))),
                   Err((T(np.array([True, False]), dtype="bool"), T(np.ones(2), dtype="int32"),
                        T(np.ones(2), dtype="int64")), exc=TypeError),
                   Err((T(np.array([True, False]), dtype="bool"), 2, T(np.ones(2))), exc=TypeError),
                   Err((T(np.array([True, False]), dtype="bool"), T(np.ones(2)), "a"), exc=TypeError))),
    OpCase("where_inplace", "where_", np.where,
           lambda rng, d: [Sample((T(rng.random((3, 4)) > 0.5, dtype="bool"), T(data(rng, (3, 4), d)),
                                   T(data(rng, (3, 4), d))))], INTS, grad=False),
    # NOTE: when the result broadcasts beyond x, Paddle returns a new Tensor and leaves x alone; we raise.
    OpCase("where_inplace_broadcast", "where_", grad=False, conformance=False,
           errors=(Err((T(np.array([True, False]), dtype="bool"), T(np.ones(1), dtype="int64"),
                        T(np.ones(2), dtype="int64"))),)),
    OpCase("searchsorted", "searchsorted", _searchsorted, _searchsorted_samples, NUMERIC, grad=False,
           errors=(Err((T(np.array([[1.0, 3, 5], [2, 4, 6]])), T(np.array([[3.0], [3], [1]])))),
                   Err((T(np.array([[1.0, 3, 5], [2, 4, 6]])), T(np.array([3.0])))),
                   Err((T(np.array(4.0)), T(np.array([3.0])))),
                   Err((T(np.array([False, True]), dtype="bool"), T(np.array([True]), dtype="bool")), exc=TypeError))),
    OpCase("bucketize", "bucketize", _bucketize, _bucketize_samples, NUMERIC, grad=False,
           errors=(Err((T(np.array([3.0])), T(np.array([[1.0, 3], [4, 5]])))),
                   Err((T(np.array([True]), dtype="bool"), T(np.array([False, True]), dtype="bool")), exc=TypeError))),
    OpCase("tensor_bucketize", "Tensor.bucketize", _bucketize,
           fixed(Sample((T(np.array([[0.5, 3.0], [9.0, 1.0]])), T(np.array([1.0, 3.0, 5.0]))), {"right": True})),
           FLOATS + INTS, grad=False),
]
