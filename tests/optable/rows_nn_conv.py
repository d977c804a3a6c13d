"""Rows for nn.functional convolutions: conv1d/2d/3d and their transposes, with NumPy references that follow
Paddle's padding rules (SAME resets the dilation to 1; asymmetric padding; pairs incl. batch/channel)."""
import numpy as np

from .core import Err, OpCase, Sample, T

_DEFAULT_FORMAT = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


def tup(v, n):
    return [int(v)] * n if np.ndim(v) == 0 else [int(a) for a in v]


def np_pairs(padding, in_sizes, ksize, stride, dilation, channel_last):
    """Paddle's padding forms -> ([(before, after)] per spatial dim, dilation)."""
    nd = len(ksize)
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [(0, 0)] * nd, dilation
        pairs = []
        for i in range(nd):
            out = -(-in_sizes[i] // stride[i])
            total = max((out - 1) * stride[i] + ksize[i] - in_sizes[i], 0)
            pairs.append((total // 2, total - total // 2))
        return pairs, [1] * nd
    if np.ndim(padding) == 0:
        return [(int(padding), int(padding))] * nd, dilation
    padding = list(padding)
    if len(padding) == nd + 2 and np.ndim(padding[0]) == 1:
        inner = padding[1:-1] if channel_last else padding[2:]
        return [tuple(p) for p in inner], dilation
    if len(padding) == 2 * nd:
        return [(padding[2 * i], padding[2 * i + 1]) for i in range(nd)], dilation
    return [(p, p) for p in padding], dilation


def windows(x, ksize, stride, dilation):
    """x [N, C, *S] (already padded) -> [N, C, *out, *k] sliding windows."""
    nd = len(ksize)
    extent = [d * (k - 1) + 1 for k, d in zip(ksize, dilation)]
    w = np.lib.stride_tricks.sliding_window_view(x, extent, axis=tuple(range(2, 2 + nd)))
    pos = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)
    win = tuple(slice(None, None, d) for d in dilation)
    return w[pos + win]


def np_conv(x, w, stride, pairs, dilation, groups):
    nd = w.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + list(pairs))
    win = windows(xp, w.shape[2:], stride, dilation)          # N, C, *o, *k
    n, c = win.shape[:2]
    out_sp = win.shape[2:2 + nd]
    win = win.reshape((n, groups, c // groups) + out_sp + tuple(w.shape[2:]))
    wg = w.reshape((groups, w.shape[0] // groups) + w.shape[1:])
    letters = "defghi"[:nd]
    kl = "pqrstu"[:nd]
    out = np.einsum(f"ngc{letters}{kl},goc{kl}->ngo{letters}", win, wg)
    return out.reshape((n, w.shape[0]) + out_sp)


def np_conv_transpose(x, w, stride, pairs, dilation, groups, extra):
    """Scatter form: out[i*s + j*d] += x[i] * w[j]; then crop the padding and add output_padding."""
    nd = w.ndim - 2
    n, c = x.shape[:2]
    in_sp, ks = x.shape[2:], w.shape[2:]
    full = [(i - 1) * s + d * (k - 1) + 1 for i, s, d, k in zip(in_sp, stride, dilation, ks)]
    cg, og = c // groups, w.shape[1]
    out = np.zeros((n, og * groups) + tuple(f + e for f, e in zip(full, extra)))
    for g in range(groups):
        xg = x[:, g * cg:(g + 1) * cg]
        wg = w[g * cg:(g + 1) * cg]
        for kidx in np.ndindex(*ks):
            contrib = np.einsum("nc...,co->no...", xg, wg[(slice(None), slice(None)) + kidx])
            sl = tuple(slice(kk * d, kk * d + (i - 1) * s + 1, s)
                       for kk, d, i, s in zip(kidx, dilation, in_sp, stride))
            out[(slice(None), slice(g * og, (g + 1) * og)) + sl] += contrib
    crop = tuple(slice(lo, f + e - hi) for (lo, hi), f, e in zip(pairs, full, extra))
    return out[(slice(None), slice(None)) + crop]


def _bias_shape(nd, channel_last):
    return (1,) * (nd + 1) + (-1,) if channel_last else (1, -1) + (1,) * nd


def ref_conv(nd):
    def ref(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format=_DEFAULT_FORMAT[nd]):
        last = data_format.endswith("C")
        if last:
            x = np.moveaxis(x, -1, 1)
        stride, dilation = tup(stride, nd), tup(dilation, nd)
        pairs, dilation = np_pairs(padding, x.shape[2:], weight.shape[2:], stride, dilation, last)
        out = np_conv(x, weight, stride, pairs, dilation, groups)
        if last:
            out = np.moveaxis(out, 1, -1)
        return out if bias is None else out + bias.reshape(_bias_shape(nd, last))
    return ref


def ref_conv_transpose(nd):
    def ref(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
            output_size=None, data_format=_DEFAULT_FORMAT[nd]):
        last = data_format.endswith("C")
        if last:
            x = np.moveaxis(x, -1, 1)
        stride, dilation = tup(stride, nd), tup(dilation, nd)
        pairs, dilation = np_pairs(padding, x.shape[2:], weight.shape[2:], stride, dilation, last)
        base = [(i - 1) * s + d * (k - 1) + 1 - lo - hi for i, s, d, k, (lo, hi)
                in zip(x.shape[2:], stride, dilation, weight.shape[2:], pairs)]
        extra = ([o - b for o, b in zip(tup(output_size, nd), base)] if output_size is not None
                 else tup(output_padding, nd))
        out = np_conv_transpose(x, weight, stride, pairs, dilation, groups, extra)
        if last:
            out = np.moveaxis(out, 1, -1)
        return out if bias is None else out + bias.reshape(_bias_shape(nd, last))
    return ref


def _r(rng, *shape):
    return rng.uniform(-1.0, 1.0, size=shape)


def _conv2d_samples(rng, dtype):
    x = lambda *s: T(_r(rng, *s))  # noqa: E731
    return [
        Sample((x(2, 3, 5, 5), x(4, 3, 3, 3), x(4))),
        Sample((x(1, 2, 6, 5), x(3, 2, 3, 2)), dict(stride=2, padding=1)),
        Sample((x(1, 2, 7, 6), x(3, 2, 3, 3)), dict(stride=2, dilation=2, padding="SAME")),
        Sample((x(1, 2, 7, 6), x(3, 2, 3, 3)), dict(stride=(2, 1), padding="same")),
        Sample((x(1, 2, 5, 6), x(3, 2, 2, 3)), dict(padding="VALID", dilation=(2, 1))),
        Sample((x(1, 4, 5, 5), x(6, 2, 3, 3), x(6)), dict(groups=2, padding=[1, 2, 0, 1])),
        Sample((x(1, 3, 5, 5), x(6, 1, 3, 3)), dict(groups=3, padding=[[0, 0], [0, 0], [1, 1], [2, 0]])),
        Sample((x(1, 5, 4, 3), x(4, 3, 2, 2), x(4)), dict(padding=1, data_format="NHWC")),
        Sample((x(1, 5, 4, 4), x(4, 1, 3, 3)), dict(groups=4, padding=[[0, 0], [1, 0], [0, 1], [0, 0]],
                                                    data_format="NHWC")),
    ]


def _conv1d_samples(rng, dtype):
    x = lambda *s: T(_r(rng, *s))  # noqa: E731
    return [
        Sample((x(2, 3, 7), x(4, 3, 3), x(4)), dict(padding=1)),
        Sample((x(1, 2, 8), x(3, 2, 3)), dict(stride=2, padding="SAME", dilation=2)),
        Sample((x(1, 4, 7), x(4, 2, 2)), dict(groups=2, padding=[1, 2], dilation=2)),
        Sample((x(1, 7, 3), x(4, 3, 3)), dict(data_format="NLC", padding=[[0, 0], [2, 1], [0, 0]])),
        Sample((x(1, 3, 6), x(3, 1, 3)), dict(groups=3, padding="valid", stride=2)),
    ]


def _conv3d_samples(rng, dtype):
    x = lambda *s: T(_r(rng, *s))  # noqa: E731
    return [
        Sample((x(1, 2, 4, 4, 3), x(3, 2, 2, 2, 2), x(3)), dict(padding=1)),
        Sample((x(1, 2, 5, 4, 4), x(2, 1, 3, 3, 2)), dict(groups=2, stride=2, padding="SAME")),
        Sample((x(1, 4, 4, 3, 2), x(2, 2, 2, 2, 1)), dict(padding=[1, 0, 0, 1, 1, 1], data_format="NDHWC")),
        Sample((x(1, 2, 5, 5, 4), x(2, 2, 2, 2, 2)), dict(dilation=2, stride=(1, 2, 1))),
    ]


def _conv2d_t_samples(rng, dtype):
    x = lambda *s: T(_r(rng, *s))  # noqa: E731
    return [
        Sample((x(2, 3, 4, 4), x(3, 2, 3, 3), x(2))),
        Sample((x(1, 2, 3, 4), x(2, 3, 3, 2)), dict(stride=2, padding=1, output_padding=1)),
        Sample((x(1, 2, 3, 3), x(2, 3, 3, 3)), dict(stride=2, output_size=[8, 7])),
        Sample((x(1, 4, 3, 3), x(4, 1, 2, 2), x(2)), dict(groups=2, stride=2, dilation=2)),
        Sample((x(1, 2, 4, 3), x(2, 2, 3, 3)), dict(stride=3, padding="SAME")),
        Sample((x(1, 2, 4, 3), x(2, 2, 3, 3)), dict(stride=2, padding="VALID", dilation=2)),
        Sample((x(1, 2, 3, 3), x(2, 3, 3, 3)), dict(stride=2, padding=[1, 0, 2, 0], output_padding=1)),
        Sample((x(1, 3, 3, 2), x(2, 2, 2, 3), x(2)), dict(stride=2, padding=[[0, 0], [1, 0], [0, 1], [0, 0]],
                                                        data_format="NHWC")),
        Sample((x(1, 3, 3, 3), x(3, 1, 3, 3)), dict(groups=3, padding=1)),
    ]


def _conv1d_t_samples(rng, dtype):
    x = lambda *s: T(_r(rng, *s))  # noqa: E731
    return [
        Sample((x(2, 3, 4), x(3, 2, 3), x(2)), dict(stride=2, output_padding=1)),
        Sample((x(1, 2, 5), x(2, 3, 3)), dict(stride=2, padding=[2, 0])),
        Sample((x(1, 4, 2), x(2, 3, 3)), dict(data_format="NLC", stride=3, output_size=13)),
        Sample((x(1, 4, 4), x(4, 1, 2)), dict(groups=2, dilation=2, padding="SAME")),
    ]


def _conv3d_t_samples(rng, dtype):
    x = lambda *s: T(_r(rng, *s))  # noqa: E731
    return [
        Sample((x(1, 2, 2, 3, 2), x(2, 2, 2, 2, 2), x(2)), dict(stride=2, output_padding=[1, 0, 1])),
        Sample((x(1, 2, 3, 2, 2), x(2, 1, 3, 2, 2)), dict(groups=2, padding=[1, 0, 0, 1, 1, 0])),
        Sample((x(1, 2, 2, 3, 2), x(2, 2, 2, 2, 2)), dict(stride=2, padding="SAME", data_format="NDHWC")),
    ]


_X4, _W4 = T(np.ones((1, 2, 5, 5))), T(np.ones((3, 2, 3, 3)))
_CONV2D_ERRORS = (
    Err((_X4, T(np.ones((3, 4, 3, 3)))), note="input channels do not match weight"),
    Err((T(np.ones((2, 5, 5))), _W4), note="3-D input"),
    Err((_X4, _W4), dict(padding="FULL"), note="unknown padding string"),
    Err((_X4, _W4), dict(stride=-1), note="negative stride"),
    Err((_X4, _W4), dict(stride=0), note="zero stride"),
    Err((_X4, _W4), dict(groups=3), note="channels not divisible by groups"),
    Err((_X4, _W4), dict(padding=[1, 2, 0]), note="3 paddings for 2 spatial dims"),
    Err((_X4, _W4), dict(padding=-1), note="negative padding"),
    Err((_X4, _W4), dict(padding=[[1, 0], [0, 0], [1, 2], [0, 1]]), note="padding the batch dim"),
    Err((_X4, _W4), dict(data_format="NCL"), note="1-D format for conv2d"),
    Err((_X4, _W4, T(np.ones(4))), note="bias size differs from out channels"),
    Err((_X4, T(np.ones((3, 2, 3)))), note="weight rank differs"),
    Err((_X4, _W4), dict(dilation=0), note="zero dilation"),
    Err((_X4, _W4), dict(stride=1.5), note="float stride"),
    Err((T(np.ones((1, 2, 5, 5)), dtype="int32"), T(np.ones((3, 2, 3, 3)), dtype="int32")), exc=RuntimeError,
        note="no integer kernel"),
)
_X3, _W3 = T(np.ones((1, 2, 6))), T(np.ones((3, 2, 3)))
_CONV1D_ERRORS = (
    Err((_X3, T(np.ones((3, 3, 3)))), note="input channels do not match weight"),
    Err((T(np.ones((1, 2, 6, 6))), _W3), note="4-D input"),
    Err((_X3, _W3), dict(padding="HALF"), note="unknown padding string"),
    Err((_X3, _W3), dict(stride=-2), note="negative stride"),
    Err((_X3, _W3), dict(data_format="NCHW"), note="2-D format for conv1d"),
    Err((_X3, _W3), dict(groups=0), note="zero groups"),
)
_X5, _W5 = T(np.ones((1, 2, 4, 4, 4))), T(np.ones((2, 2, 2, 2, 2)))
_CONV3D_ERRORS = (
    Err((_X5, T(np.ones((2, 3, 2, 2, 2)))), note="input channels do not match weight"),
    Err((_X4, _W5), note="4-D input"),
    Err((_X5, _W5), dict(padding="bogus"), note="unknown padding string"),
    Err((_X5, _W5), dict(stride=[1, 1]), note="2 strides for 3 dims"),
    Err((_X5, _W5), dict(padding=[1, 1, 1, 1]), note="4 paddings for 3 dims"),
)
_WT4 = T(np.ones((2, 3, 3, 3)))
_CONV2D_T_ERRORS = (
    Err((T(np.ones((1, 2, 4, 4))), T(np.ones((3, 3, 3, 3)))),
        note="input channels do not match weight"),
    Err((T(np.ones((2, 4, 4))), _WT4), note="3-D input"),
    Err((T(np.ones((1, 2, 4, 4))), _WT4), dict(stride=1, output_padding=1), note="output_padding >= stride"),
    Err((T(np.ones((1, 2, 4, 4))), _WT4), dict(stride=2, output_size=[12, 12]), note="output_size too large"),
    Err((T(np.ones((1, 2, 4, 4))), _WT4), dict(stride=2, output_size=[8, 8]), note="output_size too small"),
    Err((T(np.ones((1, 2, 4, 4))), _WT4), dict(stride=2, output_size=[10, 10], output_padding=1),
        note="output_size with output_padding"),
    Err((T(np.ones((1, 2, 4, 4))), _WT4), dict(groups=3), note="channels not divisible by groups"),
    Err((T(np.ones((1, 2, 4, 4))), _WT4), dict(stride=-1), note="negative stride"),
    Err((T(np.ones((1, 2, 4, 4))), _WT4), dict(padding="HALF"), note="unknown padding string"),
)
_CONV1D_T_ERRORS = (
    Err((T(np.ones((1, 2, 4))), T(np.ones((3, 3, 3)))), note="input channels do not match weight"),
    Err((T(np.ones((1, 2, 4, 4))), T(np.ones((2, 3, 3)))), note="4-D input"),
    Err((T(np.ones((1, 2, 4))), T(np.ones((2, 3, 3)))), dict(stride=2, output_padding=2),
        note="output_padding >= stride"),
    Err((T(np.ones((1, 2, 4))), T(np.ones((2, 3, 3)))), dict(data_format="NHWC"), note="2-D format"),
)
_CONV3D_T_ERRORS = (
    Err((_X5, T(np.ones((3, 2, 2, 2, 2)))), note="input channels do not match weight"),
    Err((_X4, _W5), note="4-D input"),
    Err((_X5, _W5), dict(stride=0), note="zero stride"),
    Err((_X5, _W5), dict(padding=[[0, 0], [0, 1], [0, 0], [0, 0], [0, 0]]), note="padding the channel dim"),
)

# Paddle runs these without complaint and returns tensors with -1 or 0 dims (or uninitialised memory); we
# raise instead, so they live in rows that skip the conformance tier.
_OVERSIZE = (
    Err((T(np.ones((1, 2, 2, 2))), T(np.ones((3, 2, 3, 3)))), note="kernel larger than the input"),
    Err((T(np.ones((1, 2, 5, 5))), T(np.ones((3, 2, 7, 7)))), dict(padding=0), note="kernel larger than input"),
    Err((T(np.ones((1, 2, 5, 5))), T(np.ones((3, 2, 3, 3)))), dict(dilation=3), note="dilated kernel too large"),
)
_OVERSIZE_T = (
    Err((T(np.ones((1, 2, 3, 3))), T(np.ones((2, 3, 3, 3)))), dict(padding=4), note="padding eats the output"),
)

OPS = [
    OpCase("F_conv2d", "nn.functional.conv2d", ref_conv(2), _conv2d_samples, errors=_CONV2D_ERRORS,
           rtol=1e-4, atol=1e-5),
    OpCase("F_conv1d", "nn.functional.conv1d", ref_conv(1), _conv1d_samples, errors=_CONV1D_ERRORS,
           rtol=1e-4, atol=1e-5),
    OpCase("F_conv3d", "nn.functional.conv3d", ref_conv(3), _conv3d_samples, errors=_CONV3D_ERRORS,
           rtol=1e-4, atol=1e-5),
    OpCase("F_conv2d_transpose", "nn.functional.conv2d_transpose", ref_conv_transpose(2), _conv2d_t_samples,
           errors=_CONV2D_T_ERRORS, rtol=1e-4, atol=1e-5),
    OpCase("F_conv1d_transpose", "nn.functional.conv1d_transpose", ref_conv_transpose(1), _conv1d_t_samples,
           errors=_CONV1D_T_ERRORS, rtol=1e-4, atol=1e-5),
    OpCase("F_conv3d_transpose", "nn.functional.conv3d_transpose", ref_conv_transpose(3), _conv3d_t_samples,
           errors=_CONV3D_T_ERRORS, rtol=1e-4, atol=1e-5),
    OpCase("F_conv2d_oversize", "nn.functional.conv2d", errors=_OVERSIZE, grad=False, conformance=False),
    OpCase("F_conv2d_transpose_oversize", "nn.functional.conv2d_transpose", errors=_OVERSIZE_T, grad=False,
           conformance=False),
]
