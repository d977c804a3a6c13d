"""Rows for nn.functional pooling: avg/max pool 1d/2d/3d (padding forms, ceil_mode, exclusive, divisor_override,
return_mask) and the adaptive pools. The NumPy references loop over windows with Paddle's rules: output sizes
truncate toward zero, ceil_mode keeps windows that start in the padding, non-exclusive averages divide by the
window cut at input + leading padding, all-padding windows give lowest / -1 (max) and NaN (exclusive avg)."""
import math

import numpy as np

from .core import Err, OpCase, Sample, T
from .rows_nn_conv import np_pairs, tup

_FORMAT = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


def np_pool(x, kind, ksize, stride, pairs, ceil_mode, exclusive=True):
    """x [N, C, *S] -> (values, flat argmax per plane or None)."""
    sizes = x.shape[2:]
    out = []
    for n, k, s, (lo, hi) in zip(sizes, ksize, stride, pairs):
        span = n + lo + hi - k + (s - 1 if ceil_mode else 0)
        out.append(int(span / s) + 1)
    values = np.zeros(x.shape[:2] + tuple(out), dtype=x.dtype)
    index = np.zeros(x.shape[:2] + tuple(out), dtype=np.int32)
    lowest = np.finfo(np.float32).min       # Paddle starts max pooling from -FLT_MAX for every dtype
    for pos in np.ndindex(*out):
        starts = [p * s - lo for p, s, (lo, _) in zip(pos, stride, pairs)]
        # non-exclusive divisor: the window cut at input + leading padding (Paddle's rule)
        divisor = math.prod(min(a + k, n + lo) - a for a, k, n, (lo, _) in zip(starts, ksize, sizes, pairs))
        ends = [min(a + k, n) for a, k, n in zip(starts, ksize, sizes)]
        starts = [max(a, 0) for a in starts]
        box = tuple(slice(a, max(a, b)) for a, b in zip(starts, ends))
        win = x[(slice(None), slice(None)) + box]
        count = int(np.prod([b - a for a, b in zip(starts, ends)]))   # may be <= 0 for all-padding windows
        target = (slice(None), slice(None)) + pos
        if kind == "max":
            if any(b <= a for a, b in zip(starts, ends)):
                values[target], index[target] = lowest, -1
                continue
            flat = win.reshape(win.shape[:2] + (-1,))
            arg = flat.argmax(-1)
            values[target] = flat.max(-1)
            local = np.unravel_index(arg, win.shape[2:])
            index[target] = np.ravel_multi_index(tuple(a + c for a, c in zip(starts, local)), sizes)
        elif kind == "sum":
            values[target] = win.reshape(win.shape[:2] + (-1,)).sum(-1)
        else:
            total = win.reshape(win.shape[:2] + (-1,)).sum(-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                values[target] = total / (count if exclusive else divisor)
    return values, index


def _nchw(x, data_format):
    return np.moveaxis(x, -1, 1) if data_format.endswith("C") else x


def _back(x, data_format):
    return np.moveaxis(x, 1, -1) if data_format.endswith("C") else x


def ref_avg(nd):
    def ref(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
            data_format=_FORMAT[nd]):
        x = _nchw(x, data_format)
        k = tup(kernel_size, nd)
        s = k if stride is None else tup(stride, nd)
        pairs, _ = np_pairs(padding, x.shape[2:], k, s, [1] * nd, data_format.endswith("C"))
        out, _ = np_pool(x, "avg", k, s, pairs, ceil_mode, exclusive)
        if divisor_override is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                out = out * math.prod(k) / divisor_override
        return _back(out, data_format)
    return ref


def ref_avg1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False):
    return ref_avg(1)(x, kernel_size, stride, padding, ceil_mode, exclusive)


def ref_max(nd):
    def ref(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format=_FORMAT[nd]):
        x = _nchw(x, data_format)
        k = tup(kernel_size, nd)
        s = k if stride is None else tup(stride, nd)
        if return_mask and isinstance(padding, str):
            padding = 0      # Paddle's with-index op drops the SAME algorithm
        pairs, _ = np_pairs(padding, x.shape[2:], k, s, [1] * nd, data_format.endswith("C"))
        out, index = np_pool(x, "max", k, s, pairs, ceil_mode)
        return (out, index) if return_mask else _back(out, data_format)
    return ref


def np_adaptive(x, kind, out_sizes):
    sizes = x.shape[2:]
    values = np.zeros(x.shape[:2] + tuple(out_sizes), dtype=x.dtype)
    index = np.zeros(x.shape[:2] + tuple(out_sizes), dtype=np.int32)
    for pos in np.ndindex(*out_sizes):
        starts = [p * n // o for p, n, o in zip(pos, sizes, out_sizes)]
        ends = [-(-(p + 1) * n // o) for p, n, o in zip(pos, sizes, out_sizes)]
        win = x[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in zip(starts, ends))]
        flat = win.reshape(win.shape[:2] + (-1,))
        target = (slice(None), slice(None)) + pos
        if kind == "max":
            values[target] = flat.max(-1)
            local = np.unravel_index(flat.argmax(-1), win.shape[2:])
            index[target] = np.ravel_multi_index(tuple(a + c for a, c in zip(starts, local)), sizes)
        else:
            values[target] = flat.mean(-1)
    return values, index


def _sizes(output_size, in_sizes):
    if np.ndim(output_size) == 0:
        return [int(output_size)] * len(in_sizes)
    return [n if o is None else int(o) for o, n in zip(output_size, in_sizes)]


def ref_adaptive_avg(nd):
    def ref(x, output_size, data_format=_FORMAT[nd]):
        x = _nchw(x, data_format)
        return _back(np_adaptive(x, "avg", _sizes(output_size, x.shape[2:]))[0], data_format)
    return ref


def ref_adaptive_max(x, output_size, return_mask=False):
    out, index = np_adaptive(x, "max", _sizes(output_size, x.shape[2:]))
    return (out, index) if return_mask else out


def _r(rng, *shape):
    return T(rng.uniform(-2.0, 2.0, size=shape))


def _avg2d_samples(rng, dtype):
    return [
        Sample((_r(rng, 2, 3, 6, 6), 2)),
        Sample((_r(rng, 1, 2, 7, 6), 3), dict(stride=2, padding=1)),
        Sample((_r(rng, 1, 2, 7, 6), 3), dict(stride=2, padding=1, exclusive=False)),
        Sample((_r(rng, 1, 2, 7, 6), [3, 2]), dict(stride=[2, 1], padding="SAME")),
        Sample((_r(rng, 1, 2, 7, 7), 2), dict(stride=3, ceil_mode=True)),
        Sample((_r(rng, 1, 2, 6, 7), 3), dict(stride=2, padding=[1, 0, 2, 1], exclusive=False)),
        Sample((_r(rng, 1, 2, 5, 5), 3), dict(stride=1, padding=1, divisor_override=4)),
        Sample((_r(rng, 1, 5, 6, 2), 2), dict(stride=2, padding=[[0, 0], [1, 1], [0, 1], [0, 0]],
                                              data_format="NHWC")),
        Sample((_r(rng, 1, 2, 5, 5), 2), dict(padding="VALID", stride=1)),
    ]


def _avg1d_samples(rng, dtype):
    return [
        Sample((_r(rng, 2, 3, 8), 2)),
        Sample((_r(rng, 1, 2, 9), 3), dict(stride=2, padding=1, exclusive=False)),
        Sample((_r(rng, 1, 2, 9), 3), dict(stride=2, padding=[2, 1])),
        Sample((_r(rng, 1, 2, 8), 3), dict(stride=3, padding="SAME", ceil_mode=True)),
    ]


def _avg3d_samples(rng, dtype):
    return [
        Sample((_r(rng, 1, 2, 4, 4, 4), 2)),
        Sample((_r(rng, 1, 2, 5, 4, 3), 3), dict(stride=2, padding=1, exclusive=False)),
        Sample((_r(rng, 1, 4, 4, 3, 2), 2), dict(stride=[1, 2, 1], padding="SAME", data_format="NDHWC")),
        Sample((_r(rng, 1, 2, 4, 4, 4), 2), dict(stride=1, divisor_override=3)),
    ]


def _max2d_samples(rng, dtype):
    return [
        Sample((_r(rng, 2, 3, 6, 6), 2)),
        Sample((_r(rng, 1, 2, 7, 6), 3), dict(stride=2, padding=1)),
        Sample((_r(rng, 1, 2, 7, 6), 3), dict(stride=2, padding=1, return_mask=True)),
        Sample((_r(rng, 1, 2, 7, 6), [3, 2]), dict(stride=[2, 1], padding="SAME")),
        Sample((_r(rng, 1, 2, 7, 6), 3), dict(stride=2, padding="SAME", return_mask=True)),
        Sample((_r(rng, 1, 2, 7, 7), 2), dict(stride=3, ceil_mode=True, return_mask=True)),
        Sample((_r(rng, 1, 2, 6, 7), 3), dict(stride=2, padding=[1, 0, 2, 1])),
        Sample((_r(rng, 1, 5, 6, 2), 2), dict(stride=2, padding=1, data_format="NHWC")),
        Sample((_r(rng, 1, 2, 6, 6), 2), dict(stride=1, padding=[[0, 0], [0, 0], [1, 1], [0, 0]])),
    ]


def _max1d_samples(rng, dtype):
    return [
        Sample((_r(rng, 2, 3, 8), 2)),
        Sample((_r(rng, 1, 2, 9), 3), dict(stride=2, padding=1, return_mask=True)),
        Sample((_r(rng, 1, 2, 9), 3), dict(stride=2, padding=[2, 1])),
        Sample((_r(rng, 1, 2, 8), 3), dict(stride=3, ceil_mode=True, return_mask=True)),
    ]


def _max3d_samples(rng, dtype):
    return [
        Sample((_r(rng, 1, 2, 4, 4, 4), 2)),
        Sample((_r(rng, 1, 2, 5, 4, 3), 3), dict(stride=2, padding=1, return_mask=True)),
        Sample((_r(rng, 1, 4, 4, 3, 2), 2), dict(stride=[1, 2, 1], padding="SAME", data_format="NDHWC")),
        Sample((_r(rng, 1, 2, 5, 5, 4), 2), dict(stride=2, ceil_mode=True)),
    ]


def _edge_samples(kind):
    # Windows made only of padding: lowest / -1 for max, NaN or 0 for avg. No gradient check (NaN, 1e308).
    def make(rng, dtype):
        x = T(np.arange(1.0, 50.0).reshape(1, 1, 7, 7))
        out = [Sample((x, 2), dict(stride=2, padding=1, ceil_mode=True)),
               Sample((x, 2), dict(stride=2, padding=2)),
               Sample((x, 9)),          # kernel 2 wider than the input: one window (C++ truncation)
               Sample((x, [2, 12]), dict(stride=[1, 12], padding=[0, 1])),
               Sample((x, 3), dict(stride=4, padding=1, ceil_mode=True))]
        if kind == "max":
            out += [Sample((x, 2), dict(stride=2, padding=1, ceil_mode=True, return_mask=True)),
                    Sample((x, 2), dict(stride=2, padding=2, return_mask=True))]
        else:
            out += [Sample((x, 2), dict(stride=2, padding=1, ceil_mode=True, exclusive=False)),
                    Sample((x, [2, 12]), dict(stride=[1, 12], padding=[0, 1], exclusive=False)),
                    Sample((x, 3), dict(stride=2, padding=[0, 2, 1, 0], exclusive=False)),
                    Sample((x, [3, 4]), dict(stride=3, padding=[[0, 0], [0, 0], [1, 1], [0, 1]], ceil_mode=True,
                                             exclusive=False)),
                    Sample((T(np.ones((1, 1, 8, 5))), 3), dict(stride=3, padding="SAME", exclusive=False)),
                    Sample((x, 3), dict(padding=1, divisor_override=0)),
                    Sample((x, 1), dict(padding=2)),            # all-padding windows: 0, -0 or NaN
                    Sample((x, [1, 2]), dict(padding=[2, 0], ceil_mode=True))]
        return out
    return make


def _adaptive_samples(nd, kind):
    def make(rng, dtype):
        base = {1: (2, 3, 7), 2: (1, 2, 7, 5), 3: (1, 2, 5, 4, 3)}[nd]
        sizes = {1: [3, 7, 9, 1], 2: [3, [2, 4], [None, 2], 1], 3: [2, [1, 3, 2], [None, 2, 4]]}[nd]
        out = [Sample((_r(rng, *base), s)) for s in sizes]
        if kind == "max":
            out.append(Sample((_r(rng, *base), sizes[0]), dict(return_mask=True)))
        elif nd > 1:
            shape = base[:1] + base[2:] + base[1:2]
            out.append(Sample((_r(rng, *shape), sizes[1]), dict(data_format="NHWC" if nd == 2 else "NDHWC")))
        return out
    return make


_X4 = T(np.ones((1, 2, 6, 6)))
_POOL2D_ERRORS = (
    Err((T(np.ones((1, 6, 6))), 2), note="3-D input"),
    Err((_X4, 2), dict(padding="FULL"), note="unknown padding string"),
    Err((_X4, 2), dict(stride=-1), note="negative stride"),
    Err((_X4, -1), note="negative kernel"),
    Err((_X4, 0), note="zero kernel"),
    Err((_X4, [2, 2, 2]), note="3 kernel sizes for 2-D pooling"),
    Err((_X4, 2.5), note="float kernel"),
    Err((_X4, 2), dict(padding="VALID", ceil_mode=True), note="VALID with ceil_mode"),
    Err((_X4, 2), dict(padding=[1, 2, 3]), note="3 paddings"),
    Err((_X4, 2), dict(data_format="NCDHW"), note="3-D format"),
    Err((T(np.ones((1, 2, 4, 4)), dtype="int32"), 2), exc=RuntimeError, note="no integer kernel"),
)
_AVG2D_ERRORS = _POOL2D_ERRORS + (Err((_X4, 2), dict(divisor_override="2"), note="string divisor"),)
_MAX2D_ERRORS = _POOL2D_ERRORS + (
    Err((_X4, 3), dict(padding=[1, 0, 0, 1], return_mask=True), note="asymmetric padding with return_mask"),
    Err((_X4, 2), dict(return_mask=True, data_format="NHWC"), note="return_mask with NHWC"),
)
_X3 = T(np.ones((1, 2, 8)))
_POOL1D_ERRORS = (
    Err((T(np.ones((1, 2, 6, 6))), 2), note="4-D input"),
    Err((_X3, 2), dict(padding="bogus"), note="unknown padding string"),
    Err((_X3, 0), note="zero kernel"),
    Err((_X3, 2), dict(stride=[1, 1]), note="2 strides for 1-D pooling"),
    Err((_X3, 2), dict(padding=[1, 2, 3]), note="3 paddings"),
)
_X5 = T(np.ones((1, 2, 4, 4, 4)))
_POOL3D_ERRORS = (
    Err((_X4, 2), note="4-D input"),
    Err((_X5, 2), dict(padding="bogus"), note="unknown padding string"),
    Err((_X5, [2, 2]), note="2 kernel sizes for 3-D pooling"),
    Err((_X5, 2), dict(stride=0), note="zero stride"),
    Err((_X5, 2), dict(data_format="NCHW"), note="2-D format"),
)
_MAX3D_ERRORS = _POOL3D_ERRORS + (
    Err((_X5, 2), dict(return_mask=True, data_format="NDHWC"), note="return_mask with NDHWC"),)
_ADAPTIVE1D_ERRORS = (
    Err((T(np.ones((1, 2, 4, 4))), 2), note="4-D input"),
    Err((_X3, [2, 2]), note="2 output sizes"),
    Err((_X3, 2.5), note="float output size"),
)
_ADAPTIVE2D_ERRORS = (
    Err((T(np.ones((1, 2, 4))), 2), note="3-D input"),
    Err((_X4, [2, 2, 2]), note="3 output sizes"),
    Err((_X4, "2"), exc=IndexError, note="string output size"),
)
_ADAPTIVE3D_ERRORS = (
    Err((_X4, 2), note="4-D input"),
    Err((_X5, [2, 2]), exc=IndexError, note="2 output sizes"),
    Err((_X5, 2.5), exc=TypeError, note="float output size"),
)
_ADAPTIVE_AVG2D_ERRORS = _ADAPTIVE2D_ERRORS + (Err((_X4, 2), dict(data_format="NCL"), note="1-D format"),)

def _unpool_size(x, kernel_size, stride, padding, output_size, nd):
    k = tup(kernel_size, nd)
    s = k if stride is None else tup(stride, nd)
    p = tup(padding, nd)
    if output_size is not None:
        return list(output_size)[-nd:]
    return [(n - 1) * st + kk - 2 * pp for n, st, kk, pp in zip(x.shape[2:], s, k, p)]


def ref_unpool(nd):
    def ref(x, indices, kernel_size, stride=None, padding=0, data_format=_FORMAT[nd], output_size=None):
        size = _unpool_size(x, kernel_size, stride, padding, output_size, nd)
        out = np.zeros(x.shape[:2] + (math.prod(size),), dtype=x.dtype)
        flat_x, flat_i = x.reshape(x.shape[:2] + (-1,)), indices.reshape(x.shape[:2] + (-1,))
        for n, c in np.ndindex(*x.shape[:2]):
            out[n, c, flat_i[n, c]] = flat_x[n, c]
        return out.reshape(x.shape[:2] + tuple(size))
    return ref


def _unpool_indices(rng, in_sizes, kernel, out_sizes, batch=(1, 2)):
    """One position per window (windows of ``kernel`` at stride ``kernel``), as max pooling would give."""
    nd = len(kernel)
    idx = np.zeros(batch + tuple(in_sizes), dtype=np.int64)
    for pos in np.ndindex(*(batch + tuple(in_sizes))):
        coords = [pos[2 + d] * kernel[d] + int(rng.integers(0, kernel[d])) for d in range(nd)]
        idx[pos] = np.ravel_multi_index(coords, out_sizes)
    return T(idx, dtype="int32")


def _unpool_samples(nd):
    def make(rng, dtype):
        x = lambda *s: T(rng.uniform(-2, 2, size=s))  # noqa: E731
        if nd == 1:
            return [Sample((x(1, 2, 4), _unpool_indices(rng, [4], [2], [8]), 2)),
                    Sample((x(1, 2, 3), _unpool_indices(rng, [3], [3], [10]), 3), dict(output_size=[1, 2, 10]))]
        if nd == 2:
            return [Sample((x(1, 2, 2, 3), _unpool_indices(rng, [2, 3], [2, 2], [4, 6]), 2)),
                    Sample((x(1, 2, 2, 2), _unpool_indices(rng, [2, 2], [2, 2], [5, 5]), 2),
                           dict(output_size=[5, 5])),
                    Sample((x(1, 2, 3, 2), _unpool_indices(rng, [3, 2], [2, 3], [7, 6]), [2, 3]),
                           dict(stride=[2, 3], output_size=[1, 2, 7, 6]))]
        return [Sample((x(1, 2, 2, 1, 2), _unpool_indices(rng, [2, 1, 2], [2, 2, 2], [4, 2, 4]), 2)),
                Sample((x(1, 2, 1, 2, 2), _unpool_indices(rng, [1, 2, 2], [2, 2, 2], [3, 4, 5]), 2),
                       dict(output_size=[3, 4, 5]))]
    return make


_I2 = T(np.array([[[[0, 1], [4, 5]]]]), dtype="int32")
_UNPOOL2D_ERRORS = (
    Err((T(np.ones((1, 1, 2, 2))), T(np.array([[[[0, 1], [2, 99]]]]), dtype="int32"), 2), note="index past the end"),
    Err((T(np.ones((1, 1, 2, 2))), T(np.array([[[[0, 1, 2]]]]), dtype="int32"), 2), note="indices shape differs"),
    Err((T(np.ones((1, 1, 2, 2))), T(np.array([[[[0.0, 1], [4, 5]]]])), 2), note="float indices"),
    Err((T(np.ones((1, 1, 2, 2))), _I2, 2), dict(output_size=[7, 7]), note="output_size out of range"),
    Err((T(np.ones((1, 1, 2, 2))), _I2, 2), dict(data_format="NHWC"), note="channel-last format"),
    Err((T(np.ones((1, 2, 2))), _I2, 2), note="3-D x"),
    Err((T(np.ones((1, 1, 2, 2))), _I2, 2), dict(output_size=5), exc=AssertionError, note="int output_size"),
)
# Paddle corrupts its heap (and aborts) on a negative index; we raise.
_UNPOOL_NEGATIVE = (
    Err((T(np.ones((1, 1, 2, 2))), T(np.array([[[[0, 1], [2, -1]]]]), dtype="int32"), 2), note="negative index"),)
_UNPOOL1D_ERRORS = (
    Err((T(np.ones((1, 1, 2))), T(np.array([[[0, 9]]]), dtype="int32"), 2), note="index past the end"),
    Err((T(np.ones((1, 1, 2))), T(np.array([[[0, 2]]]), dtype="int32"), 2), dict(output_size=[4]),
        note="1-entry output_size (Paddle only takes [N, C, L])"),
    Err((T(np.ones((1, 1, 2))), T(np.array([[[0, 2]]]), dtype="int32"), 2), dict(data_format="NLC"),
        note="channel-last format"),
)
_UNPOOL3D_ERRORS = (
    Err((T(np.ones((1, 1, 1, 1, 2))), T(np.array([[[[[0, 99]]]]]), dtype="int32"), 2), note="index past the end"),
    Err((T(np.ones((1, 1, 2, 2))), _I2, 2), note="4-D x"),
    Err((T(np.ones((1, 1, 1, 1, 2))), T(np.array([[[[[0, 1]]]]]), dtype="int32"), 2), dict(data_format="NDHWC"),
        note="channel-last format"),
)


def ref_lp(nd):
    def ref(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format=_FORMAT[nd]):
        x = _nchw(x, data_format)
        k = tup(kernel_size, nd)
        s = k if stride is None else tup(stride, nd)
        pairs, _ = np_pairs(padding, x.shape[2:], k, s, [1] * nd, data_format.endswith("C"))
        if norm_type == float("inf"):
            return _back(np_pool(x, "max", k, s, pairs, ceil_mode)[0], data_format)
        with np.errstate(invalid="ignore"):
            out = np.power(np_pool(np.power(x, norm_type), "sum", k, s, pairs, ceil_mode)[0], 1.0 / norm_type)
        return _back(out, data_format)
    return ref


def _lp_samples(nd):
    def make(rng, dtype):
        # positive data keeps fractional roots real; one sample with signs shows Paddle's raw powers
        x = lambda *s: T(rng.uniform(0.5, 2.0, size=s))  # noqa: E731
        if nd == 1:
            return [Sample((x(2, 3, 7), 2, 2)), Sample((x(1, 2, 8), 3, 3), dict(stride=2, padding=1)),
                    Sample((x(1, 2, 7), 1.5, 2), dict(ceil_mode=True)),
                    Sample((x(1, 2, 7), float("inf"), 3), dict(stride=2, padding=[1, 0])),
                    Sample((x(1, 7, 2), 2, 3), dict(padding="SAME", stride=2, data_format="NLC")),
                    Sample((T(np.array([[[1.0, -2.0, 3.0, -4.0, 5.0, 6.0, -7.0]]]), grad=False), 3, 2))]
        return [Sample((x(1, 2, 5, 6), 2, 2)), Sample((x(1, 2, 6, 5), 3, [3, 2]), dict(stride=[2, 1], padding=1)),
                Sample((x(1, 2, 5, 5), 2.5, 2), dict(ceil_mode=True, padding=[1, 0, 0, 1])),
                Sample((x(1, 5, 4, 2), 2, 2), dict(data_format="NHWC", padding="SAME", stride=1)),
                Sample((x(1, 2, 4, 4), -1, 2))]
    return make


_LP_ERRORS = (
    Err((T(np.ones((1, 2, 4, 4))), 0, 2), note="norm_type 0"),
    Err((T(np.ones((1, 2, 4))), 2, 2), note="3-D input"),
    Err((T(np.ones((1, 2, 4, 4))), 2, 2), dict(padding="FULL"), note="unknown padding string"),
    Err((T(np.ones((1, 2, 4, 4))), 2, 2), dict(data_format="NCL"), note="1-D format"),
    Err((T(np.ones((1, 2, 4, 4))), 2, -1), note="negative kernel"),
)
_LP1D_ERRORS = (
    Err((T(np.ones((1, 2, 4))), 0, 2), note="norm_type 0"),
    Err((T(np.ones((1, 2, 4, 4))), 2, 2), note="4-D input"),
    Err((T(np.ones((1, 2, 4))), 2, 2), dict(data_format="NCHW"), note="2-D format"),
    Err((T(np.ones((1, 2, 4))), 2, [2, 2]), note="2 kernel sizes"),
)


def ref_zeropad2d(x, padding, data_format="NCHW"):
    from .rows_nn_vision import ref_pad
    return ref_pad(x, padding, "constant", 0.0, data_format)


_TOL = dict(rtol=1e-5, atol=1e-6)
OPS = [
    OpCase("F_avg_pool1d", "nn.functional.avg_pool1d", ref_avg1d, _avg1d_samples, errors=_POOL1D_ERRORS),
    OpCase("F_avg_pool2d", "nn.functional.avg_pool2d", ref_avg(2), _avg2d_samples, errors=_AVG2D_ERRORS),
    OpCase("F_avg_pool3d", "nn.functional.avg_pool3d", ref_avg(3), _avg3d_samples, errors=_POOL3D_ERRORS),
    OpCase("F_max_pool1d", "nn.functional.max_pool1d", ref_max(1), _max1d_samples, errors=_POOL1D_ERRORS),
    OpCase("F_max_pool2d", "nn.functional.max_pool2d", ref_max(2), _max2d_samples, errors=_MAX2D_ERRORS),
    OpCase("F_max_pool3d", "nn.functional.max_pool3d", ref_max(3), _max3d_samples, errors=_MAX3D_ERRORS),
    OpCase("F_avg_pool2d_edges", "nn.functional.avg_pool2d", ref_avg(2), _edge_samples("avg"), grad=False),
    OpCase("F_max_pool2d_edges", "nn.functional.max_pool2d", ref_max(2), _edge_samples("max"), grad=False),
    OpCase("F_adaptive_avg_pool1d", "nn.functional.adaptive_avg_pool1d", ref_adaptive_avg(1),
           _adaptive_samples(1, "avg"), errors=_ADAPTIVE1D_ERRORS),
    OpCase("F_adaptive_avg_pool2d", "nn.functional.adaptive_avg_pool2d", ref_adaptive_avg(2),
           _adaptive_samples(2, "avg"), errors=_ADAPTIVE_AVG2D_ERRORS),
    OpCase("F_adaptive_avg_pool3d", "nn.functional.adaptive_avg_pool3d", ref_adaptive_avg(3),
           _adaptive_samples(3, "avg"), errors=_ADAPTIVE3D_ERRORS),
    OpCase("F_adaptive_max_pool1d", "nn.functional.adaptive_max_pool1d", ref_adaptive_max,
           _adaptive_samples(1, "max"), errors=_ADAPTIVE1D_ERRORS),
    OpCase("F_adaptive_max_pool2d", "nn.functional.adaptive_max_pool2d", ref_adaptive_max,
           _adaptive_samples(2, "max"), errors=_ADAPTIVE2D_ERRORS),
    OpCase("F_adaptive_max_pool3d", "nn.functional.adaptive_max_pool3d", ref_adaptive_max,
           _adaptive_samples(3, "max"), errors=_ADAPTIVE3D_ERRORS),
    OpCase("F_max_unpool1d", "nn.functional.max_unpool1d", ref_unpool(1), _unpool_samples(1),
           errors=_UNPOOL1D_ERRORS),
    OpCase("F_max_unpool2d", "nn.functional.max_unpool2d", ref_unpool(2), _unpool_samples(2),
           errors=_UNPOOL2D_ERRORS),
    OpCase("F_max_unpool3d", "nn.functional.max_unpool3d", ref_unpool(3), _unpool_samples(3),
           errors=_UNPOOL3D_ERRORS),
    OpCase("F_max_unpool2d_negative", "nn.functional.max_unpool2d", errors=_UNPOOL_NEGATIVE, grad=False,
           conformance=False),
    OpCase("F_lp_pool1d", "nn.functional.lp_pool1d", ref_lp(1), _lp_samples(1), errors=_LP1D_ERRORS),
    OpCase("F_lp_pool2d", "nn.functional.lp_pool2d", ref_lp(2), _lp_samples(2), errors=_LP_ERRORS),
    OpCase("F_zeropad2d", "nn.functional.zeropad2d", ref_zeropad2d,
           lambda rng, dtype: [Sample((T(rng.uniform(-1, 1, (1, 2, 3, 4))), [1, 0, 2, 1])),
                               Sample((T(rng.uniform(-1, 1, (1, 3, 4, 2))), [0, 2, 1, 1]), dict(data_format="NHWC"))],
           errors=(Err((T(np.ones((1, 2, 3, 3))), [1, 1, 1, 1]), dict(data_format="NCL"), exc=AssertionError,
                       note="1-D format"),
                   Err((T(np.ones((1, 2, 3, 3))), [1, 1, 1, 1]), dict(data_format="NCDHW"), exc=AssertionError,
                       note="3-D format"),
                   Err((T(np.ones((1, 2, 3, 3))), [-1, 0, 0, 0, 0, 0, 0, 0]), note="negative full padding"))),
]
